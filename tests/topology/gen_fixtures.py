#!/usr/bin/env python3
"""Writes the hwloc XML fixtures of tests/topology/ (run from anywhere; the files are committed).

Hand-made machines in hwloc's v2 XML format, with the PCIe tree real machines have: host bridge >
root port > switch upstream port > one downstream port per device. GPUs carry an NVML OS device
(as hwloc's NVML backend adds), NICs an OpenFabrics OS device with port infos, and NVLink
bandwidth is the "NVLinkBandwidth" distances matrix hwloc's NVML backend records: 25000 MB/s per
NVLink 2/3/4 link, 20000 for NVLink 1 (hwloc/topology-nvml.c). The root object carries the
hwlocVersion info real exports have (`<info name="hwlocVersion" value="2.10.0"/>`).

The 1024-GPU machine of the scale tests is not here: big_fixture.h writes it at test time.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))


class Gen:
    def __init__(self, host, hwloc_version="2.9.0"):
        self.host = host
        self.hwloc_version = hwloc_version
        self.gp = 0
        self.lines = []
        self.nvml = []  # gp indexes of the GPUs' NVML OS devices, in order

    def gpi(self):
        self.gp += 1
        return self.gp

    def out(self, depth, text):
        self.lines.append("  " * depth + text)


def mask(cpus):
    m = 0
    for c in cpus:
        m |= 1 << c
    if not m:
        return "0x0"
    words = []
    while m:
        words.append("0x%08x" % (m & 0xffffffff))
        m >>= 32
    return ",".join(reversed(words))  # hwloc's bitmap syntax: 32-bit words, highest first


def sets(cpus, nodes):
    c, n = mask(cpus), mask(nodes)
    return f'cpuset="{c}" complete_cpuset="{c}" nodeset="{n}" complete_nodeset="{n}"'


def pci_dev(g, d, bus, cls, vendor, device, sub, children, dev=0):
    g.out(d, f'<object type="PCIDev" gp_index="{g.gpi()}" pci_busid="0000:{bus:02x}:{dev:02x}.0" '
             f'pci_type="{cls:04x} [{vendor:04x}:{device:04x}] [{sub[0]:04x}:{sub[1]:04x}] a1" '
             f'pci_link_speed="31.507692">')
    children(d + 1)
    g.out(d, "</object>")


def gpu(g, d, bus, idx, model, device=0x2330, dev=0):
    def osdev(dd):
        gp = g.gpi()
        g.nvml.append(gp)
        g.out(dd, f'<object type="OSDev" gp_index="{gp}" name="nvml{idx}" subtype="NVML" osdev_type="1">')
        g.out(dd + 1, '<info name="Backend" value="NVML"/>')
        g.out(dd + 1, '<info name="GPUVendor" value="NVIDIA Corporation"/>')
        g.out(dd + 1, f'<info name="GPUModel" value="{model}"/>')
        g.out(dd, "</object>")
    pci_dev(g, d, bus, 0x0302, 0x10de, device, (0x10de, 0x16c1), osdev, dev)


def nic(g, d, bus, name, guid, state="4", layer="InfiniBand", rate="400"):
    def osdev(dd):
        g.out(dd, f'<object type="OSDev" gp_index="{g.gpi()}" name="{name}" osdev_type="3">')
        g.out(dd + 1, f'<info name="NodeGUID" value="{guid}"/>')
        g.out(dd + 1, f'<info name="SysImageGUID" value="{guid}"/>')
        g.out(dd + 1, f'<info name="Port1State" value="{state}"/>')
        g.out(dd + 1, f'<info name="Port1LID" value="0x{int(guid[-2:], 16) + 1:x}"/>')
        g.out(dd + 1, '<info name="Port1LMC" value="0"/>')
        g.out(dd + 1, f'<info name="Port1LinkLayer" value="{layer}"/>')
        g.out(dd + 1, f'<info name="Port1Rate" value="{rate}"/>')
        g.out(dd, "</object>")
    pci_dev(g, d, bus, 0x0207, 0x15b3, 0x1021, (0x15b3, 0x0041), osdev)


def bridge(g, d, upstream_host, depth, bus_range, busid=None):
    lo, hi = bus_range
    if upstream_host:
        g.out(d, f'<object type="Bridge" gp_index="{g.gpi()}" bridge_type="0-1" depth="0" '
                 f'bridge_pci="0000:[{lo:02x}-{hi:02x}]">')
    else:
        g.out(d, f'<object type="Bridge" gp_index="{g.gpi()}" bridge_type="1-1" depth="{depth}" '
                 f'bridge_pci="0000:[{lo:02x}-{hi:02x}]" pci_busid="0000:{busid[0]:02x}:{busid[1]:02x}.0" '
                 f'pci_type="0604 [1000:c030] [0000:0000] b0" pci_link_speed="31.507692">')


def switch(g, d, base, devices):
    """Host bridge (buses base..base+0x1f) > root port > switch > one downstream port per device.

    devices: callables f(g, depth, bus) placing one device on the given bus."""
    top = base + 0x1f
    bridge(g, d, True, 0, (base, top))
    bridge(g, d + 1, False, 1, (base + 1, top), (base, 1))
    bridge(g, d + 2, False, 2, (base + 2, top), (base + 1, 0))
    for i, dev in enumerate(devices):
        bus = base + 3 + i
        bridge(g, d + 3, False, 3, (bus, bus), (base + 2, i))
        dev(g, d + 4, bus)
        g.out(d + 3, "</object>")
    g.out(d + 2, "</object>")
    g.out(d + 1, "</object>")
    g.out(d, "</object>")


def machine(g, packages, memory=1 << 40, gpu_memory=None, root_io=None):
    """packages: list of (cpus, numa os index, io callable(depth)).

    gpu_memory: {package index: NUMA os index} of CPU-less GPU-memory NUMA nodes (Grace Hopper:
    the GPU's HBM is a NUMA node of the superchip's package). root_io(depth): objects right under
    the machine (OS devices hwloc could not place on PCI)."""
    gpu_memory = gpu_memory or {}
    allc = sorted(c for p in packages for c in p[0])
    alln = sorted([p[1] for p in packages] + list(gpu_memory.values()))
    g.out(0, '<?xml version="1.0" encoding="UTF-8"?>')
    g.out(0, '<!DOCTYPE topology SYSTEM "hwloc2.dtd">')
    g.out(0, '<topology version="2.0">')
    c, n = mask(allc), mask(alln)
    g.out(1, f'<object type="Machine" os_index="0" {sets(allc, alln)} allowed_cpuset="{c}" '
             f'allowed_nodeset="{n}" gp_index="{g.gpi()}">')
    g.out(2, '<info name="Backend" value="Linux"/>')
    g.out(2, '<info name="OSName" value="Linux"/>')
    g.out(2, f'<info name="HostName" value="{g.host}"/>')
    g.out(2, '<info name="Architecture" value="x86_64"/>')
    if g.hwloc_version:
        g.out(2, f'<info name="hwlocVersion" value="{g.hwloc_version}"/>')
    for pi, (cpus, node, io) in enumerate(packages):
        nodes = [node] + ([gpu_memory[pi]] if pi in gpu_memory else [])
        g.out(2, f'<object type="Package" os_index="{pi}" {sets(cpus, nodes)} gp_index="{g.gpi()}">')
        g.out(3, '<info name="CPUVendor" value="GenuineIntel"/>')
        g.out(3, '<info name="CPUModel" value="Intel(R) Xeon(R) Platinum 8480C"/>')
        g.out(3, f'<object type="NUMANode" os_index="{node}" {sets(cpus, [node])} '
                 f'gp_index="{g.gpi()}" local_memory="{memory}"/>')
        if pi in gpu_memory:
            gm = gpu_memory[pi]
            g.out(3, f'<object type="NUMANode" os_index="{gm}" subtype="GPUMemory" {sets([], [gm])} '
                     f'gp_index="{g.gpi()}" local_memory="{96 << 30}"/>')
        for cpu in cpus:
            g.out(3, f'<object type="Core" os_index="{cpu}" {sets([cpu], [node])} gp_index="{g.gpi()}">')
            g.out(4, f'<object type="PU" os_index="{cpu}" {sets([cpu], [node])} gp_index="{g.gpi()}"/>')
            g.out(3, "</object>")
        io(3)
        g.out(2, "</object>")
    if root_io:
        root_io(2)
    g.out(1, "</object>")


def nvlink_distances(g, links, per_link=25000):
    n = len(g.nvml)
    vals = []
    for i in range(n):
        for j in range(n):
            vals.append(1000000 if i == j else per_link * links)
    idx = " ".join(str(x) for x in g.nvml) + " "
    val = " ".join(str(x) for x in vals) + " "
    # kind 9 = HWLOC_DISTANCES_KIND_FROM_OS | HWLOC_DISTANCES_KIND_MEANS_BANDWIDTH
    g.out(1, f'<distances2 type="OSDev" nbobjs="{n}" kind="9" name="NVLinkBandwidth" indexing="gp">')
    g.out(2, f'<indexes length="{len(idx)}">{idx}</indexes>')
    g.out(2, f'<u64values length="{len(val)}">{val}</u64values>')
    g.out(1, "</distances2>")


def write(g, name):
    g.out(0, "</topology>")
    with open(os.path.join(HERE, name), "w") as f:
        f.write("\n".join(g.lines) + "\n")


def dgx():
    """(a) 8 GPUs, 8 NICs, NVSwitch (NV18 all to all), two sockets; per socket two PCIe switches,
    each with 2 GPUs and 2 ConnectX-7 NICs."""
    g = Gen("dgx-h100-like", "2.10.0")
    model = "NVIDIA H100 80GB HBM3"

    def sock(s):
        def io(d):
            for k in range(2):
                sw = 2 * s + k
                base = 0x20 * (sw + 1)
                devs = [
                    lambda g, dd, bus, i=2 * sw: gpu(g, dd, bus, i, model),
                    lambda g, dd, bus, i=2 * sw + 1: gpu(g, dd, bus, i, model),
                    lambda g, dd, bus, i=2 * sw: nic(g, dd, bus, f"mlx5_{i}", f"b8ce:f603:00c0:00{i:02x}"),
                    lambda g, dd, bus, i=2 * sw + 1: nic(g, dd, bus, f"mlx5_{i}", f"b8ce:f603:00c0:00{i:02x}"),
                ]
                switch(g, d, base, devs)
        return io

    machine(g, [(list(range(0, 8)), 0, sock(0)), (list(range(8, 16)), 1, sock(1))])
    nvlink_distances(g, 18)
    write(g, "dgx8.xml")


def pcie4():
    """(b) 4 GPUs on PCIe without NVLink, one socket: switch 0 (GPU0, GPU1, NIC mlx5_0) and switch
    1 (GPU2, GPU3) under different host bridges."""
    g = Gen("pcie4")
    model = "NVIDIA L40S"

    def io(d):
        switch(g, d, 0x20, [
            lambda g, dd, bus: gpu(g, dd, bus, 0, model, 0x26b9),
            lambda g, dd, bus: gpu(g, dd, bus, 1, model, 0x26b9),
            lambda g, dd, bus: nic(g, dd, bus, "mlx5_0", "0c42:a103:0011:2233", layer="Ethernet",
                                   rate="200"),
        ])
        switch(g, d, 0x40, [
            lambda g, dd, bus: gpu(g, dd, bus, 2, model, 0x26b9),
            lambda g, dd, bus: gpu(g, dd, bus, 3, model, 0x26b9),
        ])

    machine(g, [(list(range(0, 8)), 0, io)])
    write(g, "pcie4.xml")


def cpu_only():
    """(c) no GPU, no NIC, 2 NUMA nodes."""
    g = Gen("cpu-only")
    machine(g, [(list(range(0, 4)), 0, lambda d: None), (list(range(4, 8)), 1, lambda d: None)])
    write(g, "cpu2numa.xml")


def node2(host):
    """(d) one node of the two-node layout: 2 NVLinked GPUs (NV4) and one NIC on one switch."""
    g = Gen(host)
    model = "NVIDIA A100-SXM4-40GB"

    def io(d):
        switch(g, d, 0x20, [
            lambda g, dd, bus: gpu(g, dd, bus, 0, model, 0x20b0),
            lambda g, dd, bus: gpu(g, dd, bus, 1, model, 0x20b0),
            lambda g, dd, bus: nic(g, dd, bus, "mlx5_0", "0c42:a103:0000:00" + host[-2:], rate="200"),
        ])

    machine(g, [(list(range(0, 8)), 0, io)])
    nvlink_distances(g, 4)
    write(g, f"{host}.xml")


def gpu_vm(name="gpu2vm.xml", cpus=range(0, 32)):
    """(e) the GPU machine: a VM with 2 H200 right under the host bridge (0000:00:06.0 and
    0000:00:07.0), NV18 between them, no NIC."""
    g = Gen("gpu-vm", "2.10.0")
    model = "NVIDIA H200"

    def io(d):
        bridge(g, d, True, 0, (0, 0))
        gpu(g, d + 1, 0, 0, model, 0x2335, dev=6)
        gpu(g, d + 1, 0, 1, model, 0x2335, dev=7)
        g.out(d, "</object>")

    machine(g, [(list(cpus), 0, io)])
    nvlink_distances(g, 18)
    write(g, name)


def unreadable():
    """(i) recordings hwloc 2.x cannot load: format 3.0 (what hwloc 3 writes), and a cut-off file."""
    with open(os.path.join(HERE, "cpu2numa.xml")) as f:
        text = f.read()
    with open(os.path.join(HERE, "v3format.xml"), "w") as f:
        f.write(text.replace('<topology version="2.0">', '<topology version="3.0">'))
    with open(os.path.join(HERE, "broken.xml"), "w") as f:
        f.write(text[: text.index("<object type=\"Core\"")])


def nvswitch_pci(g, d, bus, idx):
    """An NVSwitch as hwloc's NVML backend marks it: PCI class 0680, vendor 10de, subtype."""
    gp = g.gpi()
    g.out(d, f'<object type="PCIDev" gp_index="{gp}" subtype="NVSwitch" pci_busid="0000:{bus:02x}:00.0" '
             f'pci_type="0680 [10de:22a3] [10de:1796] a1" pci_link_speed="0.250000"/>')
    return gp


def nvswitch_2bb():
    """(f) 16 H100 on two baseboards of 8 (HGX 2x8), recorded by hwloc 2.10: each GPU has its 18
    links to the 4 NVSwitches of its own baseboard (5+4+4+5), no GPU-GPU link and no
    switch-to-switch link in the matrix. Every GPU pair is NV18 through the switch fabric."""
    g = Gen("hgx-2x8", "2.10.0")
    model = "NVIDIA H100 80GB HBM3"
    switch_gp = []

    def sock(s):
        def io(d):
            devs = [lambda g, dd, bus, i=8 * s + k: gpu(g, dd, bus, i, model) for k in range(8)]
            devs += [lambda g, dd, bus, i=4 * s + k: switch_gp.append(nvswitch_pci(g, dd, bus, i))
                     for k in range(4)]
            switch(g, d, 0x20 + 0x40 * s, devs)
        return io

    machine(g, [(list(range(0, 8)), 0, sock(0)), (list(range(8, 16)), 1, sock(1))])
    objs = [("OSDev", gp) for gp in g.nvml] + [("PCIDev", gp) for gp in switch_gp]
    n = len(objs)
    per = [5, 4, 4, 5]
    vals = [[0] * n for _ in range(n)]
    for i in range(n):
        vals[i][i] = 1000000
    for gi in range(16):
        bb = gi // 8
        for k in range(4):
            sj = 16 + 4 * bb + k
            vals[gi][sj] = vals[sj][gi] = 25000 * per[k]
    idx = " ".join(f"{t}:{gp}" for t, gp in objs) + " "
    val = " ".join(str(v) for row in vals for v in row) + " "
    # kind 9 = FROM_OS | MEANS_BANDWIDTH (+ 16 HETEROGENEOUS_TYPES: GPUs and switches)
    g.out(1, f'<distances2hetero nbobjs="{n}" kind="25" name="NVLinkBandwidth" indexing="gp">')
    g.out(2, f'<indexes length="{len(idx)}">{idx}</indexes>')
    g.out(2, f'<u64values length="{len(val)}">{val}</u64values>')
    g.out(1, "</distances2hetero>")
    write(g, "nvswitch2bb.xml")


def grace_hopper():
    """(g) two Grace Hopper superchips: per package the CPUs' NUMA node and the GPU's memory as a
    CPU-less NUMA node of subtype GPUMemory (nodes 2 and 3), the GPU under one host bridge and a
    NIC under another. GPUs keep their NUMA node; GPU-NIC of one package is NODE, across SYS."""
    g = Gen("gh200x2", "2.10.0")
    model = "NVIDIA GH200 480GB"

    def sock(s):
        def io(d):
            base = 0x40 * s
            bridge(g, d, True, 0, (base, base + 0x1f))
            gpu(g, d + 1, base, s, model, 0x2342)
            g.out(d, "</object>")
            switch(g, d, base + 0x20, [
                lambda g, dd, bus: nic(g, dd, bus, f"mlx5_{s}", f"0c42:a103:0000:00{s:02x}"),
            ])
        return io

    machine(g, [(list(range(0, 8)), 0, sock(0)), (list(range(8, 16)), 1, sock(1))],
            gpu_memory={0: 2, 1: 3})
    write(g, "gh200x2.xml")


def osdev_only():
    """(h) GPUs seen only as NVML OS devices, attached to the machine: the recording has no PCI
    device for them (PCI discovery filtered out), so they have no bus id."""
    g = Gen("osdev-only", "2.10.0")

    def root_io(d):
        for i in range(2):
            g.out(d, f'<object type="OSDev" gp_index="{g.gpi()}" name="nvml{i}" subtype="NVML" osdev_type="1">')
            g.out(d + 1, '<info name="Backend" value="NVML"/>')
            g.out(d + 1, '<info name="GPUVendor" value="NVIDIA Corporation"/>')
            g.out(d + 1, '<info name="GPUModel" value="NVIDIA H100 80GB HBM3"/>')
            g.out(d, "</object>")

    machine(g, [(list(range(0, 8)), 0, lambda d: None)], root_io=root_io)
    write(g, "osdev2gpu.xml")


if __name__ == "__main__":
    nvswitch_2bb()
    grace_hopper()
    osdev_only()
    gpu_vm()
    # (j) the same VM with a CPU affinity longer than the matrix's old fixed column
    gpu_vm("wideaff.xml", [c for r in ((0, 28), (56, 84), (112, 140), (168, 196)) for c in range(*r)])
    dgx()
    pcie4()
    cpu_only()
    node2("node2gpu-a0")
    node2("node2gpu-a1")
    unreadable()
