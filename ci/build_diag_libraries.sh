#!/usr/bin/env bash
# Builds (on the dev machine) the timing-diagnostic sm90 libraries next to the normal one, from the
# working tree: .device/diag_nomma (PK_SM90_DIAG_NO_MMA: the m-grouped kernels without their wgmma) and
# .device/diag_noload (PK_SM90_DIAG_NO_LOADS: without their operand copies); see csrc/sm90/mainloop.cuh.
# Their outputs are garbage: time them only (benchmarks/interleaved.py with PK_LIBRARY_PATH set to
# .device/diag_*/build/final), against the normal library, to see what bounds each kernel.
set -eu
cd "$(git rev-parse --show-toplevel)"
for kind in nomma:PK_SM90_DIAG_NO_MMA noload:PK_SM90_DIAG_NO_LOADS; do
  dir=.device/diag_${kind%%:*}
  rm -rf "$dir" && mkdir -p "$dir"
  git ls-files -co --exclude-standard | tar -cf - -T - | tar -x -C "$dir"
  (cd "$dir" && cmake -G Ninja -S . -B build/final -DPython_EXECUTABLE="${PYTHON:-python3}" -DPK_ARCHS=90a \
     -DPK_NVCC_FLAGS="-D${kind#*:}" > build.log && ninja -C build/final >> build.log)
  echo "$dir/build/final"
done
