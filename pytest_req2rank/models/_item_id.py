"""The id of a run's item, parsed into its parts and formatted back, in one place.

An id reads ``DATASET/TASK``, with at most one more part:

- ``DATASET/TASK/sK``: sample ``K`` (0-based) of a task asked several times;
- ``nversion/TASK/vK``: version ``K`` of an N-version task;
- ``nversion/TASK/Pat-CLk`` or ``Pat-ALk`` (``k`` in 0–4): an N-version ensemble check under
  a fault pattern.

A part is letters, digits and ``_ . + -`` (the ``+`` joins a dynamic item's templates); ``/``
separates the parts. No part holds ``@``, so in a run of several models an item's model follows
the first ``@``: ``DATASET/TASK[/sK]@MODEL`` (``humaneval/HumanEval_0@openai/gpt-4o``). The model
is kept as given (it may hold ``/``, ``:`` and even ``@``, as Vertex AI's ``claude-3@20240229``),
without whitespace or square brackets (pytest shows the id inside ``[...]``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ..errors import Req2RankError

NVERSION_DATASET = "nversion"
"""The dataset of every N-version item."""

_PART = re.compile(r"[A-Za-z0-9_.+\-]+")
_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-]+")
_SUFFIX = re.compile(r"s(?P<sample>0|[1-9][0-9]*)|v(?P<version>0|[1-9][0-9]*)"
                     r"|(?P<pattern>Pat-(?:CL|AL)[0-4])")
_PATTERN = re.compile(r"Pat-(?:CL|AL)[0-4]")
_NODE_PARAMETER = re.compile(r"\[([^\[\]]+)\](?:@[^\[\]]*)?$")
_MODEL = re.compile(r"[^\s\[\]]+")
_GRAMMAR = ("DATASET/TASK, DATASET/TASK/sK, nversion/TASK/vK or nversion/TASK/Pat-CLk|Pat-ALk, "
            "each optionally followed by @MODEL")


class ItemIdError(Req2RankError, ValueError):
    """A text that is not an item id, or parts that make none; the message says which part."""


def safe_name(raw: str, default: str) -> str:
    """``raw`` made fit for an id part: each run of characters other than letters, digits,
    ``_ . -`` becomes ``_``, and ``_`` at either end goes (``default`` when nothing is left)."""
    return _UNSAFE.sub("_", raw).strip("_") or default


@dataclass(frozen=True, slots=True)
class ItemId:
    """An item's id: its dataset and task, and which sample, version or ensemble check of
    the task it is (at most one of them). ``str()`` formats it; :meth:`parse` reads it."""

    dataset: str
    task: str
    sample: int | None = None
    version: int | None = None
    pattern: str | None = None
    model: str | None = None
    """The model that answers the item, in a run of several models; ``None`` otherwise."""

    def __post_init__(self) -> None:
        for name in ("dataset", "task"):
            value = getattr(self, name)
            if not isinstance(value, str) or not _PART.fullmatch(value):
                raise ItemIdError(f"item id: {name} {value!r} is not letters, digits and _ . + - "
                                  f"(an id reads {_GRAMMAR})")
        given = [name for name in ("sample", "version", "pattern") if getattr(self, name) is not None]
        if len(given) > 1:
            raise ItemIdError(f"item id {self.dataset}/{self.task}: a {' and a '.join(given)} "
                              "given; an item is at most one of a sample, a version and a check")
        for name in ("sample", "version"):
            number = getattr(self, name)
            if number is not None and (type(number) is not int or number < 0):
                raise ItemIdError(f"item id {self.dataset}/{self.task}: {name} {number!r} is not "
                                  "a whole number from 0")
        if self.pattern is not None and (not isinstance(self.pattern, str)
                                         or not _PATTERN.fullmatch(self.pattern)):
            raise ItemIdError(f"item id {self.dataset}/{self.task}: pattern {self.pattern!r} is "
                              "not one of Pat-CL0 … Pat-CL4, Pat-AL0 … Pat-AL4")
        if (self.version is not None or self.pattern is not None) \
                and self.dataset != NVERSION_DATASET:
            raise ItemIdError(f"item id {self}: a version or an ensemble check is an N-version "
                              f"item, whose dataset is {NVERSION_DATASET!r}")
        if self.model is not None:
            if not isinstance(self.model, str) or not _MODEL.fullmatch(self.model):
                raise ItemIdError(f"item id {self.dataset}/{self.task}: model {self.model!r} is "
                                  "empty or holds whitespace or square brackets")
            if self.dataset == NVERSION_DATASET:
                raise ItemIdError(f"item id {self.dataset}/{self.task}@{self.model}: an "
                                  "N-version item answers for its run's one model; it takes no "
                                  "@MODEL")

    @classmethod
    def parse(cls, text: str) -> ItemId:
        """The id ``text`` spells; :class:`ItemIdError` says what is wrong with one it cannot."""
        if not isinstance(text, str):
            raise ItemIdError(f"item id: {text!r} is not text (an id reads {_GRAMMAR})")
        text, at, model = text.partition("@")
        if at:
            return replace(cls.parse(text), model=model)
        parts = text.split("/")
        if len(parts) not in (2, 3) or not all(parts):
            raise ItemIdError(f"item id {text!r}: expected {_GRAMMAR}")
        if len(parts) == 2:
            return cls(parts[0], parts[1])
        found = _SUFFIX.fullmatch(parts[2])
        if found is None:
            raise ItemIdError(f"item id {text!r}: its last part {parts[2]!r} is none of sK "
                              "(a sample), vK (a version), Pat-CLk or Pat-ALk (an ensemble check)")
        sample, version = found["sample"], found["version"]
        return cls(parts[0], parts[1], sample=None if sample is None else int(sample),
                   version=None if version is None else int(version), pattern=found["pattern"])

    @classmethod
    def try_parse(cls, text: str) -> ItemId | None:
        """The id ``text`` spells, or ``None`` when it is not one."""
        try:
            return cls.parse(text)
        except ItemIdError:
            return None

    @classmethod
    def of_task(cls, dataset: str, task_id: str) -> ItemId:
        """The id of a suite's task, its task id made fit for an id:
        ``('humaneval', 'HumanEval/0')`` → ``humaneval/HumanEval_0``."""
        return cls(dataset, safe_name(task_id, "task"))

    @classmethod
    def in_node_id(cls, node_id: str) -> ItemId | None:
        """The id a pytest node id carries as its parameter (``path::test_task[ID]``, which
        xdist's ``loadgroup`` may follow with ``@group``); ``None`` when it carries none."""
        found = _NODE_PARAMETER.search(node_id)
        return None if found is None else cls.try_parse(found.group(1))

    def __str__(self) -> str:
        text = f"{self.dataset}/{self.task}"
        if self.sample is not None:
            text = f"{text}/s{self.sample}"
        elif self.version is not None:
            text = f"{text}/v{self.version}"
        elif self.pattern is not None:
            text = f"{text}/{self.pattern}"
        return text if self.model is None else f"{text}@{self.model}"

    @property
    def task_item(self) -> ItemId:
        """The id of the task itself, ``DATASET/TASK``, whichever sample, version or check
        this is, and whichever model answers it."""
        return replace(self, sample=None, version=None, pattern=None, model=None)

    @property
    def without_model(self) -> ItemId:
        """This id without its ``@MODEL``: the item the run's models all answer."""
        return replace(self, model=None)

    def with_model(self, model: str) -> ItemId:
        """This item answered by ``model`` (``DATASET/TASK[/sK]@MODEL``)."""
        return replace(self, model=model)

    @property
    def nversion_task(self) -> ItemId:
        """The N-version task of this task: ``humaneval/HumanEval_12`` and
        ``nversion/HumanEval_12/v3`` → ``nversion/HumanEval_12``."""
        return replace(self.task_item, dataset=NVERSION_DATASET)

    @property
    def is_ensemble_check(self) -> bool:
        """Whether this is an N-version ensemble check (it measures the ensemble, not the model)."""
        return self.pattern is not None

    def with_sample(self, sample: int) -> ItemId:
        """Sample ``sample`` (0-based) of this item's task."""
        return replace(self.task_item, sample=sample)

    def with_version(self, version: int) -> ItemId:
        """Version ``version`` of this item's N-version task."""
        return replace(self.nversion_task, version=version)

    def with_pattern(self, pattern: str) -> ItemId:
        """The ensemble check of this item's N-version task under ``pattern`` (``Pat-CL0``)."""
        return replace(self.nversion_task, pattern=pattern)
