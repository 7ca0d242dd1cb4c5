"""Per-kernel gaps to the library floor, from an interleaved.py log of back-to-back rows.

    python3 ci/kernel_gaps.py results/session41/run1/kernels.log

Reads the "each variant back to back" tables that results/session40/scripts/gaps.sh writes (every default kernel and
its cuBLAS bmm product on balanced groups) and prints, a kernel a row: ours / bmm in ms, the same in cycles
(ms x median SM clock), and the excess in ms, then the sums. Ms is what the layer pays; cycles compare the work a clock
does, which the power cap hides (kernels that draw less power run at a higher clock).
"""
import re
import sys

KERNELS = ["GEMM 1", "GEMM 2", "dX", "dH", "dW2", "dW1", "combine"]
ROW = re.compile(r"\| (.+?) \| ([\d.]+) \| \d+ \| ([\d.]+) \(")


def sustained_tables(text):
    """{shape heading: {row name: (ms, median MHz)}} for each back-to-back table."""
    tables = {}
    for section in re.split(r"\n(?=\d+b)", text):
        heading = section.split("\n", 1)[0]
        if "back to back" not in heading:
            continue
        rows = {m.group(1): (float(m.group(2)), float(m.group(3))) for m in map(ROW.match, section.split("\n")) if m}
        tables[heading] = rows
    return tables


def main(path):
    tables = sustained_tables(open(path).read())
    if not tables:
        sys.exit(f"{path}: no back-to-back table (interleaved.py --sustained) found")
    for heading, rows in tables.items():
        print(heading)
        print("| kernel | ours ms | bmm ms | ms ratio | cycle ratio | MHz ours / bmm | excess ms |")
        print("|---|---|---|---|---|---|---|")
        ours_sum = floor_sum = 0.0
        for k in KERNELS:
            ours = rows.get(f"{k} default") or rows.get(f"{k} bf16 out")
            floor = next((v for n, v in rows.items() if n.startswith(f"ceiling {k}:")), None)
            if ours is None or floor is None:
                print(f"| {k} | (missing) | | | | | |")
                continue
            ratio = ours[0] / floor[0]
            ours_sum += ours[0]
            floor_sum += floor[0]
            print(f"| {k} | {ours[0]:.3f} | {floor[0]:.3f} | {ratio:.3f} | {ratio * ours[1] / floor[1]:.3f} | "
                  f"{ours[1]:.0f} / {floor[1]:.0f} | {ours[0] - floor[0]:+.3f} |")
        if floor_sum:
            print(f"| sum | {ours_sum:.3f} | {floor_sum:.3f} | {ours_sum / floor_sum:.3f} | | | "
                  f"{ours_sum - floor_sum:+.3f} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
