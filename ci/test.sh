#!/usr/bin/env bash
# The test command (README, and .ci/run in a fresh clone):
#   1. a virtual environment with torch (CPU build torch==2.13.0 unless TORCH_SPEC says otherwise,
#      or whatever torch the environment already has),
#   2. every wheel variant built from this checkout into a local PEP 503 index (wheels/build_wheels.py),
#   3. the default wheel installed with its test extras,
#   4. the test suite against the installed package. GPU tests skip with a reason on a CPU machine.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-build/test-venv}
INDEX=${PK_WHEEL_INDEX:-build/index}
TORCH_SPEC=${TORCH_SPEC:-torch==2.13.0}
step() { echo; echo "==== [$(date +%H:%M:%S)] $*"; }
# pip, minus the warnings this machine's pip config prints for absent local find-links folders
pip_() { "$PY" -m pip "$@" 2> >(grep -v "^WARNING: Location '" >&2); }

step "virtual environment $VENV"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
VENV=$(cd "$VENV" && pwd); PY="$VENV/bin/python"
"$PY" -c "import torch" 2>/dev/null || pip_ install -q "$TORCH_SPEC"
pip_ install -q -r wheels/requirements.txt
"$PY" -c "import torch; print('torch', torch.__version__)"

step "build all wheel variants into $INDEX"
t0=$(date +%s)
"$PY" wheels/build_wheels.py --index "$INDEX"
echo "wheel builds took $(( $(date +%s) - t0 )) s"

step "install the default wheel with test extras"
wheel=$(ls "$INDEX"/files/prime_kernels-*.whl)
pip_ uninstall -q -y prime-kernels prime-kernels-sm90 prime-kernels-sm100 2>/dev/null || true
pip_ install -q "${wheel}[test]"

step "test suite"
# The installed package is tested (not the checkout): pytest's script puts no checkout on sys.path.
export PK_EXPECT_ARCHS=sm90,sm100 PK_WHEEL_INDEX="$INDEX"
cd tests
"$VENV/bin/pytest" -q -rs -p no:cacheprovider "$@"
