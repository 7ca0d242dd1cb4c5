#!/usr/bin/env bash
# Session 20, run 1: what the consumers' per-k-block proxy fence (MEMBAR.ALL.CTA + FENCE.VIEW.ASYNC.S) costs.
# A/B over alternating processes: HEAD's library (.device/s19f) against the same tree built with
# -DPK_SM90_DIAG_NO_PROXY_FENCE (.device/diag_nofence: the m-grouped consumers without it; timing only), then
# the k-grouped weight gradients' wait_group 1 pipelines with and without it (debug bit 5) in one process.
B=.device/s19f/build/final
source ci/device_run_lib.sh
NF=.device/diag_nofence/build/final
M='^(GEMM 1 default|dH default|GEMM 2 default|dX default|GEMM 1 product, plain m-grouped, (x gathered by cp.async|pre-gathered x, A by (cp.async|tma)), ping-pong 128x192)$'
AB_N30=2 ab_shapes $B $NF "$M"
interleaved_step wgrad.log --rounds 5 --match 'bf16 out, ours (wait_group 1|MMAs only|without the proxy)|^dW[12] bf16 out$'
echo "t=$SECONDS"
