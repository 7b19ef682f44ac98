#!/usr/bin/env python3
"""Writes call3-getbw-table.txt from call3-getbw-variants-lfsuite.log: for each of
dev.get_bw/dev.put_bw and size, the median over rounds of each variant's median, and its ratio
to `before`. Usage: getbw-table.py [log] > table."""
import re
import statistics as st
import sys

log = sys.argv[1] if len(sys.argv) > 1 else 'call3-getbw-variants-lfsuite.log'
names = {'before/bin': 'before', 'gpu-a/bin': 'after', 'var/vA': 'after-call',
         'var/vB': 'after-noproxy-get', 'var/vC': 'after-expect'}
cur, d = None, {}
for line in open(log):
    m = re.match(r'===== getbw\.(\S+)\.(\d)', line)
    if m:
        cur = m.group(1)
        continue
    if line.startswith('====='):
        cur = None
    m = re.search(r'(dev\.(?:get|put)_bw)\s+(\d+ [KMG]iB)\s+([\d.]+)', line)
    if cur and m:
        d.setdefault((m.group(1), m.group(2)), {}).setdefault(cur, []).append(float(m.group(3)))


def order(k):
    n, unit = k[1].split()
    return (k[0], {'K': 1, 'M': 2, 'G': 3}[unit[0]] * 10000 + int(n))


print('median of 3 rounds (each the median of 10 reps), GB/s; ratio = variant / before')
print('%-22s' % 'metric' + ''.join('%20s' % names[k] for k in names))
for key in sorted(d, key=order):
    b = st.median(d[key]['before/bin'])
    row = '%-22s' % (key[0] + ' ' + key[1])
    for k in names:
        v = st.median(d[key][k])
        row += '%12.1f (%5.3f)' % (v, v / b)
    print(row)
