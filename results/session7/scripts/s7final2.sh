#!/usr/bin/env bash
# Session 7, second final device run: (1) A/B across processes of the dH L2 prefetch: the library of ae7c4e7
# (.device/old, run 7's) and of 261a5a5 (.device/head) alternating, 3 processes each, dH (and GEMM 1 as a
# control: unchanged) at both shapes; (2) ci/final_device_run.sh on 261a5a5.
source ci/device_run_lib.sh
for i in 1 2 3; do
  for lib in old head; do
    PK_LIBRARY_PATH=.device/$lib/build/final timeout 60 python3 benchmarks/interleaved.py --rounds 5 --seed $i \
      --match "^(GEMM 1|dH) default$" 2>&1 | grep -E "^\| (GEMM|dH)|^[0-9]+b" | sed "s/^/$lib $i /" >> $OUT/ab_prefetch.log
  done
done
python3 - $OUT/ab_prefetch.log <<'PY'
import re, statistics, sys, collections
d = collections.defaultdict(list); shape = None
for l in open(sys.argv[1]):
    m = re.match(r"(\w+) \d+ (\d+b):", l)
    if m: shape = m.group(2); continue
    m = re.match(r"(\w+) \d+ \| ([^|]+) \| ([\d.]+) \|", l)
    if m: d[(shape, m.group(2).strip(), m.group(1))].append(float(m.group(3)))
for k in sorted({(s, n) for s, n, _ in d}):
    o, h = d[k + ("old",)], d[k + ("head",)]
    print(f"{k[0]} {k[1]}: old {statistics.median(o):.3f} ms {o}, new {statistics.median(h):.3f} ms {h}, "
          f"new/old {statistics.median(h) / statistics.median(o):.3f}")
PY
echo "t=$SECONDS"
bash ci/final_device_run.sh
cd $OUT && tar czf logs.tgz san timeline.log sanitize.txt host.log routing_timing.txt && rm -rf san timeline.log sanitize.txt host.log routing_timing.txt; ls $OUT; echo "t=$SECONDS"
