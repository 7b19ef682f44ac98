/*
 * compat.c.np<N>: an OpenSHMEM C11 program written against <shmem.h> only (compiled -std=c11
 * -Wall -Wextra -Werror): every family through the OpenSHMEM names, typed and type-generic, with
 * and without contexts. Data depends on (source PE, target PE, index); destinations are poisoned
 * first and guarded by poisoned words on both sides, which are checked too. Targets are symmetric
 * heap memory (shmem_malloc); compat_globals.c does the same on global arrays. Each PE exits
 * nonzero if one of its checks failed. Runs at any PE count >= 1 (CTest: 2 and 4).
 */
#include <shmem.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

enum { N = 16, G = 4 };

static int me, npes, right, left;

/* Small values that every type holds exactly (1..101); the poison (127) is never one. */
#define VAL(T, src, dst, i) ((T)((((src) + 1) * 13 + ((dst) + 1) * 5 + (i)*3) % 101 + 1))
#define POISON(T) ((T)127)

/* ---- Setup and query ------------------------------------------------------------------------ */
static void test_setup(void) {
  int major = -1, minor = -1, initialized = -1;
  char name[SHMEM_MAX_NAME_LEN];
  shmem_info_get_version(&major, &minor);
  CHECK_EQ(major, SHMEM_MAJOR_VERSION, "info_get_version major");
  CHECK_EQ(minor, SHMEM_MINOR_VERSION, "info_get_version minor");
  CHECK(major == 1 && minor >= 5, "version %d.%d", major, minor);
  shmem_info_get_name(name);
  CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0, "info_get_name '%s'", name);
  CHECK(strlen(_SHMEM_VENDOR_STRING) < _SHMEM_MAX_NAME_LEN, "vendor string length");
  shmem_query_initialized(&initialized);
  CHECK(initialized != 0, "query_initialized %d", initialized);
  int provided = -1;
  shmem_query_thread(&provided);
  CHECK(provided >= SHMEM_THREAD_SINGLE && provided <= SHMEM_THREAD_MULTIPLE, "thread %d",
        provided);
  CHECK_EQ(shmem_pe_accessible(right), 1, "pe_accessible(right)");
  CHECK_EQ(shmem_pe_accessible(npes), 0, "pe_accessible(npes)");
  CHECK(SHMEM_CMP_EQ != SHMEM_CMP_NE && _SHMEM_CMP_GE == SHMEM_CMP_GE, "cmp constants");
  CHECK(SHMEM_SYNC_SIZE >= SHMEM_BCAST_SYNC_SIZE && SHMEM_REDUCE_MIN_WRKDATA_SIZE > 0,
        "sync sizes");
  shmem_pcontrol(0);
  shmem_pcontrol(2, "flush");
  shmem_pcontrol(1);
}

/* ---- Memory management ---------------------------------------------------------------------- */
static void test_memory(void) {
  long *a = shmem_malloc(N * sizeof(long));
  long *z = shmem_calloc(N, sizeof(long));
  double *al = shmem_align(256, N * sizeof(double));
  long *h = shmem_malloc_with_hints(N * sizeof(long), SHMEM_MALLOC_ATOMICS_REMOTE);
  CHECK(a != NULL && z != NULL && al != NULL && h != NULL, "allocation failed");
  if (a == NULL || z == NULL || al == NULL || h == NULL) return;
  CHECK(((uintptr_t)al & 255) == 0, "shmem_align(256) gave %p", (void *)al);
  for (int i = 0; i < N; ++i) CHECK_EQ(z[i], 0, "calloc zero");
  CHECK(shmem_addr_accessible(a, right) == 1, "addr_accessible(heap, right)");
  long local = 0;
  CHECK(shmem_addr_accessible(&local, right) == 0, "addr_accessible(stack, right)");
  CHECK(shmem_ptr(a, me) == (void *)a, "shmem_ptr(a, me) %p, a %p", shmem_ptr(a, me), (void *)a);
  for (int i = 0; i < N; ++i) a[i] = VAL(long, me, me, i);
  long *b = shmem_realloc(a, 4 * N * sizeof(long));
  CHECK(b != NULL, "realloc failed");
  if (b != NULL) {
    for (int i = 0; i < N; ++i) CHECK_EQ(b[i], VAL(long, me, me, i), "realloc kept the data");
    a = b;
  }
  shmem_free(h);
  shmem_free(al);
  shmem_free(z);
  shmem_free(a);
  shmem_free(NULL);
}

/* A symmetric array of N elements between G poisoned words on each side (base: the allocation). */
#define GUARDED_ALLOC(T, base) \
  ((base) = (T *)shmem_malloc((N + 2 * G) * sizeof(T)), (base) ? (base) + G : NULL)
#define POISON_ALL(T, base)                                            \
  do {                                                                 \
    for (int pi_ = 0; pi_ < N + 2 * G; ++pi_) (base)[pi_] = POISON(T); \
  } while (0)
#define CHECK_GUARDS(T, base, what)                                  \
  do {                                                               \
    for (int gi_ = 0; gi_ < G; ++gi_) {                              \
      CHECK_EQ((base)[gi_], POISON(T), what " guard below");         \
      CHECK_EQ((base)[N + G + gi_], POISON(T), what " guard above"); \
    }                                                                \
  } while (0)

/* ---- RMA through the typed names (long, the sized and byte forms) ---------------------------- */
static void test_rma_typed(void) {
  long *base, *d = GUARDED_ALLOC(long, base);
  long s[N], l[N + 2 * G];
  CHECK(d != NULL, "malloc");
  if (d == NULL) return;
  for (int i = 0; i < N; ++i) s[i] = VAL(long, me, right, i);
  /* put, get */
  POISON_ALL(long, base);
  shmem_barrier_all();
  shmem_long_put(d, s, N, right);
  shmem_barrier_all();
  for (int i = 0; i < N; ++i) CHECK_EQ(d[i], VAL(long, left, me, i), "long_put");
  CHECK_GUARDS(long, base, "long_put");
  POISON_ALL(long, l);
  shmem_long_get(l + G, d, N, right);
  for (int i = 0; i < N; ++i) CHECK_EQ(l[G + i], VAL(long, me, right, i), "long_get");
  CHECK_GUARDS(long, l, "long_get");
  /* p, g */
  shmem_barrier_all();
  shmem_long_p(d + 3, VAL(long, me, right, 40), right);
  shmem_barrier_all();
  CHECK_EQ(d[3], VAL(long, left, me, 40), "long_p");
  CHECK_EQ(shmem_long_g(d + 4, right), VAL(long, me, right, 4), "long_g");
  /* iput (every second element), iget */
  shmem_barrier_all();
  POISON_ALL(long, base);
  shmem_barrier_all();
  shmem_long_iput(d, s, 2, 1, N / 2, right);
  shmem_barrier_all();
  for (int i = 0; i < N; ++i)
    CHECK_EQ(d[i], i % 2 ? POISON(long) : VAL(long, left, me, i / 2), "long_iput");
  CHECK_GUARDS(long, base, "long_iput");
  POISON_ALL(long, l);
  shmem_long_iget(l + G, d, 1, 2, N / 2, right);
  for (int i = 0; i < N; ++i)
    CHECK_EQ(l[G + i], i < N / 2 ? VAL(long, me, right, i) : POISON(long), "long_iget");
  /* put_nbi, get_nbi: complete at quiet */
  shmem_barrier_all();
  shmem_long_put_nbi(d, s, N, right);
  shmem_quiet();
  shmem_barrier_all();
  for (int i = 0; i < N; ++i) CHECK_EQ(d[i], VAL(long, left, me, i), "long_put_nbi");
  POISON_ALL(long, l);
  shmem_long_get_nbi(l + G, d, N, right);
  shmem_quiet();
  for (int i = 0; i < N; ++i) CHECK_EQ(l[G + i], VAL(long, me, right, i), "long_get_nbi");
  /* sized and byte forms: put64 of longs, get32 of their low halves (N ints), putmem */
  shmem_barrier_all();
  POISON_ALL(long, base);
  shmem_barrier_all();
  shmem_put64(d, s, N, right);
  shmem_barrier_all();
  for (int i = 0; i < N; ++i) CHECK_EQ(d[i], VAL(long, left, me, i), "put64");
  CHECK_GUARDS(long, base, "put64");
  POISON_ALL(long, l);
  shmem_getmem(l + G, d, N * sizeof(long), right);
  for (int i = 0; i < N; ++i) CHECK_EQ(l[G + i], VAL(long, me, right, i), "getmem");
  shmem_barrier_all();
  POISON_ALL(long, base);
  shmem_barrier_all();
  shmem_putmem_nbi(d, s, N * sizeof(long), right);
  shmem_iput64(d, s, 1, 1, 2, right); /* the same first two elements again */
  shmem_quiet();
  shmem_barrier_all();
  for (int i = 0; i < N; ++i) CHECK_EQ(d[i], VAL(long, left, me, i), "putmem_nbi");
  CHECK_GUARDS(long, base, "putmem_nbi");
  shmem_barrier_all();
  shmem_free(base);
}

/* ---- RMA through the type-generic names, every standard RMA type, plain and with a context ----
 */
#define TEST_RMA_GENERIC(T)                                                                     \
  do {                                                                                          \
    T *base, *d = GUARDED_ALLOC(T, base);                                                       \
    T s[N], l[N + 2 * G];                                                                       \
    CHECK(d != NULL, "malloc " #T);                                                             \
    if (d == NULL) break;                                                                       \
    for (int i = 0; i < N; ++i) s[i] = VAL(T, me, right, i);                                    \
    POISON_ALL(T, base);                                                                        \
    shmem_barrier_all();                                                                        \
    shmem_put(d, s, N, right);                                                                  \
    shmem_barrier_all();                                                                        \
    for (int i = 0; i < N; ++i) CHECK_EQ(d[i], VAL(T, left, me, i), "shmem_put " #T);           \
    CHECK_GUARDS(T, base, "shmem_put " #T);                                                     \
    POISON_ALL(T, l);                                                                           \
    shmem_get(SHMEM_CTX_DEFAULT, l + G, d, N, right);                                           \
    for (int i = 0; i < N; ++i) CHECK_EQ(l[G + i], VAL(T, me, right, i), "shmem_get(ctx) " #T); \
    CHECK_GUARDS(T, l, "shmem_get(ctx) " #T);                                                   \
    shmem_barrier_all();                                                                        \
    shmem_p(d + 1, VAL(T, me, right, 50), right);                                               \
    shmem_p(SHMEM_CTX_DEFAULT, d + 2, VAL(T, me, right, 51), right);                            \
    shmem_barrier_all();                                                                        \
    CHECK_EQ(d[1], VAL(T, left, me, 50), "shmem_p " #T);                                        \
    CHECK_EQ(d[2], VAL(T, left, me, 51), "shmem_p(ctx) " #T);                                   \
    CHECK_EQ(shmem_g(d + 3, right), VAL(T, me, right, 3), "shmem_g " #T);                       \
    CHECK_EQ(shmem_g(SHMEM_CTX_DEFAULT, (const T *)d + 4, right), VAL(T, me, right, 4),         \
             "shmem_g(ctx, const) " #T);                                                        \
    shmem_barrier_all();                                                                        \
    POISON_ALL(T, base);                                                                        \
    shmem_barrier_all();                                                                        \
    shmem_iput(d, s, 2, 1, N / 2, right);                                                       \
    shmem_iput(SHMEM_CTX_DEFAULT, d + 1, s + N / 2, 2, 1, N / 2, right);                        \
    shmem_barrier_all();                                                                        \
    for (int i = 0; i < N; ++i)                                                                 \
      CHECK_EQ(d[i], VAL(T, left, me, i / 2 + (i % 2) * (N / 2)), "shmem_iput " #T);            \
    CHECK_GUARDS(T, base, "shmem_iput " #T);                                                    \
    POISON_ALL(T, l);                                                                           \
    shmem_iget(l + G, d, 1, 2, N / 2, right);                                                   \
    shmem_iget(SHMEM_CTX_DEFAULT, l + G + N / 2, d + 1, 1, 2, N / 2, right);                    \
    for (int i = 0; i < N; ++i) CHECK_EQ(l[G + i], VAL(T, me, right, i), "shmem_iget " #T);     \
    shmem_barrier_all();                                                                        \
    POISON_ALL(T, base);                                                                        \
    shmem_barrier_all();                                                                        \
    shmem_put_nbi(d, s, N / 2, right);                                                          \
    shmem_put_nbi(SHMEM_CTX_DEFAULT, d + N / 2, s + N / 2, N / 2, right);                       \
    shmem_quiet();                                                                              \
    shmem_barrier_all();                                                                        \
    for (int i = 0; i < N; ++i) CHECK_EQ(d[i], VAL(T, left, me, i), "shmem_put_nbi " #T);       \
    CHECK_GUARDS(T, base, "shmem_put_nbi " #T);                                                 \
    POISON_ALL(T, l);                                                                           \
    shmem_get_nbi(l + G, d, N / 2, right);                                                      \
    shmem_get_nbi(SHMEM_CTX_DEFAULT, l + G + N / 2, d + N / 2, N / 2, right);                   \
    shmem_quiet();                                                                              \
    for (int i = 0; i < N; ++i) CHECK_EQ(l[G + i], VAL(T, me, right, i), "shmem_get_nbi " #T);  \
    CHECK_GUARDS(T, l, "shmem_get_nbi " #T);                                                    \
    shmem_barrier_all();                                                                        \
    shmem_free(base);                                                                           \
  } while (0)

static void test_rma_generic(void) {
  TEST_RMA_GENERIC(char);
  TEST_RMA_GENERIC(signed char);
  TEST_RMA_GENERIC(unsigned char);
  TEST_RMA_GENERIC(short);
  TEST_RMA_GENERIC(unsigned short);
  TEST_RMA_GENERIC(int);
  TEST_RMA_GENERIC(unsigned int);
  TEST_RMA_GENERIC(long);
  TEST_RMA_GENERIC(unsigned long);
  TEST_RMA_GENERIC(long long);
  TEST_RMA_GENERIC(unsigned long long);
  TEST_RMA_GENERIC(float);
  TEST_RMA_GENERIC(double);
  TEST_RMA_GENERIC(long double);
  TEST_RMA_GENERIC(int8_t);
  TEST_RMA_GENERIC(int16_t);
  TEST_RMA_GENERIC(int32_t);
  TEST_RMA_GENERIC(int64_t);
  TEST_RMA_GENERIC(uint8_t);
  TEST_RMA_GENERIC(uint16_t);
  TEST_RMA_GENERIC(uint32_t);
  TEST_RMA_GENERIC(uint64_t);
  TEST_RMA_GENERIC(size_t);
  TEST_RMA_GENERIC(ptrdiff_t);
}

/* ---- Atomics: standard AMO types (generic names; ctx forms; nbi forms) ----------------------- */
#define TEST_AMO_STD(T)                                                                      \
  do {                                                                                       \
    T *c = (T *)shmem_calloc(9, sizeof(T));                                                  \
    T fetched[4];                                                                            \
    CHECK(c != NULL, "calloc " #T);                                                          \
    if (c == NULL) break;                                                                    \
    shmem_atomic_add(&c[0], (T)(me + 1), 0);                                                 \
    shmem_atomic_inc(SHMEM_CTX_DEFAULT, &c[1], 0);                                           \
    T old_add = shmem_atomic_fetch_add(&c[2], (T)(me + 1), right);                           \
    T old_inc = shmem_atomic_fetch_inc(SHMEM_CTX_DEFAULT, &c[3], right);                     \
    CHECK_EQ(old_add, (T)0, #T " fetch_add old value");                                      \
    CHECK_EQ(old_inc, (T)0, #T " fetch_inc(ctx) old value");                                 \
    /* exactly one PE swaps 0 -> its number + 1 at PE 0 */                                   \
    T won = shmem_atomic_compare_swap(&c[4], (T)0, (T)(me + 1), 0);                          \
    shmem_atomic_fetch_add_nbi(&fetched[0], &c[5], (T)1, 0);                                 \
    shmem_atomic_fetch_inc_nbi(SHMEM_CTX_DEFAULT, &fetched[1], &c[6], 0);                    \
    shmem_atomic_compare_swap_nbi(&fetched[2], &c[7], (T)0, (T)(me + 1), 0);                 \
    shmem_quiet();                                                                           \
    CHECK(fetched[0] < (T)npes && fetched[1] < (T)npes, #T " nbi fetches %.17g %.17g",       \
          (double)fetched[0], (double)fetched[1]);                                           \
    shmem_atomic_add(&c[8], (T)(won == 0 ? 1 : 0), right); /* counts the winners at right */ \
    shmem_atomic_inc(&c[8], right);                                                          \
    shmem_barrier_all();                                                                     \
    /* the one winner of the compare_swap at PE 0 */                                         \
    const int winner = (int)shmem_atomic_fetch(&c[4], 0) - 1;                                \
    if (me == 0) {                                                                           \
      CHECK_EQ(c[0], (T)(npes * (npes + 1) / 2), #T " atomic_add");                          \
      CHECK_EQ(c[1], (T)npes, #T " atomic_inc(ctx)");                                        \
      CHECK(c[4] >= 1 && c[4] <= (T)npes, #T " compare_swap winner %.17g", (double)c[4]);    \
      CHECK_EQ(c[5], (T)npes, #T " fetch_add_nbi");                                          \
      CHECK_EQ(c[6], (T)npes, #T " fetch_inc_nbi(ctx)");                                     \
      CHECK(c[7] >= 1 && c[7] <= (T)npes, #T " compare_swap_nbi %.17g", (double)c[7]);       \
    }                                                                                        \
    CHECK_EQ(c[2], (T)(left + 1), #T " fetch_add");                                          \
    CHECK_EQ(c[3], (T)1, #T " fetch_inc(ctx)");                                              \
    /* c[8]: left's inc, and 1 if left won */                                                \
    CHECK_EQ(c[8], (T)(1 + (left == winner ? 1 : 0)), #T " compare_swap: one winner");       \
    shmem_barrier_all();                                                                     \
    shmem_free(c);                                                                           \
  } while (0)

/* Extended AMO types: fetch, set, swap (and nbi). */
#define TEST_AMO_EXT(T)                                                                            \
  do {                                                                                             \
    T *e = (T *)shmem_calloc(4, sizeof(T));                                                        \
    T f[2];                                                                                        \
    CHECK(e != NULL, "calloc " #T);                                                                \
    if (e == NULL) break;                                                                          \
    shmem_atomic_set(&e[0], VAL(T, me, right, 0), right);                                          \
    shmem_atomic_set(SHMEM_CTX_DEFAULT, &e[1], VAL(T, me, right, 1), right);                       \
    shmem_barrier_all();                                                                           \
    CHECK_EQ(shmem_atomic_fetch(&e[0], me), VAL(T, left, me, 0), #T " atomic_set/fetch");          \
    CHECK_EQ(shmem_atomic_fetch(SHMEM_CTX_DEFAULT, (const T *)&e[1], right), VAL(T, me, right, 1), \
             #T " atomic_set(ctx)/fetch(ctx)");                                                    \
    shmem_barrier_all();                                                                           \
    T old = shmem_atomic_swap(&e[2], VAL(T, me, right, 2), right);                                 \
    CHECK_EQ(old, (T)0, #T " atomic_swap old");                                                    \
    shmem_atomic_swap_nbi(SHMEM_CTX_DEFAULT, &f[0], &e[2], VAL(T, me, right, 3), right);           \
    shmem_atomic_fetch_nbi(&f[1], &e[0], right);                                                   \
    shmem_quiet();                                                                                 \
    CHECK_EQ(f[0], VAL(T, me, right, 2), #T " atomic_swap_nbi old");                               \
    CHECK_EQ(f[1], VAL(T, me, right, 0), #T " atomic_fetch_nbi");                                  \
    shmem_barrier_all();                                                                           \
    CHECK_EQ(e[2], VAL(T, left, me, 3), #T " atomic_swap_nbi");                                    \
    shmem_barrier_all();                                                                           \
    shmem_free(e);                                                                                 \
  } while (0)

/* Bitwise AMO types: each PE sets, clears and flips its own bit at PE 0. */
#define TEST_AMO_BIT(T)                                                                          \
  do {                                                                                           \
    T *w = (T *)shmem_calloc(4, sizeof(T));                                                      \
    T f[3];                                                                                      \
    CHECK(w != NULL, "calloc " #T);                                                              \
    if (w == NULL) break;                                                                        \
    const T bit = (T)((T)1 << me), all = (T)(((T)1 << npes) - 1);                                \
    if (me == 0) w[1] = w[2] = all;                                                              \
    shmem_barrier_all();                                                                         \
    shmem_atomic_or(&w[0], bit, 0);                                                              \
    T before_or = shmem_atomic_fetch_or(SHMEM_CTX_DEFAULT, &w[3], bit, 0);                       \
    CHECK((before_or & bit) == 0, #T " fetch_or saw its own bit early");                         \
    shmem_atomic_and(SHMEM_CTX_DEFAULT, &w[1], (T)~bit, 0);                                      \
    T before_xor = shmem_atomic_fetch_xor(&w[2], bit, 0);                                        \
    CHECK((before_xor & bit) == bit, #T " fetch_xor");                                           \
    shmem_quiet(); /* the non-fetching or completes before the fetches below */                  \
    shmem_atomic_fetch_and_nbi(&f[0], &w[0], all, 0);                                            \
    shmem_atomic_fetch_or_nbi(SHMEM_CTX_DEFAULT, &f[1], &w[0], (T)0, 0);                         \
    shmem_atomic_fetch_xor_nbi(&f[2], &w[0], (T)0, 0);                                           \
    shmem_quiet();                                                                               \
    CHECK((f[0] & bit) == bit && (f[1] & bit) == bit && (f[2] & bit) == bit, #T " nbi fetches"); \
    shmem_barrier_all();                                                                         \
    if (me == 0) {                                                                               \
      CHECK_EQ(w[0], all, #T " atomic_or");                                                      \
      CHECK_EQ(w[1], (T)0, #T " atomic_and");                                                    \
      CHECK_EQ(w[2], (T)0, #T " atomic_fetch_xor");                                              \
      CHECK_EQ(w[3], all, #T " atomic_fetch_or");                                                \
      CHECK_EQ(shmem_atomic_fetch_and(&w[3], (T)1, 0), all, #T " atomic_fetch_and");             \
      CHECK_EQ(w[3], (T)1, #T " atomic_fetch_and result");                                       \
      shmem_atomic_xor(SHMEM_CTX_DEFAULT, &w[3], (T)1, 0);                                       \
      CHECK_EQ(w[3], (T)0, #T " atomic_xor");                                                    \
    }                                                                                            \
    shmem_barrier_all();                                                                         \
    shmem_free(w);                                                                               \
  } while (0)

static void test_amo(void) {
  TEST_AMO_STD(int);
  TEST_AMO_STD(long);
  TEST_AMO_STD(long long);
  TEST_AMO_STD(unsigned int);
  TEST_AMO_STD(unsigned long);
  TEST_AMO_STD(unsigned long long);
  TEST_AMO_STD(int32_t);
  TEST_AMO_STD(int64_t);
  TEST_AMO_STD(uint32_t);
  TEST_AMO_STD(uint64_t);
  TEST_AMO_STD(size_t);
  TEST_AMO_STD(ptrdiff_t);
  TEST_AMO_EXT(int);
  TEST_AMO_EXT(unsigned long long);
  TEST_AMO_EXT(float);
  TEST_AMO_EXT(double);
  TEST_AMO_BIT(unsigned int);
  TEST_AMO_BIT(unsigned long);
  TEST_AMO_BIT(unsigned long long);
  TEST_AMO_BIT(int32_t);
  TEST_AMO_BIT(int64_t);
  TEST_AMO_BIT(uint32_t);
  TEST_AMO_BIT(uint64_t);
  /* the typed names too */
  long *c = shmem_calloc(2, sizeof(long));
  if (c != NULL) {
    shmem_long_atomic_add(&c[0], me + 1, 0);
    shmem_ctx_long_atomic_inc(SHMEM_CTX_DEFAULT, &c[1], 0);
    shmem_barrier_all();
    if (me == 0) {
      CHECK_EQ(shmem_long_atomic_fetch(&c[0], 0), npes * (npes + 1) / 2, "long_atomic_add");
      CHECK_EQ(shmem_ctx_long_atomic_fetch(SHMEM_CTX_DEFAULT, &c[1], 0), npes,
               "ctx_long_atomic_inc");
    }
    shmem_barrier_all();
    shmem_free(c);
  }
}

/* ---- Signals: put with signal (SET and ADD, blocking and nbi, generic and typed) ------------- */
static void test_signal(void) {
  long *base, *d = GUARDED_ALLOC(long, base);
  uint64_t *sig = shmem_calloc(4, sizeof(uint64_t));
  long s[N];
  CHECK(d != NULL && sig != NULL, "malloc");
  if (d == NULL || sig == NULL) return;
  for (int i = 0; i < N; ++i) s[i] = VAL(long, me, right, i);
  POISON_ALL(long, base);
  shmem_barrier_all();
  shmem_put_signal(d, s, N / 2, &sig[0], 1, SHMEM_SIGNAL_ADD, right);
  shmem_put_signal_nbi(SHMEM_CTX_DEFAULT, d + N / 2, s + N / 2, N / 2, &sig[1], (uint64_t)me + 100,
                       SHMEM_SIGNAL_SET, right);
  uint64_t seen = shmem_signal_wait_until(&sig[0], SHMEM_CMP_GE, 1);
  CHECK_EQ(seen, (uint64_t)1, "signal_wait_until (ADD)");
  seen = shmem_signal_wait_until(&sig[1], SHMEM_CMP_EQ, (uint64_t)left + 100);
  CHECK_EQ(seen, (uint64_t)left + 100, "signal_wait_until (SET)");
  /* a PE that saw the signal sees the data */
  for (int i = 0; i < N; ++i) CHECK_EQ(d[i], VAL(long, left, me, i), "put_signal data");
  CHECK_GUARDS(long, base, "put_signal");
  CHECK_EQ(shmem_signal_fetch(&sig[1]), (uint64_t)left + 100, "signal_fetch");
  shmem_quiet();
  /* typed and byte forms, and the OpenSHMEM 1.6 signal_add/set */
  shmem_long_put_signal_nbi(d, s, N, &sig[2], 2, SHMEM_SIGNAL_ADD, right);
  shmem_putmem_signal(d, s, N * sizeof(long), &sig[2], 3, SHMEM_SIGNAL_ADD, right);
  shmem_signal_add(&sig[2], 5, right);
  shmem_wait_until(&sig[2], SHMEM_CMP_EQ, (uint64_t)10);
  shmem_signal_set(&sig[3], 77, left);
  shmem_uint64_wait_until(&sig[3], SHMEM_CMP_EQ, 77);
  shmem_barrier_all();
  shmem_free(sig);
  shmem_free(base);
}

/* ---- Point-to-point synchronization: wait_until and test families (generic and typed) -------- */
static void test_p2p(void) {
  long *iv = shmem_calloc(N + 1, sizeof(long));
  CHECK(iv != NULL, "calloc");
  if (iv == NULL) return;
  long cmp_values[N];
  int status[N];
  size_t idx[N];
  memset(status, 0, sizeof status);
  for (int i = 0; i < N; ++i) cmp_values[i] = VAL(long, left, me, i);
  /* (calloc returned on every PE: nobody has updated ivars yet) */
  CHECK_EQ(shmem_test(&iv[N], SHMEM_CMP_NE, 0L), 0, "test before the update");
  CHECK_EQ(shmem_test_any(iv, N, NULL, SHMEM_CMP_NE, 0L), SIZE_MAX, "test_any before");
  shmem_barrier_all();
  /* the left neighbour updates ivars[0..N) one by one, then the flag */
  for (int i = 0; i < N; ++i) shmem_atomic_set(&iv[i], VAL(long, me, right, i), right);
  shmem_fence();
  shmem_long_atomic_set(&iv[N], 1, right);
  shmem_wait_until(&iv[N], SHMEM_CMP_EQ, 1L);
  shmem_long_wait_until(&iv[N], SHMEM_CMP_GT, 0);
  shmem_wait_until_all(iv, N, NULL, SHMEM_CMP_NE, 0L);
  shmem_wait_until_all_vector(iv, N, status, SHMEM_CMP_EQ, cmp_values);
  CHECK(shmem_wait_until_any(iv, N, NULL, SHMEM_CMP_GT, 0L) < N, "wait_until_any");
  size_t some = shmem_wait_until_some(iv, N, idx, NULL, SHMEM_CMP_GE, 1L);
  CHECK(some >= 1 && some <= N && idx[0] < N, "wait_until_some %zu", some);
  CHECK(shmem_wait_until_any_vector(iv, N, status, SHMEM_CMP_EQ, cmp_values) < N,
        "wait_until_any_vector");
  some = shmem_wait_until_some_vector(iv, N, idx, status, SHMEM_CMP_EQ, cmp_values);
  CHECK(some >= 1 && some <= N, "wait_until_some_vector %zu", some);
  CHECK_EQ(shmem_test(&iv[N], SHMEM_CMP_EQ, 1L), 1, "test");
  CHECK_EQ(shmem_test_all(iv, N, NULL, SHMEM_CMP_LE, 101L), 1, "test_all");
  CHECK_EQ(shmem_test_all_vector(iv, N, status, SHMEM_CMP_EQ, cmp_values), 1, "test_all_vector");
  /* status excludes element 0: asking for element 0's value finds nothing */
  status[0] = 1;
  for (int i = 1; i < N; ++i)
    if (iv[i] == iv[0]) status[i] = 1;
  CHECK_EQ(shmem_test_any(iv, N, status, SHMEM_CMP_EQ, iv[0]), SIZE_MAX, "test_any(status)");
  CHECK_EQ(shmem_test_some(iv, N, idx, status, SHMEM_CMP_EQ, iv[0]), 0, "test_some(status)");
  status[0] = 0;
  CHECK_EQ(shmem_test_any(iv, N, status, SHMEM_CMP_EQ, iv[0]), 0, "test_any");
  CHECK(shmem_test_some(iv, N, idx, NULL, SHMEM_CMP_NE, 0L) == N, "test_some");
  memset(status, 0, sizeof status);
  CHECK(shmem_test_any_vector(iv, N, status, SHMEM_CMP_EQ, cmp_values) < N, "test_any_vector");
  CHECK(shmem_test_some_vector(iv, N, idx, status, SHMEM_CMP_EQ, cmp_values) == N,
        "test_some_vector");
  CHECK_EQ(shmem_long_test_all(iv, N, NULL, SHMEM_CMP_GT, 0), 1, "long_test_all");
  shmem_barrier_all();
  shmem_free(iv);
}

/* ---- Collectives on SHMEM_TEAM_WORLD ------------------------------------------------------- */
static void test_collectives(void) {
  const int n = npes;
  const size_t total = (size_t)n * (n + 1) / 2; /* collect: member i gives i + 1 elements */
  long *src = shmem_malloc(N * sizeof(long));
  long *dst = shmem_malloc((size_t)n * N * 2 * sizeof(long) + (total + 2) * sizeof(long));
  CHECK(src != NULL && dst != NULL, "malloc");
  if (src == NULL || dst == NULL) return;
  for (int i = 0; i < N; ++i) src[i] = VAL(long, me, 0, i) + 1000L * me;
  /* broadcast from the last PE (generic), then typed from PE 0 */
  for (size_t i = 0; i < (size_t)n * N * 2; ++i) dst[i] = POISON(long);
  shmem_barrier_all();
  CHECK_EQ(shmem_broadcast(SHMEM_TEAM_WORLD, dst, src, N, n - 1), 0, "broadcast");
  for (int i = 0; i < N; ++i)
    CHECK_EQ(dst[i], VAL(long, n - 1, 0, i) + 1000L * (n - 1), "broadcast data");
  CHECK_EQ(dst[N], POISON(long), "broadcast guard");
  shmem_barrier_all(); /* dest is ready on every member before the next collective writes it */
  CHECK_EQ(shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, N, 0), 0, "long_broadcast");
  for (int i = 0; i < N; ++i) CHECK_EQ(dst[i], VAL(long, 0, 0, i), "long_broadcast data");
  /* fcollect, collect */
  shmem_barrier_all();
  CHECK_EQ(shmem_fcollect(SHMEM_TEAM_WORLD, dst, src, N), 0, "fcollect");
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < N; ++i)
      CHECK_EQ(dst[p * N + i], VAL(long, p, 0, i) + 1000L * p, "fcollect data");
  shmem_barrier_all();
  for (size_t i = 0; i < total + 1; ++i) dst[i] = POISON(long);
  shmem_barrier_all();
  CHECK_EQ(shmem_collect(SHMEM_TEAM_WORLD, dst, src, (size_t)me + 1), 0, "collect");
  for (int p = 0, at = 0; p < n; at += p + 1, ++p)
    for (int i = 0; i <= p; ++i)
      CHECK_EQ(dst[at + i], VAL(long, p, 0, i) + 1000L * p, "collect data");
  CHECK_EQ(dst[total], POISON(long), "collect guard");
  /* alltoall: block j of my source goes to member j; source[j * 2 + k] = f(me, j, k) */
  long *a2a = shmem_malloc((size_t)n * 2 * sizeof(long));
  if (a2a != NULL) {
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < 2; ++k) a2a[j * 2 + k] = VAL(long, me, j, k);
    shmem_barrier_all();
    CHECK_EQ(shmem_alltoall(SHMEM_TEAM_WORLD, dst, a2a, 2), 0, "alltoall");
    for (int p = 0; p < n; ++p)
      for (int k = 0; k < 2; ++k) CHECK_EQ(dst[p * 2 + k], VAL(long, p, me, k), "alltoall data");
    /* alltoalls with dst stride 2: the odd slots keep their poison */
    shmem_barrier_all();
    for (int i = 0; i < n * 4; ++i) dst[i] = POISON(long);
    shmem_barrier_all();
    CHECK_EQ(shmem_alltoalls(SHMEM_TEAM_WORLD, dst, a2a, 2, 1, 2), 0, "alltoalls");
    for (int p = 0; p < n; ++p)
      for (int k = 0; k < 2; ++k) {
        CHECK_EQ(dst[(p * 2 + k) * 2], VAL(long, p, me, k), "alltoalls data");
        CHECK_EQ(dst[(p * 2 + k) * 2 + 1], POISON(long), "alltoalls stride gap");
      }
    shmem_barrier_all();
    shmem_free(a2a);
  }
  /* reductions: member p contributes (p + 1) * (i + 1) */
  for (int i = 0; i < N; ++i) src[i] = (long)(me + 1) * (i + 1);
  shmem_barrier_all();
  CHECK_EQ(shmem_sum_reduce(SHMEM_TEAM_WORLD, dst, src, N), 0, "sum_reduce");
  for (int i = 0; i < N; ++i) CHECK_EQ(dst[i], (long)total * (i + 1), "sum_reduce data");
  shmem_barrier_all();
  CHECK_EQ(shmem_max_reduce(SHMEM_TEAM_WORLD, dst, src, N), 0, "max_reduce");
  for (int i = 0; i < N; ++i) CHECK_EQ(dst[i], (long)n * (i + 1), "max_reduce data");
  shmem_barrier_all();
  CHECK_EQ(shmem_long_min_reduce(SHMEM_TEAM_WORLD, dst, src, N), 0, "long_min_reduce");
  for (int i = 0; i < N; ++i) CHECK_EQ(dst[i], (long)(i + 1), "min_reduce data");
  long fact = 1;
  for (int p = 1; p <= n; ++p) fact *= p;
  shmem_barrier_all();
  CHECK_EQ(shmem_prod_reduce(SHMEM_TEAM_WORLD, dst, src, 1), 0, "prod_reduce");
  CHECK_EQ(dst[0], fact, "prod_reduce data");
  shmem_barrier_all();
  CHECK_EQ(shmem_sum_inscan(SHMEM_TEAM_WORLD, dst, src, N), 0, "sum_inscan");
  for (int i = 0; i < N; ++i)
    CHECK_EQ(dst[i], (long)(me + 1) * (me + 2) / 2 * (i + 1), "sum_inscan data");
  shmem_barrier_all();
  CHECK_EQ(shmem_sum_exscan(SHMEM_TEAM_WORLD, dst, src, N), 0, "sum_exscan");
  for (int i = 0; i < N; ++i)
    CHECK_EQ(dst[i], (long)me * (me + 1) / 2 * (i + 1), "sum_exscan data");
  /* bitwise and floating point */
  unsigned int *ub = shmem_malloc(3 * sizeof(unsigned int));
  unsigned int *ur = shmem_malloc(3 * sizeof(unsigned int));
  double *fs = shmem_malloc(2 * sizeof(double)), *fr = shmem_malloc(2 * sizeof(double));
  if (ub != NULL && ur != NULL && fs != NULL && fr != NULL) {
    ub[0] = 1u << me;
    ub[1] = ~(1u << me);
    ub[2] = 1u << me;
    fs[0] = 0.5 * (me + 1);
    fs[1] = -1.0 * me;
    shmem_barrier_all();
    CHECK_EQ(shmem_or_reduce(SHMEM_TEAM_WORLD, ur, ub, 1), 0, "or_reduce");
    CHECK_EQ(ur[0], (1u << n) - 1, "or_reduce data");
    CHECK_EQ(shmem_and_reduce(SHMEM_TEAM_WORLD, ur + 1, ub + 1, 1), 0, "and_reduce");
    CHECK_EQ(ur[1], ~((1u << n) - 1), "and_reduce data");
    CHECK_EQ(shmem_uint_xor_reduce(SHMEM_TEAM_WORLD, ur + 2, ub + 2, 1), 0, "uint_xor_reduce");
    CHECK_EQ(ur[2], (1u << n) - 1, "xor_reduce data");
    CHECK_EQ(shmem_sum_reduce(SHMEM_TEAM_WORLD, fr, fs, 1), 0, "sum_reduce double");
    CHECK_EQ(fr[0], 0.25 * n * (n + 1), "sum_reduce double data");
    CHECK_EQ(shmem_min_reduce(SHMEM_TEAM_WORLD, fr + 1, fs + 1, 1), 0, "min_reduce double");
    CHECK_EQ(fr[1], -1.0 * (n - 1), "min_reduce double data");
  }
  shmem_barrier_all();
  shmem_free(fr);
  shmem_free(fs);
  shmem_free(ur);
  shmem_free(ub);
  /* the syncs */
  shmem_sync_all();
  CHECK_EQ(shmem_team_sync(SHMEM_TEAM_WORLD), 0, "team_sync");
  CHECK_EQ(shmem_sync(SHMEM_TEAM_WORLD), 0, "shmem_sync(team)");
  shmem_barrier_all();
  shmem_free(dst);
  shmem_free(src);
}

/* ---- Teams ---------------------------------------------------------------------------------- */
static void test_teams(void) {
  const int n = npes;
  CHECK_EQ(shmem_team_my_pe(SHMEM_TEAM_WORLD), me, "team_my_pe(world)");
  CHECK_EQ(shmem_team_n_pes(SHMEM_TEAM_WORLD), n, "team_n_pes(world)");
  CHECK(shmem_team_my_pe(SHMEM_TEAM_SHARED) >= 0, "team_my_pe(shared)");
  CHECK_EQ(shmem_team_my_pe(SHMEM_TEAM_INVALID), -1, "team_my_pe(invalid)");
  /* the world reversed */
  shmem_team_t rev = SHMEM_TEAM_INVALID;
  shmem_team_config_t config = {.num_contexts = 2};
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, &config,
                                    SHMEM_TEAM_NUM_CONTEXTS, &rev),
           0, "team_split_strided");
  CHECK(rev != SHMEM_TEAM_INVALID, "reversed team");
  if (rev == SHMEM_TEAM_INVALID) return;
  CHECK_EQ(shmem_team_my_pe(rev), n - 1 - me, "team_my_pe(reversed)");
  CHECK_EQ(shmem_team_n_pes(rev), n, "team_n_pes(reversed)");
  CHECK_EQ(shmem_team_translate_pe(rev, 0, SHMEM_TEAM_WORLD), n - 1, "team_translate_pe");
  shmem_team_config_t got = {.num_contexts = -1};
  CHECK_EQ(shmem_team_get_config(rev, SHMEM_TEAM_NUM_CONTEXTS, &got), 0, "team_get_config");
  CHECK_EQ(got.num_contexts, 2, "team_get_config num_contexts");
  int *x = shmem_malloc(2 * sizeof(int)), *y = shmem_malloc(2 * sizeof(int));
  if (x != NULL && y != NULL) {
    x[0] = me;
    x[1] = VAL(int, me, 0, 1);
    shmem_barrier_all();
    /* broadcast from team member 0 = world PE n - 1 */
    CHECK_EQ(shmem_broadcast(rev, y, x, 2, 0), 0, "broadcast(reversed)");
    CHECK_EQ(y[0], n - 1, "broadcast(reversed) root");
    CHECK(shmem_team_ptr(rev, x, shmem_team_my_pe(rev)) == (void *)x, "team_ptr");
    shmem_team_sync(rev);
  }
  /* a 2D split: rows of two */
  shmem_team_t row = SHMEM_TEAM_INVALID, col = SHMEM_TEAM_INVALID;
  CHECK_EQ(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &row, NULL, 0, &col), 0,
           "team_split_2d");
  CHECK_EQ(shmem_team_my_pe(row), me % 2, "row member");
  CHECK_EQ(shmem_team_my_pe(col), me / 2, "column member");
  CHECK_EQ(shmem_team_n_pes(col), (n - me % 2 + 1) / 2, "column size");
  if (x != NULL && y != NULL) {
    x[0] = me + 1;
    shmem_team_sync(col);
    CHECK_EQ(shmem_int_sum_reduce(col, y, x, 1), 0, "sum_reduce(column)");
    int want = 0;
    for (int p = me % 2; p < n; p += 2) want += p + 1;
    CHECK_EQ(y[0], want, "sum_reduce(column) data");
  }
  shmem_barrier_all();
  shmem_team_destroy(col);
  shmem_team_destroy(row);
  shmem_team_destroy(rev);
  shmem_team_destroy(SHMEM_TEAM_INVALID);
  shmem_free(y);
  shmem_free(x);
}

/* ---- Contexts, fence, quiet ----------------------------------------------------------------- */
static void test_contexts(void) {
  long *base, *d = GUARDED_ALLOC(long, base);
  long s[N];
  CHECK(d != NULL, "malloc");
  if (d == NULL) return;
  for (int i = 0; i < N; ++i) s[i] = VAL(long, me, right, i);
  shmem_ctx_t ctx = SHMEM_CTX_INVALID;
  CHECK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED, &ctx), 0, "ctx_create");
  CHECK(ctx != SHMEM_CTX_INVALID && ctx != SHMEM_CTX_DEFAULT, "a new context");
  shmem_team_t team = SHMEM_TEAM_INVALID;
  CHECK_EQ(shmem_ctx_get_team(ctx, &team), 0, "ctx_get_team");
  CHECK(team == SHMEM_TEAM_WORLD, "ctx_get_team gave %d", (int)team);
  POISON_ALL(long, base);
  shmem_barrier_all();
  shmem_put(ctx, d, s, N / 2, right);
  shmem_ctx_fence(ctx);
  shmem_ctx_long_put_nbi(ctx, d + N / 2, s + N / 2, N / 2, right);
  shmem_ctx_quiet(ctx);
  shmem_barrier_all();
  for (int i = 0; i < N; ++i) CHECK_EQ(d[i], VAL(long, left, me, i), "ctx put");
  CHECK_GUARDS(long, base, "ctx put");
  shmem_ctx_destroy(ctx);
  /* a context on the reversed world: PE numbers of that team */
  shmem_team_t rev = SHMEM_TEAM_INVALID;
  shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &rev);
  shmem_ctx_t tctx = SHMEM_CTX_INVALID;
  CHECK_EQ(shmem_team_create_ctx(rev, SHMEM_CTX_NOSTORE, &tctx), 0, "team_create_ctx");
  CHECK_EQ(shmem_ctx_get_team(tctx, &team), 0, "ctx_get_team(team ctx)");
  CHECK(team == rev, "team of the team context");
  const int tright = shmem_team_translate_pe(SHMEM_TEAM_WORLD, right, rev);
  POISON_ALL(long, base);
  shmem_barrier_all();
  shmem_ctx_long_put(tctx, d, s, N, tright);
  shmem_ctx_pe_quiet(tctx, &tright, 1);
  shmem_barrier_all();
  for (int i = 0; i < N; ++i) CHECK_EQ(d[i], VAL(long, left, me, i), "team ctx put");
  CHECK_GUARDS(long, base, "team ctx put");
  shmem_ctx_destroy(tctx);
  shmem_team_destroy(rev);
  /* fence and pe_quiet on the default context */
  shmem_barrier_all();
  shmem_long_p(d, -1, right);
  shmem_fence();
  shmem_long_p(d, -2, right);
  shmem_pe_quiet(&right, 1);
  shmem_pe_quiet(NULL, 0);
  shmem_barrier_all();
  CHECK_EQ(d[0], -2, "fence ordered the puts");
  shmem_barrier_all();
  shmem_free(base);
}

int main(void) {
  shmem_init();
  me = compat_me = shmem_my_pe();
  npes = shmem_n_pes();
  right = (me + 1) % npes;
  left = (me + npes - 1) % npes;
  test_setup();
  test_memory();
  test_rma_typed();
  test_rma_generic();
  test_amo();
  test_signal();
  test_p2p();
  test_collectives();
  test_teams();
  test_contexts();
  shmem_barrier_all();
  printf("compat_c: pe %d of %d: %s (%d failed checks)\n", me, npes,
         compat_failures ? "FAIL" : "ok", compat_failures);
  shmem_finalize();
  return compat_failures ? 1 : 0;
}
