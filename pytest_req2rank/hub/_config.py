"""The hub's settings: command line first, then ``R2R_HUB_*`` environment variables, then
defaults."""

from __future__ import annotations

import os
from collections.abc import Mapping
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
    daily_nonces: int = 100
    """Nonces a user may fetch a UTC day (each one is a row until it is pruned)."""
    max_payload_bytes: int = 64 * 1024 * 1024
    """The largest request body as sent (a gzip-compressed submission: compressed; a
    5,000-item run with three LLM judges is ~27 MB so)."""
    max_document_bytes: int = 512 * 1024 * 1024
    """The largest submission once decompressed (a gzip body is refused as soon as its
    inflated size passes this, without inflating the rest)."""
    public_rate: str = "120/minute"
    """Requests per client address on the endpoints that need no sign-in (slowapi syntax)."""
    submit_rate: str = "30/minute"
    """Submissions per client address, whoever signs them (slowapi syntax)."""
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
    token_ttl_s: int = 90 * 24 * 3600
    """How long an API token lasts (then the user signs in again)."""
    max_tokens: int = 5
    """A user's tokens in force at once: a new one beyond them revokes the oldest."""
    daily_reports: int = 10
    """Reports a user may file a UTC day."""
    reports_to_hold: int = 3
    """Open reports, from as many users, that take a ranked submission out of the ranking
    until an admin looks (fewer: it stays ranked, the reports shown)."""
    retention_s: int = 30 * 24 * 3600
    """How long expired or revoked nonces, tokens, sign-ins and sign-in states are kept
    before they are pruned."""
    reverify_models: str = "*"
    """The models re-verification asks again (comma-separated patterns, ``*`` any); the hub
    calls them with its own keys (its environment, as the plugin does)."""
    reverify_providers: str = "hosted"
    """The LiteLLM providers re-verification calls (comma-separated names; ``hosted``: the
    providers with a fixed public address, ``_model_policy.HOSTED_PROVIDERS``). A provider
    whose address is configured (``ollama``, ``hosted_vllm``, ``azure``, ...) is called only
    when named here, at the address in the hub's own environment."""
    reverify_attempts: int = 4
    """Replays that fail for the hub's own reasons (a provider outage, a crash, a timeout)
    are made this many times in all, then the submission is ``unverified``."""
    reverify_backoff_s: int = 300
    """The wait before the second attempt; it doubles for each further one."""
    replay_max_rounds: int = 1000
    """The most requirements a replay plans; a dynamic run of more rounds is not replayed."""
    replay_max_samples: int = 20
    """The most samples per task a replay plans; a run of more is not replayed."""
    replay_max_items: int = 100
    """The most items a replay grades: the answers replay's sample (drawn by the hub from its
    secret and the submission's digest when a run has more), each judged again by the run's
    LLM judges."""
    replay_max_tokens: int = 32_768
    """The model replay's ``--r2r-max-tokens``: the run's value, at most this (the default
    is the engine's own largest budget: a C4 requirement's, which the dynamic suite uses
    whatever the run's value)."""
    replay_max_temperature: float = 1.0
    """The model replay's temperature: the run's value, at most this."""
    replay_max_sandbox_timeout_ms: int = 30_000
    """A replay's sandbox timeout per test: the run's value, at most this."""
    replay_timeout_s: int = 900
    """The longest one replay (one ``pytest`` run) may take before it is stopped."""
    reverify_sample: int = 10
    """Items of a submission its model is asked again (0: the hub asks no model)."""
    reverify_pass_tolerance: float = 0.15
    """How far the sample's mean pass ratio may be from the claimed one."""
    reverify_score_tolerance: float = 10.0
    """How far the sample's mean score may be from the claimed one: the model replay's
    (static-judge runs), and each LLM judge's asked again in the answers replay."""
    reverify_every_s: int = 60
    """The served hub re-verifies new submissions this often (0: only with
    ``req2rank-hub reverify``)."""

    def check(self) -> None:
        """Refuses settings the hub cannot work with (a ``ValueError`` naming the setting)."""
        if self.github_client_id and not self.github_client_secret:
            raise ValueError("R2R_HUB_GITHUB_CLIENT_ID is set without "
                             "R2R_HUB_GITHUB_CLIENT_SECRET: the hub checks every GitHub token "
                             "with its OAuth app's secret; set both, or neither")
        for name in ("token_ttl_s", "max_tokens", "reports_to_hold", "max_payload_bytes",
                     "max_document_bytes"):
            if getattr(self, name) < 1:
                setting = "R2R_HUB_" + name.upper().removesuffix("_S")
                raise ValueError(f"{setting}={getattr(self, name)}: give a positive number")

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
                           ("daily_nonces", int), ("max_payload_bytes", int),
                           ("max_document_bytes", int), ("session_ttl_s", int),
                           ("token_ttl_s", int), ("max_tokens", int), ("daily_reports", int),
                           ("reports_to_hold", int), ("retention_s", int),
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
        values.update(_replay_settings(env))
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
        if env.get("R2R_HUB_SUBMIT_RATE"):
            values["submit_rate"] = env["R2R_HUB_SUBMIT_RATE"]
        if env.get("R2R_HUB_RATE_STORAGE"):
            values["rate_storage"] = env["R2R_HUB_RATE_STORAGE"]
        values.update({key: value for key, value in given.items() if value is not None})
        return cls(**values)  # type: ignore[arg-type]


_REPLAY_SETTINGS: tuple[tuple[str, type[int | float]], ...] = (
    ("reverify_attempts", int), ("reverify_backoff_s", int), ("replay_max_rounds", int),
    ("replay_max_samples", int), ("replay_max_items", int), ("replay_max_tokens", int),
    ("replay_max_temperature", float), ("replay_max_sandbox_timeout_ms", int),
    ("replay_timeout_s", int))


def _replay_settings(env: Mapping[str, str]) -> dict[str, object]:
    """Re-verification's limits from ``R2R_HUB_*``: each a number of at least 1 (the
    temperature and the backoff at least 0)."""
    values: dict[str, object] = {}
    for name, kind in _REPLAY_SETTINGS:
        variable = "R2R_HUB_" + name.upper().removesuffix("_S")
        raw = env.get(variable)
        if raw:
            least = 0 if name in ("replay_max_temperature", "reverify_backoff_s") else 1
            try:
                value = kind(raw)
            except ValueError:
                value = least - 1
            if value < least:
                raise ValueError(f"{variable}={raw!r}: give a {kind.__name__} of at least {least}")
            values[name] = value
    if "R2R_HUB_REVERIFY_PROVIDERS" in env:
        values["reverify_providers"] = env["R2R_HUB_REVERIFY_PROVIDERS"]
    return values
