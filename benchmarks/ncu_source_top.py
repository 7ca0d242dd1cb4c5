"""Top SASS instructions by warp-stall samples from `ncu -i REP --page source --csv --print-source sass`
(ncu run with --section SourceCounters; used by ci/ncu_sass_samples.sh and the session scripts under results/).
The parsing lives in benchmarks/ncu_roles.py, which also splits the samples by warp role.
    python3 ncu_source_top.py FILE.csv[.gz] [N]"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ncu_roles import whole  # noqa: E402

if __name__ == "__main__":
    whole(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 40)
