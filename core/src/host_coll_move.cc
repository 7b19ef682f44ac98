// xshmem host API: the data-movement collectives (broadcast, collect, fcollect, alltoall,
// alltoalls; typed and mem), OpenSHMEM 1.5 team-based forms.
//
// Each entry point validates its arguments (checks.h) and runs the path code of
// <xshmem/device/coll_move.h> with one thread (host heaps), or that code in a one-block kernel on
// the internal stream (GPU heaps: the host cannot touch GPU memory). Every function returns 0, or
// nonzero (nothing done) when the team is not a team of this PE with checks off.
#include <array>
#include <cstddef>
#include <cstdint>

#include <xshmem/device/coll_move.h>
#include <xshmem/xshmem.h>

#include "checks.h"
#include "coll_args.h"
#include "cuda/device_ops.h"
#include "host_path.h"
#include "runtime.h"

namespace xshmem::core {
namespace {

// The team of a collective call, or an empty team (size 0) when `team` is not a team of this PE
// and checks are off; checked mode stops the job there.
dev::team_t coll_team(const char *call, xshmem_team_t team) {
  check_init(call);
  const dev::team_t t = dev::team_of(state(), team);
  if (!dev::team_member(t) && checks_enabled()) {
    if (team == XSHMEM_TEAM_INVALID) check_fail(call, "team is XSHMEM_TEAM_INVALID");
    check_fail(call, "team %d is not a team of this pe (destroyed, or this pe is not a member)",
               static_cast<int>(team));
  }
  return t;
}

// Bytes of `count` blocks of nelems elements of `elem` bytes, `stride` elements apart (stride 1:
// contiguous); stops the job on overflow or a stride below 1.
size_t extent(const char *call, const char *stride_arg, ptrdiff_t stride, size_t nelems,
              size_t count, size_t elem) {
  const size_t total = nelems * count;
  if (count != 0 && total / count != nelems) check_fail(call, "nelems %zu is too large", nelems);
  if (total == 0) return 0;
  if (stride < 1) check_fail(call, "%s %td must be >= 1", stride_arg, stride);
  const size_t span = static_cast<size_t>(stride);
  if (total - 1 > (SIZE_MAX / elem - 1) / span)
    check_fail(call, "nelems %zu with %s %td is too large", nelems, stride_arg, stride);
  return ((total - 1) * span + 1) * elem;
}

// Runs the collective: in a kernel (heap in GPU memory: path::team_ops_in_kernels) or with the
// path code on this thread.
template <typename F>
int run(int op, xshmem_team_t team, void *dest, const void *source, size_t nbytes, size_t elem,
        ptrdiff_t dst, ptrdiff_t sst, int root, F &&host) {
  if (path::team_ops_in_kernels())
    return gpu::coll_move(op, team, dest, source, nbytes, elem, dst, sst, root);
  return host();
}

template <typename T>
int broadcast(const char *call, xshmem_team_t team, T *dest, const T *source, size_t nelems,
              int root) {
  const dev::team_t t = coll_team(call, team);
  if (!dev::team_member(t)) return -1;
  const size_t bytes = extent(call, "stride", 1, nelems, 1, sizeof(T));
  std::array<coll::Arg, 4> args{};
  uint64_t key_v = 0;
  const uint64_t *key = nullptr;  // checked mode: the collective carries the arguments' key
  if (checks_enabled()) {
    if (root < 0 || root >= t.size)
      check_fail(call, "PE_root %d is out of range [0, %d) of team %d", root, t.size,
                 static_cast<int>(team));
    check_sym_arg(call, "dest", dest, bytes, alignof(T));
    check_sym_arg(call, "source", source, bytes, alignof(T));
    args = {{{"PE_root", root},
             {"nelems", static_cast<int64_t>(nelems)},
             {"dest heap offset", bytes != 0 ? coll::offset_of(dest) : -1},
             {"source heap offset", bytes != 0 ? coll::offset_of(source) : -1}}};
    key = coll::carried_key(call, team, t, args, path::team_ops_in_kernels(), &key_v);
  }
  if (root < 0 || root >= t.size) return -1;
  const int rc = run(dev::kCollBroadcast, team, dest, source, bytes, sizeof(T), 1, 1, root, [&] {
    return dev::broadcastmem<dev::coll_thread>(state(), t, dest, source, bytes, root, key);
  });
  if (rc == 1) coll::args_differ(call, team, args);
  return rc;
}

template <typename T>
int fcollect(const char *call, xshmem_team_t team, T *dest, const T *source, size_t nelems) {
  const dev::team_t t = coll_team(call, team);
  if (!dev::team_member(t)) return -1;
  const size_t bytes = extent(call, "stride", 1, nelems, 1, sizeof(T));
  std::array<coll::Arg, 3> args{};
  uint64_t key_v = 0;
  const uint64_t *key = nullptr;
  if (checks_enabled()) {
    check_sym_arg(call, "dest", dest,
                  extent(call, "stride", 1, nelems, static_cast<size_t>(t.size), sizeof(T)),
                  alignof(T));
    check_sym_arg(call, "source", source, bytes, alignof(T));
    args = {{{"nelems", static_cast<int64_t>(nelems)},
             {"dest heap offset", bytes != 0 ? coll::offset_of(dest) : -1},
             {"source heap offset", bytes != 0 ? coll::offset_of(source) : -1}}};
    key = coll::carried_key(call, team, t, args, path::team_ops_in_kernels(), &key_v);
  }
  const int rc = run(dev::kCollFcollect, team, dest, source, bytes, sizeof(T), 1, 1, 0, [&] {
    return dev::fcollectmem<dev::coll_thread>(state(), t, dest, source, bytes, key);
  });
  if (rc == 1) coll::args_differ(call, team, args);
  return rc;
}

template <typename T>
int collect(const char *call, xshmem_team_t team, T *dest, const T *source, size_t nelems) {
  const dev::team_t t = coll_team(call, team);
  if (!dev::team_member(t)) return -1;
  const size_t bytes = extent(call, "stride", 1, nelems, 1, sizeof(T));
  std::array<coll::Arg, 1> args{};
  uint64_t key_v = 0;
  const uint64_t *key = nullptr;
  if (checks_enabled()) {
    // The total is known only inside the call; dest holds at least this PE's own part.
    check_sym_arg(call, "dest", dest, bytes, alignof(T));
    check_sym_arg(call, "source", source, bytes, alignof(T));
    // nelems may differ (that is collect); a PE contributing nothing may pass any source.
    args = {{{"dest heap offset", coll::offset_of(dest)}}};
    key = coll::carried_key(call, team, t, args, path::team_ops_in_kernels(), &key_v);
  }
  const int rc = run(dev::kCollCollect, team, dest, source, bytes, sizeof(T), 1, 1, 0, [&] {
    return dev::collectmem<dev::coll_thread>(state(), t, dest, source, bytes, key);
  });
  if (rc == 1) coll::args_differ(call, team, args);
  return rc;
}

template <typename T>
int alltoall(const char *call, xshmem_team_t team, T *dest, const T *source, size_t nelems) {
  const dev::team_t t = coll_team(call, team);
  if (!dev::team_member(t)) return -1;
  const size_t bytes = extent(call, "stride", 1, nelems, 1, sizeof(T));
  std::array<coll::Arg, 3> args{};
  uint64_t key_v = 0;
  const uint64_t *key = nullptr;
  if (checks_enabled()) {
    const size_t all = extent(call, "stride", 1, nelems, static_cast<size_t>(t.size), sizeof(T));
    check_sym_arg(call, "dest", dest, all, alignof(T));
    check_sym_arg(call, "source", source, all, alignof(T));
    args = {{{"nelems", static_cast<int64_t>(nelems)},
             {"dest heap offset", bytes != 0 ? coll::offset_of(dest) : -1},
             {"source heap offset", bytes != 0 ? coll::offset_of(source) : -1}}};
    key = coll::carried_key(call, team, t, args, path::team_ops_in_kernels(), &key_v);
  }
  const int rc = run(dev::kCollAlltoall, team, dest, source, bytes, sizeof(T), 1, 1, 0, [&] {
    return dev::alltoallmem<dev::coll_thread>(state(), t, dest, source, bytes, key);
  });
  if (rc == 1) coll::args_differ(call, team, args);
  return rc;
}

template <typename T>
int alltoalls(const char *call, xshmem_team_t team, T *dest, const T *source, ptrdiff_t dst,
              ptrdiff_t sst, size_t nelems) {
  const dev::team_t t = coll_team(call, team);
  if (!dev::team_member(t)) return -1;
  const size_t n = static_cast<size_t>(t.size);
  // The strides are checked in any mode: a stride below 1 would move data outside both arrays.
  const size_t dbytes = extent(call, "dst", dst, nelems, n, sizeof(T));
  const size_t sbytes = extent(call, "sst", sst, nelems, n, sizeof(T));
  std::array<coll::Arg, 5> args{};
  uint64_t key_v = 0;
  const uint64_t *key = nullptr;
  if (checks_enabled()) {
    check_sym_arg(call, "dest", dest, dbytes, alignof(T));
    check_sym_arg(call, "source", source, sbytes, alignof(T));
    args = {{{"nelems", static_cast<int64_t>(nelems)},
             {"dst", dst},
             {"sst", sst},
             {"dest heap offset", dbytes != 0 ? coll::offset_of(dest) : -1},
             {"source heap offset", sbytes != 0 ? coll::offset_of(source) : -1}}};
    key = coll::carried_key(call, team, t, args, path::team_ops_in_kernels(), &key_v);
  }
  const int rc =
      run(dev::kCollAlltoalls, team, dest, source, nelems * sizeof(T), sizeof(T), dst, sst, 0, [&] {
        return dev::alltoalls<dev::coll_thread>(state(), t, dest, source, dst, sst, nelems, key);
      });
  if (rc == 1) coll::args_differ(call, team, args);
  return rc;
}

}  // namespace
}  // namespace xshmem::core

namespace xc = xshmem::core;

extern "C" {

#define XSHMEM_DEF_COLL_MOVE(T, N)                                                            \
  int xshmem_##N##_broadcast(xshmem_team_t team, T *dest, const T *source, size_t nelems,     \
                             int PE_root) {                                                   \
    return xc::broadcast<T>("xshmem_" #N "_broadcast", team, dest, source, nelems, PE_root);  \
  }                                                                                           \
  int xshmem_##N##_collect(xshmem_team_t team, T *dest, const T *source, size_t nelems) {     \
    return xc::collect<T>("xshmem_" #N "_collect", team, dest, source, nelems);               \
  }                                                                                           \
  int xshmem_##N##_fcollect(xshmem_team_t team, T *dest, const T *source, size_t nelems) {    \
    return xc::fcollect<T>("xshmem_" #N "_fcollect", team, dest, source, nelems);             \
  }                                                                                           \
  int xshmem_##N##_alltoall(xshmem_team_t team, T *dest, const T *source, size_t nelems) {    \
    return xc::alltoall<T>("xshmem_" #N "_alltoall", team, dest, source, nelems);             \
  }                                                                                           \
  int xshmem_##N##_alltoalls(xshmem_team_t team, T *dest, const T *source, ptrdiff_t dst,     \
                             ptrdiff_t sst, size_t nelems) {                                  \
    return xc::alltoalls<T>("xshmem_" #N "_alltoalls", team, dest, source, dst, sst, nelems); \
  }
XSHMEM_RMA_TYPES(XSHMEM_DEF_COLL_MOVE)
#undef XSHMEM_DEF_COLL_MOVE

int xshmem_broadcastmem(xshmem_team_t team, void *dest, const void *source, size_t nelems,
                        int PE_root) {
  return xc::broadcast<unsigned char>("xshmem_broadcastmem", team,
                                      static_cast<unsigned char *>(dest),
                                      static_cast<const unsigned char *>(source), nelems, PE_root);
}
int xshmem_collectmem(xshmem_team_t team, void *dest, const void *source, size_t nelems) {
  return xc::collect<unsigned char>("xshmem_collectmem", team, static_cast<unsigned char *>(dest),
                                    static_cast<const unsigned char *>(source), nelems);
}
int xshmem_fcollectmem(xshmem_team_t team, void *dest, const void *source, size_t nelems) {
  return xc::fcollect<unsigned char>("xshmem_fcollectmem", team, static_cast<unsigned char *>(dest),
                                     static_cast<const unsigned char *>(source), nelems);
}
int xshmem_alltoallmem(xshmem_team_t team, void *dest, const void *source, size_t nelems) {
  return xc::alltoall<unsigned char>("xshmem_alltoallmem", team, static_cast<unsigned char *>(dest),
                                     static_cast<const unsigned char *>(source), nelems);
}
int xshmem_alltoallsmem(xshmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                        ptrdiff_t sst, size_t nelems) {
  return xc::alltoalls<unsigned char>("xshmem_alltoallsmem", team,
                                      static_cast<unsigned char *>(dest),
                                      static_cast<const unsigned char *>(source), dst, sst, nelems);
}

// Second names for the inline CUDA API's host branches (<xshmem/device/cuda_api.h>).
#define XSHMEMI_ALIAS(NAME, PARAMS) \
  int xshmemi_h_##NAME PARAMS __attribute__((alias("xshmem_" #NAME)));
#define XSHMEM_ALIAS_COLL_MOVE(T, N)                                         \
  XSHMEMI_ALIAS(N##_broadcast, (xshmem_team_t, T *, const T *, size_t, int)) \
  XSHMEMI_ALIAS(N##_collect, (xshmem_team_t, T *, const T *, size_t))        \
  XSHMEMI_ALIAS(N##_fcollect, (xshmem_team_t, T *, const T *, size_t))       \
  XSHMEMI_ALIAS(N##_alltoall, (xshmem_team_t, T *, const T *, size_t))       \
  XSHMEMI_ALIAS(N##_alltoalls, (xshmem_team_t, T *, const T *, ptrdiff_t, ptrdiff_t, size_t))
XSHMEM_RMA_TYPES_NO_LD(XSHMEM_ALIAS_COLL_MOVE)
#undef XSHMEM_ALIAS_COLL_MOVE
XSHMEMI_ALIAS(broadcastmem, (xshmem_team_t, void *, const void *, size_t, int))
XSHMEMI_ALIAS(collectmem, (xshmem_team_t, void *, const void *, size_t))
XSHMEMI_ALIAS(fcollectmem, (xshmem_team_t, void *, const void *, size_t))
XSHMEMI_ALIAS(alltoallmem, (xshmem_team_t, void *, const void *, size_t))
XSHMEMI_ALIAS(alltoallsmem, (xshmem_team_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t))
#undef XSHMEMI_ALIAS

}  // extern "C"
