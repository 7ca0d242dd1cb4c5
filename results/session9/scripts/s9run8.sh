#!/usr/bin/env bash
# Session 9, device run 8: run 7's timing of ping-pong 128 x 192 against the defaults, with the library
# .device/pp192/build/nostore (the same source built with -DPK_SM90_DIAG_NO_STORES: the register epilogues
# EpiStoreBf16 and EpiSwiGLUFwd store nothing; the patch lived in .device/pp192 only, the flag is now in
# epilogue.cuh) next to the normal one, and no ncu. Ran as LIBS="nostore final" bash s9run8.sh.
LIBS=${LIBS:-nostore final} NCU=0 exec bash "$(dirname "$0")/s9run7.sh"
