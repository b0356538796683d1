"""The start-up measures that are kept (``pytest_req2rank._startup``): pytest leaves the
plugin's own modules unrewritten, and a benchmark run freezes its long-lived objects."""

from __future__ import annotations

from pathlib import Path

import pytest

import pytest_req2rank


def test_pytest_does_not_rewrite_the_plugins_own_modules(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """pytest marks a plugin's whole distribution for assertion rewriting, which re-parses
    every module in every process when it cannot cache (PYTHONDONTWRITEBYTECODE)."""
    package = Path(pytest_req2rank.__file__).parent
    # An editable install is marked only when the package is found on sys.path.
    monkeypatch.setenv("PYTHONPATH", str(package.parent))
    pytester.makepyfile(test_loader="""
        import sys
        from _pytest.assertion.rewrite import AssertionRewritingHook

        def test_loaders():
            import pytest_req2rank.execution
            import pytest_req2rank.models
            assert any(isinstance(f, AssertionRewritingHook) for f in sys.meta_path)
            for name in ("pytest_req2rank.execution", "pytest_req2rank.models"):
                loader = sys.modules[name].__spec__.loader
                assert not isinstance(loader, AssertionRewritingHook), name
    """)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


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
