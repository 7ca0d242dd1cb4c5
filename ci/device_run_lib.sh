# Sourced by the device-run scripts (results/session*/scripts/): the carried library, the GPU's state,
# and step TIMEOUT LOG CMD... (runs CMD into $OUT/LOG, prints its exit code and the elapsed time, and
# stops the whole run when CMD times out, so a hang cannot eat the session's device time).
set -u
# only_on CARD: stop the whole run (exit 0) unless the GPU's name contains CARD (e.g. H200), before anything is timed.
only_on() {
  local name; name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
  case "$name" in *"$1"*) ;; *) echo "not an $1 ($name): nothing run"; exit 0 ;; esac
}
B=${B:-.device/head/build/final}
export PYTHONPATH=. PK_LIBRARY_PATH=$B PYTHONUNBUFFERED=1
SECONDS=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv,noheader
step() { local t=$1 log=$2; shift 2; timeout $t "$@" > $OUT/$log 2>&1; local r=$?; echo "[$log] rc=$r t=$SECONDS"; [ $r -eq 124 ] && { tail -3 $OUT/$log; exit 124; }; return 0; }
# ab_shapes OLD_BUILD NEW_BUILD REGEX [TAG]: ci/ab_libraries.sh at 30B (AB_N30 processes, default 3) and at 235B (AB_N235,
# default 2) on the interleaved.py rows REGEX matches; logs $OUT/ab30TAG.log, ab235TAG.log (+ _rows.log), printed.
ab_shapes() {
  local old=$1 new=$2 m=$3 tag=${4:-}
  step 200 ab30$tag.log env AB_ARGS="--shapes 30b" AB_TIMEOUT=90 bash ci/ab_libraries.sh $old $new "$m" ${AB_N30:-3} $OUT/ab30${tag}_rows.log
  cat $OUT/ab30$tag.log
  step 200 ab235$tag.log env AB_ARGS="--shapes 235b" AB_TIMEOUT=120 bash ci/ab_libraries.sh $old $new "$m" ${AB_N235:-2} $OUT/ab235${tag}_rows.log
  cat $OUT/ab235$tag.log
}
# interleaved_step LOG ARG...: benchmarks/interleaved.py ARG... in one process into $OUT/LOG (at most IL_TIMEOUT seconds,
# default 200), its tables printed.
interleaved_step() {
  local log=$1; shift
  step ${IL_TIMEOUT:-200} $log python3 benchmarks/interleaved.py "$@"; grep -E "^\||^[0-9]+b" $OUT/$log
}
# interleaved_shapes REGEX [ROUNDS [T235 [T30]]]: interleaved_step at 235B then 30B (ROUNDS rounds of 20, default 11;
# at most T235 / T30 seconds, default 150 / 100) on the rows REGEX matches, into $OUT/il_235b.log and il_30b.log.
interleaved_shapes() {
  local rounds=${2:-11}
  IL_TIMEOUT=${3:-150} interleaved_step il_235b.log --shapes 235b --rounds $rounds --reps 20 --match "$1"
  IL_TIMEOUT=${4:-100} interleaved_step il_30b.log --shapes 30b --rounds $rounds --reps 20 --match "$1"
}
# gpu_checks LOG PYTEST_ARG...: the GPU tests PYTEST_ARG selects into $OUT/LOG, then compute-sanitizer memcheck and
# racecheck over a small MoE step (4 CTAs; SAN_ENV: more VAR=value settings for it, e.g. a kernel variant).
gpu_checks() {
  local log=$1; shift
  step 200 $log python3 -m pytest -q -p no:cacheprovider "$@"; tail -1 $OUT/$log; grep -E "^FAILED" $OUT/$log | head
  step 200 san.log env PK_SMALL_SHAPE=500,4,2,256,768 PK_SM90_MAX_CTAS=4 ${SAN_ENV:-} bash ci/gpu_sanitize.sh $OUT
  cat $OUT/san.log
  # the device tool returns at most 8 files: the tools' own logs go into san.log (session 27 lost a log to the limit)
  for f in $OUT/sanitize_*.log; do
    [ -f "$f" ] && { echo "==== $(basename "$f")"; cat "$f"; } >> $OUT/san.log && rm -f "$f"
  done
}
# ab_merged OLD_BUILD NEW_BUILD REGEX: ab_shapes, its two shapes' logs then merged into $OUT/ab.log and ab_rows.log (the
# device tool returns at most 8 files).
ab_merged() {
  ab_shapes "$1" "$2" "$3"  # no tag: the file names below are the untagged ones
  cat $OUT/ab30.log $OUT/ab235.log > $OUT/ab.log && cat $OUT/ab30_rows.log $OUT/ab235_rows.log > $OUT/ab_rows.log && \
    rm -f $OUT/ab30.log $OUT/ab235.log $OUT/ab30_rows.log $OUT/ab235_rows.log
}
# sass_compare OLD_BUILD NEW_BUILD: the two libraries' SASS compared kernel by kernel (ci/sass_compare.sh) into
# $OUT/sass_compare.log, the summary and the k-grouped kernels that differ printed. The k-grouped kernels of session 27
# on carry one more template argument (TRANS; false = the older kernels' names), renamed before comparing.
sass_compare() {
  bash ci/sass_compare.sh $1 $2 --rename EEELb0EEEvNS1_6Params=EEEEEvNS1_6Params > $OUT/sass_compare.log 2>&1
  echo "sass compare rc=$?"; grep -v "^    " $OUT/sass_compare.log
  grep "kgrouped" $OUT/sass_compare.log | cut -c1-170
}
