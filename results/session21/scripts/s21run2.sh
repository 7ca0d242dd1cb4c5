#!/usr/bin/env bash
# Session 21, run 2: candidate .device/s21b (wgrad variant 25: 21 multiplying only the 16-row steps of a group's last
# chunk that hold rows; the defaults are HEAD's). Every GPU test (25 in every k-grouped case), the sanitizers with 25
# as the wgrad variant, 25 against 21 in one process (whole kernel, MMA-only forms, the no-store bound), then the
# m-grouped defaults against their alternatives (last compared in sessions 15-18, before session 19's producer change).
B=.device/s21b/build/final BENCH=0 SAN_ENV="PK_SM90_VARIANT_WGRAD=25" \
INTERLEAVED="--rounds 9 --seed 22 --match '^dW[12] bf16 out(, wgrad variant split_bk128_(defer_tail|tail_steps)|, ours without the epilogue stores|, ours MMAs only( split_bk128_tail_steps \(25\))?)?\$'" \
bash ci/candidate_run.sh
source ci/device_run_lib.sh
M='^(GEMM 1 (default|staged 128x192, (4 stages|TMA store|wait0)|cooperative 128x256)|dH (default|(2 )?epilogue warps 128x256, wait0, z L1 prefetch|coop 128x256)|GEMM 2(, A by TMA| (default|ping-pong 128x192, A by TMA|staged, A by TMA, (wait0, )?TMA store))|dX(, A by TMA| (default|ping-pong 128x192, A by TMA|staged, A by TMA, (wait0, )?TMA store)))$'
IL_TIMEOUT=300 interleaved_step sweep.log --rounds 7 --seed 212 --match "$M"
echo "t=$SECONDS"
