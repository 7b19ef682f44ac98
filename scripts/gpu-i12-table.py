#!/usr/bin/env python3
"""Before/after table from gpu-i12.sh's i12.log (PART=1): per metric, the median over rounds of
each tree's medians, and the ratio as 'after is N x as good' (> 1: after better; bandwidths
after/before, latencies before/after). Usage: scripts/gpu-i12-table.py i12.log"""
import re
import statistics
import sys
from collections import defaultdict

vals = defaultdict(lambda: defaultdict(list))  # metric -> tree -> [values]
units = {}
label = tree = None
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"===== (\S+) \((\S+)\)", line)
    if m:
        label, tree = m.group(1), ("after" if m.group(2) == "gpu-a" else m.group(2))
        continue
    if not label:
        continue
    kind = label.split(".")[0]
    f = re.sub(r"^\[pe \d+\] ", "", line).split()
    if kind == "dispatch" and len(f) == 3 and f[0] in ("before", "gpu-a"):
        name = f[1]
        unit = "GB/s" if name.endswith("GBs") else "ns"
        vals["dispatch." + name][tree].append(float(f[2]))
        units["dispatch." + name] = unit
    elif kind == "selfops" and len(f) == 6 and f[0] == "selfops":
        vals["selfops." + f[1]][tree].append(float(f[2]))
        units["selfops." + f[1]] = f[5]
    elif kind.startswith("perf"):
        m = re.match(r"\[pe 0\] (dev\.\S+)\s+(-|\d+ \S?i?B|\d+ B)\s+([\d.]+)\s+[\d.]+\s+[\d.]+\s+(\S+)", line)
        if m:
            name = m.group(1) + ("" if m.group(2) == "-" else " " + m.group(2))
            vals[name][tree].append(float(m.group(3)))
            units[name] = m.group(4)
print(f"{'metric':44s} {'before':>10s} {'after':>10s} {'unit':>5s} {'after/before':>12s} {'n':>4s}")
for name in vals:
    b, a = vals[name].get("before", []), vals[name].get("after", [])
    if not b or not a:
        continue
    mb, ma = statistics.median(b), statistics.median(a)
    better = ma / mb if units[name] == "GB/s" else mb / ma
    flag = "" if better >= 0.97 else "  <-- worse than 3%"
    print(f"{name:44s} {mb:10.4g} {ma:10.4g} {units[name]:>5s} {better:12.3f} {len(b):2d}/{len(a):<2d}{flag}")
