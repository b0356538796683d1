"""Recognising an answer that refuses the task ("I'm sorry, but I can't help with that.")."""

from __future__ import annotations

import re

_CANNOT = r"(?:can ?not|can['’]t|won['’]t|will not|am unable to|['’]m unable to|am not able to|" \
          r"['’]m not able to|unable to|not able to|must decline|have to decline)"
_REFUSALS = (
    re.compile(rf"\b(?:I['’]m|I am) sorry\b[^.\n]{{0,80}}\b{_CANNOT}", re.IGNORECASE),
    re.compile(rf"\b(?:sorry|unfortunately|I apologi[sz]e)\b[^.\n]{{0,40}}\bI {_CANNOT}",
               re.IGNORECASE),
    re.compile(rf"^\W*I {_CANNOT} (?:help|assist|provide|comply|do that|write|fulfil|complete|"
               r"create|generate|support)", re.IGNORECASE | re.MULTILINE),
    re.compile(rf"\bAs an AI\b[^.\n]{{0,60}}\b{_CANNOT}", re.IGNORECASE),
)
_HEAD = 600
"""A refusal says so at once: only the answer's first characters are read."""


def refusal(answer: str) -> str | None:
    """The sentence with which ``answer`` refuses the task (at most 120 characters), or
    ``None`` when it does not read as a refusal."""
    head = answer.strip()[:_HEAD]
    for pattern in _REFUSALS:
        found = pattern.search(head)
        if found is not None:
            start = max(head.rfind(".", 0, found.start()), head.rfind("\n", 0, found.start())) + 1
            ends = [k for k in (head.find(".", found.end()), head.find("\n", found.end())) if k >= 0]
            sentence = head[start:min(ends) + 1 if ends else len(head)].strip()
            return sentence if len(sentence) <= 120 else sentence[:119] + "…"
    return None
