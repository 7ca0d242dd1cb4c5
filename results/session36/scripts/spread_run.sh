#!/usr/bin/env bash
# For the next device call: k-grouped pipeline 27 (results/session36/spread_stores.patch, on main's kernels as of
# session 36): 21 with a bf16 tile's four 8 KiB boxes a warpgroup issued one at a time behind the next
# tile's chunks (warpgroup w: box j after chunk 2 j + w) instead of two at the tile's end and two behind the next tile's
# first chunk. Built on the dev machine: the 98 existing kernels' SASS is the same as main's (ci/sass_compare.sh with
# --rename ELb0EEELb=EEELb), the 5 new ones keep 21's wgmma batching (8 HGMMA, 1 arrive), no local memory, no C75xx.
# Prediction (written before any run): runs 4-5 of session 36 put dW1's epilogue cost at ~9 % (235B), nearly all of it
# the TMA stores' traffic beside the loads, not their burst across SMs. If what the loads wait behind is the SM's own
# queue of store bytes (a 16 KiB pass at once), spreading them cuts dW1 2-5 % at 235B and 1-3 % at 30B, dW2 1-3 %; if
# it is the total bytes on the SM's L2 path, 27 is even with 21. Correctness first: the k-grouped GPU tests cover 27
# (VARIANTS), the MoE tests and sanitizers with PK_SM90_VARIANT_WGRAD=27.
# Build: `git apply results/session36/spread_stores.patch` on main (branches do not survive a session); cmake -G Ninja -DPK_ARCHS=90a ../src && ninja into .device/spread/build,
# cp the .so into build/final. Run: `bash results/session36/scripts/spread_run.sh 2>&1 | tail -60`,
# carry [".device/spread/build/final"].
export B=.device/spread/build/final
source ci/device_run_lib.sh
step 200 kg_tests.log python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_sm90_kgrouped.py
tail -1 $OUT/kg_tests.log; grep -E "^FAILED" $OUT/kg_tests.log | head
export PK_SM90_VARIANT_WGRAD=27  # the layer's weight gradients in 27 (tests and sanitizers)
gpu_checks moe_tests.log -m gpu tests/test_sm90_moe.py
unset PK_SM90_VARIANT_WGRAD
M=${SPREAD_MATCH:-'^dW[12] bf16 out(, wgrad variant split_bk128_(defer_tail|spread)|, ours without the epilogue stores)?$'}  # SPREAD_MATCH: other rows (session 37's wrapper adds one)
interleaved_shapes "$M" 11 200 120
step 300 bench.log python3 benchmarks/bench_moe.py --reps 20 --variants default,WGRAD=27 --json $OUT/bench.json
grep -v Warn $OUT/bench.log | grep -E '^\|' | tail -12
echo "t=$SECONDS"
