"""The fenced blocks of an answer, each with its language tag and the file name it is given.

A fence opens on a line of its own (three or more backticks or tildes, then an info
string) and closes on a line holding the same fence; a fence the answer never closes (the
token limit cut it) runs to the end. A block is given a file name by its info string
(```` ```python app/models.py ````, ```` ```python:app/models.py ````,
``title="app/models.py"``), by the line just before it (``**app/models.py**``,
``# file: app/models.py``, ``### app/models.py``, ``app/models.py:``, a line ending in a
colon that names one path in backticks), or by a first-line comment inside it
(``# app/models.py``, ``# file: app/models.py``).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from ..sandbox import PathEscape, check_path

CODE_TAGS = frozenset({"", "python", "py", "python3", "py3"})
"""Language tags of Python blocks (an untagged block counts as Python)."""

_OPENING = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*)$")
_EXTENSIONS = ("py|pyi|txt|md|rst|json|jsonl|toml|ya?ml|cfg|ini|env|sql|csv|tsv|xml|html?|css|"
               "js|ts|sh|j2|jinja2?|tmpl|lock")
"""What a file name ends in (``collections.Counter`` in backticks names no file)."""
_PATH = rf"[\w.\-]+(?:/[\w.\-]+)*\.(?:{_EXTENSIONS})(?![\w.\-])"
_IS_PATH = re.compile(rf"\A{_PATH}\Z")
_LABEL_PREFIX = re.compile(r"\A(?:file ?name|file|path)\s*[:=]\s*", re.IGNORECASE)
_INFO_PATH = re.compile(rf"(?:title|file(?:name)?|path)\s*=\s*[\"']?({_PATH})[\"']?", re.IGNORECASE)
_BACKTICKED = re.compile(rf"`({_PATH})`")
_COMMENT_LABEL = re.compile(
    rf"\A\s*(?:#|//)\s*(?:(?:file ?name|file|path)\s*[:=]\s*)?({_PATH})\s*\Z", re.IGNORECASE)


@dataclass(frozen=True)
class Block:
    """One fenced block: its lowercased language ``tag``, its ``body`` (dedented by the
    fence's indentation), the file name it is given (``None``: none), and whether the answer
    closed it."""

    tag: str
    body: str
    label: str | None
    closed: bool

    @property
    def python(self) -> bool:
        return self.label.endswith(".py") if self.label else self.tag in CODE_TAGS


def fenced_blocks(text: str) -> list[Block]:
    """Every fenced block of ``text`` with a non-blank body, in order."""
    lines = text.splitlines()
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        opening = _OPENING.match(lines[index])
        if opening is None:
            index += 1
            continue
        fence, indent = opening["fence"], len(opening["indent"].expandtabs(4))
        closing = re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        end = next((k for k in range(index + 1, len(lines)) if closing.match(lines[k])),
                   len(lines))
        body_lines = [_dedent(line, indent) for line in lines[index + 1:end]]
        body = "\n".join(body_lines) + "\n" if body_lines else ""
        if body.strip():
            tag, named = _info(opening["info"])
            label = named or _label_before(lines, index) or _label_inside(body_lines)
            blocks.append(Block(tag, body, label, closed=end < len(lines)))
        index = end + 1
    return blocks


def relative_path(path: str) -> str | None:
    """``path`` normalized when it is a file name inside the work directory (the sandbox's
    own check, :func:`~pytest_req2rank.sandbox.check_path`), else ``None``: a name the answer
    gives its code, whether in a JSON list or by a fence, is the model's to choose."""
    try:
        return check_path(path)
    except PathEscape:
        return None


def _dedent(line: str, indent: int) -> str:
    removed = 0
    while removed < indent and line[:1] == " ":
        line, removed = line[1:], removed + 1
    return line


def _info(info: str) -> tuple[str, str | None]:
    """The language tag of an info string and the file name it gives, if any."""
    info = info.strip()
    named = _INFO_PATH.search(info)
    word = info.split(None, 1)[0] if info else ""
    tag, _, rest = word.partition(":")
    if _IS_PATH.match(tag) and _path(tag):
        return _tag_of(tag), _path(tag)
    path = (named.group(1) if named else None) or (rest if _IS_PATH.match(rest) else None)
    if path is None and len(info.split()) == 2 and _IS_PATH.match(info.split()[1]):
        path = info.split()[1]
    return tag.lower(), _path(path)


def _tag_of(path: str) -> str:
    return "python" if path.endswith(".py") else posixpath.splitext(path)[1][1:].lower()


def _label_before(lines: list[str], index: int) -> str | None:
    """The file name the nearest non-blank line before a fence gives (at most one blank
    line between them)."""
    for back in (1, 2):
        if index - back < 0:
            return None
        line = lines[index - back].strip()
        if line:
            return _label_of(line)
    return None


def _label_of(line: str) -> str | None:
    if line.startswith(("```", "~~~")):
        return None
    bare = re.sub(r"\A(?:[-*+]\s+|\d+[.)]\s+)", "", line)  # a list item's bullet
    bare = bare.strip("#*_ \t").rstrip(":").strip("*_` \t")
    bare = _LABEL_PREFIX.sub("", bare).strip("*_` \t")
    if _IS_PATH.match(bare):
        return _path(bare)
    named = _BACKTICKED.findall(line)
    if line.rstrip("*_ ").endswith(":") and len(set(named)) == 1:
        return _path(named[0])
    return None


def _label_inside(body_lines: list[str]) -> str | None:
    first = next((line for line in body_lines if line.strip()), "")
    found = _COMMENT_LABEL.match(first)
    return _path(found.group(1)) if found else None


def _path(path: str | None) -> str | None:
    return relative_path(path) if path else None
