/*
 * compat.addr: "no cost" by address. Every shmem_X and pshmem_X of <xshmem/compat_api.h> that is an
 * alias has the address of xshmem_X in this program (which links libxshmem), so a call through
 * <shmem.h> is a call of the implementation itself; the R entries (real functions) have
 * shmem_X == pshmem_X. The same holds for the definitions libxshmem exports (dlsym on its
 * handle, independent of how this executable takes addresses). One process, no init needed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <pshmem.h>
#include <shmem.h>
#include <xshmem/xshmem.h>

typedef void (*fn_t)(void);
static int checked, failed;

static void same(const char *what, fn_t a, fn_t b, int want_equal) {
  ++checked;
  if ((a == b) != want_equal && failed++ < 20)
    fprintf(stderr, "compat_addr: %s: %p and %p (expected %s)\n", what, (void *)(size_t)a,
            (void *)(size_t)b, want_equal ? "the same address" : "different addresses");
}

int main(void) {
  /* Every entry of the list, as this executable sees the addresses. */
#define XSHMEMI_API_NORETURN
#define XSHMEMI_API_A(ret, name, params)                              \
  same("shmem_" #name, (fn_t)&shmem_##name, (fn_t)&xshmem_##name, 1); \
  same("pshmem_" #name, (fn_t)&pshmem_##name, (fn_t)&xshmem_##name, 1);
#define XSHMEMI_API_AC XSHMEMI_API_A
#define XSHMEMI_API_R(ret, name, params) \
  same("shmem_" #name, (fn_t)&shmem_##name, (fn_t)&pshmem_##name, 1);
#include <xshmem/compat_api.h>
#undef XSHMEMI_API_R
#undef XSHMEMI_API_AC
#undef XSHMEMI_API_A
#undef XSHMEMI_API_NORETURN
  const int list_checks = checked;

  /* The definitions in libxshmem itself. */
  Dl_info info;
  if (dladdr((void *)(size_t)&xshmem_long_p, &info) == 0 || info.dli_fname == NULL) {
    fprintf(stderr, "compat_addr: dladdr(xshmem_long_p) failed\n");
    return 1;
  }
  void *lib = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (lib == NULL) {
    fprintf(stderr, "compat_addr: dlopen(%s): %s\n", info.dli_fname, dlerror());
    return 1;
  }
  static const char *const names[] = {"long_p",
                                      "long_put",
                                      "long_atomic_fetch_add",
                                      "uint64_atomic_fetch_xor_nbi",
                                      "putmem_signal_nbi",
                                      "ctx_int_put",
                                      "int_wait_until_all_vector",
                                      "double_sum_reduce",
                                      "team_split_strided",
                                      "barrier_all"};
  char name[128];
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    snprintf(name, sizeof name, "xshmem_%s", names[i]);
    void *impl = dlsym(lib, name);
    snprintf(name, sizeof name, "shmem_%s", names[i]);
    void *shmem = dlsym(lib, name);
    snprintf(name, sizeof name, "pshmem_%s", names[i]);
    void *pshmem = dlsym(lib, name);
    same(name, (fn_t)(size_t)shmem, (fn_t)(size_t)impl, 1);
    same(name, (fn_t)(size_t)pshmem, (fn_t)(size_t)impl, 1);
    same("not null", (fn_t)(size_t)impl, (fn_t)0, 0);
  }
  /* A real function is not xshmem_'s. */
  same("shmem_pe_quiet vs xshmem_pe_quiet", (fn_t)(size_t)dlsym(lib, "shmem_pe_quiet"),
       (fn_t)(size_t)dlsym(lib, "xshmem_pe_quiet"), 0);
  same("shmem_pe_quiet vs pshmem_pe_quiet", (fn_t)(size_t)dlsym(lib, "shmem_pe_quiet"),
       (fn_t)(size_t)dlsym(lib, "pshmem_pe_quiet"), 1);
  dlclose(lib);
  printf("compat_addr: %s: %d address comparisons (%d from the list), %d failed (%s)\n",
         failed ? "FAIL" : "ok", checked, list_checks, failed, info.dli_fname);
  return failed ? 1 : 0;
}
