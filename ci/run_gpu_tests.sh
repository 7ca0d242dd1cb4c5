#!/usr/bin/env bash
# Runs every GPU test (pytest -m gpu) on a machine with a Hopper or Blackwell GPU.
#
#   bash ci/run_gpu_tests.sh [BUILD_DIR]
#
# BUILD_DIR: a CMake build tree holding libprime_kernels_sm*.so (default: build/gpu, built here
# with CMake if it has no library; needs nvcc 13 and `pip install nvidia-cutlass==4.2.0.0`).
# Without a GPU every test skips, and this script fails: it exists to run them.
# Logs go to $OUT (if set) or build/gpu-logs.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build/gpu}
LOG_DIR=${OUT:-build/gpu-logs}
mkdir -p "$LOG_DIR"
PY=${PYTHON:-python3}

if ! ls "$BUILD_DIR"/libprime_kernels_sm*.so >/dev/null 2>&1; then
  echo "== building kernel libraries into $BUILD_DIR"
  cmake -G Ninja -S . -B "$BUILD_DIR" -DPython_EXECUTABLE="$(command -v "$PY")" >"$LOG_DIR/cmake.log"
  ninja -C "$BUILD_DIR" | tee "$LOG_DIR/build.log"
fi

export PK_LIBRARY_PATH="$BUILD_DIR" PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
"$PY" -m deep_gemm info | tee "$LOG_DIR/info.log"
"$PY" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 'no CUDA GPU visible')"

echo "== GPU tests"
set +e
"$PY" -m pytest -m gpu -q -rs -p no:cacheprovider tests "${PYTEST_ARGS[@]:-}" 2>&1 | tee "$LOG_DIR/pytest-gpu.log"
rc=${PIPESTATUS[0]}
set -e
if grep -qE "^[0-9]+ skipped" "$LOG_DIR/pytest-gpu.log" && ! grep -qE "[0-9]+ passed" "$LOG_DIR/pytest-gpu.log"; then
  echo "every GPU test skipped: this machine cannot run them" >&2
  exit 1
fi
exit "$rc"
