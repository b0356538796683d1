"""Majority voting over N versions' outputs, on the host.

Per input, the versions' value outputs are grouped into classes of the same output
(:func:`same_output`: floats within the tolerance); a failure (an exception, a timeout) is a
class of its own and never wins. Only a STRICT majority wins: a class holding more than N/2
of ALL N versions (failures included in N) is the voted output; a plurality or a tie is
"no consensus". Grouping is deterministic: an output joins the first class (in version
order) whose first output it matches.

Per task: correct iff every input has a voted output and it is the reference's output.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from ._outputs import TOLERANCE, Output, same_output


class Vote(BaseModel):
    """One input's vote: the ``winner`` (None: no consensus), the size of the largest class
    of equal outputs (``support``), and how many versions failed on it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    versions: int
    winner: Output | None
    support: int
    failures: int
    correct: bool

    @property
    def consensus(self) -> bool:
        return self.winner is not None


class TaskVote(BaseModel):
    """The votes on a task's inputs, and how its versions agree.

    ``correct``: every input's voted output is the reference's. ``largest_agreeing``: the
    most versions giving identical output on every input (a version that failed on any input
    agrees with none)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: str
    versions: int
    votes: tuple[Vote, ...]
    largest_agreeing: int

    @property
    def correct(self) -> bool:
        return all(vote.correct for vote in self.votes)

    @property
    def no_consensus(self) -> bool:
        """Some input had no strict majority."""
        return any(not vote.consensus for vote in self.votes)

    @property
    def majority_consensus(self) -> bool:
        """A strict majority of the versions give identical output on every input."""
        return 2 * self.largest_agreeing > self.versions

    @property
    def complete_consensus(self) -> bool:
        """All versions give identical output on every input."""
        return self.largest_agreeing == self.versions


def classes(outputs: Sequence[Output], tolerance: float = TOLERANCE) -> list[list[int]]:
    """The indices of ``outputs`` grouped by same output, failures left out, in order."""
    groups: list[list[int]] = []
    for index, output in enumerate(outputs):
        if output.failure:
            continue
        for group in groups:
            if same_output(outputs[group[0]], output, tolerance):
                group.append(index)
                break
        else:
            groups.append([index])
    return groups


def vote(outputs: Sequence[Output], reference: Output,
         tolerance: float = TOLERANCE) -> Vote:
    """The strict-majority vote of ``outputs`` (one per version) on one input."""
    if not outputs:
        raise ValueError("a vote needs at least one version")
    groups = classes(outputs, tolerance)
    largest = max(groups, key=len, default=[])
    winner = outputs[largest[0]] if 2 * len(largest) > len(outputs) else None
    return Vote(versions=len(outputs), winner=winner, support=len(largest),
                failures=sum(output.failure for output in outputs),
                correct=winner is not None and same_output(winner, reference, tolerance))


def vote_task(task_id: str, outputs: Sequence[Sequence[Output]], reference: Sequence[Output],
              tolerance: float = TOLERANCE) -> TaskVote:
    """Vote each input of a task: ``outputs[v][i]`` is version ``v``'s output on input ``i``,
    ``reference[i]`` the reference's."""
    if not outputs or not reference:
        raise ValueError("a task's vote needs at least one version and one input")
    if any(len(version) != len(reference) for version in outputs):
        raise ValueError("every version needs one output per input")
    votes = tuple(vote([version[i] for version in outputs], reference[i], tolerance)
                  for i in range(len(reference)))
    return TaskVote(task_id=task_id, versions=len(outputs), votes=votes,
                    largest_agreeing=_largest_agreeing(outputs, tolerance))


def _largest_agreeing(outputs: Sequence[Sequence[Output]], tolerance: float) -> int:
    """The largest set of versions whose outputs are the same on every input."""
    groups: list[list[int]] = []
    for index, version in enumerate(outputs):
        if any(output.failure for output in version):
            continue
        for group in groups:
            first = outputs[group[0]]
            if all(same_output(a, b, tolerance) for a, b in zip(first, version)):
                group.append(index)
                break
        else:
            groups.append([index])
    return max((len(group) for group in groups), default=0)
