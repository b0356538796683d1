"""Reading settings from a pytest config, and registering the options."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from ..options import OPTIONS, OptionSpec

if TYPE_CHECKING:
    from ..settings import Settings


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
    """Raise ``SettingsError`` (one line) when a value is bad."""
    from ..settings import resolve_settings

    def cli(spec: OptionSpec) -> str | None:
        value = config.getoption(_dest(spec))
        return None if value is None else str(value)

    return resolve_settings(cli, os.environ, lambda spec: _ini_value(config, spec))


def named_options(config: pytest.Config) -> list[str]:
    """The req2rank options this session names on its command line or in its ini file."""
    return [spec.cli for spec in OPTIONS
            if config.getoption(_dest(spec)) is not None or _ini_value(config, spec)]


def _ini_value(config: pytest.Config, spec: OptionSpec) -> str | None:
    value = config.getini(spec.ini)
    return value if isinstance(value, str) and value else None


def _dest(spec: OptionSpec) -> str:
    return "r2r_" + spec.field
