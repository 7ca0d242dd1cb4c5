#!/usr/bin/env bash
# A/B of two kernel libraries across processes (for a change that cannot live in one library next to the
# form before it): runs benchmarks/interleaved.py with library A and B, N times (A first in odd rounds, B
# first in even ones; round i shuffled with seed i), appends every table row to LOG, and prints each variant's median over the
# processes for both libraries and their ratio. Used from the device-run scripts (results/session*/scripts/).
#   bash ci/ab_libraries.sh OLD_BUILD_DIR NEW_BUILD_DIR REGEX N LOG
# AB_ARGS: more interleaved.py arguments (e.g. "--shapes 30b"); AB_TIMEOUT: seconds a process may take (60).
set -u
old=$1 new=$2 match=$3 n=$4 log=$5
# Which library goes first alternates (session 10, run 10: with "old" always first, kernels of identical SASS
# came out 2.8-3.6 % slower in the second process of each pair).
for i in $(seq 1 "$n"); do
  libs="old new"; [ $((i % 2)) -eq 0 ] && libs="new old"
  for lib in $libs; do
    dir=$old; [ $lib = new ] && dir=$new
    PK_LIBRARY_PATH=$dir timeout "${AB_TIMEOUT:-60}" python3 benchmarks/interleaved.py --rounds 5 --seed "$i" --match "$match" \
      ${AB_ARGS:-} 2>&1 |
      grep -E "^\| |^[0-9]+b" | grep -v "^| variant\|^|---" | sed "s/^/$lib $i /" >> "$log"
  done
done
python3 - "$log" <<'PY'
import collections, re, statistics, sys
d = collections.defaultdict(list); shape = None
for line in open(sys.argv[1]):
    m = re.match(r"(\w+) \d+ (\d+b)[:,]", line)
    if m:
        shape = m.group(2)
        continue
    m = re.match(r"(\w+) \d+ \| ([^|]+) \| ([\d.]+) \|", line)
    if m:
        d[(shape, m.group(2).strip(), m.group(1))].append(float(m.group(3)))
for key in sorted({(s, n) for s, n, _ in d}):
    o, h = d[key + ("old",)], d[key + ("new",)]
    if o and h:
        print(f"{key[0]} {key[1]}: old {statistics.median(o):.3f} ms {o}, new {statistics.median(h):.3f} ms {h}, "
              f"new/old {statistics.median(h) / statistics.median(o):.3f}")
PY
