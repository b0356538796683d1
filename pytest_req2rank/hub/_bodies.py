"""Reading a submission's body, once its sender is signed in: as it streams in, under two
limits, the bytes sent and (a gzip-compressed body, ``Content-Encoding: gzip``) the bytes
they inflate to; a body past either is refused there, without reading or inflating the rest.
Inflating and parsing run in worker threads, not on the event loop (zlib lets other threads
run meanwhile; the standard library's JSON parser holds the interpreter while it parses, so
a signed-in user's big submission still takes it for that long: the per-address and daily
limits bound how often)."""

from __future__ import annotations

import json
import zlib
from typing import Any

from fastapi import Request
from starlette.concurrency import run_in_threadpool

from ._errors import Refused

GZIP_WBITS = 16 + zlib.MAX_WBITS
"""zlib's window bits for the gzip format (header and trailer checked)."""


def _too_large(what: str, limit: int, setting: str) -> Refused:
    return Refused(413, "payload_too_large", f"the submission {what} more than {limit} bytes, "
                   f"the most this hub takes ({setting}); submit fewer items per run")


class _Inflater:
    """A gzip stream inflated piece by piece, never past ``limit`` bytes in all."""

    def __init__(self, limit: int) -> None:
        self._inflater = zlib.decompressobj(GZIP_WBITS)
        self.limit, self.size = limit, 0

    def feed(self, chunk: bytes) -> bytes:
        """``chunk`` inflated; refused as soon as the total passes the limit."""
        if self._inflater.eof:
            raise Refused(400, "invalid_encoding", "the gzip body goes on after its end; "
                          "send one gzip stream")
        try:
            out = self._inflater.decompress(chunk, self.limit - self.size + 1)
        except zlib.error as exc:
            raise Refused(400, "invalid_encoding", f"the body is not valid gzip ({exc}); send "
                          "it compressed with gzip, or uncompressed without Content-Encoding"
                          ) from None
        self.size += len(out)
        if self.size > self.limit:
            raise _too_large("inflates to", self.limit, "R2R_HUB_MAX_DOCUMENT_BYTES")
        return out

    def finish(self) -> None:
        if not self._inflater.eof:
            raise Refused(400, "invalid_encoding", "the gzip body ends before its end (cut "
                          "short); send it again")


async def read_json_body(request: Request, *, max_sent: int, max_inflated: int) -> Any:
    """The request's JSON body, read as it arrives: refused (413) past ``max_sent`` bytes
    sent or ``max_inflated`` bytes inflated, (415) in an encoding other than gzip, (400)
    when it is not JSON."""
    encoding = request.headers.get("content-encoding", "identity").strip().lower()
    if encoding not in ("identity", "gzip"):
        raise Refused(415, "unsupported_encoding", f"Content-Encoding {encoding!r}: send the "
                      "body gzip-compressed or as it is")
    inflater = _Inflater(max_inflated) if encoding == "gzip" else None
    parts: list[bytes] = []
    sent = 0
    async for chunk in request.stream():
        sent += len(chunk)
        if sent > max_sent:
            raise _too_large("sends" if inflater else "is", max_sent,
                             "R2R_HUB_MAX_PAYLOAD_BYTES")
        if not inflater and sent > max_inflated:  # an uncompressed body is the document
            raise _too_large("is", max_inflated, "R2R_HUB_MAX_DOCUMENT_BYTES")
        if not chunk:
            continue
        parts.append(await run_in_threadpool(inflater.feed, chunk) if inflater else chunk)
    if inflater:
        inflater.finish()
    return await run_in_threadpool(_parse, b"".join(parts))


def _parse(body: bytes) -> Any:
    try:
        return json.loads(body)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise Refused(400, "invalid_json", f"the body is not JSON ({str(exc)[:200]}); send "
                      "the submission as a JSON object") from None
