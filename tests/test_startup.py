"""The run-time measure that is kept (``pytest_req2rank._startup``): a benchmark run freezes
its long-lived objects, at the start, after its first item and before its process exits."""

from __future__ import annotations

import pytest

FREEZES = """
import gc

counts = []


def test_task(r2r_task, r2r_evaluate):
    counts.append(gc.get_freeze_count())
    r2r_evaluate(r2r_task)


def test_what_each_item_found_frozen():
    first, second, *later = counts
    assert first > 0  # frozen when the run loop started
    assert second > first  # frozen again after the first item: what it loaded on first use
    # and not after any other item (frozen objects freed by their refcount leave the count)
    assert later and max(later) <= second
"""


def test_a_benchmark_run_freezes_at_its_start_and_after_its_first_item(
        pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_benchmark=FREEZES)
    result = pytester.runpytest_subprocess("--r2r-suite=humaneval", "--r2r-sample=3",
                                           "-p", "no:xdist")
    result.assert_outcomes(passed=4)


def test_an_unrelated_session_freezes_nothing(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_unrelated="""
        import gc

        def test_nothing_frozen():
            assert gc.get_freeze_count() == 0
    """)
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=1)


def test_a_benchmark_session_freezes_what_it_leaves_before_its_process_exits(
        pytester: pytest.Pytester) -> None:
    """The collections at exit (pytest's, then the interpreter's) skip what the run left."""
    pytester.makeconftest("""
        import gc
        import pytest

        @pytest.hookimpl(trylast=True)
        def pytest_unconfigure(config):
            with open("counts.txt", "a") as out:
                out.write(f"{gc.get_freeze_count()}\\n")
    """)
    pytester.makepyfile(test_benchmark="""
        import gc

        def test_task(r2r_task, r2r_evaluate):
            r2r_evaluate(r2r_task)
            with open("counts.txt", "w") as out:
                out.write(f"{gc.get_freeze_count()}\\n")
    """)
    result = pytester.runpytest_subprocess("--r2r-suite=humaneval", "--r2r-sample=3",
                                           "-p", "no:xdist")
    result.assert_outcomes(passed=3)
    after_items, at_exit = (int(line) for line in
                            (pytester.path / "counts.txt").read_text().split())
    assert at_exit > after_items
