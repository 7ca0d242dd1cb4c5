#!/usr/bin/env bash
# compute-sanitizer memcheck + racecheck over a small MoE forward/backward on the sm90 kernels.
# Usage (repo root, on a Hopper machine): PK_LIBRARY_PATH=build/sm90 ci/gpu_sanitize.sh [logdir]
set -u
LOG=${1:-/tmp}
export PYTHONPATH=${PYTHONPATH:-.} PYTORCH_NO_CUDA_MEMORY_CACHING=1
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
rc=0
# racecheck: report hazards with source lines when the library was built with -DPK_LINEINFO=ON.
EXTRA_racecheck="--racecheck-report all"
for tool in ${SAN_TOOLS:-memcheck racecheck}; do
  timeout ${T_SAN:-120} "$CS" --tool $tool $( [ $tool = racecheck ] && echo $EXTRA_racecheck ) --error-exitcode 9 ${SAN_FILTER:-} \
    python3 ci/sm90_moe_small.py > "$LOG/sanitize_$tool.log" 2>&1
  r=$?
  echo "compute-sanitizer $tool: rc=$r ($(grep -c 'ERROR SUMMARY: 0 errors' "$LOG/sanitize_$tool.log") clean summaries)"
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race" "$LOG/sanitize_$tool.log" | sort | uniq -c | head -8
  [ $r -ne 0 ] && rc=$r
done
exit $rc
