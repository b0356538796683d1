"""A static-suite process loads only what it uses: workers start sooner (see README, Performance)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import pytest_req2rank

HEAVY = ("numpy", "jsonschema", "jsonschema_rs", "sqlite_utils", "litellm",
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


def test_the_lazy_names_still_resolve() -> None:
    loaded = loaded_after("from pytest_req2rank.execution import run_requirement")
    assert "pytest_req2rank.generation" in loaded


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


def _threads_after_report_import(single_threaded_blas: bool) -> tuple[int, bool]:
    code = ("import os\nfrom pytest_req2rank.plugin._controller import import_report\n"
            f"import_report(single_threaded_blas={single_threaded_blas})\nimport numpy\n"
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
    assert _threads_after_report_import(single_threaded_blas=True) == (1, False)
    if (os.cpu_count() or 1) > 1:  # the count above means something only if this one differs
        assert _threads_after_report_import(single_threaded_blas=False)[0] > 1
