#!/usr/bin/env bash
# Session 19, run 1 (diagnostic): GEMM 1's product through the plain ping-pong 128 x 192 kernel gathering A with
# row lists of chosen patterns (interleaved.py's gather_patterns), next to the real gather and the pre-gathered
# copy: which property of the real rows (random tokens, 64 / 128 MiB of x, sorted within an expert) costs the
# 8-12 % of session 18's runs 5 / 8. Library: HEAD's tree (kernels = session 15's).
B=.device/s19a/build/final
source ci/device_run_lib.sh
M='GEMM 1 product, plain m-grouped, (x gathered by cp.async|pre-gathered x, A by cp.async), ping-pong 128x192|GEMM 1 product, ping-pong 128x192, gather pattern: .*'
IL_TIMEOUT=400 interleaved_step kern.log --shapes 30b,235b --match "^($M)\$" --rounds 5 --reps 5 --sustained 1.0
echo "t=$SECONDS"
