"""The control bits of each SASS instruction in a `cuobjdump -sass` dump: the stall count, the yield bit, the
scoreboards the instruction sets when it writes its result or has read its operands, and the scoreboards it waits
for before issuing. Shows which instruction waits on which loads without a GPU (session 23 found the dH epilogue
warps' first shuffle of every batch waiting for the next batch's global loads this way).

    cuobjdump -sass lib.so > lib.sass
    python3 benchmarks/sass_control.py lib.sass [--function REGEX] [--from 0x4a00 --to 0x6c00] [--waits-on N]

Each line: address, S<stall>, W<write scoreboard> R<read scoreboard> (- = none), wait[<scoreboards>], instruction.
The bits (sm_70 and later; the instruction's second 64-bit word): stall 41-44, yield 45 (as encoded), write scoreboard 46-48,
read scoreboard 49-51, wait mask 52-57 (7 = no scoreboard).
"""
from __future__ import annotations

import argparse
import re
import sys

_FUNC = re.compile(r"Function : (\S+)")
_INSTR = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*/\* (0x[0-9a-f]{16}) \*/")
_WORD = re.compile(r"^\s*/\* (0x[0-9a-f]{16}) \*/")


def control(hi: int) -> dict:
    """The control fields of an instruction whose second (high) 64-bit word is `hi`."""
    c = hi >> 41
    return {"stall": c & 0xF, "yield": (c >> 4) & 1, "write_sb": (c >> 5) & 7, "read_sb": (c >> 8) & 7,
            "wait": [k for k in range(6) if (c >> 11) >> k & 1]}


def instructions(lines, function: str = ""):
    """(function, address, text, control fields) of every instruction, optionally of the functions matching."""
    fn, want = "", re.compile(function) if function else None
    for i, line in enumerate(lines):
        m = _FUNC.search(line)
        if m:
            fn = m.group(1)
            continue
        m = _INSTR.search(line)
        if not m or i + 1 >= len(lines) or (want and not want.search(fn)):
            continue
        hi = _WORD.search(lines[i + 1])
        if hi:
            yield fn, int(m.group(1), 16), m.group(2), control(int(hi.group(1), 16))


def fmt(addr: int, text: str, c: dict) -> str:
    sb = lambda v: "-" if v == 7 else str(v)
    return (f"{addr:05x} S{c['stall']:2d} W{sb(c['write_sb'])} R{sb(c['read_sb'])} "
            f"wait[{''.join(map(str, c['wait'])):6s}] {text}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sass", help="cuobjdump -sass output")
    ap.add_argument("--function", default="", help="regular expression on the mangled function name")
    ap.add_argument("--from", dest="lo", default="0", help="first address (hex)")
    ap.add_argument("--to", dest="hi", default="0xffffffff", help="last address (hex)")
    ap.add_argument("--waits-on", type=int, default=None, help="only instructions that wait for this scoreboard")
    a = ap.parse_args(argv)
    lo, hi = int(a.lo, 16), int(a.hi, 16)
    with open(a.sass) as f:
        lines = f.read().split("\n")
    n = stall = 0
    last = None
    for fn, addr, text, c in instructions(lines, a.function):
        if not lo <= addr <= hi or (a.waits_on is not None and a.waits_on not in c["wait"]):
            continue
        if fn != last:
            print(f"== {fn}")
            last = fn
        print(fmt(addr, text, c))
        n += 1
        stall += c["stall"]
    print(f"{n} instructions, {stall} stall cycles (the control codes' sum)")
    return 0 if n else 1


if __name__ == "__main__":
    sys.exit(main())
