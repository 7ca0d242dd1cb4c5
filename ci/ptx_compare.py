"""Compare the kernels of two builds: two PTX files (nvcc -ptx of the same source before and after a change) or two
SASS dumps (cuobjdump -sass of the two libraries).

    python3 ci/ptx_compare.py OLD NEW [--by-body] [--rename FROM=TO ...]

Each PTX `.entry` is compared whole (to the next entry or the end of the file) after normalising what a
rebuild renames: branch labels, mangled symbols, inline-asm labels, comments, and virtual registers
(numbered by first use). By name (default): same / different / only in one file. --by-body: how many of
OLD's bodies appear among NEW's whatever their names (a template parameter added to every kernel
changes every mangled name, not the code). --rename FROM=TO replaces FROM by TO in NEW's names first (e.g. a
new template argument at its default: `--rename ELi64EEE=EEE`). Exit status 0 when every OLD kernel is unchanged.
(Session 7: an earlier ad-hoc comparator stopped each body at its first "\\n}\\n" and called changed
kernels identical.)
A SASS dump (recognised by its `Function :` headers) is compared per function on the instructions and their
encodings (the control bits: stalls, scoreboards), ignoring only the address comments and the column padding.
SASS is the stricter check: session 24 saw PTX that differed only in the numbering of its virtual registers
(identical here after normalising) give 46 kernels a different instruction schedule.
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


_FUNCTION = re.compile(r"^\s*Function : (\S+)\s*$", re.M)


def is_sass(text: str) -> bool:
    return _FUNCTION.search(text) is not None


# the next cubin's header inside a dump: not part of the function before it (a function's last in one cubin in one
# build and not in another would otherwise differ)
_CUBIN_HEADER = re.compile(r"^\s*Fatbin \w+ code:", re.M)


def sass_functions(text: str) -> dict[str, str]:
    parts = _FUNCTION.split(text)  # [before, name1, body1, name2, body2, ...]
    return {parts[i]: _CUBIN_HEADER.split(parts[i + 1])[0] for i in range(1, len(parts) - 1, 2)}


def sass_normalise(body: str) -> str:
    body = re.sub(r"/\*[0-9a-f]{4,}\*/", "", body)  # instruction addresses (their width follows the function's size)
    return re.sub(r"\s+", " ", body).strip()


def normalise(body: str) -> str:
    body = re.sub(r"^\s*//.*$", "", body, flags=re.M)
    body = re.sub(r"\$L__\w+", "L", body)
    body = re.sub(r"_Z\w+", "SYM", body)
    body = re.sub(r"\b[A-Z]+_\d+\b", "ASM", body)
    regs: dict[str, str] = {}
    return re.sub(r"%[a-z]+\d+", lambda m: regs.setdefault(m.group(0), f"%v{len(regs)}"), body)


def compare(old: str, new: str, by_body: bool = False, renames: tuple[tuple[str, str], ...] = ()) -> tuple[dict, bool]:
    sass = is_sass(old)
    if sass != is_sass(new):
        raise ValueError("one file is a SASS dump, the other is not: compare PTX with PTX, SASS with SASS")
    split, norm = (sass_functions, sass_normalise) if sass else (entries, normalise)
    a, b = split(old), split(new)
    for frm, to in renames:
        b = {k.replace(frm, to): v for k, v in b.items()}
    if by_body:
        ca, cb = Counter(map(norm, a.values())), Counter(map(norm, b.values()))
        kept = sum((ca & cb).values())
        return {"old": len(a), "new": len(b), "old bodies in new": kept}, kept == len(a)
    same = sorted(k for k in a if k in b and norm(a[k]) == norm(b[k]))
    diff = sorted(k for k in a if k in b and norm(a[k]) != norm(b[k]))
    res = {"same": len(same), "different": diff, "only old": sorted(set(a) - set(b)),
           "only new": sorted(set(b) - set(a))}
    return res, not diff and not res["only old"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--by-body", action="store_true")
    ap.add_argument("--rename", action="append", default=[], metavar="FROM=TO",
                    help="replace FROM by TO in NEW's kernel names before comparing by name (repeatable)")
    a = ap.parse_args()
    renames = []
    for r in a.rename:
        if "=" not in r:
            ap.error(f"--rename expects FROM=TO, got {r!r}")
        renames.append(tuple(r.split("=", 1)))
    try:
        res, unchanged = compare(open(a.old).read(), open(a.new).read(), a.by_body, tuple(renames))
    except ValueError as e:
        ap.error(str(e))
    for k, v in res.items():
        print(f"{k}: {v if not isinstance(v, list) else len(v)}")
        if isinstance(v, list):
            for name in v:
                print("   ", name[:160])
    return 0 if unchanged else 1


if __name__ == "__main__":
    sys.exit(main())
