#!/usr/bin/env bash
# Session 20, run 2: the producers' wait-to-copy paths (.device/s20b): the k-grouped weight gradients compute their
# rows' sources before the ring wait and issue the identity side's TMA after the gathered copies; the m-grouped
# gathering producer issues B's TMA after the A copies. Against HEAD's library (.device/s19f): every GPU test, the
# sanitizers, the A/B over alternating processes (GEMM 2 and dX: controls, A by TMA), the benchmark table.
B=.device/s20b/build/final BASE=.device/s19f/build/final \
AB_MATCH='^(GEMM 1 default|dH default|GEMM 2 default|dX default|GEMM 1 product, plain m-grouped, x gathered by cp.async, ping-pong 128x192|dW[12] (bf16|fp32) out)$' \
bash ci/candidate_run.sh
