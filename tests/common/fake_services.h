// The one fake core-services table (xshmem_core_services_v1_t) of the tests that load a plugin
// without the core: tests/bootstrap/bootstrap_test.cc and tests/twonode/twonode_bootstrap.cc use
// it as it is; tests/unit/util.cc replaces its logging and configuration entries with the core's
// own (fake_services_table()) and keeps the rest.
//
// What the fake does:
//   - log: prints "[<prefix> pid <pid> <subsys>] <level>: <message> (<file>:<line>)" on stderr
//     and keeps the message for fake_logged()/fake_count_logged();
//   - log_enabled: levels up to fake_set_log_level() (warn unless XSHMEM_LOG_LEVEL is info or
//     debug when fake_services() first runs);
//   - config_register: keeps the entries; names outside the prefix the options require, entries
//     without a doc, and a name registered twice are test failures;
//   - config_get_string / config_get_int: the environment, else the registered default (INT,
//     BOOL, DURATION with s/ms/m units); reading a variable neither registered nor listed in
//     the core entries a plugin may read (XSHMEM_LIVENESS_TIMEOUT) is a test failure;
//   - job_info: the job before the bootstrap is up (my_pe -1, one channel, host heap);
//   - allgather, barrier, node_fd_exchange: XSHMEM_ERR_UNSUPPORTED;
//   - fatal: prints "[<prefix> <subsys>] fatal: <msg>" and _exit(code).
// A test failure calls the options' on_error (default: prints "FAIL: <message>", _exit(1)).
#ifndef XSHMEM_TESTS_COMMON_FAKE_SERVICES_H
#define XSHMEM_TESTS_COMMON_FAKE_SERVICES_H

#include <stddef.h>

#include <xshmem/plugin/services_v1.h>

namespace xt {

struct FakeServicesOptions {
  const char *prefix = "test";            // first word of the printed log lines
  const char *register_prefix = nullptr;  // if set, every registered name must start with it
  void (*on_error)(const char *message) = nullptr;  // must not return; nullptr: print, _exit(1)
};

// The fake table, with `options` applied (the first call's options hold; later calls return
// the same table). Valid for the whole process.
const xshmem_core_services_v1_t *fake_services(const FakeServicesOptions &options = {});

// A copy of the fake table to modify (tests/unit replaces log, log_enabled and the config
// entries with the core's own); the functions it points to are the fake's.
xshmem_core_services_v1_t fake_services_table();

// The level up to which log_enabled answers 1 (XSHMEM_LOG_ERROR .. XSHMEM_LOG_TRACE).
void fake_set_log_level(xshmem_log_level_t level);

// Whether some logged message contains `needle`; how many do.
bool fake_logged(const char *needle);
size_t fake_count_logged(const char *needle);

}  // namespace xt

#endif  // XSHMEM_TESTS_COMMON_FAKE_SERVICES_H
