#!/usr/bin/env bash
# Session 28 run 2: why PDL made the layer slower in run 1 (235B +2.5 % in one process). Per-kernel timelines
# (torch.profiler) and the SM clock back to back, with PDL off (PK_PDL=0), on (trigger at each CTA's start: .device/pdl),
# and on with the implicit trigger at each CTA's exit (.device/pdl2: allow_dependent_grids() empty); the layer rows
# with and without PDL in one process for both libraries. Run: `bash results/session28/scripts/run2.sh`, carry
# [".device/pdl/build/final", ".device/pdl2/build/final"].
B=.device/pdl/build/final
source ci/device_run_lib.sh
M='^layer fwd\+bwd default$|^layer fwd\+bwd, no PDL$'
step 120 tl_off.log env PK_PDL=0 python3 benchmarks/timeline_moe.py --shapes 235b,30b --iters 7 --clocks
step 120 tl_on.log env PK_PDL=1 python3 benchmarks/timeline_moe.py --shapes 235b,30b --iters 7 --clocks
step 120 tl_implicit.log env PK_LIBRARY_PATH=.device/pdl2/build/final PK_PDL=1 python3 benchmarks/timeline_moe.py --shapes 235b,30b --iters 7 --clocks
IL_TIMEOUT=150 interleaved_step il_pdl.log --rounds 7 --reps 10 --match "$M"
PK_LIBRARY_PATH=.device/pdl2/build/final IL_TIMEOUT=150 interleaved_step il_pdl2.log --rounds 7 --reps 10 --match "$M"
for f in tl_off tl_on tl_implicit; do echo "== $f"; grep -iE "wall|sum|clock|^\|.*(gemm|wgrad|combine|routing)" $OUT/$f.log | head -40; done
echo "t=$SECONDS"
