#!/usr/bin/env bash
# Session 29 run 2: (a) did dW2's bf16 kernel (pipeline 21, not transposed) change in SASS between session 26's
# library (7e3eee4, .device/base) and main (.device/head)? Runs 1 and session 28's run 3 measured it 1.4-4.8 % slower
# at 30B across processes; its PTX differs by a few integer instructions. (b) dW2 bf16 in one process: the default
# against pipelines 16 / 19 / 21 and without 2-CTA pairs, both libraries' forms being the same code path otherwise.
# (c) per-kernel timeline of main on this card (which kernel moves card to card: 235B forward 8.22 vs 8.77 ms on two
# H100s with the floor even); (d) the benchmark on this card.
# Run: `bash results/session29/scripts/run2.sh 2>&1 | tail -80`, carry [".device/head/build/final", ".device/base/build/final"].
B=.device/head/build/final
source ci/device_run_lib.sh
for v in base head; do cuobjdump -sass .device/$v/build/final/libprime_kernels_sm90.so > /tmp/$v.sass; done
# main's k-grouped kernels carry one more template argument (TRANS, false for dW2): renamed to base's names first
python3 ci/ptx_compare.py /tmp/base.sass /tmp/head.sass --rename EEELb0EEEvNS1_6Params=EEEEEvNS1_6Params \
  > $OUT/sass_compare.log 2>&1; echo "sass compare rc=$?"; grep -v "^    " $OUT/sass_compare.log
grep "kgrouped" $OUT/sass_compare.log | cut -c1-170
python3 - <<'PY' | tee -a $OUT/sass_compare.log
import difflib, sys
sys.path.insert(0, "ci")
import ptx_compare as pc
a = pc.sass_functions(open("/tmp/base.sass").read()); b = pc.sass_functions(open("/tmp/head.sass").read())
want = "kgrouped_wgrad_kernelILi128ELi256ELb1ENS1_4PipeILi128ELi2ELi0ELb1ELb1ELb1ELb1ELb1EE"
ka = [k for k in a if want in k]; kb = [k for k in b if want in k and "ELb0EEEvNS1_6Params" in k]
print("dW2 bf16 kernel (pipeline 21, pairs, not transposed):", ka, kb)
for x, y in zip(ka, kb):
    la, lb = pc.sass_normalise(a[x]).splitlines(), pc.sass_normalise(b[y]).splitlines()
    d = [l for l in difflib.unified_diff(la, lb, lineterm="", n=0) if l[:1] in "+-" and l[:3] not in ("+++", "---")]
    print(f"instructions base {len(la)} head {len(lb)}; differing lines {len(d)}")
    print("\n".join(d[:40]))
PY
IL_TIMEOUT=200 interleaved_step il_dw2.log --rounds 7 --reps 10 \
  --match '^dW2 bf16 out$|^dW2 bf16 out, wgrad variant (staged_tma|split_bk128|split_bk128_defer_tail)$|^dW2 bf16 out, no 2-CTA pairs'
step 120 tl.log python3 benchmarks/timeline_moe.py --shapes 235b,30b --iters 7 --clocks; grep -v Warn $OUT/tl.log | grep -v "^  _warn" | cut -c1-110
step 200 bench.log python3 benchmarks/bench_moe.py --reps 20 --json $OUT/bench.json; grep -v "^{" $OUT/bench.log | tail -24
echo "t=$SECONDS"
