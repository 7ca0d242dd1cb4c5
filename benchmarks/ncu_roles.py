"""Warp-stall samples of one warp-specialized kernel, by warp role: ci/ncu_sass_samples.sh's per-SASS-instruction CSV
(NAME.csv or .csv.gz) cut at the kernel's setmaxnreg instructions, which open each role's code (consumers raise their
registers, producers and epilogue warps lower them). Prints each region's share of the samples, its top stall
reasons and its hottest instructions.

    python3 benchmarks/ncu_roles.py results/session21/run7/dh30.csv.gz [TOP]
"""
from __future__ import annotations

import collections
import csv
import gzip
import re
import sys


def load(path: str):
    """(kernel name, header, one row per SASS instruction) of ci/ncu_sass_samples.sh's CSV (.csv or .csv.gz)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        rows = list(csv.reader(f))
    hdr = next(r for r in rows if r and r[0] == "Address")
    name = rows[0][1] if rows and len(rows[0]) > 1 else ""
    data = [r for r in rows[rows.index(hdr) + 1:] if len(r) == len(hdr) and r[0].startswith("0x")]
    half = len(data) // 2
    if len(data) % 2 == 0 and data[:1] == data[half:half + 1]:  # some ncu versions list the SASS twice
        data = data[:half]
    return name, hdr, data


def whole(path: str, top: int = 40) -> None:
    """The whole kernel's top instructions by samples (benchmarks/ncu_source_top.py's report)."""
    name, hdr, data = load(path)
    ci = {h: i for i, h in enumerate(hdr)}
    stalls = [h for h in hdr if h.startswith("stall_") and "Not Issued" not in h]
    samples = lambda r: int(r[ci["Warp Stall Sampling (All Samples)"]] or 0)  # noqa: E731
    tot = sum(samples(r) for r in data) or 1
    print(name[:200])
    print("total samples", tot, "instructions", len(data))
    agg = {k: sum(int(r[ci[k]] or 0) for r in data) for k in stalls}
    print("by reason:", ", ".join(f"{k[6:]} {v / tot * 100:.1f}%" for k, v in sorted(agg.items(), key=lambda x: -x[1])
                                  if v / tot > 0.005))
    for i in sorted(range(len(data)), key=lambda i: -samples(data[i]))[:top]:
        r = data[i]
        worst = sorted(((int(r[ci[k]] or 0), k[6:]) for k in stalls), reverse=True)[:3]
        print(f"{i:5d} {samples(r) / tot * 100:5.2f}% ex={r[ci['Instructions Executed']]:>8} "
              f"{r[ci['Source']].strip()[:70]:70s} {' '.join(f'{k}:{v}' for v, k in worst if v)}")


def regions(src: list[str]):
    """(label, start, end): the prologue, one region per setmaxnreg (up to the next one), the out-of-line tail after
    the last region's EXIT (barrier-wait slow paths)."""
    marks = [i for i, s in enumerate(src) if "SETMAXREG" in s]
    if not marks:
        return [("whole kernel", 0, len(src))]
    out = [("prologue (every warp)", 0, marks[0])]
    for a, b in zip(marks, marks[1:] + [len(src)]):
        m = re.search(r"SETMAXREG\.(\w+)\S*\s+(?:UP\d+,\s*)?(0x[0-9a-f]+)", src[a])
        label = f"setmaxnreg {m.group(1).lower()} {int(m.group(2), 16)}" if m else src[a]
        if b == len(src):  # the last role ends at its last EXIT; what follows is shared out-of-line code
            exits = [i for i in range(a, b) if src[i].endswith("EXIT")]
            end = exits[-1] + 1 if exits else b
            out.append((label, a, end))
            if end < b:
                out.append(("out-of-line (barrier-wait slow paths)", end, b))
        else:
            out.append((label, a, b))
    return out


def main(argv: list[str]) -> None:
    path, top = argv[0], int(argv[1]) if len(argv) > 1 else 6
    _, hdr, data = load(path)
    col = {h: i for i, h in enumerate(hdr)}
    src = [r[col["Source"]].strip() for r in data]
    addr = [int(r[col["Address"]], 16) for r in data]
    samples = [int(r[col["Warp Stall Sampling (All Samples)"]] or 0) for r in data]
    executed = [int(r[col["Instructions Executed"]] or 0) for r in data]
    reasons = [h for h in hdr if h.startswith("stall_") and "Not Issued" not in h]
    total = sum(samples) or 1
    print(f"{path}: {total} samples, {len(src)} instructions")
    for label, a, b in regions(src):
        share = sum(samples[a:b])
        agg = collections.Counter()
        for i in range(a, b):
            for h in reasons:
                agg[h] += int(data[i][col[h]] or 0)
        why = ", ".join(f"{k[6:]} {100 * v / max(share, 1):.0f}%" for k, v in agg.most_common(5))
        print(f"- {label}: {100 * share / total:.1f} % of samples, {sum(executed[a:b])} warp instructions executed ({why})")
        for i in sorted(range(a, b), key=lambda i: -samples[i])[:top]:
            if samples[i] == 0:
                break
            r = sorted(((h[6:], int(data[i][col[h]] or 0)) for h in reasons), key=lambda kv: -kv[1])[:2]
            print(f"    {100 * samples[i] / total:5.2f}%  +{addr[i] - addr[0]:#07x}  ex {executed[i]:>8}  "
                  f"{src[i][:56]:56s} {', '.join(f'{k}:{v}' for k, v in r)}")


if __name__ == "__main__":
    main(sys.argv[1:])
