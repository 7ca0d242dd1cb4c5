"""Run one nvcc compile and fail it when ptxas serializes wgmma.

ptxas reports (as "info", not as a warning) when it has to serialize a kernel's wgmma.mma_async instructions
(one warpgroup arrive and wait around every wgmma): C7520 (accumulators touched on a divergent path), C7515 (a
non-wgmma instruction defines accumulator registers inside a wgmma pipeline stage; session 22 met it), and any
other code whose message says the wgmma "are serialized".
Such a kernel still computes the right results and only runs 10-20 % slower (session 21 run 2 measured one), so
nothing else would catch it. Every kernel of this library issues its wgmma in batches; a build where one does not
is a bug. PK_ALLOW_SERIALIZED_WGMMA=1 lets such a build through (experiments only).

    python ptxas_guard.py NVCC ARG...
"""
from __future__ import annotations

import os
import re
import subprocess
import sys

SERIALIZED = re.compile(r"\((C75\d\d)\)[^\n]*?wgmma\.mma_async instructions are serialized[^\n]*?function '([^']+)'")


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: ptxas_guard.py NVCC ARG...", file=sys.stderr)
        return 2
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sys.stdout.write(proc.stdout)
    if proc.returncode != 0:
        return proc.returncode
    found = SERIALIZED.findall(proc.stdout)
    kernels = sorted({k for _, k in found})
    codes = ", ".join(sorted({c for c, _ in found}))
    if kernels and os.environ.get("PK_ALLOW_SERIALIZED_WGMMA") != "1":
        print(f"ptxas_guard: ptxas serialized the wgmma of {len(kernels)} kernel(s) ({codes}):", file=sys.stderr)
        for k in kernels:
            print(f"  {k}", file=sys.stderr)
        print("ptxas_guard: fix the kernel (no accumulator defined or used on a divergent path between wgmma), or set "
              "PK_ALLOW_SERIALIZED_WGMMA=1 for an experiment", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
