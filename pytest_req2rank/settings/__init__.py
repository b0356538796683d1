"""Run settings: options as ``--r2r-*``, ini ``r2r_*``, environment ``R2R_*``."""

from ..options import OPTIONS, OptionSpec
from ._paths import PathBases
from ._settings import DEFAULT_MODEL, STATIC_JUDGE, Settings, SettingsError, resolve_settings

__all__ = [
    "DEFAULT_MODEL",
    "OPTIONS",
    "STATIC_JUDGE",
    "OptionSpec",
    "PathBases",
    "Settings",
    "SettingsError",
    "resolve_settings",
]
