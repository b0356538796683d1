"""Recordings of a check's run, and the cache of reference recordings.

A recording is what the harness reported when it ran a decomposed check against a
program (see :mod:`._replay`): per test, every candidate call (arguments, returned value
or raised exception, time) and the operands host-decided asserts need. The reference's
recording is kept in memory, and on disk when the cache has a directory (shared by xdist
workers: files are written atomically; by default in the user's cache directory, see
:func:`default_directory`), keyed by a hash of the task's prompt, reference, entry point
and test and of the sources it depends on: a warm task is graded in one execution.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from .. import sandboxed
from ..models import Task
from ._compare import NotPlain, decode_plain
from ._decompose import DecomposedCheck

FORMAT = 2
CACHE_ENV = "R2R_REFERENCE_CACHE"
DECOMPOSITION_SOURCES = ("_decompose.py", "_ast_tools.py")
"""A change to any of these (the recorded steps come from them) invalidates the recordings."""
HARNESS_SOURCES = ("harness", "replay")
"""A change to any of these (in :mod:`pytest_req2rank.sandboxed`) invalidates the recordings."""


@dataclass(frozen=True)
class Call:
    """One candidate call of a test: arguments (decoded and as tagged), the recorded output."""

    args: list[Any]
    kwargs: dict[str, Any]
    tagged: list[Any]
    expected: Any
    returned: bool = True
    """False when the call raised (or did not return): ``expected`` is then None."""


@dataclass(frozen=True)
class Instance:
    """One evaluation of a host-decided assert: its call sites' call indices and its operands."""

    key: int
    sites: dict[int, int]
    leaves: dict[int, Any]


@dataclass(frozen=True)
class RecordedTest:
    calls: tuple[Call, ...]
    instances: tuple[Instance, ...]
    seconds: float
    """The program's time in the candidate calls of this test (with the copies of their
    arguments and values through the firewall): what its budget follows."""
    size: int
    """Bytes the program's outputs for this test take to report."""
    host: bool
    """The host can evaluate every assert instance (each operand was plain data)."""


@dataclass(frozen=True)
class Recording:
    tests: tuple[RecordedTest, ...]


@dataclass(frozen=True)
class Unusable:
    """Why the reference's run cannot predict the candidate's calls."""

    why: str
    ungradable: bool = False
    """The check passes the candidate a value that cannot cross the firewall."""


def recorded_test(record: Mapping[str, Any], check: DecomposedCheck) -> RecordedTest:
    """One test of a record-mode report; raises ``NotPlain``, ``KeyError``, ``TypeError`` or
    ``ValueError`` when the record is malformed."""
    calls = tuple(Call(args=decode_plain(c["a"]), kwargs=decode_plain(c["k"]),
                       tagged=[c["a"], c["k"]],
                       expected=decode_plain(c["o"]) if "o" in c else None,
                       returned="o" in c)
                  for c in record["calls"])
    if any(type(c.args) is not list or type(c.kwargs) is not dict for c in calls):
        raise ValueError("malformed call")
    instances = tuple(Instance(key=int(i["a"]), sites={int(k): int(v) for k, v in i["c"].items()},
                               leaves={int(k): decode_plain(v) for k, v in i["l"].items()})
                      for i in record["inst"])
    if any(i.key not in check.asserts or any(
            call >= len(calls) for call in i.sites.values()) for i in instances):
        raise ValueError("an instance of an unknown assert or call")
    size = len(json.dumps([c.get("o") for c in record["calls"]]))
    seconds = record["duration"]
    if type(seconds) not in (int, float) or not 0 <= seconds < 1e6:
        raise ValueError("implausible duration")
    host = not any(i.get("x") for i in record["inst"])
    return RecordedTest(calls, instances, float(seconds), size, host)


def default_directory(environ: Mapping[str, str] = os.environ) -> Path | None:
    """Where recordings persist by default: ``$R2R_REFERENCE_CACHE`` (empty: nowhere, memory
    only), else ``pytest-req2rank/references`` in the user's cache directory."""
    named = environ.get(CACHE_ENV)
    if named is not None:
        return Path(named) if named.strip() else None
    base = environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pytest-req2rank" / "references"


class ReferenceCache:
    """Reference recordings by task content, and the reference's times in the tests of other
    forms; ``directory`` (optional) persists them across runs.

    Only usable recordings are written to disk: why a reference run was unusable (a
    timeout on a busy machine, say) is kept for this process only. A directory that
    cannot be written leaves the cache in memory.
    """

    def __init__(self, directory: Path | str | None = None) -> None:
        self.directory = Path(directory) if directory is not None else None
        self._recordings: dict[str, Recording | Unusable] = {}
        self._times: dict[str, tuple[float, ...]] = {}

    def reference(self, task: Task, check: DecomposedCheck) -> Recording | Unusable | None:
        """The reference's recording, why it is unusable, or None when not recorded yet."""
        key = _key(task)
        found = self._recordings.get(key)
        if found is None:
            raw = self._read(key)
            usable = _usable(raw, check) if isinstance(raw, list) else None
            if isinstance(usable, Recording):
                found = self._recordings[key] = usable
        return found

    def keep(self, task: Task, check: DecomposedCheck,
             records: Sequence[dict[str, Any] | None], why: str) -> Recording | Unusable:
        """Keep the reference run's records (``why``: what the run said when a test has
        none); return the recording, or why it is unusable."""
        key = _key(task)
        for index, record in enumerate(records):
            if record is None:
                found: Recording | Unusable = Unusable(
                    f"the reference run reported nothing for {check.names[index]}: {why}")
                break
            if record.get("status") != "pass":
                found = Unusable(f"the reference fails {check.names[index]}: "
                                 f"{record.get('detail')}", record.get("status") == "unsupported")
                break
        else:
            raw = [record for record in records if record is not None]
            found = _usable(raw, check)
            if isinstance(found, Recording):
                self._write(key, raw)
        self._recordings[key] = found
        return found

    def times(self, parts: Sequence[Any]) -> tuple[float, ...] | None:
        """The reference's times kept by :meth:`keep_times` for the content ``parts`` (an I/O
        task's cases, a requirement's probes), or None."""
        key = _digest(["times", _sources_digest(HARNESS_SOURCES), *parts])
        found = self._times.get(key)
        if found is None:
            raw = self._read(key)
            if (isinstance(raw, list) and raw
                    and all(type(t) in (int, float) and 0 <= t < 1e6 for t in raw)):
                found = self._times[key] = tuple(float(t) for t in raw)
        return found

    def keep_times(self, parts: Sequence[Any], times: Sequence[float]) -> None:
        """Keep the reference's ``times`` (one per test) for the content ``parts``."""
        key = _digest(["times", _sources_digest(HARNESS_SOURCES), *parts])
        self._times[key] = tuple(times)
        self._write(key, list(times))

    def _read(self, key: str) -> Any:
        """What :meth:`_write` wrote under ``key``; None when nothing usable is there."""
        if self.directory is None:
            return None
        try:
            data = json.loads((self.directory / f"{key}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            return None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return None
        return data.get("raw")

    def _write(self, key: str, raw: Any) -> None:
        if self.directory is None:
            return
        with contextlib.suppress(OSError):
            self.directory.mkdir(parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(json.dumps({"format": FORMAT, "raw": raw}))  # json.dump: no C encoder
            os.replace(temporary, self.directory / f"{key}.json")


def _usable(raw: list[dict[str, Any]], check: DecomposedCheck) -> Recording | Unusable:
    try:
        recording = Recording(tuple(recorded_test(record, check) for record in raw))
    except (NotPlain, KeyError, TypeError, ValueError, AttributeError) as exc:
        return Unusable(f"the reference run's record is unusable: {type(exc).__name__}: {exc}")
    if len(recording.tests) != check.tests:
        return Unusable(f"the reference run reported {len(recording.tests)} tests of "
                        f"{check.tests}")
    return recording


def _key(task: Task) -> str:
    return _digest([_sources_digest(DECOMPOSITION_SOURCES + HARNESS_SOURCES), task.prompt,
                    task.reference, task.entry_point, task.test])


def _digest(parts: list[Any]) -> str:
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:32]


@cache
def _sources_digest(names: tuple[str, ...]) -> str:
    """The format and the sources of ``names`` (modules of this package, ``*.py``, or of the
    in-sandbox package): what cached data depends on besides its task."""
    return _digest([FORMAT, *(Path(__file__).with_name(name).read_text(encoding="utf-8")
                              if name.endswith(".py") else sandboxed.source(name)
                              for name in names)])
