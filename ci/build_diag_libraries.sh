#!/usr/bin/env bash
# Builds (on the dev machine) the timing-diagnostic sm90 libraries next to the normal one, from the
# working tree: .device/diag_nomma (PK_SM90_DIAG_NO_MMA: the m-grouped kernels without their wgmma),
# .device/diag_noload (PK_SM90_DIAG_NO_LOADS: without their operand copies; see csrc/sm90/mainloop.cuh) and
# .device/diag_nostore (PK_SM90_DIAG_NO_STORES: without the epilogues' stores from registers; epilogue.cuh) and
# .device/diag_nofence (PK_SM90_DIAG_NO_PROXY_FENCE: without the consumers' per-k-block proxy fence) and
# .device/diag_wgrad3 (the k-grouped 128-row-chunk pipeline with a third stage at 128 x 128 tiles; api/sm90_kgrouped.cu) and
# .device/diag_ring (PK_SM90_DIAG_RING_TIMES: clock64 stamps of GEMM 1's and dH's ring, read by benchmarks/ring_times.py) and
# .device/diag_mmaonly (no operand copies and no epilogue stores: what the MMAs and the hand-off alone cost; the dH
# epilogue warps' loads and math stay) and .device/diag_noepi (PK_SM90_DIAG_NO_EPILOGUE: the epilogue warps only take
# and hand back each staged tile) and .device/diag_mmanoepi (both: the consumers' MMA path and hand-off alone) and
# .device/diag_epionly (no operand copies, no MMAs: the epilogue, fed garbage tiles, alone).
# Their outputs are garbage: time them only (benchmarks/interleaved.py with PK_LIBRARY_PATH set to
# .device/diag_*/build/final), against the normal library, to see what bounds each kernel.
#   PYTHON=/path/to/python bash ci/build_diag_libraries.sh [KIND ...]   (KIND: one of the kinds above, by the name after
#   diag_; default all)
set -eu
cd "$(git rev-parse --show-toplevel)"
declare -A flag=([nomma]=PK_SM90_DIAG_NO_MMA [noload]=PK_SM90_DIAG_NO_LOADS [nostore]=PK_SM90_DIAG_NO_STORES
                 [nofence]=PK_SM90_DIAG_NO_PROXY_FENCE [wgrad3]=PK_SM90_DIAG_WGRAD_BN128_STAGES=3
                 [ring]=PK_SM90_DIAG_RING_TIMES [mmaonly]="PK_SM90_DIAG_NO_LOADS -DPK_SM90_DIAG_NO_STORES"
                 [noepi]=PK_SM90_DIAG_NO_EPILOGUE [mmanoepi]="PK_SM90_DIAG_NO_LOADS -DPK_SM90_DIAG_NO_EPILOGUE"
                 [epionly]="PK_SM90_DIAG_NO_LOADS -DPK_SM90_DIAG_NO_MMA")
all=(nomma noload nostore nofence wgrad3 ring mmaonly noepi mmanoepi epionly)
kinds=("$@")
[ ${#kinds[@]} -eq 0 ] && kinds=("${all[@]}")
for k in "${kinds[@]}"; do
  [ -n "${flag[$k]:-}" ] || { echo "unknown kind $k (one of: ${all[*]})" >&2; exit 2; }
done
for k in "${kinds[@]}"; do
  NVCC_FLAGS="-D${flag[$k]}" bash ci/build_device_library.sh "diag_$k"
done
