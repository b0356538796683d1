"""Reading settings from a pytest config, and registering the options."""

from __future__ import annotations

import os

import pytest

from ..settings import OPTIONS, OptionSpec, Settings, resolve_settings


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

    def cli(spec: OptionSpec) -> str | None:
        value = config.getoption(_dest(spec))
        return None if value is None else str(value)

    def ini(spec: OptionSpec) -> str | None:
        value = config.getini(spec.ini)
        return value if isinstance(value, str) and value else None

    return resolve_settings(cli, os.environ, ini)


def _dest(spec: OptionSpec) -> str:
    return "r2r_" + spec.field
