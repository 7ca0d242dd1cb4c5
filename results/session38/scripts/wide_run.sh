#!/usr/bin/env bash
# Session 38: the 128 x 384 weight-gradient tile (k-grouped pipeline 28: 64-row chunks in 3 stages, bf16 passes of 64
# columns alternating between two 8 KiB staging halves, setmaxnreg 40 / 232 / 232), and session 37's bytes question
# (fp32 against bf16 outs) in the same rows. Library: main + this session's uncommitted pipeline 28, built on the dev
# machine into .device/wide/build/final (ptxas: 0 spills; SASS: 8 HGMMA.64x192 a chunk).
# Prediction (before the run; session 37's reading: the weight gradients are bound by the bytes through each SM):
#  - loads only: 28 -8..-11 % against the default's loads-only row (11 % fewer bytes a FLOP into each SM);
#  - MMAs only: 28 within +-3 % of the default's (two n192 per k-step vs one n256, 64- vs 128-row chunks);
#  - the whole kernel: dW1 / dW2 -3..-6 % against 21 at 235B (-5..-8 % from the bytes, less the 64-row chunks'
#    handshakes and the deferred pass 21 has and 28 has not), 30B alike; debug bit 14 (each pass waits for the last
#    one's reads) 1-3 % slower than 28; the layer fwd+bwd -1..-2 %.
#  - bytes (session 37's run 2): fp32 out = without-stores + 2 x (bf16 - without) if the stores cost by bytes (dW1
#    ~6.7 ms at 235B on an H100); within ~3 % of bf16 if per pass.
# If 28 wins at both shapes (dW1 and dW2 beyond the rows' spread, layer not slower): it becomes the bf16 default where
# the shape allows (kDefaultVariantBf16), and an H200 run repeats the benchmark.
# Run: `bash results/session38/scripts/wide_run.sh 2>&1 | tail -70`, carry [".device/wide/build/final"].
export B=.device/wide/build/final
source ci/device_run_lib.sh
M='^dW[12] (bf16|fp32) out$|^dW[12] bf16 out, wgrad variant wide_bk64$|^dW[12] bf16 out, wide_bk64 \(28\), '
M+='|^dW[12] bf16 out, ours (without the epilogue stores|loads only|MMAs only)$|^layer fwd\+bwd( default|, wgrad 128x384 \(28\))$'
step 240 kg_tests.log python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_sm90_kgrouped.py
tail -1 $OUT/kg_tests.log; grep -E "^FAILED" $OUT/kg_tests.log | head
interleaved_shapes "$M" 9 170 110
SAN_ENV="PK_SM90_VARIANT_WGRAD=28" gpu_checks moe_tests.log -m gpu tests/test_sm90_moe.py -k "weight_grad or backward"
echo "t=$SECONDS"
