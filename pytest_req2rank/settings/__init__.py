"""Run settings: options as ``--r2r-*``, ini ``r2r_*``, environment ``R2R_*``."""

from ._baseline import BaselinePlan, plan_like_baseline
from ._paths import PathBases
from ._settings import DEFAULT_DIR, Settings, SettingsError, resolve_settings

__all__ = [
    "DEFAULT_DIR",
    "BaselinePlan",
    "PathBases",
    "Settings",
    "SettingsError",
    "plan_like_baseline",
    "resolve_settings",
]
