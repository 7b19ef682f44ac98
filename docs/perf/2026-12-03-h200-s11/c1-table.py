#!/usr/bin/env python3
"""Table of session 11's device call 1 (c1.log): for each metric, the median over rounds of each
build's medians, and 'as good as before' ratios (> 1 better: bandwidth build/before, latency
before/build). Labels in the log: '===== <kind>.<build>.<round>'. Usage: c1-table.py c1.log"""
import re
import statistics
import sys
from collections import defaultdict

vals = defaultdict(lambda: defaultdict(list))
units = {}
kind = build = None
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"===== (\w+)\.(\w+)\.(\d+)$", line.strip())
    if m:
        kind, build = m.group(1), m.group(2)
        continue
    if line.startswith("====="):
        kind = None
        continue
    if not kind:
        continue
    f = re.sub(r"^\[pe \d+\] ", "", line).split()
    if kind == "dispatch" and len(f) == 3 and f[0] == build:
        name = "dispatch." + f[1]
        vals[name][build].append(float(f[2]))
        units[name] = "GB/s" if f[1].endswith("GBs") else "ns"
    elif kind == "selfops" and len(f) == 6 and f[0] == "selfops":
        vals["selfops." + f[1]][build].append(float(f[2]))
        units["selfops." + f[1]] = f[5]
    elif kind.startswith("perf") or kind == "getbw":
        m = re.match(r"\[pe 0\] (dev\.\S+)\s+(-|\d+ \S?i?B|\d+ B)\s+([\d.]+)\s+[\d.]+\s+[\d.]+\s+(\S+)", line)
        if m:
            name = m.group(1) + ("" if m.group(2) == "-" else " " + m.group(2))
            vals[name][build].append(float(m.group(3)))
            units[name] = m.group(4)
builds = ["before", "head", "v1", "v2", "v3", "v4"]
print("median over rounds; (x) = as good as before: bandwidth build/before, latency before/build")
print(f"{'metric':40s}" + "".join(f"{b:>17s}" for b in builds) + "  unit")
for name in vals:
    if "before" not in vals[name]:
        continue
    b = statistics.median(vals[name]["before"])
    bw = units[name].endswith("/s")
    row = f"{name:40s}"
    for k in builds:
        if k not in vals[name]:
            row += f"{'':>17s}"
            continue
        v = statistics.median(vals[name][k])
        r = (v / b if bw else b / v) if v and b else 0
        row += f"{v:10.3f} ({r:4.2f})"
    print(row + "  " + units[name])
