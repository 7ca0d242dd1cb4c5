#!/usr/bin/env bash
# Session 23, run 5: HEAD's build (.device/s23e). Every dH epilogue-warp form got the leaner row loop, so the forms with
# fewer epilogue warps (3 or 2 in the producer warpgroup, 3 warpgroups) may now beat the default (a fourth warpgroup
# of 4 epilogue warps): the dH forms against each other in one process a shape.
export B=.device/s23e/build/final
source ci/device_run_lib.sh
M='^dH (default|(2 )?epilogue warps 128x256, wait0(, z L1 prefetch)?|coop 128x256)$'
IL_TIMEOUT=300 interleaved_step sweep.log --rounds 7 --seed 231 --match "$M"
echo "t=$SECONDS"
