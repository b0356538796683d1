"""Hub tokens kept for the user, per hub, in the user's config directory (mode 0600)."""

from __future__ import annotations

import json
import os
from pathlib import Path

TOKENS_FILE = "hub-tokens.json"


def config_dir() -> Path:
    """``$R2R_CONFIG_DIR``, else ``$XDG_CONFIG_HOME/req2rank``, else ``~/.config/req2rank``."""
    if os.environ.get("R2R_CONFIG_DIR"):
        return Path(os.environ["R2R_CONFIG_DIR"])
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "req2rank"


def _key(hub_url: str) -> str:
    return hub_url.rstrip("/")


def stored_token(hub_url: str, directory: Path | None = None) -> str | None:
    """The token kept for ``hub_url``; None when there is none."""
    path = (directory or config_dir()) / TOKENS_FILE
    try:
        tokens = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    token = tokens.get(_key(hub_url)) if isinstance(tokens, dict) else None
    return token if isinstance(token, str) and token else None


def store_token(hub_url: str, token: str, directory: Path | None = None) -> Path:
    """Keep ``token`` for ``hub_url``, readable by the user only; returns the file."""
    directory = directory or config_dir()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / TOKENS_FILE
    try:
        tokens = json.loads(path.read_text(encoding="utf-8"))
        tokens = tokens if isinstance(tokens, dict) else {}
    except (OSError, ValueError):
        tokens = {}
    tokens[_key(hub_url)] = token
    temporary = path.with_name(path.name + ".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        json.dump(tokens, handle, indent=2)
    os.chmod(temporary, 0o600)
    temporary.replace(path)
    return path
