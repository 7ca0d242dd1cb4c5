#!/usr/bin/env bash
# Session 5, device run 4: the new defaults (dH and dX release stages after wgmma.wait_group 0):
# every GPU test, the layer benchmark, the per-kernel timeline, host overhead, sanitizers.
# (Then inline; the same steps are now ci/final_device_run.sh, which also times the routing kernel.)
exec bash ci/final_device_run.sh
