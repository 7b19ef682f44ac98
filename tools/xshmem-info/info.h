// xshmem-info: what this installation is, which plugins it finds, every variable, and whether
// the machine is ready for a job. A single process that never joins a job (no bootstrap, no
// xshmem_init): it reads the core's plugin loader and configuration table directly.
#ifndef XSHMEM_TOOLS_INFO_H
#define XSHMEM_TOOLS_INFO_H

#include <cstdint>
#include <string>
#include <vector>

namespace xshmem::info {

// One pre-flight check: "pass|fail|skip <name>: <detail>".
struct Check {
  std::string status;  // "pass", "fail" or "skip"
  std::string name;    // "gpu-driver", "gpu-peer-access 0-1", "shm-space", ...
  std::string detail;  // what was found, or why it was skipped
};

struct CheckOptions {
  // Local PEs the /dev/shm check budgets XSHMEM_SYMMETRIC_SIZE for (--local-pes).
  int local_pes = 1;
};

// Runs every check, in a fixed order. Never fails itself: a check that cannot run is a skip.
std::vector<Check> run_checks(const CheckOptions &opts);

// "1.0 GiB", "512 MiB", "4096 B".
std::string human_bytes(uint64_t bytes);

}  // namespace xshmem::info

#endif  // XSHMEM_TOOLS_INFO_H
