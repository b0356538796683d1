"""Run settings: options as ``--r2r-*``, ini ``r2r_*``, environment ``R2R_*``."""

from ..options import OPTIONS, OptionSpec
from ._paths import PathBases
from ._settings import Settings, SettingsError, resolve_settings

__all__ = [
    "OPTIONS",
    "OptionSpec",
    "PathBases",
    "Settings",
    "SettingsError",
    "resolve_settings",
]
