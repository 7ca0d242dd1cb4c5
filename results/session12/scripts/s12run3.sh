#!/usr/bin/env bash
# Session 12, run 3: run 2's steps (s12run2.sh) on the library with the dynamic unit order's ring released by one
# arrival a warp (31f4029, .device/head/build/final).
exec bash "$(dirname "$0")/s12run2.sh"
