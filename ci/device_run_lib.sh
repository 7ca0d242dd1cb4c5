# Sourced by the device-run scripts (results/session*/scripts/): the carried library, the GPU's state,
# and step TIMEOUT LOG CMD... (runs CMD into $OUT/LOG, prints its exit code and the elapsed time, and
# stops the whole run when CMD times out, so a hang cannot eat the session's device time).
set -u
B=${B:-.device/head/build/final}
export PYTHONPATH=. PK_LIBRARY_PATH=$B PYTHONUNBUFFERED=1
SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
step() { local t=$1 log=$2; shift 2; timeout $t "$@" > $OUT/$log 2>&1; local r=$?; echo "[$log] rc=$r t=$SECONDS"; [ $r -eq 124 ] && { tail -3 $OUT/$log; exit 124; }; return 0; }
