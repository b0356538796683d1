"""The hub's settings: command line first, then ``R2R_HUB_*`` environment variables, then
defaults."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_DIR = Path(".req2rank-hub")


def default_database_url(directory: Path = DEFAULT_DIR) -> str:
    """SQLite in a local directory."""
    return f"sqlite:///{(directory / 'hub.db').resolve()}"


@dataclass(frozen=True)
class HubConfig:
    """What a hub enforces. Times in seconds, sizes in bytes."""

    database_url: str = field(default_factory=default_database_url)
    key_path: Path = DEFAULT_DIR / "signing-key.pem"
    """The Ed25519 key that signs acceptance receipts (created on first start)."""
    public_url: str = ""
    """The hub's address as users reach it (behind a proxy); empty: the request's own."""
    nonce_ttl_s: int = 6 * 3600
    max_open_nonces: int = 3
    daily_submissions: int = 10
    daily_refusals: int = 30
    """Refused submissions a user may make a day before the hub stops checking theirs (a
    forger probing the checks)."""
    max_payload_bytes: int = 20 * 1024 * 1024
    public_rate: str = "120/minute"
    """Requests per client address on the endpoints that need no sign-in (slowapi syntax)."""
    rate_storage: str = "memory://"
    """Where those requests are counted (a ``limits`` storage URI): ``memory://`` counts in
    each process; ``redis://HOST:PORT`` shares the count between the hub's processes."""
    clock_skew_s: float = 120.0
    """How far a client's clock may be from the hub's in the timeline checks."""
    history_min: int = 3
    """Accepted submissions of a model before a score far from their mean is flagged."""
    history_max_diff: float = 25.0
    github_client_id: str = ""
    """The GitHub OAuth app users sign in with (``req2rank login``); empty: tokens only
    from ``req2rank-hub token create``."""
    github_api_url: str = "https://api.github.com"
    github_client_secret: str = ""
    """The OAuth app's secret: with the client id, the pages' sign-in (GitHub's web flow)."""
    github_url: str = "https://github.com"
    """Where GitHub's web flow lives: ``/login/oauth/authorize`` and ``/login/oauth/access_token``."""
    session_ttl_s: int = 14 * 24 * 3600
    """How long a sign-in on the pages lasts."""
    reverify_models: str = "*"
    """The models re-verification asks again (comma-separated patterns, ``*`` any); the hub
    calls them with its own keys (its environment, as the plugin does)."""
    reverify_sample: int = 10
    """Items of a submission its model is asked again (0: the hub asks no model)."""
    reverify_pass_tolerance: float = 0.15
    """How far the sample's mean pass ratio may be from the claimed one."""
    reverify_score_tolerance: float = 10.0
    """How far the sample's mean score may be from the claimed one (static-judge runs)."""
    reverify_every_s: int = 60
    """The served hub re-verifies new submissions this often (0: only with
    ``req2rank-hub reverify``)."""

    @property
    def web_sign_in(self) -> bool:
        """Whether the pages can sign in with GitHub (an OAuth app's id and secret are set)."""
        return bool(self.github_client_id and self.github_client_secret)

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None, **given: object) -> HubConfig:
        """Settings from ``R2R_HUB_*`` variables; keyword arguments (the command line) win."""
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        directory = Path(env.get("R2R_HUB_DIR", str(DEFAULT_DIR)))
        values["database_url"] = env.get("R2R_HUB_DATABASE_URL") or default_database_url(directory)
        values["key_path"] = Path(env.get("R2R_HUB_KEY", str(directory / "signing-key.pem")))
        values["public_url"] = env.get("R2R_HUB_PUBLIC_URL", "")
        for name, kind in (("nonce_ttl_s", int), ("max_open_nonces", int),
                           ("daily_submissions", int), ("daily_refusals", int),
                           ("max_payload_bytes", int), ("session_ttl_s", int),
                           ("clock_skew_s", float), ("reverify_sample", int),
                           ("reverify_pass_tolerance", float),
                           ("reverify_score_tolerance", float), ("reverify_every_s", int)):
            raw = env.get("R2R_HUB_" + name.upper().removesuffix("_S"))
            if raw:
                try:
                    values[name] = kind(raw)
                except ValueError:
                    raise ValueError(f"R2R_HUB_{name.upper().removesuffix('_S')}={raw!r}: "
                                     f"not a number; give a {kind.__name__}") from None
        values["github_client_id"] = env.get("R2R_HUB_GITHUB_CLIENT_ID", "")
        values["github_client_secret"] = env.get("R2R_HUB_GITHUB_CLIENT_SECRET", "")
        if env.get("R2R_HUB_GITHUB_API"):
            values["github_api_url"] = env["R2R_HUB_GITHUB_API"]
        if env.get("R2R_HUB_GITHUB_URL"):
            values["github_url"] = env["R2R_HUB_GITHUB_URL"]
        if "R2R_HUB_REVERIFY_MODELS" in env:
            values["reverify_models"] = env["R2R_HUB_REVERIFY_MODELS"]
        if env.get("R2R_HUB_PUBLIC_RATE"):
            values["public_rate"] = env["R2R_HUB_PUBLIC_RATE"]
        if env.get("R2R_HUB_RATE_STORAGE"):
            values["rate_storage"] = env["R2R_HUB_RATE_STORAGE"]
        values.update({key: value for key, value in given.items() if value is not None})
        return cls(**values)  # type: ignore[arg-type]
