#!/usr/bin/env bash
# Session 21, run 8: HEAD's library (.device/s21g, SASS-identical to run 3's s21c). Every GPU test (the new I = 768 dH
# case on HEAD's kernels), then the k-grouped bf16 default 21 against 19 across processes (session 20 compared them in
# one process only): alternating processes, each timing one of the two (5 rounds), 3 pairs at 30B, 2 at 235B.
export B=.device/s21g/build/final
source ci/device_run_lib.sh
step 200 gpu_tests.log python3 -m pytest -q -p no:cacheprovider -m gpu tests/; tail -1 $OUT/gpu_tests.log; grep -E "^FAILED" $OUT/gpu_tests.log | head
xproc() {  # shape pairs
  local shape=$1 n=$2
  for i in $(seq 1 $n); do
    order="21 19"; [ $((i % 2)) -eq 0 ] && order="19 21"
    for v in $order; do
      m='^dW[12] bf16 out$'; [ $v = 19 ] && m='^dW[12] bf16 out, wgrad variant split_bk128$'
      timeout 120 python3 benchmarks/interleaved.py --shapes $shape --rounds 5 --seed $i --match "$m" 2>&1 |
        grep -E "^\| dW" | sed "s/^/v$v $shape $i /" >> $OUT/xproc.log
    done
  done
}
xproc 30b 3; xproc 235b 2
python3 - $OUT/xproc.log <<'PY' | tee $OUT/xproc_summary.txt
import collections, re, statistics, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r"v(\d+) (\w+) \d+ \| (dW[12]) [^|]* \| ([\d.]+) \|", line)
    if m: d[(m.group(2), m.group(3), m.group(1))].append(float(m.group(4)))
print("| shape | kernel | 21 ms (median over processes) | 19 ms | 21 / 19 |\n|---|---|---|---|---|")
for shape in ("30b", "235b"):
    for k in ("dW2", "dW1"):
        a, b = d.get((shape, k, "21"), []), d.get((shape, k, "19"), [])
        if a and b:
            ma, mb = statistics.median(a), statistics.median(b)
            print(f"| {shape} | {k} | {ma:.3f} ({len(a)}) | {mb:.3f} ({len(b)}) | {ma / mb:.3f} |")
PY
gzip $OUT/gpu_tests.log; echo "t=$SECONDS"
