#!/usr/bin/env bash
# ci/sass_compare.sh OLD_LIB_DIR NEW_LIB_DIR [ptx_compare.py ARGS...]: are two builds' sm90 kernels the same SASS?
# Works on a machine without a GPU: cuobjdump and nvdisasm come from PyPI into build/sass-venv (once) unless a
# cuobjdump is on PATH (the GPU machine's toolkit). Dumps go to ${SASS_DIR:-/tmp}; the comparison goes to stdout.
# Example: bash ci/sass_compare.sh .device/head/build/final .device/final/build/final --rename ELi2ENS1_4Pipe=ELb1ENS1_4Pipe
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 OLD_LIB_DIR NEW_LIB_DIR [ptx_compare.py ARGS...]" >&2; exit 2; }
old=$1/libprime_kernels_sm90.so new=$2/libprime_kernels_sm90.so; shift 2
for f in "$old" "$new"; do [ -f "$f" ] || { echo "$0: no library at $f" >&2; exit 2; }; done
if ! command -v cuobjdump > /dev/null; then
  venv=build/sass-venv
  if [ ! -x "$venv/bin/python" ]; then
    echo "installing cuobjdump and nvdisasm into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm 2> >(grep -v "^WARNING: Location '" >&2)
  fi
  bin=$(dirname "$(find "$venv" -name cuobjdump -type f | head -1)")
  [ -x "$bin/cuobjdump" ] || { echo "$0: cuobjdump not found in $venv" >&2; exit 1; }
  export PATH="$bin:$PATH"
fi
d=${SASS_DIR:-/tmp}
cuobjdump -sass "$old" > "$d/old.sass"
cuobjdump -sass "$new" > "$d/new.sass"
python3 ci/ptx_compare.py "$d/old.sass" "$d/new.sass" "$@"
