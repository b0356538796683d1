"""Reading settings from a pytest config, and registering the options."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from ..options import OPTIONS, OptionSpec

if TYPE_CHECKING:
    from ..settings import Settings

WORKER_SETTINGS = "r2r_settings"


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("req2rank", "benchmark LLMs on requirements (req2rank)")
    for spec in OPTIONS:
        default = f" (default: {spec.default_text}; env {spec.env}; ini {spec.ini})"
        if spec.flag:
            group.addoption(spec.cli, dest=_dest(spec), action="store_const", const="true",
                            default=None, help=spec.help + default)
        else:
            group.addoption(spec.cli, dest=_dest(spec), default=None, metavar=spec.metavar,
                            help=spec.help + default)
        parser.addini(spec.ini, help=spec.help, default=None)


def load_settings(config: pytest.Config) -> Settings:
    """The run's settings; raise ``SettingsError`` (one line) when a value is bad.

    Relative paths become absolute here, by pytest's own rule (:class:`PathBases`). An
    xdist worker takes the controller's settings as they are, so every process of a run
    uses the same values and the same files.
    """
    from ..settings import PathBases, Settings, resolve_settings

    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and WORKER_SETTINGS in workerinput:
        return Settings.model_validate_json(workerinput[WORKER_SETTINGS])

    def cli(spec: OptionSpec) -> str | None:
        value = config.getoption(_dest(spec))
        return None if value is None else str(value)

    invocation_dir = config.invocation_params.dir
    bases = PathBases(
        given=invocation_dir,
        ini=config.inipath.parent if config.inipath is not None else invocation_dir,
        default=config.rootpath,
    )
    return resolve_settings(cli, os.environ, lambda spec: _ini_value(config, spec), bases)


def worker_settings(settings: Settings) -> str:
    """``settings`` as the controller hands them to an xdist worker (``workerinput``)."""
    return settings.model_dump_json(by_alias=True)


def named_options(config: pytest.Config) -> list[str]:
    """The req2rank options this session names on its command line or in its ini file."""
    return [spec.cli for spec in OPTIONS
            if config.getoption(_dest(spec)) is not None or _ini_value(config, spec) is not None]


def _ini_value(config: pytest.Config, spec: OptionSpec) -> str | None:
    value = config.getini(spec.ini)
    return None if value is None else str(value)


def _dest(spec: OptionSpec) -> str:
    return "r2r_" + spec.field
