"""Reading users' JSON Lines files (suites, samples): a size limit per line, exact positions.

Every problem is a :class:`JsonlError` whose message starts with ``FILE:LINE:COLUMN`` —
the column is the parser's own (a character position, 1-based, as editors count) — so
an editor or a terminal jumps straight to it.

A line may hold at most :data:`MAX_LINE_BYTES` (8 MiB). A line is one task or one
answer, and what it holds is copied several times over by a run (the model's prompt,
the Q&A log, the results JSON, the store): a 50 MB line became 100-150 MB in each. The
largest line of HumanEval is 3.4 KB; 8 MiB leaves three orders of magnitude for suites
with many or large I/O cases, and bounds what one line costs. A longer line is read in
bounded chunks only to report its size, never held in memory whole.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import ConfigurationError

MAX_LINE_BYTES = 8 * 1024 * 1024
_CHUNK = 1024 * 1024
_BOM = "\ufeff"
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
_scanstring = json.decoder.scanstring  # type: ignore[attr-defined]  # not in typeshed


class JsonlError(ConfigurationError, ValueError):
    """A JSONL file that cannot be read; the message is one line starting ``FILE:LINE:COLUMN``
    (or ``FILE`` for the whole file). ``missing`` is True when the file does not exist."""

    def __init__(self, message: str, *, missing: bool = False) -> None:
        super().__init__(message)
        self.missing = missing


@dataclass(frozen=True)
class Line:
    """One non-blank line of a JSONL file, as text (without its line break)."""

    path: Path
    number: int
    text: str

    def where(self, *field: str | int) -> str:
        """``FILE:LINE:COLUMN`` of the value at ``field`` (keys and list indices) in this
        line's JSON, or of the deepest part of it that exists; of the line's value itself
        without ``field``."""
        return f"{self.path}:{self.number}:{value_column(self.text, field)}"


def read_jsonl(path: Path, *, max_line_bytes: int = MAX_LINE_BYTES) -> Iterator[tuple[Line, Any]]:
    """Each non-blank line of ``path`` with its parsed JSON value, in order; raise
    :class:`JsonlError` at the first line that is too long, not UTF-8 or not JSON."""
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        raise JsonlError(f"{path}: no such file", missing=True) from None
    except IsADirectoryError:
        raise JsonlError(f"{path}: is a directory, not a JSONL file") from None
    except OSError as exc:
        raise JsonlError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    with handle:
        number = 0
        while True:
            try:
                raw = handle.readline(max_line_bytes + 1)
            except OSError as exc:
                raise JsonlError(f"{path}: cannot be read ({exc.strerror or exc})") from None
            if not raw:
                return
            number += 1
            content = raw.removesuffix(b"\n").removesuffix(b"\r")
            if len(content) > max_line_bytes:
                size = len(content) + _rest_of_line(handle)
                raise JsonlError(
                    f"{path}:{number}:1: the line is {size:,} bytes, over the limit of "
                    f"{_size(max_line_bytes)} a line; "
                    "shorten it (fewer or smaller tests, a shorter prompt or answer)"
                )
            text = _decode(content, path, number)
            if number == 1:
                text = text.removeprefix(_BOM)
            if not text.strip():
                continue
            try:
                value = json.loads(text)
            except json.JSONDecodeError as exc:
                raise JsonlError(f"{path}:{number}:{exc.colno}: invalid JSON: {exc.msg}") from None
            except RecursionError:
                raise JsonlError(f"{path}:{number}:1: invalid JSON: nested too deeply") from None
            yield Line(path, number, text), value


def _rest_of_line(handle: Any) -> int:
    """Skip to the end of the current line in bounded chunks; the bytes skipped (no line break)."""
    size = 0
    while True:
        chunk: bytes = handle.readline(_CHUNK)
        if not chunk:
            return size
        if chunk.endswith(b"\n"):
            return size + len(chunk.removesuffix(b"\n").removesuffix(b"\r"))
        size += len(chunk)


def _decode(content: bytes, path: Path, number: int) -> str:
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError as exc:
        column = len(content[: exc.start].decode("utf-8")) + 1
        raise JsonlError(
            f"{path}:{number}:{column}: not UTF-8 (byte 0x{content[exc.start]:02x}); "
            "save the file as UTF-8"
        ) from None


def _size(size: int) -> str:
    mib = 1024 * 1024
    whole = f" ({size // mib} MiB)" if size % mib == 0 else ""
    return f"{size:,} bytes{whole}"


def value_column(text: str, field: Sequence[str | int] = ()) -> int:
    """The 1-based column where the value at ``field`` starts in ``text`` (one JSON value
    that parses), following object keys and list indices as far as they exist. With a
    key given more than once, the last one counts, as it does for ``json.loads``."""
    position = _skip_whitespace(text, 0)
    for part in field:
        found = _child(text, position, part)
        if found is None:
            break
        position = found
    return position + 1


def _skip_whitespace(text: str, position: int) -> int:
    match = _WHITESPACE.match(text, position)
    return match.end() if match else position


def _child(text: str, position: int, part: str | int) -> int | None:
    """Where the member ``part`` of the object or array starting at ``position`` starts."""
    if position >= len(text):
        return None
    opening = text[position]
    if opening == "{" and isinstance(part, str):
        found = None
        position = _skip_whitespace(text, position + 1)
        while position < len(text) and text[position] == '"':
            key, position = _scanstring(text, position + 1)
            position = _skip_whitespace(text, position)
            position = _skip_whitespace(text, position + 1)  # past the colon
            if key == part:
                found = position
            _, position = _DECODER.raw_decode(text, position)
            position = _skip_whitespace(text, position)
            if text[position] == ",":
                position = _skip_whitespace(text, position + 1)
        return found
    if opening == "[" and isinstance(part, int) and not isinstance(part, bool):
        position = _skip_whitespace(text, position + 1)
        index = 0
        while position < len(text) and text[position] != "]":
            if index == part:
                return position
            _, position = _DECODER.raw_decode(text, position)
            position = _skip_whitespace(text, position)
            if text[position] == ",":
                position = _skip_whitespace(text, position + 1)
            index += 1
    return None
