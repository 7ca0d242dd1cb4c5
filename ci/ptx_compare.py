"""Compare the kernels of two PTX files (nvcc -ptx of the same source before and after a change).

    python3 ci/ptx_compare.py OLD.ptx NEW.ptx [--by-body]

Each `.entry` is compared whole (to the next entry or the end of the file) after normalising what a
rebuild renames: branch labels, mangled symbols, inline-asm labels, comments, and virtual registers
(numbered by first use). By name (default): same / different / only in one file. --by-body: how many of
OLD's bodies appear among NEW's whatever their names (a template parameter added to every kernel
changes every mangled name, not the code). Exit status 0 when every OLD kernel is unchanged.
(Session 7: an earlier ad-hoc comparator stopped each body at its first "\\n}\\n" and called changed
kernels identical.)
"""
from __future__ import annotations

import argparse
import re
import sys
from collections import Counter

_ENTRY = re.compile(r"^(?=(?:\.visible\s+|\.weak\s+)?\.entry\s)", re.M)


def entries(text: str) -> dict[str, str]:
    out = {}
    for part in _ENTRY.split(text):
        m = re.match(r"(?:\.visible\s+|\.weak\s+)?\.entry\s+(\w+)\s*\(", part)
        if m:
            out[m.group(1)] = part
    return out


def normalise(body: str) -> str:
    body = re.sub(r"^\s*//.*$", "", body, flags=re.M)
    body = re.sub(r"\$L__\w+", "L", body)
    body = re.sub(r"_Z\w+", "SYM", body)
    body = re.sub(r"\b[A-Z]+_\d+\b", "ASM", body)
    regs: dict[str, str] = {}
    return re.sub(r"%[a-z]+\d+", lambda m: regs.setdefault(m.group(0), f"%v{len(regs)}"), body)


def compare(old: str, new: str, by_body: bool = False) -> tuple[dict, bool]:
    a, b = entries(old), entries(new)
    if by_body:
        ca, cb = Counter(map(normalise, a.values())), Counter(map(normalise, b.values()))
        kept = sum((ca & cb).values())
        return {"old": len(a), "new": len(b), "old bodies in new": kept}, kept == len(a)
    same = sorted(k for k in a if k in b and normalise(a[k]) == normalise(b[k]))
    diff = sorted(k for k in a if k in b and normalise(a[k]) != normalise(b[k]))
    res = {"same": len(same), "different": diff, "only old": sorted(set(a) - set(b)),
           "only new": sorted(set(b) - set(a))}
    return res, not diff and not res["only old"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--by-body", action="store_true")
    a = ap.parse_args()
    res, unchanged = compare(open(a.old).read(), open(a.new).read(), a.by_body)
    for k, v in res.items():
        print(f"{k}: {v if not isinstance(v, list) else len(v)}")
        if isinstance(v, list):
            for name in v:
                print("   ", name[:160])
    return 0 if unchanged else 1


if __name__ == "__main__":
    sys.exit(main())
