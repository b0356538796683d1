"""Readable, unique item ids for tasks."""

from __future__ import annotations

import re

_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-]+")


def item_id(dataset: str, task_id: str) -> str:
    """``('humaneval', 'HumanEval/0')`` → ``'humaneval/HumanEval_0'``."""
    return f"{dataset}/{_UNSAFE.sub('_', task_id).strip('_') or 'task'}"
