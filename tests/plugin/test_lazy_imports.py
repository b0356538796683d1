"""A static-suite process loads only what it uses: workers start sooner (see README, Performance)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import pytest_req2rank

HEAVY = ("asyncio", "numpy", "jsonschema", "jsonschema_rs", "sqlite_utils", "litellm",
         "pytest_req2rank.generation", "pytest_req2rank.judging", "pytest_req2rank.scoring",
         "pytest_req2rank.report", "pytest_req2rank.store")


def loaded_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint(' '.join(sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    return set(done.stdout.split())


def test_the_plugin_and_a_static_worker_load_no_heavy_module() -> None:
    loaded = loaded_after(
        "import pytest_req2rank.plugin, pytest_req2rank.plugin._session\n"
        "from pytest_req2rank.execution import run_task\n"
        "from pytest_req2rank.suites import load_humaneval\n"
        "load_humaneval()"
    )
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_grading_a_requirement_needs_no_generator() -> None:
    """The requirement types live in models: execution sits below generation."""
    loaded = loaded_after("from pytest_req2rank.execution import run_requirement")
    assert "pytest_req2rank.execution._requirement" in loaded
    assert "pytest_req2rank.generation" not in loaded


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


def test_a_static_run_summarizes_without_numpy() -> None:
    """Percentiles are plain Python; numpy waits for the statistics that need it (bootstraps,
    agreement). Importing it cost an xdist controller ~0.2 s of CPU while its workers waited."""
    loaded = loaded_after(
        "from pytest_req2rank.models import ItemResult, TestOutcome\n"
        "from pytest_req2rank.report import build_summary\n"
        "items = [ItemResult(item_id=f'd/{i}', dataset='d', task_id=str(i), model='m',\n"
        "                    status='success' if i % 3 else 'wrong_answer', pass_ratio=(i % 3) / 2,\n"
        "                    tests=[TestOutcome(name='t', status='success')], judge_time_s=0.1 * i,\n"
        "                    score=100.0 if i % 3 else 0.0) for i in range(9)]\n"
        "summary = build_summary(items, planned=9, wall_time_s=1.0)\n"
        "assert summary.phase0['d']['pass_ratio_p90'] is not None"
    )
    assert "numpy" not in loaded
    assert "pytest_req2rank.report" in loaded


@pytest.mark.parametrize("runs_tests", [False, True])
def test_the_store_of_an_xdist_controller_loads_without_numpy(
        tmp_path: Path, runs_tests: bool) -> None:
    """sqlite-utils imports numpy and pandas, when installed, for their scalar types only; an
    xdist controller runs no test and stores plain values, so it skips them. A process that
    runs tests keeps sqlite-utils as its tests would find it."""
    loaded = loaded_after(
        "from pathlib import Path\n"
        "from pytest_req2rank.models import ItemResult\n"
        "from pytest_req2rank.plan import RunPlan\n"
        "from pytest_req2rank.plugin._controller import Controller\n"
        "from pytest_req2rank.settings import Settings\n"
        "plan = RunPlan(run_id='r1', seed=1, model='m', suite='s', created_at='t',\n"
        "               item_ids=('d/0',))\n"
        f"root = Path({str(tmp_path)!r})\n"
        f"controller = Controller(Settings(dir=root), plan, 'none', 'full', runs_tests={runs_tests})\n"
        "controller.record(ItemResult(item_id='d/0', dataset='d', task_id='0', model='m',\n"
        "                             status='success', score=100.0))\n"
        "assert controller.finish(interrupted=False).summary.items_total == 1\n"
        "import sqlite_utils.db\n"
        "assert (sqlite_utils.db.np is None) is not " + str(runs_tests)
    )
    assert ("numpy" in loaded) is runs_tests
    assert "sqlite_utils" in loaded
    assert (tmp_path / "req2rank.db").exists()


def _threads_after_numpy_import(single_threaded_blas: bool) -> tuple[int, bool]:
    code = ("import os\nfrom pytest_req2rank.plugin._controller import single_threaded_blas\n"
            f"with single_threaded_blas({single_threaded_blas}):\n    import numpy\n"
            "print(len(os.listdir('/proc/self/task')), 'OPENBLAS_NUM_THREADS' in os.environ)")
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "GOTO_NUM_THREADS")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env=env)
    threads, leaked = done.stdout.split()
    return int(threads), leaked == "True"


def test_an_xdist_controller_loads_numpy_without_blas_threads() -> None:
    """The controller runs no test: OpenBLAS's per-core threads would only take CPU from the
    workers. The variable that pins them is not left for the processes it starts later."""
    assert _threads_after_numpy_import(single_threaded_blas=True) == (1, False)
    if (os.cpu_count() or 1) > 1:  # the count above means something only if this one differs
        assert _threads_after_numpy_import(single_threaded_blas=False)[0] > 1
