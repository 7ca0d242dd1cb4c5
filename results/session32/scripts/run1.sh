#!/usr/bin/env bash
# Session 32 run 1 (H200): dW1's swapped form with dz shared by 4-CTA clusters (k-grouped debug bit 11) against the
# default pairs, plus session 31's run 3 (every big kernel's default against its existing forms at 235B, and the
# swapped dW1's loads-only / MMAs-only diagnostics).
# Library: .device/cs4 (main + the cluster-size template; default unchanged: pairs). (Run 3's other forms were dropped
# from this script after five failed starts: see below.)
# Prediction (written before the run): correct everywhere (k-grouped tests, memcheck / racecheck clean on the small
# 4-CTA case). If the pair form is bound by its loads (loads-only >= ~0.85 of the whole), the 4-CTA form is 3-8 %
# faster at 235B (dW1 6.3 ms -> ~5.9) and 0-5 % at 30B, less the ~3 % of SMs (4 of 132) that 4-CTA clusters leave
# idle; if loads-only is <= ~0.8 of the whole, the 4-CTA form is even to +3 % (the SMs lost, the lockstep of 4).
# Run 3's prediction: no existing form beats its default by more than 2 %; loads-only and MMAs-only 0.75-0.85.
# Run: `bash results/session32/scripts/run1.sh 2>&1 | tail -100`, carry [".device/cs4/build/final"].
export B=.device/cs4/build/final
source ci/device_run_lib.sh
step 200 tests.log python3 -m pytest -q -p no:cacheprovider tests/test_sm90_kgrouped.py
tail -1 $OUT/tests.log; grep -E "^FAILED" $OUT/tests.log | head
step 200 san.log env PK_SMALL_SHAPE=500,4,2,256,768 PK_SM90_MAX_CTAS=4 bash ci/gpu_sanitize.sh $OUT
cat $OUT/san.log
for f in $OUT/sanitize_*.log; do
  [ -f "$f" ] && { echo "==== $(basename "$f")"; grep -E "ok|SUMMARY" "$f"; } >> $OUT/san.log && rm -f "$f"
done
grep -E "ok" $OUT/san.log
W='^dW1 (bf16 out|fp32 out|fp32 accumulate)$|^dW1 (bf16 out|fp32 out|fp32 accumulate), 4-CTA clusters|^dW1 bf16 out, ours (loads only|MMAs only)$'
IL_TIMEOUT=150 interleaved_step il_30b.log --shapes 30b --rounds 5 --reps 10 --match "$W"
# (session 31's run 3, every big kernel's default against its existing forms, stays prepared in
# results/session31/scripts/run3.sh: this session's device starts failed too often to spend the minutes on it)
M='^dW1 (bf16 out|fp32 out|fp32 accumulate)$|^dW1 (bf16 out|fp32 out|fp32 accumulate), 4-CTA clusters|^layer fwd\+bwd default$'
M+='|^dW1 bf16 out, (pre-gathered copies, ours|pre-gathered copies, torch _grouped_mm|ours loads only|ours MMAs only|ours without the epilogue stores)$'
IL_TIMEOUT=200 interleaved_step il_235b.log --shapes 235b --rounds 5 --reps 10 --match "$M"
echo "t=$SECONDS"
