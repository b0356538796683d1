"""The hub's refusals: an HTTP status, a stable code and a one-line reason."""

from __future__ import annotations

from ..errors import Req2RankError


class Refused(Req2RankError):
    """A request the hub refuses; the reply is ``{"error": {"code", "message"}}``."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
