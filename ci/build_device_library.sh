#!/usr/bin/env bash
# Builds (on the dev machine, nvcc at /usr/local/cuda/bin or on PATH) the sm90 library from the working tree into
# .device/NAME/build/final, the folder the device scripts carry (`run` with carry [".device/NAME/build/final"];
# results/ stays out of the copy). Reuses an earlier build of the same NAME (ninja rebuilds what changed).
#   PYTHON=/path/to/python JOBS=8 NVCC_FLAGS="-D..." bash ci/build_device_library.sh NAME
# PYTHON must have nvidia-cutlass, cmake and ninja (the README's build requirements).
set -eu
[ $# -eq 1 ] || { echo "usage: bash ci/build_device_library.sh NAME" >&2; exit 2; }
cd "$(git rev-parse --show-toplevel)"
py=${PYTHON:-python3}
bin=$(dirname "$(command -v "$py")")
export PATH="$bin:/usr/local/cuda/bin:$PATH"
dir=.device/$1
rm -rf "$dir/src" && mkdir -p "$dir/src" "$dir/build/final"
git ls-files -co --exclude-standard | grep -v '^results/' | tar -cf - -T - | tar -x -C "$dir/src"
cmake -G Ninja -S "$dir/src" -B "$dir/build" -DPython_EXECUTABLE="$(command -v "$py")" -DPK_ARCHS=90a \
  -DPK_BUILD_JOBS="${JOBS:-2}" -DPK_NVCC_FLAGS="${NVCC_FLAGS:-}" > "$dir/build/cmake.log"
ninja -C "$dir/build" > "$dir/build/ninja.log" || { tail -30 "$dir/build/ninja.log" >&2; exit 1; }
cp "$dir/build/libprime_kernels_sm90.so" "$dir/build/final/"
echo "$dir/build/final"
