#!/bin/bash
# alternate XSHMEM_CHECKS=1/0 runs of xshmem-perf; print per-metric medians and ratio
B=$1; M=$2; N=${3:-6}; NP=${4:-2}
out=/tmp/ab/raw.$$; : > $out
for i in $(seq $N); do for c in 1 0; do
  XSHMEM_CHECKS=$c XSHMEM_TRANSPORTS=hostshm timeout 300 $B/bin/xshmem-run -n $NP $B/bin/xshmem-perf --metrics $M --iters ${ITERS:-100000} --reps 3 2>&1 | grep -E "^\[pe 0\] [A-Za-z_0-9]+ " | sed "s/^/$c /" >> $out
done; done
python3 - $out <<'PY'
import sys,statistics as st
d={}
for l in open(sys.argv[1]):
    t=l.split(); c=t[0]; m=t[3]; r=t[4:]
    if m=="metric": continue
    if r[0]=='-': r=r[1:]
    elif r[1] in ('B','KiB','MiB'): r=r[2:]
    d.setdefault(m,{}).setdefault(c,[]).append(float(r[0]))
print("%-28s %10s %10s %8s"%("metric","checks=1","checks=0","on/off"))
for m,v in d.items():
    a=st.median(v.get('1',[0])); b=st.median(v.get('0',[1]))
    print("%-28s %10.4f %10.4f %8.3f"%(m,a,b,a/b))
PY
