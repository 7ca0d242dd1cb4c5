"""benchmarks/ncu_roles.py: warp-stall samples split by warp role at a kernel's setmaxnreg instructions."""
import csv
import importlib.util
import pathlib

_spec = importlib.util.spec_from_file_location(
    "ncu_roles", pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "ncu_roles.py")
ncu_roles = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ncu_roles)

_SASS = ["LDC R1, c[0x0][0x28]", "USETMAXREG.TRY_ALLOC.CTAPOOL UP0, 0xa0", "HGMMA.64x192x16.F32.BF16 R24", "EXIT",
         "USETMAXREG.DEALLOC.CTAPOOL 0x48", "LDGSTS.E.BYPASS.128 [R1], [R2.64]", "EXIT",
         "@!P0  NANOSLEEP.SYNCS 0x989680"]


def test_regions_follow_setmaxnreg_and_the_last_exit():
    got = ncu_roles.regions(_SASS)
    assert got == [("prologue (every warp)", 0, 1), ("setmaxnreg try_alloc 160", 1, 4),
                   ("setmaxnreg dealloc 72", 4, 7), ("out-of-line (barrier-wait slow paths)", 7, 8)]
    assert ncu_roles.regions(["FFMA R1, R2, R3, R4", "EXIT"]) == [("whole kernel", 0, 2)]


def test_report_from_a_csv(tmp_path, capsys):
    hdr = ["Address", "Source", "Warp Stall Sampling (All Samples)", "Instructions Executed", "stall_long_sb",
           "stall_wait", "stall_wait (Not Issued)"]
    path = tmp_path / "k.csv"
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["Kernel Name", "k", ""])
        w.writerow(hdr)
        for i, s in enumerate(_SASS):
            samples = 10 if "HGMMA" in s else 30 if "LDGSTS" in s else 0
            w.writerow([hex(0x1000 + 16 * i), "      " + s, samples, 5, samples, 0, 0])
    ncu_roles.main([str(path), "2"])
    out = capsys.readouterr().out
    assert "40 samples" in out
    assert "setmaxnreg try_alloc 160: 25.0 % of samples" in out
    assert "setmaxnreg dealloc 72: 75.0 % of samples" in out and "long_sb 100%" in out
