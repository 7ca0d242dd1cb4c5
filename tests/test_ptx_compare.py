"""ci/ptx_compare.py: the PTX comparison behind "kernels unchanged" claims in the notes."""
import importlib.util
import pathlib

_spec = importlib.util.spec_from_file_location(
    "ptx_compare", pathlib.Path(__file__).resolve().parents[1] / "ci" / "ptx_compare.py")
ptx_compare = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ptx_compare)

_K1 = """.visible .entry _Z2k1Pf(
\t.param .u64 _Z2k1Pf_param_0
)
{
\t.reg .b32 %r<4>;
\t// begin inline asm
\t{
\t.reg .pred p;
\tmbarrier.try_wait.parity.shared::cta.b64 p, [%r1], %r2;
}
\t// end inline asm
$L__BB0_1:
\tadd.s32 %r3, %r1, %r2;
\t@%p1 bra $L__BB0_1;
\tret;
}
"""
_K2 = """.visible .entry _Z2k2Pf(
\t.param .u64 _Z2k2Pf_param_0
)
{
\tmul.lo.s32 %r5, %r6, 3;
\tret;
}
"""


def _renamed(src: str) -> str:  # what a rebuild of unchanged code may do: other register and label numbers
    return src.replace("%r1", "%r9").replace("%r2", "%r8").replace("$L__BB0_1", "$L__BB3_7")


def test_unchanged_kernels_match_after_renaming():
    res, ok = ptx_compare.compare(_K1 + _K2, _renamed(_K1) + _K2)
    assert ok and res["same"] == 2 and not res["different"]


def test_a_change_after_an_inline_asm_block_is_found():
    # the change sits after a "\n}\n" inside the body (the inline asm's braces), where the earlier
    # comparator stopped reading
    changed = _K1.replace("add.s32 %r3, %r1, %r2;", "sub.s32 %r3, %r1, %r2;")
    res, ok = ptx_compare.compare(_K1 + _K2, changed + _K2)
    assert not ok and res["different"] == ["_Z2k1Pf"]


def test_by_body_ignores_names_but_not_code():
    renamed = (_K1 + _K2).replace("_Z2k1Pf", "_Z2k1PfLb0E")
    assert ptx_compare.compare(_K1 + _K2, renamed, by_body=True)[1]
    assert not ptx_compare.compare(_K1 + _K2, renamed.replace("mul.lo", "add"), by_body=True)[1]


def test_removed_kernel_is_reported():
    res, ok = ptx_compare.compare(_K1 + _K2, _K1)
    assert not ok and res["only old"] == ["_Z2k2Pf"]


# Two functions of a cuobjdump -sass dump (each instruction: its address, text and first encoding word, then the
# second word, which holds the control bits, on its own line).
_SASS = """
\tcode for sm_90a
\t\tFunction : _Z2k1Pf
\t.headerflags\t@"EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                 /* 0x00000a00ff017b82 */
                                                                          /* 0x000fe20000000800 */
        /*0010*/                   IADD3 R0, R1, 0x4, RZ ;                /* 0x0000000401007810 */
                                                                          /* 0x000fca0007ffe0ff */
        /*0020*/                   EXIT ;                                 /* 0x000000000000794d */
                                                                          /* 0x000fea0003800000 */
\t\tFunction : _Z2k2Pf
        /*0000*/                   EXIT ;                                 /* 0x000000000000794d */
                                                                          /* 0x000fea0003800000 */
"""


def test_sass_same_code_at_other_addresses_and_padding():
    # a larger function elsewhere in the library widens every address column: not a change
    moved = _SASS.replace("/*0000*/", "/*00000*/ ").replace("/*0010*/", "/*00010*/ ").replace("/*0020*/", "/*00020*/ ")
    res, ok = ptx_compare.compare(_SASS, moved)
    assert ok and res["same"] == 2


def test_sass_next_cubin_header_is_not_the_function():
    # a function that ends one cubin of the library in one build and not in the other: the same code
    header = "\nFatbin elf code:\n================\narch = sm_90a\ncode version = [1,8]\n\n\tcode for sm_90a\n"
    res, ok = ptx_compare.compare(_SASS, _SASS + header)
    assert ok and res["same"] == 2


def test_sass_control_bits_and_immediates_count():
    restalled = _SASS.replace("/* 0x000fca0007ffe0ff */", "/* 0x000fc80007ffe0ff */")  # one stall count
    res, ok = ptx_compare.compare(_SASS, restalled)
    assert not ok and res["different"] == ["_Z2k1Pf"]
    res, ok = ptx_compare.compare(_SASS, _SASS.replace("R1, 0x4, RZ", "R1, 0x8, RZ"))
    assert not ok and res["different"] == ["_Z2k1Pf"]


def test_sass_rename_maps_a_new_template_argument():
    renamed = _SASS.replace("_Z2k1Pf", "_Z2k1PfLi64E")
    res, ok = ptx_compare.compare(_SASS, renamed)
    assert not ok and res["only old"] == ["_Z2k1Pf"]
    res, ok = ptx_compare.compare(_SASS, renamed, renames=(("PfLi64E", "Pf"),))
    assert ok and res["same"] == 2


def test_ptx_against_sass_is_refused():
    import pytest
    with pytest.raises(ValueError, match="SASS"):
        ptx_compare.compare(_K1, _SASS)
