#!/usr/bin/env bash
# Session 7, final device run. (1) A/B across processes of the SwiGLU epilogue change: the library of
# ca30983 (.device/old) and the session's last (.device/head) alternating, 4 processes each, GEMM 1 and dH
# defaults at both shapes. (2) ci/final_device_run.sh on the session's library (every GPU test, layer
# benchmark, timeline, host overhead, routing timing, layer memcheck + racecheck), the benchmark again
# (20 reps), racecheck of the k-grouped accumulate and bf16-out cases (every variant).
source ci/device_run_lib.sh
for i in 1 2 3 4; do
  for lib in old head; do
    PK_LIBRARY_PATH=.device/$lib/build/final timeout 60 python3 benchmarks/interleaved.py --rounds 5 --seed $i \
      --match "^(GEMM 1|dH) default$" 2>&1 | grep -E "^\| (GEMM|dH)|^[0-9]+b" | sed "s/^/$lib $i /" >> $OUT/ab_epilogue.log
  done
done
python3 - $OUT/ab_epilogue.log <<'PY'
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
step 120 bench2.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench2.json; grep -v "^{" $OUT/bench2.log | tail -9
timeout 150 compute-sanitizer --tool racecheck --error-exitcode 9 python3 -m pytest -q -m gpu tests/test_sm90_kgrouped.py -k "test_accumulate or (test_bf16_out and 512)" -p no:cacheprovider > $OUT/san_kg_racecheck.log 2>&1; echo "kgrouped racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|passed|failed' $OUT/san_kg_racecheck.log | sort | uniq -c | tr '\n' ' ')"
cd $OUT && tar czf logs.tgz san timeline.log sanitize.txt bench2.log bench2.json host.log routing_timing.txt && rm -rf san timeline.log sanitize.txt bench2.log bench2.json host.log routing_timing.txt; ls $OUT; echo "t=$SECONDS"
