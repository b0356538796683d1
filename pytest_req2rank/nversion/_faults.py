"""Fault injection into N versions: code-level (Pat-CL 0–4) and algorithm-level (Pat-AL 0–4).

Every choice comes from ``random.Random`` seeded with a string made of the run's seed, the
task id and what is chosen, so the same seed makes the same choices in any process.

**Pat-CL k** gives 0, 1, ⌊(N−1)/2⌋, ⌊(N+1)/2⌋ or N versions (k = 0…4) one first-order
mutant each, from the project's mutation engine, that the task's tests kill (checked by
grading the mutant). The versions are a prefix of one seeded permutation of the versions
per task, so the faulty versions of Pat-CL k are among those of Pat-CL k+1. A version's
mutant is the first, in a seeded order, that the tests kill with a wrong answer or an
error; a mutant they kill only by a timeout is taken only when no other is found (a looping
version costs its whole time budget in every later run). A picked version with no killable
mutant keeps its code and the injection says why: no mutant is ever faked.

**Pat-AL k** (docs/nversion.md, Patterns) injects common-mode failures into ALL
versions: the same 0, 1, ⌊(N−1)/2⌋, ⌊(N+1)/2⌋ or all available failures (k = 0…4), drawn
as a prefix of a seeded permutation of the failures given for the task, applied in that
order to every version. So Pat-AL 1 gives every version the same single fault. A failure
that does not apply to a version's code is reported, not replaced by another.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Literal, Protocol, TypeGuard, get_args, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from ..execution import ReferenceCache, grade
from ..models import Status, Task, TestStatus
from ..mutation import Mutant, mutants
from ..sandbox import Sandbox

Family = Literal["CL", "AL"]
MAX_MUTANT_TRIES = 25
"""Mutants graded per version, at most, in search of one the tests kill."""
_NAME = re.compile(r"^pat-(cl|al)[\s_-]?([0-4])$", re.IGNORECASE)


class Pattern(BaseModel):
    """A fault pattern: its family (code or algorithm level) and its level 0–4."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    family: Family
    level: int = Field(ge=0, le=4)

    @property
    def name(self) -> str:
        """``Pat-CL2``: the name results and item ids use."""
        return f"Pat-{self.family}{self.level}"

    @classmethod
    def parse(cls, text: str) -> Pattern:
        """``Pat-CL2`` or ``Pat-CL 2`` (any case) as a pattern; raises ``ValueError``."""
        found = _NAME.match(text.strip())
        if found is None:
            raise ValueError(f"not a fault pattern: {text!r} (expected Pat-CL0…4 or Pat-AL0…4)")
        return cls(family=found.group(1).upper(), level=int(found.group(2)))  # type: ignore[arg-type]


def is_test_status(status: Status) -> TypeGuard[TestStatus]:
    """Whether a grading's ``status`` is a verdict on the code (not ``sandbox_error``)."""
    return status in get_args(TestStatus)


CODE_LEVEL = tuple(Pattern(family="CL", level=level) for level in range(5))
ALGORITHM_LEVEL = tuple(Pattern(family="AL", level=level) for level in range(5))


@runtime_checkable
class FailureInjector(Protocol):
    """A common-mode failure: ``name`` identifies it; calling it with a version's code returns
    the code with the failure applied, or None when the failure does not apply to that code."""

    @property
    def name(self) -> str: ...

    def __call__(self, code: str) -> str | None: ...


class Fault(BaseModel):
    """A fault given to version ``version``: a mutant (``name`` its id, ``killed_as`` the
    status the task's tests gave it) or a common-mode failure (``name`` its name)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int
    kind: Literal["mutant", "common_mode"]
    name: str
    description: str = ""
    killed_as: TestStatus | None = None


class Injection(BaseModel):
    """A pattern applied to a task's versions: the versions picked, every version's code after
    injection (``codes``), the faults given, and why a picked version got none (``missing``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    pattern: str
    picked: tuple[int, ...]
    codes: tuple[str, ...]
    faults: tuple[Fault, ...]
    missing: tuple[str, ...] = ()


def fault_count(level: int, n: int) -> int:
    """Versions a Pat-CL ``level`` pattern faults among ``n``: 0, 1, ⌊(n−1)/2⌋, ⌊(n+1)/2⌋, n."""
    if n < 1 or not 0 <= level <= 4:
        raise ValueError(f"no pattern level {level} for {n} versions")
    return (0, 1, (n - 1) // 2, (n + 1) // 2, n)[level]


def seeded(seed: int, *parts: object) -> random.Random:
    """A generator seeded from the run's ``seed`` and what it chooses (stable across processes)."""
    return random.Random("/".join(str(part) for part in (seed, *parts)))


def picked_versions(n: int, level: int, *, seed: int, task_id: str) -> tuple[int, ...]:
    """The versions Pat-CL ``level`` faults, in index order."""
    order = list(range(n))
    seeded(seed, task_id, "code-level").shuffle(order)
    return tuple(sorted(order[:fault_count(level, n)]))


class MutantSearch:
    """Per version of one task, one first-order mutant the task's tests kill (found once,
    then kept: a version gets the same mutant in every pattern)."""

    def __init__(self, task: Task, sandbox: Sandbox, *, seed: int, timeout_s: float,
                 cache: ReferenceCache | None = None, max_tries: int = MAX_MUTANT_TRIES) -> None:
        self.task, self.sandbox, self.seed = task, sandbox, seed
        self.timeout_s, self.cache, self.max_tries = timeout_s, cache, max_tries
        self._found: dict[tuple[int, str], tuple[Fault, str] | str] = {}

    def find(self, version: int, code: str) -> tuple[Fault, str] | str:
        """Version ``version``'s mutant as a :class:`Fault` with the mutated source, or why it
        has none."""
        key = (version, code)
        if key not in self._found:
            self._found[key] = self._search(version, code)
        return self._found[key]

    def _search(self, version: int, code: str) -> tuple[Fault, str] | str:
        try:
            candidates = list(mutants(code))
        except SyntaxError as exc:
            return f"version {version} does not parse, so it has no mutant: {exc.msg}"
        seeded(self.seed, self.task.task_id, "mutants", version).shuffle(candidates)
        tried = candidates[:self.max_tries]
        fallback: tuple[Mutant, TestStatus] | None = None
        for mutant in tried:
            status = grade(self.task, {"solution.py": mutant.source}, self.sandbox,
                           timeout_s=self.timeout_s, reference_cache=self.cache).status
            if status == "success" or not is_test_status(status):  # the sandbox failed
                continue
            if status != "timeout":
                return _fault(version, mutant, status)
            fallback = fallback or (mutant, status)
        if fallback is not None:
            return _fault(version, *fallback)
        return (f"version {version}: none of the {len(tried)} mutants tried (of "
                f"{len(candidates)}) is killed by the task's tests")


def _fault(version: int, mutant: Mutant, status: TestStatus) -> tuple[Fault, str]:
    return (Fault(version=version, kind="mutant", name=mutant.id,
                  description=mutant.description, killed_as=status), mutant.source)


def inject_code_level(pattern: Pattern, codes: Sequence[str], search: MutantSearch) -> Injection:
    """Pat-CL ``pattern.level`` applied to ``codes`` (see the module)."""
    if pattern.family != "CL":
        raise ValueError(f"{pattern.name} is not a code-level pattern")
    picked = picked_versions(len(codes), pattern.level, seed=search.seed,
                             task_id=search.task.task_id)
    result, faults, missing = list(codes), [], []
    for version in picked:
        found = search.find(version, codes[version])
        if isinstance(found, str):
            missing.append(found)
            continue
        fault, result[version] = found
        faults.append(fault)
    return Injection(pattern=pattern.name, picked=picked, codes=tuple(result),
                     faults=tuple(faults), missing=tuple(missing))


def inject_common_mode(pattern: Pattern, codes: Sequence[str],
                       failures: Sequence[FailureInjector], *, seed: int,
                       task_id: str) -> Injection:
    """Pat-AL ``pattern.level`` applied to ``codes`` with the task's ``failures`` (see the
    module)."""
    if pattern.family != "AL":
        raise ValueError(f"{pattern.name} is not an algorithm-level pattern")
    n = len(codes)
    wanted = len(failures) if pattern.level == 4 else fault_count(pattern.level, n)
    order = list(failures)
    seeded(seed, task_id, "common-mode").shuffle(order)
    chosen = order[:wanted]
    missing = [] if len(chosen) == wanted else [
        f"{wanted} common-mode failures wanted, {len(chosen)} available"]
    result, faults = list(codes), []
    for version in range(n):
        for failure in chosen:
            changed = failure(result[version])
            if changed is None or changed == result[version]:
                missing.append(f"version {version}: {failure.name} does not apply")
                continue
            result[version] = changed
            faults.append(Fault(version=version, kind="common_mode", name=failure.name))
    picked = tuple(range(n)) if chosen else ()
    return Injection(pattern=pattern.name, picked=picked, codes=tuple(result),
                     faults=tuple(faults), missing=tuple(missing))
