#!/usr/bin/env bash
# Session 7, device run 6: the A/Bs of runs 3-5 again with each round in a fresh random order (run 5 flipped
# the sign of the proxy-fence result under the rotated order): the weight gradients with and without the
# consumers' proxy fence, 19 vs 16 for bf16 outs; 15 rounds. Then the k-grouped and MoE GPU tests (the
# bf16-vs-fp32 tests fixed for the defaults' different pipelines).
source ci/device_run_lib.sh
step 200 interleaved.log python3 benchmarks/interleaved.py --rounds 15 --match "^dW[12] bf16 out(, ours with the proxy fence|, wgrad variant (staged_tma|split_bk128))?$"; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
step 150 tests.log python3 -m pytest -q -m gpu tests/test_sm90_kgrouped.py tests/test_sm90_moe.py -p no:cacheprovider; tail -1 $OUT/tests.log; grep -E "^FAILED|^E  " $OUT/tests.log | head -10
