"""The three option values with a grammar: a model, a suite and a sandbox, each parsed once;
and the isolation level a sandbox gives.

``ModelSpec``, ``SuiteSpec`` and ``SandboxSpec`` are built from their option text by
``parse`` (``ValueError`` with what is allowed when the text is wrong) and written back as
that text (``str(spec)``; pydantic serializes them as strings too), so settings can travel to
xdist workers and into the results JSON unchanged.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, model_serializer, model_validator

from ._item_id import safe_name

BUILTIN_PREFIX = "r2r/"
"""Models of the plugin itself, answering offline."""
REFERENCE_MODEL = "r2r/reference"
"""The offline default model: answers every task with its reference solution."""
SAMPLES_PREFIX = "r2r/samples:"
"""``r2r/samples:PATH`` grades existing completions from a JSONL samples file."""
DEGRADED_PREFIX = "r2r/degraded:"
"""``r2r/degraded:P`` answers each item with its reference with probability P, else with a
mutant of it that fails a hidden test: an instrument of known accepted@1 (docs/rankings.md)."""
STATIC_JUDGE = "r2r/static"
"""The built-in deterministic judge: static analysis plus the execution evidence."""
FAKE_PREFIX = "fake/"
DEFAULT_CONCURRENCY = 8
"""Model calls in flight per worker unless ``--r2r-concurrency`` says otherwise: 8 per worker,
16 with ``-n auto`` on two cores, stays under hosted APIs' entry-tier rate limits at judge-panel
latencies (docs/performance.md)."""
"""Models answered by the scripted fake provider (``pytest_req2rank.providers.fake``)."""

ModelKind = Literal["reference", "samples", "degraded", "fake", "litellm"]
SuiteKind = Literal["dynamic", "humaneval", "jsonl"]
SandboxBackend = Literal["process", "docker", "sandboxfusion"]
ProcessMode = Literal["auto", "forkserver", "bwrap", "unshare", "rlimits"]

ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max"]
REASONING_EFFORTS: tuple[ReasoningEffort, ...] = (
    "none", "minimal", "low", "medium", "high", "xhigh", "max")
"""The reasoning efforts LiteLLM maps (``--r2r-reasoning-effort``); which of them a model
takes is the model's business, checked before the first call."""

PROCESS_MODES: tuple[ProcessMode, ...] = ("auto", "forkserver", "bwrap", "unshare", "rlimits")
SANDBOX_BACKENDS: tuple[SandboxBackend, ...] = ("process", "docker", "sandboxfusion")
SUITE_NAMES = ("dynamic", "humaneval", "jsonl:PATH")

def dataset_name(raw: str) -> str:
    """A dataset name safe for ids and metric names (``eval/{dataset}/…``)."""
    return safe_name(raw, "suite")


class _Spec(BaseModel):
    """An option value kept as its text, with the parts its grammar gives."""

    model_config = ConfigDict(frozen=True)

    text: str

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, value: Any) -> Any:
        if isinstance(value, str):
            return cls._parts(value)
        return value

    @model_serializer
    def _to_text(self) -> str:
        return self.text

    @classmethod
    @abstractmethod
    def _parts(cls, text: str) -> dict[str, Any]:
        """The fields of the spec written as ``text``; ``ValueError`` when it is not valid."""

    @classmethod
    def parse(cls, text: str) -> Self:
        """The spec written as ``text``; ``ValueError`` saying what is allowed otherwise."""
        return cls.model_validate(cls._parts(text))

    def __str__(self) -> str:
        return self.text


class ModelSpec(_Spec):
    """A model string: a built-in ``r2r/…`` model, a ``fake/…`` scripted one, or LiteLLM's."""

    kind: ModelKind
    path: str = ""
    """The samples file of ``r2r/samples:PATH``."""
    quality: float | None = None
    """The P of ``r2r/degraded:P``: the chance of answering an item with its reference."""

    @classmethod
    def _parts(cls, text: str) -> dict[str, Any]:
        text = text.strip()
        if not text:
            raise ValueError(
                f"must not be empty; e.g. gpt-4o, anthropic/claude-sonnet-4-5, {REFERENCE_MODEL}"
            )
        if any(c.isspace() for c in text):
            raise ValueError(f"must not contain whitespace, got {text!r}")
        if text == REFERENCE_MODEL:
            return {"text": text, "kind": "reference"}
        if text.startswith(SAMPLES_PREFIX):
            path = text[len(SAMPLES_PREFIX):]
            if not path:
                raise ValueError(f"r2r/samples needs a path: {SAMPLES_PREFIX}PATH")
            return {"text": text, "kind": "samples", "path": path}
        if text.startswith(DEGRADED_PREFIX):
            return {"text": text, "kind": "degraded", "quality": _quality(text)}
        if text.startswith(BUILTIN_PREFIX):
            raise ValueError(f"unknown built-in model {text!r}; built-ins are "
                             f"{REFERENCE_MODEL}, {SAMPLES_PREFIX}PATH and {DEGRADED_PREFIX}P")
        if text.startswith(FAKE_PREFIX):
            return {"text": text, "kind": "fake"}
        return {"text": text, "kind": "litellm"}

    @property
    def is_builtin(self) -> bool:
        return self.kind in ("reference", "samples", "degraded")

    @property
    def fake_name(self) -> str:
        """The script's name of a ``fake/NAME`` model."""
        return self.text[len(FAKE_PREFIX):]


def _quality(text: str) -> float:
    raw = text[len(DEGRADED_PREFIX):]
    try:
        quality = float(raw)
    except ValueError:
        quality = math.nan
    if not 0.0 <= quality <= 1.0:  # NaN fails too
        raise ValueError(f"{DEGRADED_PREFIX}P needs a probability P from 0 to 1, got {raw!r}; "
                         f"e.g. {DEGRADED_PREFIX}0.7")
    return quality


class SuiteSpec(_Spec):
    """``dynamic``, ``humaneval`` or ``jsonl:PATH``."""

    kind: SuiteKind
    path: Path | None = None

    @classmethod
    def _parts(cls, text: str) -> dict[str, Any]:
        text = text.strip()
        if text in ("dynamic", "humaneval"):
            return {"text": text, "kind": text}
        if text.startswith("jsonl:"):
            path = text[len("jsonl:"):]
            if not path:
                raise ValueError("jsonl needs a path: jsonl:PATH")
            return {"text": text, "kind": "jsonl", "path": str(Path(path).expanduser())}
        raise ValueError(f"unknown suite {text!r}; allowed: {', '.join(SUITE_NAMES)}")

    @property
    def dataset(self) -> str:
        """The suite's name as it appears in item ids: a JSONL suite is named after its file."""
        if self.path is not None:
            return dataset_name(self.path.stem)
        return self.kind

    @property
    def key(self) -> str:
        """What makes two runs' suites the same suite: the name, and for a JSONL file its
        dataset name, wherever the file lies (a baseline may come from another checkout)."""
        return f"jsonl:{self.dataset}" if self.kind == "jsonl" else self.kind


class SandboxSpec(_Spec):
    """``process[:MODE]``, ``docker[:IMAGE]`` or ``sandboxfusion[:URL]``."""

    backend: SandboxBackend
    option: str = ""
    """The part after ``BACKEND:``: a process mode, a docker image or a service URL."""

    @classmethod
    def _parts(cls, text: str) -> dict[str, Any]:
        text = text.strip()
        backend, _, option = text.partition(":")
        if backend not in SANDBOX_BACKENDS:
            raise ValueError(f"unknown sandbox {text!r}; allowed: {', '.join(SANDBOX_BACKENDS)} "
                             "(process:MODE, docker:IMAGE and sandboxfusion:URL also work)")
        if backend == "process" and option and option not in PROCESS_MODES:
            raise ValueError(f"unknown process mode {option!r}; allowed: {', '.join(PROCESS_MODES)}")
        return {"text": text, "backend": backend, "option": option}

    @property
    def process_mode(self) -> ProcessMode:
        """The ``process`` backend's mode (``auto`` when none is named)."""
        return next(m for m in PROCESS_MODES if m == (self.option or "auto"))


IsolationLevel = Literal["full", "remote", "namespaces", "rlimits"]
"""``full``: filesystem, network and pid isolation on this host (bubblewrap, Docker);
``remote``: the code runs on a separate service (SandboxFusion); ``namespaces``: network and
pid namespaces but the host's filesystem in view; ``rlimits``: resource limits only."""

WEAK_ISOLATION: frozenset[IsolationLevel] = frozenset({"namespaces", "rlimits"})
"""Levels a run gets only when asked for by name; results made under them are flagged."""

JUDGES_EXAMPLE = f"{STATIC_JUDGE},openai/gpt-4o,anthropic/claude-sonnet-4-5"


def parse_judges(value: str) -> tuple[str, ...]:
    """The judges' model strings of ``--r2r-judges``' comma-separated list; ``ValueError``
    says what to fix. ``r2r/static`` is the one built-in judge; the others are LiteLLM models."""
    items = [part.strip() for part in value.split(",")]
    if items == [""]:
        raise ValueError(f"needs at least one judge model, e.g. {JUDGES_EXAMPLE}")
    if any(not item for item in items):
        raise ValueError(
            f"expected comma-separated model strings without empty entries, got {value!r}"
        )
    spaced = next((item for item in items if any(c.isspace() for c in item)), None)
    if spaced is not None:
        raise ValueError(
            f"a model string must not contain whitespace, got {spaced!r}; "
            "separate judges with commas"
        )
    builtin = next((i for i in items if i.startswith(BUILTIN_PREFIX) and i != STATIC_JUDGE), None)
    if builtin is not None:
        raise ValueError(
            f"{builtin} cannot judge; the built-in judge is {STATIC_JUDGE}, "
            "any other judge is a LiteLLM model string"
        )
    duplicates = sorted({item for item in items if items.count(item) > 1})
    if duplicates:
        raise ValueError(f"lists {', '.join(duplicates)} more than once; name each judge once")
    return tuple(items)
