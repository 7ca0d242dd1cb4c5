"""benchmarks/sass_control.py: SASS control bits (stall, scoreboards, wait mask) from a cuobjdump -sass dump."""
import importlib.util
import pathlib

_spec = importlib.util.spec_from_file_location(
    "sass_control", pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "sass_control.py")
sass_control = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sass_control)

# Three instructions of session 23's dH kernel as cuobjdump prints them (the second word of each is on its own line).
_DUMP = """\t\tFunction : _Z6kernelv
        /*0c400*/                   LEA R76, P1, R77, R4, 0x1 ;                                  /* 0x000000044d4c7211 */
                                                                                                 /* 0x002fe400078208ff */
        /*0c490*/                   SHFL.IDX PT, R76, R88, R80, 0x1f ;                           /* 0x00001f50584c7589 */
                                                                                                 /* 0x03e2a400000e0000 */
        /*0c4a0*/              @!P2 LDG.E.128.CONSTANT R64, desc[UR14][R76.64] ;                 /* 0x0000000e4c40a981 */
                                                                                                 /* 0x000f62000c1e9d00 */
\t\tFunction : _Z5otherv
        /*0000*/                   EXIT ;                                                        /* 0x000000000000794d */
                                                                                                 /* 0x000fea0003800000 */
"""


def test_control_fields():
    got = [(hex(a), t.split()[0], c) for _, a, t, c in sass_control.instructions(_DUMP.split("\n"), "kernel")]
    assert [g[:2] for g in got] == [("0xc400", "LEA"), ("0xc490", "SHFL.IDX"), ("0xc4a0", "@!P2")]
    lea, shfl, ldg = (g[2] for g in got)
    assert lea == {"stall": 2, "yield": 1, "write_sb": 7, "read_sb": 7, "wait": [1]}
    # the shuffle waits on scoreboards 1-5 (the warp's loads among them) and sets 2 / 1 for its result / operands
    assert shfl["wait"] == [1, 2, 3, 4, 5] and shfl["write_sb"] == 2 and shfl["read_sb"] == 1
    assert ldg["write_sb"] == 5 and ldg["wait"] == [] and ldg["stall"] == 1


def test_cli_filters(tmp_path, capsys):
    path = tmp_path / "k.sass"
    path.write_text(_DUMP)
    assert sass_control.main([str(path), "--waits-on", "5"]) == 0
    out = capsys.readouterr().out
    assert "SHFL.IDX" in out and "LDG" not in out and "1 instructions, 2 stall cycles" in out
    assert sass_control.main([str(path), "--function", "other"]) == 0
    assert "_Z5otherv" in capsys.readouterr().out
    assert sass_control.main([str(path), "--from", "0xd000"]) == 1
