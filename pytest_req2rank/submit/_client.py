"""Talking to a hub over HTTP: fetch a nonce, send a submission (gzip-compressed)."""

from __future__ import annotations

import gzip
import json
from typing import Any, Self

import httpx

from ..errors import Req2RankError

TIMEOUT_S = 60.0
SUBMIT_TIMEOUT_S = 900.0
"""How long the hub may take to check a submission: a 5,000-item run's evidence is
recomputed and its scores bootstrapped before the hub answers (about a minute here)."""
GZIP_LEVEL = 6
"""zlib's default: a run's results shrink about tenfold, at ~50 MB/s of one core."""


class HubError(Req2RankError):
    """The hub could not be reached or did not take the request. ``retryable``: worth
    retrying later (no answer, 429, 5xx); otherwise the hub refused it (``code`` says why)."""

    def __init__(self, message: str, *, retryable: bool, code: str = "",
                 status: int | None = None) -> None:
        super().__init__(message)
        self.retryable, self.code, self.status = retryable, code, status


class HubClient:
    """A hub at ``url``, signed in with ``token``."""

    def __init__(self, url: str, token: str, *, transport: httpx.BaseTransport | None = None
                 ) -> None:
        self.url = url.rstrip("/")
        self._http = httpx.Client(base_url=self.url, timeout=TIMEOUT_S, transport=transport,
                                  headers={"Authorization": f"Bearer {token}"})

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def nonce(self, model: str, declared: dict[str, Any]) -> dict[str, Any]:
        """A fresh nonce for a run of ``model`` with the ``declared`` settings
        (``plan.declared_settings``): ``{nonce, issued_at, expires_at, seed}``."""
        return self._post("/api/nonces", {"model": model, "settings": declared})

    def submit(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Send a submission, gzip-compressed; the hub's reply (status, url, receipt)."""
        return self._post("/api/submissions", payload, compress=True)

    def _post(self, path: str, body: dict[str, Any] | None, *, compress: bool = False
              ) -> dict[str, Any]:
        try:
            if compress:
                text = json.dumps(body, ensure_ascii=False, separators=(",", ":"),
                                  allow_nan=False).encode("utf-8")
                response = self._http.post(path, content=gzip.compress(
                    text, compresslevel=GZIP_LEVEL, mtime=0), headers={
                    "Content-Type": "application/json", "Content-Encoding": "gzip"},
                    timeout=httpx.Timeout(TIMEOUT_S, read=SUBMIT_TIMEOUT_S))
            else:
                response = self._http.post(path, json=body)
        except httpx.HTTPError as exc:
            raise HubError(f"no answer from the hub {self.url} ({type(exc).__name__}: {exc})",
                           retryable=True) from None
        try:
            data = response.json()
        except ValueError:
            data = None
        if response.is_success and isinstance(data, dict):
            return data
        error = data.get("error") if isinstance(data, dict) else None
        if isinstance(error, dict):
            code, message = str(error.get("code", "")), str(error.get("message", ""))
        else:
            code, message = "", (response.text[:200] or response.reason_phrase)
        retryable = response.status_code == 429 and code != "daily_limit" \
            or response.status_code >= 500
        raise HubError(f"the hub {self.url} answered {response.status_code}"
                       f"{f' ({code})' if code else ''}: {message}", retryable=retryable,
                       code=code, status=response.status_code)
