"""Every exception the package defines derives from its root, ``Req2RankError``: one ``except``
catches whatever req2rank raises on purpose."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from types import ModuleType

import pytest

import pytest_req2rank
from pytest_req2rank.errors import Req2RankError

# Code that runs inside the sandbox imports nothing of the plugin (import-linter's contract);
# its signals derive from BaseException on purpose, so that the model's `except Exception`
# cannot swallow them.
SANDBOXED = "pytest_req2rank.sandboxed"


def _modules() -> list[ModuleType]:
    names = [info.name for info in pkgutil.walk_packages(pytest_req2rank.__path__,
                                                         f"{pytest_req2rank.__name__}.")]
    return [importlib.import_module(name) for name in names
            if not name.startswith(SANDBOXED) and name.rsplit(".", 1)[-1] != "__main__"]


def _exceptions_defined_in(module: ModuleType) -> list[type[Exception]]:
    return [value for value in vars(module).values()
            if inspect.isclass(value) and issubclass(value, Exception)
            and value.__module__ == module.__name__]


def test_every_exception_the_package_defines_derives_from_its_root(
        _modules_kept_across_runs: None) -> None:
    defined = [exc for module in _modules() for exc in _exceptions_defined_in(module)]
    assert len(defined) > 30  # the walk found the package's modules
    outside = sorted(f"{exc.__module__}.{exc.__qualname__}" for exc in defined
                     if not issubclass(exc, Req2RankError))
    assert outside == []


@pytest.mark.parametrize(("module", "name", "builtin"), [
    ("pytest_req2rank.execution._compare", "NotPlain", ValueError),
    ("pytest_req2rank.nversion._answers", "AnswerError", ValueError),
    ("pytest_req2rank.nversion._common_mode", "NotApplicable", ValueError),
    ("pytest_req2rank.settings._settings", "SettingsError", ValueError),
])
def test_an_exception_keeps_the_builtin_base_its_callers_catch(
        module: str, name: str, builtin: type[Exception]) -> None:
    exc = getattr(importlib.import_module(module), name)
    assert issubclass(exc, Req2RankError) and issubclass(exc, builtin)

