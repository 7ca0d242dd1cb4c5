#!/usr/bin/env bash
# Session 7, device run 3: where the weight gradient's fixed cost per chunk goes.
# (1) benchmarks/wgmma_majors.cu (built here, carried in .device/micro): the wgmma loop with a 3-stage
#     ring, plus one at a time the kernel's 128 cp.async arrivals per stage, rotating stage addresses,
#     16-step tiles (cycles per 4-step chunk, ideal 1024).
# (2) interleaved, rotated: the library's MMA-only forms (19, 16) with and without the consumers'
#     proxy fence, and the full kernel without it (timing only).
source ci/device_run_lib.sh
step 120 wgmma_majors.txt .device/micro/wgmma_majors; cat $OUT/wgmma_majors.txt
step 180 interleaved.log python3 benchmarks/interleaved.py --rounds 7 --match "^dW[12] bf16 out(, ours.*)?$"; grep -E "^\||^[0-9]+b" $OUT/interleaved.log
