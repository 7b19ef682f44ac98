// Entry point of every conformance binary: init, one Catch2 session per PE, finalize.
#define XSHMEM_CATCH_MAIN
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "harness.h"
#include "harness_internal.h"

int main(int argc, char **argv) {
  xshmem_init();
  xt::harness_start();

  // Every PE must walk the test cases in the same order with the same seed, so collectives match.
  std::vector<std::string> args(argv, argv + argc);
  bool has_seed = false;
  for (const auto &a : args)
    if (a == "--rng-seed" || a.rfind("--rng-seed=", 0) == 0) has_seed = true;
  args.push_back("--order");
  args.push_back("decl");
  if (!has_seed) {
    const char *seed = std::getenv("XT_RNG_SEED");
    args.push_back("--rng-seed");
    args.push_back(seed && *seed ? seed : "1");
  }
  std::vector<char *> cargv;
  for (auto &a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);

  Catch::Session session;
  int rc = session.applyCommandLine(static_cast<int>(args.size()), cargv.data());
  if (rc == 0) rc = session.run();

  xt::harness_print_skips();
  // Every PE reaches this point only if no PE stopped the job, so the barrier cannot hang on a
  // dead peer; it keeps a fast PE from finalizing while a slow one still prints.
  xt::oob_barrier();
  xt::harness_stop();
  xshmem_finalize();
  if (rc == 0 && xt::harness_all_skipped()) return 77;
  return rc;
}
