"""The test session's own hooks (conftest.py)."""
from pathlib import Path

CONFTEST = (Path(__file__).parent / "conftest.py").read_text().replace('pytest_plugins = ("pytester",)', "")


def test_failed_test_memory_is_released(pytester):
    # a failing test's locals (at the real shapes, GPU tensors of tens of GB) must not outlive its report
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_two="""
        import weakref
        REFS = []

        class Big:
            pass

        def test_a_fails_holding_an_object():
            big = Big()
            REFS.append(weakref.ref(big))
            assert False

        def test_b_the_object_is_gone():
            assert REFS[0]() is None
    """)
    res = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    res.assert_outcomes(failed=1, passed=1)
