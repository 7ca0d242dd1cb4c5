#!/usr/bin/env bash
# Session 9, device run 4: ncu warp-stall samples per SASS instruction of 235B GEMM 1, the 256-row form with
# wait_group 0 (6 + 32) and the default (staged 128 x 192): where the 256-row form's consumers and producer wait.
# (First try matched no kernel: demangled names read "GemmConfig<(int)192, (int)3, ...": the epilogue names are matched.)
source ci/device_run_lib.sh
PK_SM90_VARIANT_GEMM1=38 bash ci/ncu_sass_samples.sh "EpiSwiGLUFwd<" 235b g1_256w0
bash ci/ncu_sass_samples.sh "EpiSwiGLUFwdStaged<" 235b g1_default
echo "t=$SECONDS"
