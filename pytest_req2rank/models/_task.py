"""A task: what the target model is asked to solve, and how it is checked."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ._item_id import ItemId

TaskForm = Literal["function", "io", "requirement"]

Priority = Literal["must", "should", "nice"]


class IOCase(BaseModel):
    """One stdin → stdout test case."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input: str
    output: str


class Probe(BaseModel):
    """A test whose verdict is decided on the host.

    ``code`` runs in the sandbox after the solution's files are importable and
    must assign ``result``; the sandbox returns that value as plain JSON data and
    the host compares it with ``expect`` (or checks that the exception class
    named by ``raises`` was raised). Expected values never enter the sandbox.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    code: str
    expect: Any = None
    raises: str | None = None
    priority: Priority = "must"
    tolerance: float = Field(default=1e-6, ge=0, description="Absolute/relative float tolerance")


class Task(BaseModel):
    """A static-suite problem in one of the two JSONL forms (docs/suites.md).

    ``function`` form (HumanEval): ``test`` defines ``check(candidate)`` and is
    run against ``entry_point``. ``io`` form: the program reads stdin and its
    stdout is compared with each case's output. ``requirement`` form (the dynamic
    suite): ``spec`` rebuilds a requirement whose hidden probes grade the answer.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    item_id: str = Field(description="Readable pytest id, e.g. 'humaneval/HumanEval_0'")
    dataset: str = Field(description="Dataset name used in metric names")
    task_id: str = Field(description="The task id as the suite spells it")
    form: TaskForm
    prompt: str
    reference: str = Field(description="Complete reference solution (program or module)")
    entry_point: str | None = None
    test: str | None = None
    cases: tuple[IOCase, ...] = ()
    source: str = Field(default="", description="Where the task came from, e.g. 'suite.jsonl:3'")
    reference_files: dict[str, str] = Field(
        default_factory=dict, description="Multi-file reference solution (requirement form)"
    )
    spec: dict[str, Any] | None = Field(
        default=None, description="Requirement form: the plan entry the requirement is rebuilt from"
    )
    sample: int | None = Field(
        default=None, ge=0,
        description="Which sample of the task this item asks for (0-based, item id "
        "'DATASET/TASK/sK'); None when the run asks once per task",
    )

    @property
    def task_item_id(self) -> str:
        """The item id of the task itself, ``DATASET/TASK``, whichever sample this is and
        whichever model answers it (the requirement every model of a ranking run shares)."""
        if self.sample is None and "@" not in self.item_id:
            return self.item_id
        return str(ItemId.parse(self.item_id).task_item)
