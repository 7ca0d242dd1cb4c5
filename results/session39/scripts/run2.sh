#!/usr/bin/env bash
# Session 39, run 2: results/session39/trans32.patch on main (aa1f404): pipeline 28's transposed fp32 tiles (the
# swapped dW1) in 32-column passes alternating between the staging halves too (boxes of 32 out^T rows), built into
# .device/trans32/build/final. The k-grouped GPU tests and the MoE weight-gradient / backward tests on it with 28
# forced, then dW1 fp32 (out, accumulate) in 28 against the defaults (19; the accumulate in 4-CTA clusters) and 28
# with the alternation off (debug bit 14).
# Prediction: tests pass; 28's fp32 dW1 with alternation -2..-5 % against bit 14; against 19 -2..-6 % (plain out;
# bf16 gained -6..-9 % on dW1), the accumulate even with 19's 4-CTA clusters (-5..-10 % over pairs, session 32).
# Run: `bash results/session39/scripts/run2.sh 2>&1 | tail -40`, carry [".device/trans32/build/final"].
export B=.device/trans32/build/final
source ci/device_run_lib.sh
step 200 kg_tests.log python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_sm90_kgrouped.py
tail -1 $OUT/kg_tests.log; grep -E "^FAILED" $OUT/kg_tests.log | head
step 200 moe_tests.log env PK_SM90_VARIANT_WGRAD=28 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_sm90_moe.py -k "weight_grad or backward"
tail -1 $OUT/moe_tests.log; grep -E "^FAILED" $OUT/moe_tests.log | head
interleaved_shapes '^dW1 fp32 (out|accumulate)(, wgrad variant wide_bk64|, wide_bk64 \(28\), one pass.*)?$' 5 120 70
echo "t=$SECONDS"
