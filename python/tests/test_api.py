"""The xshmem Python package on CPU PEs, run by every PE of an xshmem-run job (the same tests in
the same order on every PE: most are collective). Values depend on the PE and the test, and every
buffer carries guard elements past the part an operation may touch."""

import numpy as np
import pytest
import torch

import xshmem

GUARD = 3  # guard elements after the payload of every buffer


@pytest.fixture(scope="module", autouse=True)
def job():
    xshmem.init()
    yield
    xshmem.barrier_all()
    xshmem.finalize()


def me():
    return xshmem.my_pe()


def npes():
    return xshmem.n_pes()


def right():
    return (me() + 1) % npes()


def left():
    return (me() - 1) % npes()


def test_identity():
    import os
    assert 0 <= me() < npes()
    assert npes() >= 2
    assert xshmem.initialized()
    if "XSHMEM_NPES" in os.environ:
        assert npes() == int(os.environ["XSHMEM_NPES"])
    assert xshmem.transport_name(right()) == "hostshm"


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bfloat16, torch.uint8])
def test_put_get_torch(dtype):
    n = 1000
    buf = xshmem.zeros((n + GUARD,), dtype)
    guard_val = torch.tensor(-7 if dtype != torch.uint8 else 251).to(dtype)
    buf[n:] = guard_val
    xshmem.barrier_all()
    src = (torch.arange(n) % 97 + 10 * me() + 1).to(dtype)
    xshmem.put(buf[:n], src, right())
    xshmem.barrier_all()
    expect = (torch.arange(n) % 97 + 10 * left() + 1).to(dtype)
    assert torch.equal(buf[:n], expect)
    assert torch.equal(buf[n:], guard_val.expand(GUARD))
    # get back what the right neighbour received (from me)
    out = torch.full((n + GUARD,), 5).to(dtype)
    xshmem.get(out[:n], buf[:n], right())
    assert torch.equal(out[:n], src)
    assert torch.equal(out[n:], torch.tensor(5).to(dtype).expand(GUARD))
    xshmem.barrier_all()
    xshmem.free(buf)


def test_put_get_numpy_2d():
    a = xshmem.zeros((4, 8 + GUARD), np.float64)
    a[:, 8:] = -1.5
    xshmem.barrier_all()
    src = np.arange(32, dtype=np.float64).reshape(4, 8) * (me() + 2)
    for row in range(4):
        xshmem.put(a[row, :8], src[row], right())
    xshmem.barrier_all()
    assert np.array_equal(a[:, :8], np.arange(32, dtype=np.float64).reshape(4, 8) * (left() + 2))
    assert np.all(a[:, 8:] == -1.5)
    xshmem.barrier_all()
    xshmem.free(a)


def test_nbi_and_quiet():
    n = 64
    buf = xshmem.zeros((n,), torch.int32)
    src = torch.arange(n, dtype=torch.int32) * (me() + 3)
    xshmem.put(buf, src, right(), nbi=True)
    xshmem.quiet()
    xshmem.barrier_all()
    assert torch.equal(buf, torch.arange(n, dtype=torch.int32) * (left() + 3))
    xshmem.barrier_all()
    xshmem.free(buf)


def test_put_signal_and_wait():
    n = 256
    data = xshmem.zeros((n + GUARD,), torch.float32)
    sig = xshmem.zeros((2,), torch.int64)
    data[n:] = 9.0
    xshmem.barrier_all()
    src = torch.linspace(0, 1, n) + me()
    xshmem.put_signal(data[:n], src, sig, 100 + me(), right())
    seen = xshmem.signal_wait_until(sig, xshmem.CMP_EQ, 100 + left())
    assert seen == 100 + left()
    assert torch.equal(data[:n], torch.linspace(0, 1, n) + left())
    assert torch.equal(data[n:], torch.full((GUARD,), 9.0))
    assert xshmem.signal_fetch(sig, index=1) == 0  # the neighbour signal word untouched
    xshmem.barrier_all()
    # SIGNAL_ADD from every PE into PE 0's second word
    xshmem.put_signal(data[:1], src[:1], sig, me() + 1, 0, sig_op=xshmem.SIGNAL_ADD, index=1)
    if me() == 0:
        total = npes() * (npes() + 1) // 2
        assert xshmem.signal_wait_until(sig, xshmem.CMP_GE, total, index=1) == total
    xshmem.barrier_all()
    xshmem.free(sig)
    xshmem.free(data)


def test_atomics():
    ctr = xshmem.zeros((2 + GUARD,), torch.int64)
    xshmem.barrier_all()
    olds = [xshmem.atomic_fetch_add(ctr, me() + 1, 0) for _ in range(5)]
    assert all(isinstance(o, int) for o in olds)
    xshmem.atomic_add(ctr, 1, 0, index=1)
    xshmem.barrier_all()
    if me() == 0:
        assert int(ctr[0]) == 5 * npes() * (npes() + 1) // 2
        assert int(ctr[1]) == npes()
        assert torch.equal(ctr[2:], torch.zeros(GUARD, dtype=torch.int64))
    assert xshmem.atomic_fetch(ctr, 0, index=1) == npes()
    xshmem.barrier_all()
    # compare_swap: exactly one PE wins
    won = xshmem.atomic_compare_swap(ctr, npes(), 1000 + me(), 0, index=1) == npes()
    wins = xshmem.zeros((1,), torch.int32)
    flag = torch.tensor([1 if won else 0], dtype=torch.int32)
    total = xshmem.zeros((1,), torch.int32)
    xshmem.barrier_all()
    wins.copy_(flag)
    xshmem.reduce(total, wins, "sum")
    assert int(total[0]) == 1
    winner = xshmem.atomic_fetch(ctr, 0, index=1) - 1000
    assert 0 <= winner < npes()
    # floats: swap and set
    f = xshmem.zeros((1,), torch.float64)
    xshmem.barrier_all()
    if me() == 1:
        xshmem.atomic_set(f, 2.5, 0)
    xshmem.barrier_all()
    assert xshmem.atomic_fetch(f, 0) == 2.5
    xshmem.barrier_all()
    for b in (f, total, wins, ctr):
        xshmem.free(b)


def test_broadcast_fcollect_alltoall():
    n = 16
    src = xshmem.zeros((n,), torch.int32)
    dst = xshmem.zeros((n + GUARD,), torch.int32)
    dst[n:] = -3
    src.copy_(torch.arange(n, dtype=torch.int32) + 100 * me())
    xshmem.barrier_all()
    root = npes() - 1
    xshmem.broadcast(dst[:n], src, root)
    assert torch.equal(dst[:n], torch.arange(n, dtype=torch.int32) + 100 * root)
    assert torch.equal(dst[n:], torch.full((GUARD,), -3, dtype=torch.int32))

    all_ = xshmem.zeros((npes() * n + GUARD,), torch.int32)
    all_[npes() * n:] = -4
    xshmem.barrier_all()
    xshmem.fcollect(all_[:npes() * n], src)
    expect = torch.cat([torch.arange(n, dtype=torch.int32) + 100 * p for p in range(npes())])
    assert torch.equal(all_[:npes() * n], expect)
    assert torch.equal(all_[npes() * n:], torch.full((GUARD,), -4, dtype=torch.int32))

    blk = 3
    a_src = xshmem.zeros((npes() * blk,), torch.int64)
    a_dst = xshmem.zeros((npes() * blk + GUARD,), torch.int64)
    a_dst[npes() * blk:] = 77
    a_src.copy_(torch.tensor([1000 * me() + 10 * j + k for j in range(npes())
                              for k in range(blk)], dtype=torch.int64))
    xshmem.barrier_all()
    xshmem.alltoall(a_dst[:npes() * blk], a_src)
    expect = torch.tensor([1000 * i + 10 * me() + k for i in range(npes()) for k in range(blk)],
                          dtype=torch.int64)
    assert torch.equal(a_dst[:npes() * blk], expect)
    assert torch.equal(a_dst[npes() * blk:], torch.full((GUARD,), 77, dtype=torch.int64))
    xshmem.barrier_all()
    for b in (a_dst, a_src, all_, dst, src):
        xshmem.free(b)


@pytest.mark.parametrize("op,dtype", [("sum", torch.float64), ("max", torch.int32),
                                      ("min", torch.int64), ("prod", torch.float32),
                                      ("xor", torch.int64), ("or", torch.uint8)])
def test_reduce(op, dtype):
    n = 33
    src = xshmem.zeros((n,), dtype)
    dst = xshmem.zeros((n + GUARD,), dtype)
    dst[n:] = 7
    vals = [(torch.arange(n) % 5 + p + 1).to(dtype) for p in range(npes())]
    src.copy_(vals[me()])
    xshmem.barrier_all()
    xshmem.reduce(dst[:n], src, op)
    expect = vals[0].clone()
    for v in vals[1:]:
        if op == "sum":
            expect = expect + v
        elif op == "prod":
            expect = expect * v
        elif op == "max":
            expect = torch.maximum(expect, v)
        elif op == "min":
            expect = torch.minimum(expect, v)
        elif op == "xor":
            expect = expect ^ v
        else:
            expect = expect | v
    assert torch.equal(dst[:n], expect.to(dtype))
    assert torch.equal(dst[n:], torch.full((GUARD,), 7).to(dtype))
    xshmem.barrier_all()
    xshmem.free(dst)
    xshmem.free(src)


def test_numpy_reduce_uint64():
    src = xshmem.zeros((5,), np.uint64)
    dst = xshmem.zeros((5,), np.uint64)
    src[:] = np.arange(5, dtype=np.uint64) + np.uint64(2 ** 40 * (me() + 1))
    xshmem.barrier_all()
    xshmem.reduce(dst, src, "sum")
    total = sum(2 ** 40 * (p + 1) for p in range(npes()))
    assert list(dst) == [total + npes() * k for k in range(5)]
    xshmem.barrier_all()
    xshmem.free(dst)
    xshmem.free(src)


def test_teams():
    even = xshmem.team_split_strided(xshmem.TEAM_WORLD, 0, 2, (npes() + 1) // 2)
    if me() % 2 == 0:
        assert even != xshmem.TEAM_INVALID
        assert xshmem.team_my_pe(even) == me() // 2
        assert xshmem.team_n_pes(even) == (npes() + 1) // 2
        assert xshmem.team_translate_pe(even, xshmem.team_my_pe(even), xshmem.TEAM_WORLD) == me()
    else:
        assert even == xshmem.TEAM_INVALID
    buf = xshmem.zeros((4,), torch.int32)
    out = xshmem.zeros((4,), torch.int32)
    buf.copy_(torch.full((4,), me() + 1, dtype=torch.int32))
    xshmem.barrier_all()
    if me() % 2 == 0:
        xshmem.reduce(out, buf, "sum", team=even)
        assert torch.equal(out, torch.full((4,), sum(p + 1 for p in range(0, npes(), 2)),
                                           dtype=torch.int32))
        xshmem.team_sync(even)
        xshmem.team_destroy(even)
    xshmem.barrier_all()
    xshmem.free(out)
    xshmem.free(buf)


def test_peer_tensor():
    buf = xshmem.zeros((8 + GUARD,), torch.int64)
    buf[8:] = -1
    xshmem.barrier_all()
    peer = xshmem.peer_tensor(buf, right())
    assert peer is not None  # hostshm peers are load/store peers
    peer[:8] = torch.arange(8) + 10 * me()
    xshmem.barrier_all()
    assert torch.equal(buf[:8], torch.arange(8) + 10 * left())
    assert torch.equal(buf[8:], torch.full((GUARD,), -1))
    xshmem.barrier_all()
    xshmem.free(buf)


def test_misuse_raises_runtime_diagnostic():
    buf = xshmem.zeros((4,), torch.int64)
    src = torch.zeros(4, dtype=torch.int64)
    with pytest.raises(xshmem.Error) as e:
        xshmem.put(buf, src, npes())  # pe out of range
    msg = str(e.value)
    assert msg.startswith("xshmem: xshmem_putmem:") and "pe %d" % npes() in msg
    assert msg.endswith("(pe %d)" % me())
    private = torch.zeros(4, dtype=torch.int64)
    with pytest.raises(xshmem.Error) as e:
        xshmem.put(private, src, right())  # dest not symmetric
    assert "dest" in str(e.value) and "symmetric" in str(e.value)
    with pytest.raises(xshmem.Error):
        xshmem.atomic_fetch_add(buf, 1, -1)
    with pytest.raises(TypeError):
        xshmem.atomic_fetch_add(xshmem_view_f16(buf), 1, 0)
    with pytest.raises(ValueError):
        xshmem.put(buf[:2], src, right())  # dest smaller than source
    with pytest.raises(ValueError):
        xshmem.free(src)  # not from xshmem
    # the job goes on: a barrier and a correct put still work
    xshmem.barrier_all()
    xshmem.put(buf, src + me(), right())
    xshmem.barrier_all()
    assert torch.equal(buf, torch.zeros(4, dtype=torch.int64) + left())
    xshmem.barrier_all()
    xshmem.free(buf)


def xshmem_view_f16(t):
    return t.view(torch.float16)


def test_collective_argument_mismatch_raises_everywhere():
    src = xshmem.zeros((4,), torch.int32)
    dst = xshmem.zeros((4,), torch.int32)
    xshmem.barrier_all()
    root = me() % 2  # members disagree on the root
    with pytest.raises(xshmem.Error) as e:
        xshmem.broadcast(dst, src, root)
    assert "PE_root" in str(e.value) and "differs" in str(e.value)
    xshmem.barrier_all()
    xshmem.free(dst)
    xshmem.free(src)


def test_gil_released_while_waiting():
    # A thread waits on a local signal; the main thread sets it afterwards. With the GIL held by
    # the wait, the main thread could not run and the wait would pass its deadline.
    import threading
    import time
    sig = xshmem.zeros((1,), torch.int64)
    data = xshmem.zeros((1,), torch.int64)
    xshmem.barrier_all()
    seen = []
    t = threading.Thread(target=lambda: seen.append(
        xshmem.signal_wait_until(sig, xshmem.CMP_EQ, 40 + me())))
    t.start()
    time.sleep(0.2)
    assert t.is_alive() and not seen
    xshmem.put_signal(data, torch.tensor([1]), sig, 40 + me(), me())
    t.join(30)
    assert seen == [40 + me()]
    xshmem.barrier_all()
    xshmem.free(data)
    xshmem.free(sig)
