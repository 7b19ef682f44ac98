// ERR-08 (init/finalize misuse) on CPU PEs: one scenario per run, chosen by argv[1]. These need
// control of init itself, so they do not use the Catch2 harness.
//   call_before_init, finalize_without_init, call_after_finalize, extra_finalize: the runtime must
//     print "xshmem: <call>: ..." and exit nonzero (checked by death_check.sh); returning is a
//     failure (exit 3).
//   init_twice: OpenSHMEM 1.6 allows init twice with a matching number of finalizes; exits 0 when
//     the runtime stays usable after both inits and is finalized after the second finalize.
#include <cstdio>
#include <cstring>

#include <xshmem/xshmem.h>

namespace {

int returned(const char *what) {
  std::fprintf(stderr, "conf_err_init: %s returned instead of stopping the process\n", what);
  return 3;
}

// One put around the ring and a check, on the data path.
bool ring_ok(long iter) {
  const int me = xshmem_my_pe(), n = xshmem_n_pes();
  auto *buf = static_cast<long *>(xshmem_malloc(sizeof(long)));
  if (!buf) return false;
  *buf = -1;
  xshmem_barrier_all();
  long v = 1000 * iter + me;
  xshmem_long_put(buf, &v, 1, (me + 1) % n);
  xshmem_barrier_all();
  bool ok = *buf == 1000 * iter + (me + n - 1) % n;
  xshmem_free(buf);
  return ok;
}

}  // namespace

int main(int argc, char **argv) {
  const char *s = argc > 1 ? argv[1] : "";
  if (!std::strcmp(s, "call_before_init")) {
    void *p = xshmem_malloc(64);
    (void)p;
    return returned("xshmem_malloc before xshmem_init");
  }
  if (!std::strcmp(s, "finalize_without_init")) {
    xshmem_finalize();
    return returned("xshmem_finalize without xshmem_init");
  }
  if (!std::strcmp(s, "call_after_finalize")) {
    xshmem_init();
    char *p = static_cast<char *>(xshmem_malloc(64));
    char src[8] = {1};
    xshmem_finalize();
    xshmem_putmem(p, src, 8, 0);
    return returned("xshmem_putmem after xshmem_finalize");
  }
  if (!std::strcmp(s, "extra_finalize")) {
    xshmem_init();
    xshmem_finalize();
    xshmem_finalize();
    return returned("a second xshmem_finalize after one xshmem_init");
  }
  if (!std::strcmp(s, "init_twice")) {
    int fails = 0;
    xshmem_init();
    xshmem_init();
    const int me = xshmem_my_pe();
    if (xshmem_query_initialized() != 1) {
      std::fprintf(stderr, "pe %d: query_initialized() != 1 after two inits\n", me);
      ++fails;
    }
    if (!ring_ok(1)) {
      std::fprintf(stderr, "pe %d: ring put failed after two inits\n", me);
      ++fails;
    }
    xshmem_finalize();
    // 1.6: a non-last finalize acts like barrier_all and the library stays usable (INIT-02).
    if (xshmem_query_initialized() != 1) {
      std::fprintf(stderr, "pe %d: query_initialized() != 1 after the first of two finalizes\n",
                   me);
      return 1;
    }
    if (!ring_ok(2)) {
      std::fprintf(stderr, "pe %d: ring put failed after the first finalize\n", me);
      ++fails;
    }
    xshmem_finalize();
    if (xshmem_query_initialized() != 0) {
      std::fprintf(stderr, "pe %d: query_initialized() != 0 after the last finalize\n", me);
      ++fails;
    }
    return fails ? 1 : 0;
  }
  std::fprintf(stderr,
               "usage: conf_err_init call_before_init|finalize_without_init|"
               "call_after_finalize|extra_finalize|init_twice\n");
  return 2;
}
