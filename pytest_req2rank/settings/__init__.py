"""Run settings: options as ``--r2r-*``, ini ``r2r_*``, environment ``R2R_*``."""

from ..options import OPTIONS, OptionSpec
from ._paths import PathBases
from ._settings import DEFAULT_DIR, Settings, SettingsError, resolve_settings

__all__ = [
    "DEFAULT_DIR",
    "OPTIONS",
    "OptionSpec",
    "PathBases",
    "Settings",
    "SettingsError",
    "resolve_settings",
]
