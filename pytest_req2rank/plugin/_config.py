"""Reading settings from a pytest config, and registering the options."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import pytest

from ..options import OPTIONS, OptionSpec, spelling

if TYPE_CHECKING:
    from ..settings import Settings

WORKER_SETTINGS = "r2r_settings"
SUBMIT_DEST = "r2r_submit"
HUB_TOKEN_DEST = "r2r_hub_token"


def add_options(parser: pytest.Parser) -> None:
    """Every option in its CLI and ini spellings; a former name keeps both, marked deprecated."""
    group = parser.getgroup("req2rank", "benchmark LLMs on requirements (req2rank)")
    for spec in OPTIONS:
        default = f" (default: {spec.default_text}; env {spec.env}; ini {spec.ini})"
        _add(group, parser, spec, spec.field, spec.help + default, spec.help)
        for name in spec.former:
            _add(group, parser, spec, name, f"Deprecated: use {spec.cli}",
                 f"Deprecated: use {spec.ini}")
    # Not settings of the run (the results JSON records its settings; a token must not be):
    group.addoption("--r2r-submit", dest=SUBMIT_DEST, nargs="?", const="", default=None,
                    metavar="URL", help="Submit the run to a leaderboard hub at URL (default: "
                    "env R2R_HUB_URL): its nonce is fetched before the run, its evidence "
                    "chained as items finish")
    group.addoption("--r2r-hub-token", dest=HUB_TOKEN_DEST, default=None, metavar="TOKEN",
                    help="Token of the hub for --r2r-submit (default: env R2R_HUB_TOKEN, "
                    "else the one kept by `req2rank login`)")


def _add(group: pytest.OptionGroup, parser: pytest.Parser, spec: OptionSpec, name: str,
         cli_help: str, ini_help: str) -> None:
    kind: dict[str, Any] = {"metavar": spec.metavar}
    if spec.flag:
        kind = {"action": "store_const", "const": "true"}
    elif spec.switch:  # --r2r-NAME alone turns it on; --r2r-NAME=VALUE gives the value
        kind = {"metavar": spec.metavar, "nargs": "?", "const": "true"}
    elif spec.repeatable:  # --r2r-NAME=A --r2r-NAME=B reads as A,B
        kind = {"metavar": spec.metavar, "action": "append"}
    group.addoption(spelling("cli", name), dest=_dest(name), default=None, help=cli_help, **kind)
    parser.addini(spelling("ini", name), help=ini_help, default=None)


def load_settings(config: pytest.Config) -> Settings:
    """The run's settings; raise ``SettingsError`` (one line) when a value is bad.

    Relative paths become absolute here, by pytest's own rule (:class:`PathBases`). An
    xdist worker takes the controller's settings as they are, so every process of a run
    uses the same values and the same files. A deprecated spelling gives one
    ``PytestDeprecationWarning`` naming the current one, on the controller (a usage error
    when warnings are errors).
    """
    # pydantic: an inert session never loads the settings
    from ..settings import PathBases, Settings, SettingsError, resolve_settings

    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and WORKER_SETTINGS in workerinput:
        return Settings.model_validate_json(workerinput[WORKER_SETTINGS])

    def cli(name: str) -> str | None:
        value = config.getoption(_dest(name))
        if isinstance(value, list):
            return ",".join(value)
        return None if value is None else str(value)

    def deprecated(message: str) -> None:
        if workerinput is not None:  # a worker planning the run itself: its controller warns
            return
        warning = pytest.PytestDeprecationWarning(f"req2rank: {message}")
        try:
            config.issue_config_time_warning(warning, stacklevel=2)
        except pytest.PytestDeprecationWarning:  # warnings are errors in this session
            raise SettingsError(message) from None

    invocation_dir = config.invocation_params.dir
    bases = PathBases(
        given=invocation_dir,
        ini=config.inipath.parent if config.inipath is not None else invocation_dir,
        default=config.rootpath,
    )
    return resolve_settings(cli, os.environ, lambda name: _ini_value(config, name), bases,
                            deprecated=deprecated)


def submit_asked(config: pytest.Config) -> bool:
    """Whether this session asks to submit its run to a hub (``--r2r-submit``)."""
    return config.getoption(SUBMIT_DEST, None) is not None


def worker_settings(settings: Settings) -> str:
    """``settings`` as the controller hands them to an xdist worker (``workerinput``)."""
    return settings.model_dump_json(by_alias=True)


def named_options(config: pytest.Config) -> list[str]:
    """The req2rank options this session names on its command line or in its ini file
    (in any spelling, former names included)."""
    return [spelling("cli", name) for spec in OPTIONS for name in spec.names
            if config.getoption(_dest(name)) is not None or _ini_value(config, name) is not None]


def nversion_asked(config: pytest.Config) -> bool:
    """Whether this session asks for an N-version run (``--r2r-nversion``, its ini key or
    environment variable), before the settings are resolved."""
    return (config.getoption(_dest("nversion")) is not None
            or _ini_value(config, "nversion") is not None
            or bool(os.environ.get(spelling("env", "nversion"), "").strip()))


def _ini_value(config: pytest.Config, name: str) -> str | None:
    value = config.getini(spelling("ini", name))
    return None if value is None else str(value)


def _dest(name: str) -> str:
    return "r2r_" + name
