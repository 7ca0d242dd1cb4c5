#!/usr/bin/env bash
# Session 5, device run 10 (final): s5run4.sh (every GPU test, the layer benchmark, the per-kernel
# timeline, host overhead, sanitizers) on the defaults at the end of the session (dH 8/9 + 32, grouped
# GEMM 3 + 32 + 64, k-grouped 16).
exec bash "$(dirname "$0")/s5run4.sh"
