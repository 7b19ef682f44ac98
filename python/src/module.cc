// _xshmem: the C API of xshmem for the Python package (python/xshmem/__init__.py wraps it with
// tensors and arrays). Addresses travel as integers; the package takes them from tensors
// (data_ptr) and arrays (ctypes.data). Every call runs under xshmem::checks_throw, so a checked-
// mode failure raises xshmem.Error with the runtime's one-line diagnostic instead of stopping the
// job, and releases the GIL while it runs (a wait or a collective may block for long).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include <xshmem/bindings.h>
#include <xshmem/xshmem.h>
#include <xshmem/xshmemx.h>

namespace py = pybind11;

namespace {

using addr_t = uintptr_t;

template <typename T = void>
T *ptr(addr_t a) {
  return reinterpret_cast<T *>(a);
}

// The guards of every call: C++ exceptions for checked-mode failures, no GIL while it runs.
using guards = py::call_guard<xshmem::checks_throw, py::gil_scoped_release>;

[[noreturn]] void bad_dtype(const char *what, const std::string &dtype) {
  throw py::value_error(std::string("xshmem: ") + what + ": dtype " + dtype +
                        " has no form of this operation");
}

// ---- reductions: (op, dtype) to the typed C function ----
using reduce_fn = int (*)(xshmem_team_t, void *, const void *, size_t);

template <typename T, int (*F)(xshmem_team_t, T *, const T *, size_t)>
int reduce_thunk(xshmem_team_t team, void *dest, const void *source, size_t n) {
  return F(team, static_cast<T *>(dest), static_cast<const T *>(source), n);
}

#define XP_BIT(T, N)                                                   \
  if (dtype == #N) {                                                   \
    if (op == "and") return &reduce_thunk<T, xshmem_##N##_and_reduce>; \
    if (op == "or") return &reduce_thunk<T, xshmem_##N##_or_reduce>;   \
    if (op == "xor") return &reduce_thunk<T, xshmem_##N##_xor_reduce>; \
  }
#define XP_ARITH(T, N)                                                   \
  if (dtype == #N) {                                                     \
    if (op == "sum") return &reduce_thunk<T, xshmem_##N##_sum_reduce>;   \
    if (op == "prod") return &reduce_thunk<T, xshmem_##N##_prod_reduce>; \
    if (op == "max") return &reduce_thunk<T, xshmem_##N##_max_reduce>;   \
    if (op == "min") return &reduce_thunk<T, xshmem_##N##_min_reduce>;   \
  }

// The C API's own type tables (<xshmem/types.h>): the package passes their names (int8 ... uint64,
// float, double).
reduce_fn find_reduce(const std::string &op, const std::string &dtype) {
  XSHMEM_REDUCE_BITWISE_TYPES(XP_BIT)
  XSHMEM_REDUCE_ARITH_TYPES_NO_LD(XP_ARITH)
  return nullptr;
}
#undef XP_BIT
#undef XP_ARITH

// ---- atomics: (op, dtype) at an address; values travel as Python int or float ----
// The standard and bitwise forms of integer type N (int32, int64, uint32, uint64); the extended
// ones (fetch, set, swap) of every type. Sets *fetched to whether the op returns a value.
#define XP_AMO_EXT(N)                                                 \
  if (op == "fetch") return xshmem_##N##_atomic_fetch(dest, pe);      \
  if (op == "swap") return xshmem_##N##_atomic_swap(dest, value, pe); \
  if (op == "set") {                                                  \
    *fetched = false;                                                 \
    xshmem_##N##_atomic_set(dest, value, pe);                         \
    return T{};                                                       \
  }
#define XP_AMO_VOID(N, OP, ...)                        \
  if (op == #OP) {                                     \
    *fetched = false;                                  \
    xshmem_##N##_atomic_##OP(dest, ##__VA_ARGS__, pe); \
    return T{};                                        \
  }
#define XP_AMO_INT(N)                                                                       \
  XP_AMO_EXT(N)                                                                             \
  if (op == "compare_swap") return xshmem_##N##_atomic_compare_swap(dest, cond, value, pe); \
  if (op == "fetch_add") return xshmem_##N##_atomic_fetch_add(dest, value, pe);             \
  if (op == "fetch_inc") return xshmem_##N##_atomic_fetch_inc(dest, pe);                    \
  if (op == "fetch_and") return xshmem_##N##_atomic_fetch_and(dest, value, pe);             \
  if (op == "fetch_or") return xshmem_##N##_atomic_fetch_or(dest, value, pe);               \
  if (op == "fetch_xor") return xshmem_##N##_atomic_fetch_xor(dest, value, pe);             \
  XP_AMO_VOID(N, add, value)                                                                \
  XP_AMO_VOID(N, inc)                                                                       \
  XP_AMO_VOID(N, and, value)                                                                \
  XP_AMO_VOID(N, or, value)                                                                 \
  XP_AMO_VOID(N, xor, value)

template <typename T>
T amo_run(const std::string &op, T *dest, T value, T cond, int pe, bool *fetched) {
  *fetched = true;
  (void)cond;
  if constexpr (std::is_same_v<T, int32_t>) {
    XP_AMO_INT(int32)
  } else if constexpr (std::is_same_v<T, int64_t>) {
    XP_AMO_INT(int64)
  } else if constexpr (std::is_same_v<T, uint32_t>) {
    XP_AMO_INT(uint32)
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    XP_AMO_INT(uint64)
  } else if constexpr (std::is_same_v<T, float>) {
    XP_AMO_EXT(float)
  } else {
    XP_AMO_EXT(double)
  }
  throw py::value_error("xshmem: atomic: no operation " + op + " for this dtype");
}
#undef XP_AMO_INT
#undef XP_AMO_VOID
#undef XP_AMO_EXT

template <typename T>
py::object amo_typed(const std::string &op, T *dest, const py::object &value_o,
                     const py::object &cond_o, int pe) {
  const T value = value_o.is_none() ? T{} : value_o.cast<T>();
  const T cond = cond_o.is_none() ? T{} : cond_o.cast<T>();
  bool fetched = true;
  T out;
  {
    xshmem::checks_throw raise;
    py::gil_scoped_release nogil;
    out = amo_run<T>(op, dest, value, cond, pe, &fetched);
  }
  if (!fetched) return py::none();
  return py::cast(out);
}

py::object amo(const std::string &op, const std::string &dtype, addr_t dest, py::object value,
               py::object cond, int pe) {
  if (dtype == "int32") return amo_typed<int32_t>(op, ptr<int32_t>(dest), value, cond, pe);
  if (dtype == "int64") return amo_typed<int64_t>(op, ptr<int64_t>(dest), value, cond, pe);
  if (dtype == "uint32") return amo_typed<uint32_t>(op, ptr<uint32_t>(dest), value, cond, pe);
  if (dtype == "uint64") return amo_typed<uint64_t>(op, ptr<uint64_t>(dest), value, cond, pe);
  if (dtype == "float") return amo_typed<float>(op, ptr<float>(dest), value, cond, pe);
  if (dtype == "double") return amo_typed<double>(op, ptr<double>(dest), value, cond, pe);
  bad_dtype("atomic", dtype);
}

xshmem_team_t team_of(int64_t t) {
  return static_cast<xshmem_team_t>(t);
}

CUstream_st *stream_of(addr_t s) {
  return reinterpret_cast<CUstream_st *>(s);
}

}  // namespace

PYBIND11_MODULE(_xshmem, m) {
  m.doc() = "xshmem's C API for the xshmem package (use the package, not this module)";
  py::register_exception<xshmem::check_error>(m, "Error", PyExc_RuntimeError);

  // ---- lifetime and identity
  m.def(
      "init", [] { xshmem_init(); }, guards());
  m.def("get_uniqueid", [] {
    xshmem_uniqueid_t id;
    {
      xshmem::checks_throw raise;
      if (xshmem_get_uniqueid(&id) != 0)
        throw std::runtime_error("xshmem: xshmem_get_uniqueid failed");
    }
    return py::bytes(reinterpret_cast<const char *>(&id), sizeof(id));
  });
  m.def(
      "init_uniqueid",
      [](int rank, int nranks, const std::string &uid) {
        if (uid.size() != sizeof(xshmem_uniqueid_t))
          throw py::value_error("xshmem: init: the unique id must be " +
                                std::to_string(sizeof(xshmem_uniqueid_t)) + " bytes, not " +
                                std::to_string(uid.size()));
        xshmem_uniqueid_t id;
        std::memcpy(&id, uid.data(), sizeof(id));
        xshmem_init_attr_t attr;
        std::memset(&attr, 0, sizeof(attr));
        xshmem::checks_throw raise;
        py::gil_scoped_release nogil;
        if (xshmem_set_attr_uniqueid_args(rank, nranks, &id, &attr) != 0) return -1;
        return xshmem_init_attr(XSHMEM_INIT_WITH_UNIQUEID, &attr);
      },
      py::arg("rank"), py::arg("nranks"), py::arg("uid"));
  m.def(
      "finalize", [] { xshmem_finalize(); }, guards());
  m.def("initialized", [] { return xshmem_query_initialized() != 0; });
  m.def(
      "my_pe", [] { return xshmem_my_pe(); }, guards());
  m.def(
      "n_pes", [] { return xshmem_n_pes(); }, guards());
  m.def(
      "heap_device", [] { return xshmemx_heap_device(); }, guards());
  m.def("transport_name", [](int pe) -> py::object {
    const char *n;
    {
      xshmem::checks_throw raise;
      n = xshmemx_transport_name(pe);
    }
    if (n == nullptr) return py::none();
    return py::str(n);
  });

  // ---- symmetric memory (collective)
  m.def(
      "malloc", [](size_t n) { return reinterpret_cast<addr_t>(xshmem_malloc(n)); }, guards());
  m.def(
      "calloc", [](size_t n) { return reinterpret_cast<addr_t>(xshmem_calloc(1, n)); }, guards());
  m.def(
      "align",
      [](size_t alignment, size_t n) {
        return reinterpret_cast<addr_t>(xshmem_align(alignment, n));
      },
      guards());
  m.def(
      "free", [](addr_t p) { xshmem_free(ptr(p)); }, guards());
  m.def(
      "ptr", [](addr_t p, int pe) { return reinterpret_cast<addr_t>(xshmem_ptr(ptr(p), pe)); },
      guards());

  // ---- RMA and signals
  m.def(
      "putmem", [](addr_t d, addr_t s, size_t n, int pe) { xshmem_putmem(ptr(d), ptr(s), n, pe); },
      guards());
  m.def(
      "getmem", [](addr_t d, addr_t s, size_t n, int pe) { xshmem_getmem(ptr(d), ptr(s), n, pe); },
      guards());
  m.def(
      "putmem_nbi",
      [](addr_t d, addr_t s, size_t n, int pe) { xshmem_putmem_nbi(ptr(d), ptr(s), n, pe); },
      guards());
  m.def(
      "getmem_nbi",
      [](addr_t d, addr_t s, size_t n, int pe) { xshmem_getmem_nbi(ptr(d), ptr(s), n, pe); },
      guards());
  m.def(
      "putmem_signal",
      [](addr_t d, addr_t s, size_t n, addr_t sig, uint64_t value, int sig_op, int pe) {
        xshmem_putmem_signal(ptr(d), ptr(s), n, ptr<uint64_t>(sig), value, sig_op, pe);
      },
      guards());
  m.def(
      "signal_wait_until",
      [](addr_t sig, int cmp, uint64_t value) {
        return xshmem_signal_wait_until(ptr<uint64_t>(sig), cmp, value);
      },
      guards());
  m.def(
      "signal_fetch", [](addr_t sig) { return xshmem_signal_fetch(ptr<uint64_t>(sig)); }, guards());
  m.def("atomic", &amo, py::arg("op"), py::arg("dtype"), py::arg("dest"), py::arg("value"),
        py::arg("cond"), py::arg("pe"));

  // ---- ordering and synchronisation
  m.def(
      "quiet", [] { xshmem_quiet(); }, guards());
  m.def(
      "fence", [] { xshmem_fence(); }, guards());
  m.def(
      "barrier_all", [] { xshmem_barrier_all(); }, guards());
  m.def(
      "sync_all", [] { xshmem_sync_all(); }, guards());
  m.def(
      "team_sync", [](int64_t t) { return xshmem_team_sync(team_of(t)); }, guards());

  // ---- teams
  m.attr("TEAM_WORLD") = static_cast<int64_t>(XSHMEM_TEAM_WORLD);
  m.attr("TEAM_SHARED") = static_cast<int64_t>(XSHMEM_TEAM_SHARED);
  m.attr("TEAM_INVALID") = static_cast<int64_t>(XSHMEM_TEAM_INVALID);
  m.def(
      "team_my_pe", [](int64_t t) { return xshmem_team_my_pe(team_of(t)); }, guards());
  m.def(
      "team_n_pes", [](int64_t t) { return xshmem_team_n_pes(team_of(t)); }, guards());
  m.def(
      "team_translate_pe",
      [](int64_t src, int pe, int64_t dst) {
        return xshmem_team_translate_pe(team_of(src), pe, team_of(dst));
      },
      guards());
  m.def(
      "team_split_strided",
      [](int64_t parent, int start, int stride, int size) {
        xshmem_team_t t = XSHMEM_TEAM_INVALID;
        const int rc =
            xshmem_team_split_strided(team_of(parent), start, stride, size, nullptr, 0, &t);
        return std::pair<int, int64_t>(rc, static_cast<int64_t>(t));  // made a tuple with the GIL
      },
      guards());
  m.def(
      "team_destroy", [](int64_t t) { xshmem_team_destroy(team_of(t)); }, guards());

  // ---- collectives (bytes for the data movement, elements for the reductions)
  m.def(
      "broadcastmem",
      [](int64_t t, addr_t d, addr_t s, size_t n, int root) {
        return xshmem_broadcastmem(team_of(t), ptr(d), ptr(s), n, root);
      },
      guards());
  m.def(
      "fcollectmem",
      [](int64_t t, addr_t d, addr_t s, size_t n) {
        return xshmem_fcollectmem(team_of(t), ptr(d), ptr(s), n);
      },
      guards());
  m.def(
      "alltoallmem",
      [](int64_t t, addr_t d, addr_t s, size_t n) {
        return xshmem_alltoallmem(team_of(t), ptr(d), ptr(s), n);
      },
      guards());
  m.def("reduce", [](const std::string &op, const std::string &dtype, int64_t t, addr_t d, addr_t s,
                     size_t n) {
    const reduce_fn f = find_reduce(op, dtype);
    if (f == nullptr) bad_dtype(("reduce (" + op + ")").c_str(), dtype);
    xshmem::checks_throw raise;
    py::gil_scoped_release nogil;
    return f(team_of(t), ptr(d), ptr(s), n);
  });

  // ---- on a CUDA stream (GPU heaps; the stream is torch.cuda.Stream.cuda_stream)
  m.def(
      "putmem_on_stream",
      [](addr_t d, addr_t s, size_t n, int pe, addr_t st) {
        xshmemx_putmem_on_stream(ptr(d), ptr(s), n, pe, stream_of(st));
      },
      guards());
  m.def(
      "getmem_on_stream",
      [](addr_t d, addr_t s, size_t n, int pe, addr_t st) {
        xshmemx_getmem_on_stream(ptr(d), ptr(s), n, pe, stream_of(st));
      },
      guards());
  m.def(
      "putmem_signal_on_stream",
      [](addr_t d, addr_t s, size_t n, addr_t sig, uint64_t value, int sig_op, int pe, addr_t st) {
        xshmemx_putmem_signal_on_stream(ptr(d), ptr(s), n, ptr<uint64_t>(sig), value, sig_op, pe,
                                        stream_of(st));
      },
      guards());
  m.def(
      "quiet_on_stream", [](addr_t st) { xshmemx_quiet_on_stream(stream_of(st)); }, guards());
  m.def(
      "barrier_all_on_stream", [](addr_t st) { xshmemx_barrier_all_on_stream(stream_of(st)); },
      guards());

  // ---- constants
  m.attr("SIGNAL_SET") = XSHMEM_SIGNAL_SET;
  m.attr("SIGNAL_ADD") = XSHMEM_SIGNAL_ADD;
  m.attr("CMP_EQ") = XSHMEM_CMP_EQ;
  m.attr("CMP_NE") = XSHMEM_CMP_NE;
  m.attr("CMP_GT") = XSHMEM_CMP_GT;
  m.attr("CMP_GE") = XSHMEM_CMP_GE;
  m.attr("CMP_LT") = XSHMEM_CMP_LT;
  m.attr("CMP_LE") = XSHMEM_CMP_LE;
}
