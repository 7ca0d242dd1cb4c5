#!/usr/bin/env bash
# One job of the wheel matrix: builds the wheel of one variant (wheels/variants.toml).
#
#   bash ci/build_wheel.sh default|sm90|sm100      -> $WHEELHOUSE (default: wheelhouse/)
#
# With a container engine (the real CI), cibuildwheel builds inside the manylinux_2_28 image.
# Without one (this dev machine), the same variant is built with pip + auditwheel on the host,
# which gives the host's manylinux tag (manylinux_2_34 on Debian 12).
set -euo pipefail
cd "$(dirname "$0")/.."
VARIANT=${1:?usage: ci/build_wheel.sh default|sm90|sm100}
WHEELHOUSE=${WHEELHOUSE:-wheelhouse}
PY=${PYTHON:-python3}

if [ "${PK_USE_CIBUILDWHEEL:-auto}" != 0 ] && command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
  src=$("$PY" wheels/build_wheels.py prepare "$VARIANT")
  echo "cibuildwheel: $VARIANT from $src"
  "$PY" -m cibuildwheel --platform linux --output-dir "$WHEELHOUSE/files" "$src"
else
  echo "no container engine: building $VARIANT on the host (pip wheel + auditwheel)"
  "$PY" wheels/build_wheels.py --variants "$VARIANT" --index "$WHEELHOUSE"
fi
ls -la "$WHEELHOUSE/files"
