// compat.cxx.np<N>: the C++ program of the compat tests, written against <shmem.h> only: the
// type-generic names are overloaded inline functions in C++, so the calls of the C11 program
// (shmem_put(dest, source, nelems, pe), shmem_put(ctx, ...), shmem_atomic_fetch_add, ...) compile
// unchanged; templates run them over the standard types. Every family, with PE-dependent data,
// poisoned and guarded destinations; each PE exits nonzero if one of its checks failed.
#include <shmem.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "check.h"

namespace {

constexpr int N = 16, G = 4;
int me, npes, right, left;

// Small values every type holds exactly (1..101); the poison (127) is never one.
template <class T>
T val(int src, int dst, int i) {
  return static_cast<T>(((src + 1) * 13 + (dst + 1) * 5 + i * 3) % 101 + 1);
}
template <class T>
constexpr T poison() {
  return static_cast<T>(127);
}

// N symmetric elements between G poisoned ones on each side.
template <class T>
struct guarded {
  T *base = static_cast<T *>(shmem_malloc((N + 2 * G) * sizeof(T)));
  T *data() const { return base + G; }
  void poison_all() const {
    for (int i = 0; i < N + 2 * G; ++i) base[i] = poison<T>();
  }
  void check_guards(const char *what) const {
    for (int i = 0; i < G; ++i) {
      CHECK_EQ(base[i], poison<T>(), what);
      CHECK_EQ(base[N + G + i], poison<T>(), what);
    }
  }
  ~guarded() { shmem_free(base); }
};

template <class T>
void rma(const char *name) {
  guarded<T> d;
  CHECK(d.base != nullptr, "malloc %s", name);
  if (d.base == nullptr) return;
  T *dest = d.data();
  T s[N];
  std::vector<T> l(N);
  for (int i = 0; i < N; ++i) s[i] = val<T>(me, right, i);
  d.poison_all();
  shmem_barrier_all();
  shmem_put(dest, s, N / 2, right);
  shmem_put(SHMEM_CTX_DEFAULT, dest + N / 2, s + N / 2, N / 2, right);
  shmem_barrier_all();
  for (int i = 0; i < N; ++i) CHECK_EQ(dest[i], val<T>(left, me, i), name);
  d.check_guards(name);
  shmem_get(l.data(), dest, N / 2, right);
  shmem_get(SHMEM_CTX_DEFAULT, l.data() + N / 2, dest + N / 2, N / 2, right);
  for (int i = 0; i < N; ++i) CHECK_EQ(l[i], val<T>(me, right, i), name);
  shmem_barrier_all();
  shmem_p(dest + 1, val<T>(me, right, 60), right);
  shmem_p(SHMEM_CTX_DEFAULT, dest + 2, val<T>(me, right, 61), right);
  shmem_barrier_all();
  CHECK_EQ(dest[1], val<T>(left, me, 60), name);
  CHECK_EQ(dest[2], val<T>(left, me, 61), name);
  CHECK_EQ(shmem_g(dest + 3, right), val<T>(me, right, 3), name);
  CHECK_EQ(shmem_g(SHMEM_CTX_DEFAULT, static_cast<const T *>(dest + 4), right),
           val<T>(me, right, 4), name);
  shmem_barrier_all();
  d.poison_all();
  shmem_barrier_all();
  shmem_iput(dest, s, 2, 1, N / 2, right);
  shmem_iput(SHMEM_CTX_DEFAULT, dest + 1, s + N / 2, 2, 1, N / 2, right);
  shmem_barrier_all();
  for (int i = 0; i < N; ++i) CHECK_EQ(dest[i], val<T>(left, me, i / 2 + (i % 2) * (N / 2)), name);
  d.check_guards(name);
  shmem_iget(l.data(), dest, 1, 2, N / 2, right);
  shmem_iget(SHMEM_CTX_DEFAULT, l.data() + N / 2, dest + 1, 1, 2, N / 2, right);
  for (int i = 0; i < N; ++i) CHECK_EQ(l[i], val<T>(me, right, i), name);
  shmem_barrier_all();
  d.poison_all();
  shmem_barrier_all();
  shmem_put_nbi(dest, s, N / 2, right);
  shmem_put_nbi(SHMEM_CTX_DEFAULT, dest + N / 2, s + N / 2, N / 2, right);
  shmem_quiet();
  shmem_barrier_all();
  for (int i = 0; i < N; ++i) CHECK_EQ(dest[i], val<T>(left, me, i), name);
  shmem_get_nbi(l.data(), dest, N / 2, right);
  shmem_get_nbi(SHMEM_CTX_DEFAULT, l.data() + N / 2, dest + N / 2, N / 2, right);
  shmem_quiet();
  for (int i = 0; i < N; ++i) CHECK_EQ(l[i], val<T>(me, right, i), name);
  // put with signal: ADD on one word per PE
  uint64_t *sig = static_cast<uint64_t *>(shmem_calloc(2, sizeof(uint64_t)));
  d.poison_all();
  shmem_barrier_all();
  shmem_put_signal(dest, s, N / 2, &sig[0], 1, SHMEM_SIGNAL_ADD, right);
  shmem_put_signal_nbi(SHMEM_CTX_DEFAULT, dest + N / 2, s + N / 2, N / 2, &sig[0], 1,
                       SHMEM_SIGNAL_ADD, right);
  CHECK_EQ(shmem_signal_wait_until(&sig[0], SHMEM_CMP_EQ, 2), uint64_t{2}, name);
  for (int i = 0; i < N; ++i) CHECK_EQ(dest[i], val<T>(left, me, i), name);
  d.check_guards(name);
  shmem_barrier_all();
  shmem_free(sig);
}

// Standard AMO types: the arithmetic atomics and the point-to-point synchronization.
template <class T>
void amo_std(const char *name) {
  T *c = static_cast<T *>(shmem_calloc(8, sizeof(T)));
  CHECK(c != nullptr, "calloc %s", name);
  if (c == nullptr) return;
  T f[3] = {};
  shmem_atomic_add(&c[0], static_cast<T>(me + 1), 0);
  shmem_atomic_inc(SHMEM_CTX_DEFAULT, &c[1], 0);
  CHECK_EQ(shmem_atomic_fetch_add(&c[2], static_cast<T>(me + 1), right), T{0}, name);
  CHECK_EQ(shmem_atomic_fetch_inc(SHMEM_CTX_DEFAULT, &c[3], right), T{0}, name);
  CHECK_EQ(shmem_atomic_compare_swap(&c[4], T{0}, static_cast<T>(me + 1), right), T{0}, name);
  CHECK_EQ(shmem_atomic_compare_swap(SHMEM_CTX_DEFAULT, &c[4], T{0}, T{5}, right),
           static_cast<T>(me + 1), name);
  shmem_atomic_fetch_add_nbi(&f[0], &c[5], T{1}, 0);
  shmem_atomic_fetch_inc_nbi(SHMEM_CTX_DEFAULT, &f[1], &c[6], 0);
  shmem_atomic_compare_swap_nbi(&f[2], &c[7], T{0}, T{1}, right);
  shmem_quiet();
  CHECK(f[0] < static_cast<T>(npes) && f[1] < static_cast<T>(npes), "%s nbi", name);
  CHECK_EQ(f[2], T{0}, name);
  shmem_barrier_all();
  if (me == 0) {
    CHECK_EQ(c[0], static_cast<T>(npes * (npes + 1) / 2), name);
    CHECK_EQ(c[1], static_cast<T>(npes), name);
    CHECK_EQ(c[5], static_cast<T>(npes), name);
    CHECK_EQ(c[6], static_cast<T>(npes), name);
  }
  CHECK_EQ(c[2], static_cast<T>(left + 1), name);
  CHECK_EQ(c[4], static_cast<T>(left + 1), name);
  // extended: set, fetch, swap
  shmem_barrier_all();
  shmem_atomic_set(&c[0], val<T>(me, right, 0), right);
  shmem_atomic_set(SHMEM_CTX_DEFAULT, &c[1], val<T>(me, right, 1), right);
  shmem_barrier_all();
  CHECK_EQ(shmem_atomic_fetch(&c[0], right), val<T>(me, right, 0), name);
  CHECK_EQ(shmem_atomic_fetch(SHMEM_CTX_DEFAULT, static_cast<const T *>(&c[1]), me),
           val<T>(left, me, 1), name);
  CHECK_EQ(shmem_atomic_swap(&c[0], T{7}, right), val<T>(me, right, 0), name);
  shmem_atomic_swap_nbi(SHMEM_CTX_DEFAULT, &f[0], &c[0], T{9}, right);
  shmem_atomic_fetch_nbi(&f[1], &c[1], right);
  shmem_quiet();
  CHECK_EQ(f[0], T{7}, name);
  CHECK_EQ(f[1], val<T>(me, right, 1), name);
  // wait and test: the left neighbour sets c[3..7] (ivars), then c[2] (the flag)
  shmem_barrier_all();
  T cmp_values[4];
  int status[4] = {0, 0, 0, 0};
  size_t idx[4];
  for (int i = 0; i < 4; ++i) {
    cmp_values[i] = val<T>(left, me, 10 + i);
    shmem_atomic_set(&c[3 + i], val<T>(me, right, 10 + i), right);
  }
  shmem_fence();
  shmem_atomic_set(&c[2], T{100}, right);
  shmem_wait_until(&c[2], SHMEM_CMP_EQ, T{100});
  shmem_wait_until_all(&c[3], 4, status, SHMEM_CMP_GE, T{1});
  shmem_wait_until_all_vector(&c[3], 4, nullptr, SHMEM_CMP_EQ, cmp_values);
  CHECK(shmem_wait_until_any(&c[3], 4, nullptr, SHMEM_CMP_GT, T{0}) < 4, "%s any", name);
  CHECK(shmem_wait_until_some(&c[3], 4, idx, nullptr, SHMEM_CMP_NE, T{0}) == 4, "%s", name);
  CHECK(shmem_wait_until_any_vector(&c[3], 4, status, SHMEM_CMP_EQ, cmp_values) < 4, "%s", name);
  CHECK(shmem_wait_until_some_vector(&c[3], 4, idx, status, SHMEM_CMP_EQ, cmp_values) == 4, "%s",
        name);
  CHECK_EQ(shmem_test(&c[2], SHMEM_CMP_EQ, T{100}), 1, name);
  CHECK_EQ(shmem_test_all(&c[3], 4, nullptr, SHMEM_CMP_LE, T{101}), 1, name);
  CHECK_EQ(shmem_test_any(&c[3], 4, nullptr, SHMEM_CMP_GT, T{101}), SIZE_MAX, name);
  CHECK(shmem_test_some(&c[3], 4, idx, nullptr, SHMEM_CMP_GT, T{0}) == 4, "%s", name);
  CHECK_EQ(shmem_test_all_vector(&c[3], 4, status, SHMEM_CMP_EQ, cmp_values), 1, name);
  CHECK(shmem_test_any_vector(&c[3], 4, status, SHMEM_CMP_EQ, cmp_values) < 4, "%s", name);
  CHECK(shmem_test_some_vector(&c[3], 4, idx, nullptr, SHMEM_CMP_NE, cmp_values) == 0, "%s", name);
  shmem_barrier_all();
  shmem_free(c);
}

template <class T>
void amo_bit(const char *name) {
  T *w = static_cast<T *>(shmem_calloc(3, sizeof(T)));
  CHECK(w != nullptr, "calloc %s", name);
  if (w == nullptr) return;
  const T bit = static_cast<T>(T{1} << me), all = static_cast<T>((T{1} << npes) - 1);
  T f[3];
  if (me == 0) w[1] = w[2] = all;
  shmem_barrier_all();
  shmem_atomic_or(&w[0], bit, 0);
  shmem_atomic_and(SHMEM_CTX_DEFAULT, &w[1], static_cast<T>(~bit), 0);
  CHECK(static_cast<T>(shmem_atomic_fetch_xor(&w[2], bit, 0) & bit) == bit, "%s xor", name);
  shmem_quiet();
  shmem_atomic_fetch_or_nbi(&f[0], &w[0], T{0}, 0);
  shmem_atomic_fetch_and_nbi(SHMEM_CTX_DEFAULT, &f[1], &w[0], all, 0);
  shmem_atomic_fetch_xor_nbi(&f[2], &w[0], T{0}, 0);
  shmem_quiet();
  CHECK((f[0] & f[1] & f[2] & bit) == bit, "%s nbi fetches", name);
  shmem_barrier_all();
  if (me == 0) {
    CHECK_EQ(w[0], all, name);
    CHECK_EQ(w[1], T{0}, name);
    CHECK_EQ(w[2], T{0}, name);
    CHECK_EQ(shmem_atomic_fetch_and(&w[0], T{1}, 0), all, name);
    CHECK_EQ(shmem_atomic_fetch_or(SHMEM_CTX_DEFAULT, &w[0], T{2}, 0), T{1}, name);
    shmem_atomic_xor(&w[0], T{3}, 0);
    CHECK_EQ(w[0], T{0}, name);
  }
  shmem_barrier_all();
  shmem_free(w);
}

// Team collectives through the overloads, on the world and on a split team.
template <class T>
void collectives_on(shmem_team_t team, int n, int t, T *src, T *dst, const char *name) {
  for (int i = 0; i < 4; ++i) src[i] = val<T>(t, 0, i);
  for (int i = 0; i < n * 4 + 4; ++i) dst[i] = poison<T>();
  shmem_team_sync(team);
  CHECK_EQ(shmem_broadcast(team, dst, src, 4, n - 1), 0, name);
  for (int i = 0; i < 4; ++i) CHECK_EQ(dst[i], val<T>(n - 1, 0, i), name);
  CHECK_EQ(dst[4], poison<T>(), name);
  shmem_team_sync(team);
  CHECK_EQ(shmem_fcollect(team, dst, src, 4), 0, name);
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < 4; ++i) CHECK_EQ(dst[p * 4 + i], val<T>(p, 0, i), name);
  shmem_team_sync(team);
  CHECK_EQ(shmem_collect(team, dst, src, 1), 0, name);
  for (int p = 0; p < n; ++p) CHECK_EQ(dst[p], val<T>(p, 0, 0), name);
  for (int j = 0; j < 4 && j < n; ++j) src[j] = val<T>(t, j, 0);
  shmem_team_sync(team);
  if (n <= 4) {
    CHECK_EQ(shmem_alltoall(team, dst, src, 1), 0, name);
    for (int p = 0; p < n; ++p) CHECK_EQ(dst[p], val<T>(p, t, 0), name);
    shmem_team_sync(team);
    CHECK_EQ(shmem_alltoalls(team, dst, src, 1, 1, 1), 0, name);
    for (int p = 0; p < n; ++p) CHECK_EQ(dst[p], val<T>(p, t, 0), name);
  }
  shmem_team_sync(team);
}

template <class T>
void collectives(shmem_team_t team, const char *name) {
  // shmem_malloc is collective over the world: every PE allocates, the team's members work.
  const int n = shmem_team_n_pes(team), t = shmem_team_my_pe(team);
  T *src = static_cast<T *>(shmem_malloc(4 * sizeof(T)));
  T *dst = static_cast<T *>(shmem_malloc(static_cast<size_t>(npes * 4 + 4) * sizeof(T)));
  if (t >= 0) collectives_on(team, n, t, src, dst, name);
  shmem_barrier_all();
  shmem_free(dst);
  shmem_free(src);
}

template <class T>
void reductions(const char *name) {
  T *src = static_cast<T *>(shmem_malloc(2 * sizeof(T)));
  T *dst = static_cast<T *>(shmem_malloc(2 * sizeof(T)));
  src[0] = static_cast<T>(me + 1);
  src[1] = static_cast<T>(2 * (me + 1));
  shmem_barrier_all();
  CHECK_EQ(shmem_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 2), 0, name);
  CHECK_EQ(dst[0], static_cast<T>(npes * (npes + 1) / 2), name);
  CHECK_EQ(dst[1], static_cast<T>(npes * (npes + 1)), name);
  shmem_barrier_all();
  CHECK_EQ(shmem_max_reduce(SHMEM_TEAM_WORLD, dst, src, 2), 0, name);
  CHECK_EQ(dst[1], static_cast<T>(2 * npes), name);
  shmem_barrier_all();
  CHECK_EQ(shmem_min_reduce(SHMEM_TEAM_WORLD, dst, src, 1), 0, name);
  CHECK_EQ(dst[0], T{1}, name);
  shmem_barrier_all();
  CHECK_EQ(shmem_prod_reduce(SHMEM_TEAM_WORLD, dst, src, 1), 0, name);
  T fact = 1;
  for (int p = 1; p <= npes; ++p) fact = static_cast<T>(fact * p);
  CHECK_EQ(dst[0], fact, name);
  shmem_barrier_all();
  CHECK_EQ(shmem_sum_inscan(SHMEM_TEAM_WORLD, dst, src, 1), 0, name);
  CHECK_EQ(dst[0], static_cast<T>((me + 1) * (me + 2) / 2), name);
  shmem_barrier_all();
  CHECK_EQ(shmem_sum_exscan(SHMEM_TEAM_WORLD, dst, src, 1), 0, name);
  CHECK_EQ(dst[0], static_cast<T>(me * (me + 1) / 2), name);
  shmem_barrier_all();
  shmem_free(dst);
  shmem_free(src);
}

template <class T>
void bit_reductions(const char *name) {
  T *src = static_cast<T *>(shmem_malloc(3 * sizeof(T)));
  T *dst = static_cast<T *>(shmem_malloc(3 * sizeof(T)));
  const T bit = static_cast<T>(T{1} << me), all = static_cast<T>((T{1} << npes) - 1);
  src[0] = bit;
  src[1] = static_cast<T>(~bit);
  src[2] = bit;
  shmem_barrier_all();
  CHECK_EQ(shmem_or_reduce(SHMEM_TEAM_WORLD, dst, src, 1), 0, name);
  CHECK_EQ(shmem_and_reduce(SHMEM_TEAM_WORLD, dst + 1, src + 1, 1), 0, name);
  CHECK_EQ(shmem_xor_reduce(SHMEM_TEAM_WORLD, dst + 2, src + 2, 1), 0, name);
  CHECK_EQ(dst[0], all, name);
  CHECK_EQ(dst[1], static_cast<T>(~all), name);
  CHECK_EQ(dst[2], all, name);
  shmem_barrier_all();
  shmem_free(dst);
  shmem_free(src);
}

void teams_and_contexts() {
  shmem_team_t rev = SHMEM_TEAM_INVALID;
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, nullptr, 0, &rev), 0,
           "team_split_strided");
  CHECK_EQ(shmem_team_my_pe(rev), npes - 1 - me, "reversed team");
  CHECK_EQ(shmem_team_translate_pe(rev, shmem_team_my_pe(rev), SHMEM_TEAM_WORLD), me,
           "team_translate_pe");
  collectives<int>(rev, "collectives(int, reversed team)");
  shmem_team_t even = SHMEM_TEAM_INVALID;
  shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, nullptr, 0, &even);
  CHECK((even != SHMEM_TEAM_INVALID) == (me % 2 == 0), "even team membership");
  collectives<double>(even, "collectives(double, even team)");
  // a context on the reversed team: PE numbers of that team
  shmem_ctx_t ctx = SHMEM_CTX_INVALID;
  CHECK_EQ(shmem_team_create_ctx(rev, 0, &ctx), 0, "team_create_ctx");
  shmem_team_t got = SHMEM_TEAM_INVALID;
  CHECK_EQ(shmem_ctx_get_team(ctx, &got), 0, "ctx_get_team");
  CHECK(got == rev, "ctx_get_team");
  long *d = static_cast<long *>(shmem_calloc(2, sizeof(long)));
  const int tright = shmem_team_translate_pe(SHMEM_TEAM_WORLD, right, rev);
  shmem_p(ctx, d, val<long>(me, right, 0), tright);
  shmem_atomic_add(ctx, d + 1, 5L, tright);
  shmem_ctx_quiet(ctx);
  shmem_ctx_pe_quiet(ctx, &tright, 1);
  shmem_barrier_all();
  CHECK_EQ(d[0], val<long>(left, me, 0), "ctx p (team)");
  CHECK_EQ(d[1], 5L, "ctx atomic_add (team)");
  shmem_ctx_destroy(ctx);
  shmem_barrier_all();
  shmem_free(d);
  shmem_team_destroy(even);
  shmem_team_destroy(rev);
}

}  // namespace

int main() {
  shmem_init();
  me = compat_me = shmem_my_pe();
  npes = shmem_n_pes();
  right = (me + 1) % npes;
  left = (me + npes - 1) % npes;
  char name[SHMEM_MAX_NAME_LEN];
  shmem_info_get_name(name);
  CHECK(std::strcmp(name, SHMEM_VENDOR_STRING) == 0, "info_get_name");
  // the typed names
  long *x = static_cast<long *>(shmem_malloc(N * sizeof(long)));
  shmem_long_p(x, val<long>(me, right, 0), right);
  shmem_barrier_all();
  CHECK_EQ(shmem_long_g(x, me), val<long>(left, me, 0), "long_p/long_g");
  shmem_barrier_all();
  shmem_free(x);
  rma<char>("rma char");
  rma<signed char>("rma signed char");
  rma<unsigned char>("rma unsigned char");
  rma<short>("rma short");
  rma<unsigned short>("rma unsigned short");
  rma<int>("rma int");
  rma<unsigned int>("rma unsigned int");
  rma<long>("rma long");
  rma<unsigned long>("rma unsigned long");
  rma<long long>("rma long long");
  rma<unsigned long long>("rma unsigned long long");
  rma<float>("rma float");
  rma<double>("rma double");
  rma<long double>("rma long double");
  rma<int8_t>("rma int8_t");
  rma<uint16_t>("rma uint16_t");
  rma<int32_t>("rma int32_t");
  rma<uint64_t>("rma uint64_t");
  rma<size_t>("rma size_t");
  rma<ptrdiff_t>("rma ptrdiff_t");
  amo_std<int>("amo int");
  amo_std<long>("amo long");
  amo_std<long long>("amo long long");
  amo_std<unsigned int>("amo unsigned int");
  amo_std<unsigned long>("amo unsigned long");
  amo_std<unsigned long long>("amo unsigned long long");
  amo_std<int32_t>("amo int32_t");
  amo_std<uint64_t>("amo uint64_t");
  amo_std<size_t>("amo size_t");
  amo_std<ptrdiff_t>("amo ptrdiff_t");
  amo_bit<unsigned int>("amo bit unsigned int");
  amo_bit<unsigned long>("amo bit unsigned long");
  amo_bit<unsigned long long>("amo bit unsigned long long");
  amo_bit<int32_t>("amo bit int32_t");
  amo_bit<int64_t>("amo bit int64_t");
  collectives<long>(SHMEM_TEAM_WORLD, "collectives(long, world)");
  collectives<float>(SHMEM_TEAM_WORLD, "collectives(float, world)");
  reductions<int>("reductions int");
  reductions<unsigned long>("reductions unsigned long");
  reductions<double>("reductions double");
  reductions<signed char>("reductions signed char");
  bit_reductions<unsigned char>("bit reductions unsigned char");
  bit_reductions<int64_t>("bit reductions int64_t");
  teams_and_contexts();
  shmem_fence();
  shmem_quiet();
  shmem_sync_all();
  CHECK_EQ(shmem_sync(SHMEM_TEAM_WORLD), 0, "shmem_sync(team)");
  shmem_barrier_all();
  std::printf("compat_cxx: pe %d of %d: %s (%d failed checks)\n", me, npes,
              compat_failures ? "FAIL" : "ok", compat_failures);
  shmem_finalize();
  return compat_failures ? 1 : 0;
}
