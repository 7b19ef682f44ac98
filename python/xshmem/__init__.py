"""xshmem from Python: symmetric tensors and arrays, RMA, signals, atomics and collectives.

    import torch, xshmem
    xshmem.init()                      # from xshmem-run's environment
    x = xshmem.zeros((4, 1024), torch.float32)
    xshmem.put(x, torch.ones_like(x), pe=(xshmem.my_pe() + 1) % xshmem.n_pes())
    xshmem.barrier_all()
    xshmem.free(x)
    xshmem.finalize()

`init(process_group=pg)` joins the processes of a torch.distributed group instead (the unique id
travels through the group). Symmetric buffers come from `empty`/`zeros`: a torch tensor when
`dtype` is a torch dtype, a numpy array otherwise, on the symmetric heap (host memory for CPU
PEs; for a heap in GPU memory, torch tensors on that GPU). They are collective, like `free`.
Misuse raises `xshmem.Error` carrying the runtime's one-line diagnostic ("xshmem: <call>: <what>
(pe N)"); argument errors the package finds first raise ValueError or TypeError. Blocking calls
release the GIL.
"""

import ctypes

from . import _xshmem as _x
from ._xshmem import Error  # noqa: F401  (the runtime's checked-mode failures)

try:
    import numpy as _np
except ImportError:  # pragma: no cover - numpy comes with torch
    _np = None
try:
    import torch as _torch
except ImportError:  # pragma: no cover
    _torch = None

__all__ = [
    "Error", "init", "finalize", "initialized", "my_pe", "n_pes", "empty", "zeros", "free",
    "peer_tensor", "put", "get", "put_signal", "signal_wait_until", "signal_fetch", "atomic",
    "atomic_fetch_add", "atomic_add", "atomic_fetch", "atomic_set", "atomic_swap",
    "atomic_compare_swap", "quiet", "fence", "barrier_all", "sync_all", "team_sync", "team_my_pe",
    "team_n_pes", "team_split_strided", "team_destroy", "team_translate_pe", "broadcast",
    "fcollect", "alltoall", "reduce", "transport_name", "TEAM_WORLD", "TEAM_SHARED",
    "TEAM_INVALID", "SIGNAL_SET", "SIGNAL_ADD", "CMP_EQ", "CMP_NE", "CMP_GT", "CMP_GE", "CMP_LT",
    "CMP_LE",
]

TEAM_WORLD = _x.TEAM_WORLD
TEAM_SHARED = _x.TEAM_SHARED
TEAM_INVALID = _x.TEAM_INVALID
SIGNAL_SET = _x.SIGNAL_SET
SIGNAL_ADD = _x.SIGNAL_ADD
CMP_EQ, CMP_NE, CMP_GT = _x.CMP_EQ, _x.CMP_NE, _x.CMP_GT
CMP_GE, CMP_LT, CMP_LE = _x.CMP_GE, _x.CMP_LT, _x.CMP_LE

# Live allocations of this process: base address -> bytes (for free and the finalize report).
_allocs = {}


# ---- lifetime ----------------------------------------------------------------------------------

def init(process_group=None):
    """Starts xshmem. Without arguments from the launcher's environment (xshmem-run, mpirun with
    the mpi bootstrap, ...); with `process_group` (a torch.distributed group, or None for the
    default group when torch.distributed is initialized) as one job of that group's processes,
    PE numbers being the group ranks."""
    if process_group is None:
        _x.init()  # stops the job with its diagnostic when it fails
        return
    else:
        import torch.distributed as dist
        group = None if process_group is True else process_group
        rank = dist.get_rank(group)
        size = dist.get_world_size(group)
        box = [_x.get_uniqueid() if rank == 0 else None]
        src = 0 if group is None else _group_global_rank(dist, group, 0)
        dist.broadcast_object_list(box, src=src, group=group)
        rc = _x.init_uniqueid(rank, size, box[0])
    if rc != 0:
        raise Error("xshmem: init: xshmem_init_attr failed with %d (see the lines above)" % rc)


def _group_global_rank(dist, group, rank):
    if hasattr(dist, "get_global_rank"):
        return dist.get_global_rank(group, rank)
    return dist.distributed_c10d._get_global_rank(group, rank)  # torch < 2.0


def finalize():
    """Ends xshmem (collective). Symmetric buffers still allocated are reported and released by
    the runtime; tensors over them must not be used afterwards."""
    if _allocs:
        import warnings
        warnings.warn("xshmem: finalize: %d symmetric buffer(s) not freed (%d bytes)"
                      % (len(_allocs), sum(_allocs.values())), ResourceWarning, stacklevel=2)
        _allocs.clear()
    _x.finalize()


initialized = _x.initialized
my_pe = _x.my_pe
n_pes = _x.n_pes
quiet = _x.quiet
fence = _x.fence
barrier_all = _x.barrier_all
sync_all = _x.sync_all
transport_name = _x.transport_name


# ---- buffers -----------------------------------------------------------------------------------

def _is_torch(x):
    return _torch is not None and isinstance(x, _torch.Tensor)


def _itemsize(dtype):
    if _torch is not None and isinstance(dtype, _torch.dtype):
        return _torch.empty((), dtype=dtype).element_size()
    return _np.dtype(dtype).itemsize


def _shape_tuple(shape):
    if isinstance(shape, int):
        return (shape,)
    return tuple(int(s) for s in shape)


def _wrap(addr, shape, dtype, nbytes):
    """A tensor (torch dtype) or an array (anything numpy takes) over [addr, addr + nbytes)."""
    device = _x.heap_device()
    if _torch is not None and isinstance(dtype, _torch.dtype):
        if device >= 0:
            return _cuda_tensor(addr, shape, dtype, nbytes, device)
        raw = _np.ctypeslib.as_array((ctypes.c_uint8 * max(nbytes, 1)).from_address(addr))
        t = _torch.from_numpy(raw[:nbytes])
        return t.view(dtype).reshape(shape)
    if device >= 0:
        raise TypeError("xshmem: the symmetric heap is in GPU memory: give a torch dtype")
    raw = _np.ctypeslib.as_array((ctypes.c_uint8 * max(nbytes, 1)).from_address(addr))
    return raw[:nbytes].view(_np.dtype(dtype)).reshape(shape)


def _cuda_tensor(addr, shape, dtype, nbytes, device):
    # A GPU heap: a torch tensor over the device memory, through the CUDA array interface.
    holder = type("_XshmemCudaBuffer", (), {})()
    holder.__cuda_array_interface__ = {
        "shape": (max(nbytes, 1),), "typestr": "|u1", "data": (addr, False), "version": 2}
    with _torch.cuda.device(device):
        raw = _torch.as_tensor(holder, device="cuda:%d" % device)
    return raw[:nbytes].view(dtype).reshape(shape)


def empty(shape, dtype, device=None):
    """A symmetric buffer of `shape` and `dtype`, uninitialized (collective: every PE calls it
    with the same arguments, in the same order). A torch tensor for a torch dtype, else a numpy
    array. `device`, when given, must match where the heap is ("cpu", or "cuda"/"cuda:N")."""
    return _alloc(shape, dtype, device, zero=False)


def zeros(shape, dtype, device=None):
    """empty() filled with zeros on every PE before any PE returns."""
    return _alloc(shape, dtype, device, zero=True)


def _alloc(shape, dtype, device, zero):
    shape = _shape_tuple(shape)
    n = 1
    for s in shape:
        if s < 0:
            raise ValueError("xshmem: empty: negative dimension %d in shape %s" % (s, shape))
        n *= s
    nbytes = n * _itemsize(dtype)
    heap_dev = _x.heap_device()
    if device is not None:
        dev = str(device)
        want_cuda = dev.startswith("cuda")
        if want_cuda != (heap_dev >= 0):
            raise ValueError("xshmem: empty: device %s, but the symmetric heap is in %s"
                             % (dev, "GPU %d memory" % heap_dev if heap_dev >= 0 else
                                "host memory"))
    # One byte at least: a zero-size buffer still has a symmetric address to free.
    size = max(nbytes, 1)
    addr = _x.calloc(size) if zero else _x.malloc(size)
    if addr == 0:
        raise MemoryError("xshmem: empty: the symmetric heap has no %d free bytes" % size)
    _allocs[addr] = size
    return _wrap(addr, shape, dtype, nbytes)


def _addr(x):
    """(address, bytes) of a contiguous tensor or array."""
    if _is_torch(x):
        if not x.is_contiguous():
            raise ValueError("xshmem: the tensor is not contiguous")
        return x.data_ptr(), x.numel() * x.element_size()
    if _np is not None and isinstance(x, _np.ndarray):
        if not x.flags.c_contiguous:
            raise ValueError("xshmem: the array is not C-contiguous")
        return x.ctypes.data, x.nbytes
    raise TypeError("xshmem: expected a torch tensor or a numpy array, not %s" % type(x).__name__)


def free(x):
    """Releases a buffer from empty()/zeros() (collective, like xshmem_free)."""
    addr, _ = _addr(x)
    if addr not in _allocs:
        raise ValueError("xshmem: free: not a buffer of xshmem.empty/zeros (or freed already)")
    del _allocs[addr]
    _x.free(addr)


def peer_tensor(x, pe):
    """The buffer `x` of PE `pe` as a tensor/array this process loads and stores directly, or
    None when `pe` is not reachable by load/store."""
    addr, nbytes = _addr(x)
    p = _x.ptr(addr, pe)
    if p == 0:
        return None
    dtype = x.dtype
    return _wrap(p, tuple(x.shape), dtype, nbytes)


# ---- RMA, signals, atomics ---------------------------------------------------------------------

def _pair(dest, source, what):
    d, dn = _addr(dest)
    s, sn = _addr(source)
    if dn < sn:
        raise ValueError("xshmem: %s: dest has %d bytes, source %d" % (what, dn, sn))
    return d, s, sn


def put(dest, source, pe, nbi=False):
    """Copies `source` (local) into the symmetric `dest` of PE `pe` (source's bytes)."""
    d, s, n = _pair(dest, source, "put")
    (_x.putmem_nbi if nbi else _x.putmem)(d, s, n, pe)


def get(dest, source, pe, nbi=False):
    """Copies the symmetric `source` of PE `pe` into local `dest` (source's bytes)."""
    d, s, n = _pair(dest, source, "get")
    (_x.getmem_nbi if nbi else _x.getmem)(d, s, n, pe)


def _signal_addr(sig, index=0):
    a, n = _addr(sig)
    if n < 8 * (index + 1) or sig.dtype not in _SIGNAL_DTYPES:
        raise TypeError("xshmem: a signal is a 64-bit unsigned (or signed) integer buffer")
    return a + 8 * index


def put_signal(dest, source, sig, value, pe, sig_op=SIGNAL_SET, index=0):
    """put(), then sets (or adds `value` to) element `index` of the signal buffer `sig` at `pe`;
    a PE that sees the signal sees the data."""
    d, s, n = _pair(dest, source, "put_signal")
    _x.putmem_signal(d, s, n, _signal_addr(sig, index), int(value), int(sig_op), pe)


def signal_wait_until(sig, cmp, value, index=0):
    """Waits until element `index` of the local signal buffer compares `cmp` with `value`;
    returns the value seen."""
    return _x.signal_wait_until(_signal_addr(sig, index), int(cmp), int(value))


def signal_fetch(sig, index=0):
    return _x.signal_fetch(_signal_addr(sig, index))


# The C API's type names (the tables of <xshmem/types.h>) of the dtypes the package passes on.
_C_TYPES = {"int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
            "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
            "float32": "float", "float64": "double"}
_AMO_DTYPES = ("int32", "int64", "uint32", "uint64", "float32", "float64")


def _dtype_name(x):
    return str(x.dtype).replace("torch.", "")


def _amo_dtype(x):
    name = _dtype_name(x)
    if name not in _AMO_DTYPES:
        raise TypeError("xshmem: atomics take int32, int64, uint32, uint64, float32 or float64 "
                        "buffers, not %s" % name)
    return _C_TYPES[name]


def atomic(op, x, pe, value=None, cond=None, index=0):
    """Atomic `op` on element `index` of the symmetric buffer `x` at PE `pe`: fetch, set, swap,
    compare_swap, fetch_add, add, fetch_inc, inc, fetch_and/or/xor, and/or/xor. Returns the
    fetched value, or None."""
    a, n = _addr(x)
    size = x.element_size() if _is_torch(x) else x.itemsize
    if index < 0 or (index + 1) * size > n:
        raise IndexError("xshmem: atomic: index %d outside a buffer of %d elements"
                         % (index, n // size))
    return _x.atomic(op, _amo_dtype(x), a + index * size, value, cond, pe)


def atomic_fetch_add(x, value, pe, index=0):
    return atomic("fetch_add", x, pe, value=value, index=index)


def atomic_add(x, value, pe, index=0):
    atomic("add", x, pe, value=value, index=index)


def atomic_fetch(x, pe, index=0):
    return atomic("fetch", x, pe, index=index)


def atomic_set(x, value, pe, index=0):
    atomic("set", x, pe, value=value, index=index)


def atomic_swap(x, value, pe, index=0):
    return atomic("swap", x, pe, value=value, index=index)


def atomic_compare_swap(x, cond, value, pe, index=0):
    return atomic("compare_swap", x, pe, value=value, cond=cond, index=index)


# ---- teams and collectives ---------------------------------------------------------------------

team_sync = _x.team_sync
team_my_pe = _x.team_my_pe
team_n_pes = _x.team_n_pes
team_translate_pe = _x.team_translate_pe
team_destroy = _x.team_destroy


def team_split_strided(parent, start, stride, size):
    """The team of `parent`'s PEs start, start + stride, ... (size of them); TEAM_INVALID on
    PEs outside it. Collective over `parent`."""
    rc, team = _x.team_split_strided(parent, start, stride, size)
    if rc != 0:
        raise Error("xshmem: team_split_strided: the split (%d, %d, %d) failed on some PE"
                    % (start, stride, size))
    return team


def _coll_rc(rc, what, team):
    if rc != 0:
        raise Error("xshmem: %s: this PE is not a member of team %d" % (what, team))


def broadcast(dest, source, root, team=TEAM_WORLD):
    """source of team member `root` into dest of every member (source's bytes)."""
    d, s, n = _pair(dest, source, "broadcast")
    _coll_rc(_x.broadcastmem(team, d, s, n, root), "broadcast", team)


def fcollect(dest, source, team=TEAM_WORLD):
    """Every member's source, concatenated in member order, into dest of every member."""
    d, dn = _addr(dest)
    s, sn = _addr(source)
    if dn < sn * team_n_pes(team):
        raise ValueError("xshmem: fcollect: dest has %d bytes, needs %d" % (dn, sn * team_n_pes(team)))
    _coll_rc(_x.fcollectmem(team, d, s, sn), "fcollect", team)


def alltoall(dest, source, team=TEAM_WORLD):
    """Block j of every member's source into block i of member j's dest (i: the sender); the
    source holds one equal block per member."""
    d, dn = _addr(dest)
    s, sn = _addr(source)
    npes = team_n_pes(team)
    if npes <= 0 or sn % npes != 0 or dn < sn:
        raise ValueError("xshmem: alltoall: source of %d bytes does not split into %d blocks "
                         "(or dest is smaller)" % (sn, npes))
    _coll_rc(_x.alltoallmem(team, d, s, sn // npes), "alltoall", team)


def reduce(dest, source, op="sum", team=TEAM_WORLD):
    """Element-wise `op` (sum, prod, max, min, and, or, xor) over every member's source into
    dest of every member."""
    name = _dtype_name(source)
    if name not in _C_TYPES:
        raise TypeError("xshmem: reduce: no reduction over %s" % name)
    if dest.dtype != source.dtype:
        raise TypeError("xshmem: reduce: dest is %s, source %s" % (dest.dtype, source.dtype))
    d, s, n = _pair(dest, source, "reduce")
    count = source.numel() if _is_torch(source) else source.size
    _coll_rc(_x.reduce(op, _C_TYPES[name], team, d, s, count), "reduce", team)


def _signal_dtypes():
    out = []
    if _torch is not None:
        out += [_torch.int64]
        if hasattr(_torch, "uint64"):
            out.append(_torch.uint64)
    if _np is not None:
        out += [_np.dtype("uint64"), _np.dtype("int64")]
    return out


_SIGNAL_DTYPES = _signal_dtypes()
