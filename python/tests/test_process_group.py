"""xshmem.init(process_group=...): three processes form a torch.distributed (gloo) world; the
group of world ranks 1 and 2 starts one xshmem job through it (the unique id is broadcast
through the group from its rank 0, world rank 1; no xshmem-run), PE numbers being the group
ranks. Run by pytest in one process, which spawns the three."""

import os
import socket

import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _worker(rank, size, port, results):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    os.environ["GLOO_SOCKET_IFNAME"] = "lo"
    dist.init_process_group("gloo", rank=rank, world_size=size)
    group = dist.new_group([1, 2])  # collective over the world
    if rank == 0:
        results.put((rank, -1, -1, -1, True))
    else:
        import xshmem
        xshmem.init(process_group=group)
        me, n = xshmem.my_pe(), xshmem.n_pes()
        buf = xshmem.zeros((8 + 2,), torch.int64)
        buf[8:] = -9
        xshmem.barrier_all()
        xshmem.put(buf[:8], torch.arange(8) + 100 * me, (me + 1) % n)
        xshmem.barrier_all()
        ok = torch.equal(buf[:8], torch.arange(8) + 100 * ((me - 1) % n))
        ok = ok and torch.equal(buf[8:], torch.full((2,), -9))
        xshmem.free(buf)
        xshmem.finalize()
        results.put((rank, me, n, dist.get_rank(group), ok))
    dist.barrier()
    dist.destroy_process_group()


def test_init_from_process_group():
    size = 3
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    port = _free_port()
    procs = [ctx.Process(target=_worker, args=(r, size, port, results)) for r in range(size)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    codes = [p.exitcode for p in procs]
    for p in procs:
        if p.is_alive():
            p.kill()
    assert codes == [0] * size, "workers exited with %s" % codes
    got = sorted(results.get(timeout=10) for _ in range(size))
    assert got[0] == (0, -1, -1, -1, True)
    for rank, me, n, group_rank, ok in got[1:]:
        assert n == 2
        assert me == group_rank == rank - 1
        assert ok
