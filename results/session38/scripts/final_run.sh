#!/usr/bin/env bash
# Session 38's planned run 3 (every GPU test on main's library with pipeline 28 as the bf16 default, the benchmark
# against WGRAD=21, fp32 outs in 28) never ran here (the device budget ran out); session 39 ran it, extended, as
# results/session39/scripts/run1.sh.
exec bash results/session39/scripts/run1.sh "$@"
