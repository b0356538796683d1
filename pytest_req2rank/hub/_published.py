"""What the hub publishes of a submitted results document: the run header without the
submitter's local paths (``settings.dir``, the interpreter in the sandbox's description, a
suite file's or template directory's place): each absolute path becomes ``…/`` and its last
part. The hub keeps the document as submitted (re-verification reads it)."""

from __future__ import annotations

import re
from typing import Any

_ABSOLUTE = re.compile(
    r"(?:(?<=^)|(?<=[\s:=,;(\[\"']))"       # where a path starts: the text's start, or after
    r"(?:~|[A-Za-z]:)?[/\\]"                # a separator; POSIX, home or Windows
    r"[^\s,;:()\[\]\"'/\\]+"                # its first part
    r"(?:[/\\][^\s,;:()\[\]\"'/\\]*)+")     # and at least one more
"""An absolute path of two parts or more (``/usr`` alone names no one's machine)."""


def hidden_paths(text: str) -> str:
    """``text`` with each absolute path of two parts or more shown as ``…/`` and its last
    part: ``/home/ada/.venv/bin/python3.12`` → ``…/python3.12``."""
    def last_part(found: re.Match[str]) -> str:
        parts = [part for part in re.split(r"[/\\]", found.group(0)) if part]
        return "…/" + parts[-1] if parts else "…/"

    return _ABSOLUTE.sub(last_part, text)


def _hidden(value: Any) -> Any:
    if isinstance(value, str):
        return hidden_paths(value)
    if isinstance(value, list):
        return [_hidden(part) for part in value]
    if isinstance(value, dict):
        return {key: _hidden(part) for key, part in value.items()}
    return value


def published_results(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` as the hub shows it: its run header's local paths hidden."""
    run = document.get("run")
    return {**document, "run": _hidden(run)} if isinstance(run, dict) else document
