"""One run of the benchmark, from its settings to its results: :class:`Run`."""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Self

from ..draws import Draw, new_draw
from ..errors import ConfigurationError
from ..models import ItemResult, Task
from ..plan import RunPlan
from ..providers import CallGate, calls_refused, reset_breakers
from ..settings import Settings
from ._controller import Controller, OutputPaths, store_path
from ._evaluator import Evaluator, lost_item
from ._header import header_lines, nversion_repeat_warning
from ._planning import (
    calls_remote_models,
    check_model_names,
    check_models,
    plan_run,
    planned_run_tasks,
    preflight_models,
)
from ._prefetch import Prefetcher
from ._writable import check_outputs

if TYPE_CHECKING:
    from ..report import ResultsDocument
    from ..submit import RunSubmission, SubmissionOutcome


@dataclass(frozen=True)
class SubmissionResult:
    """What became of a run's submission: the hub's answer, or why it was not sent."""

    outcome: SubmissionOutcome | None
    problem: str | None = None

    @property
    def taken(self) -> bool:
        return self.outcome is not None and self.outcome.kept


class Run:
    """A benchmark run: its plan, and what evaluates its items and keeps their results.

    :meth:`open` plans a run from its :class:`~pytest_req2rank.settings.Settings` and checks
    everything a user can get wrong before the first item (a :class:`ConfigurationError`,
    one line, names the option). Then each item is evaluated (:meth:`evaluate`: the model
    is asked, its code graded in the sandbox, the judges score it) and recorded
    (:meth:`record`: kept in the store and the Q&A log at once); :meth:`finish` scores the
    run and writes its outputs. The items may be evaluated in other processes, each with a
    run :meth:`join`-ed from the plan; only the run that was opened records and finishes.

    ``run.evaluator`` holds the models, the sandbox and the judges of this process;
    ``run.controller`` keeps the results and writes the outputs (``None`` on a process that
    only evaluates). ``--r2r-concurrency`` takes effect here, and only here
    (:meth:`_evaluation`): the run's call gate, which every model call of the process passes,
    and its look-ahead, which starts the items the process runs next (:meth:`look_ahead`).
    """

    def __init__(self, evaluator: Evaluator, controller: Controller | None, *,
                 ahead: Prefetcher | None = None, baseline_line: str | None = None,
                 submission: RunSubmission | None = None) -> None:
        self.evaluator = evaluator
        self.controller = controller
        self._ahead = ahead
        self.baseline_line = baseline_line
        """The header line of a gated run (``--r2r-baseline``)."""
        self.submission = submission
        """The hub's submission of the run (``--r2r-submit``), sent by :meth:`submit`."""

    @classmethod
    def open(cls, settings: Settings, *, draw: Draw | None = None,
             submit_to: tuple[str, str] | None = None, preflight: bool = True,
             controller: bool = True) -> Run:
        """Plan a run of ``settings`` and check it can run: its models answer (one tiny call
        to each remote model unless ``preflight`` is False or ``settings.preflight`` is off)
        and its outputs can be written.

        ``draw``: the run's id and seed (default: new ones; ``--r2r-seed`` overrides the
        seed); ``submit_to``: the hub's URL and token, when the run is submitted (its seed
        is then drawn from the hub's nonce, fetched here); ``controller``: False for a
        process that plans the run only to evaluate items of it (an xdist worker of a
        session that plans in every process). Raises :class:`ConfigurationError`.
        """
        reset_breakers()  # a new run: no model of this process has failed in it yet
        draw = draw or new_draw()
        # Before the suite is loaded (drawing the dynamic suite is most of a usage error's
        # time) and before a hub's nonce is taken: a name no provider answers to, an output
        # that cannot be written (the outputs whose check creates no directory).
        check_model_names(settings)
        if controller:
            check_outputs(settings, OutputPaths(settings, settings.resume or draw.run_id),
                          creating=False)
        submission = None
        if submit_to is not None:  # the nonce, before the plan: the run's seed is drawn from it
            from ._submission import check_submittable, start_submission  # httpx: only to submit

            check_submittable(settings)
            submission = start_submission(submit_to, draw.run_id, settings)
        planned = plan_run(settings, draw, submission.seed if submission else None)
        settings = planned.settings
        evaluator, ahead = cls._evaluation(settings, planned.plan, planned.tasks, planned.kept)
        task_ids = [task.task_id for task in (planned.tasks[i] for i in planned.plan.item_ids)]
        check_models(settings, task_ids)
        if not controller:
            evaluator.sandbox.prestart()  # warm while pytest collects
            return cls(evaluator, None, ahead=ahead)
        keeper = Controller(settings, planned.plan, evaluator.sandbox.isolation,
                            evaluator.sandbox.isolation_level, baseline=planned.baseline,
                            finished=planned.finished, kept=planned.kept)
        repeats = nversion_repeat_warning(evaluator)
        keeper.warnings += [repeats] if repeats else []
        check_outputs(settings, keeper.paths)
        if preflight and settings.preflight:  # after the checks that cost nothing
            keeper.preflight = preflight_models(settings, planned.tasks.values(), task_ids,
                                                evaluator.gate)
        if submission is not None:
            keeper.listeners.append(submission.add)
        return cls(evaluator, keeper, ahead=ahead, baseline_line=planned.baseline_line,
                   submission=submission)

    @classmethod
    def join(cls, settings: Settings, plan: RunPlan,
             kept: frozenset[str] = frozenset()) -> Run:
        """This process's part of a run planned elsewhere: evaluates items of ``plan``
        (``kept``: the items a resumed run keeps), records none."""
        reset_breakers()
        evaluator, ahead = cls._evaluation(settings, plan, planned_run_tasks(settings, plan), kept)
        evaluator.sandbox.prestart()  # warm while pytest collects
        return cls(evaluator, None, ahead=ahead)

    @staticmethod
    def _evaluation(settings: Settings, plan: RunPlan, tasks: dict[str, Task],
                    kept: frozenset[str]) -> tuple[Evaluator, Prefetcher | None]:
        """What evaluates this process's items: the evaluator, whose every model call passes
        the run's gate of ``--r2r-concurrency`` slots, and, when a model answers over the
        network, the look-ahead that keeps as many items in progress (offline models answer
        at once: their runs keep one thread)."""
        evaluator = Evaluator(settings, plan, tasks, store_path(settings),
                              gate=CallGate(settings.concurrency), kept=kept)
        if not calls_remote_models(settings):
            return evaluator, None
        return evaluator, Prefetcher(evaluator.evaluate, depth=settings.concurrency)

    @property
    def settings(self) -> Settings:
        return self.evaluator.settings

    @property
    def plan(self) -> RunPlan:
        return self.evaluator.plan

    @property
    def item_ids(self) -> list[str]:
        """The planned items, in plan order (a resumed run's kept ones included)."""
        return list(self.plan.item_ids)

    @property
    def kept(self) -> frozenset[str]:
        """The items a resumed run keeps from its earlier sessions: not evaluated again."""
        return self.evaluator.kept

    @property
    def paths(self) -> OutputPaths:
        """Where the run writes its results JSON, Q&A log, store and HTML report."""
        return self._keeper().paths

    def task(self, item_id: str) -> Task:
        return self.evaluator.task(item_id)

    def header(self) -> list[str]:
        """What the run will do, one line each: the lines pytest prints in its header."""
        stored = len(self.controller.items) if self.controller is not None else None
        return header_lines(self.evaluator, stored=stored, baseline=self.baseline_line)

    def look_ahead(self, item_ids: Iterable[str]) -> None:
        """This process evaluates ``item_ids`` next, in order: start them ahead, up to
        ``--r2r-concurrency`` of them (no more ids are read), when a model of the run answers
        over the network."""
        if self._ahead is not None:
            tasks = self.evaluator.tasks
            self._ahead.ahead(tasks[i] for i in item_ids if i in tasks)

    def evaluate(self, item: str | Task) -> ItemResult:
        """The result of an item (its id, or its task): ask the model, grade its code in the
        sandbox, let the judges score it. An item started ahead that has no result within its
        ceiling (:meth:`ceiling_s`) is an ``api_error``."""
        task = self.task(item) if isinstance(item, str) else item
        if self._ahead is None or self.evaluator.tasks.get(task.item_id) is not task:
            return self.evaluator.evaluate(task)
        future = self._ahead.take(task)
        ceiling = self.evaluator.ceiling_s(task)
        try:
            return future.result(timeout=ceiling)
        except FutureTimeout:
            future.cancel()
            return lost_item(task, self.evaluator.model_of(task), "api_error",
                             f"no result within the item's ceiling of {ceiling:.0f} s (model "
                             "calls, retries, sandbox and judges together); the run went on")

    def ceiling_s(self, item_id: str) -> float:
        """The longest the evaluation of ``item_id`` may take."""
        return self.evaluator.ceiling_s(self.task(item_id))

    def record(self, result: ItemResult) -> None:
        """Keep a finished item: in memory, the store and the Q&A log, at once."""
        self._keeper().record(result)

    def finish(self, *, interrupted: bool = False) -> ResultsDocument | None:
        """Score the run, apply its gates and write its outputs (results JSON, reports);
        the results document, or ``None`` when no item was recorded. What could not be
        written is in ``run.controller.output_errors``."""
        return self._keeper().finish(interrupted=interrupted)

    def submit(self) -> SubmissionResult:
        """Send the finished run to the hub it was opened with (``submit_to``)."""
        if self.submission is None:
            raise ConfigurationError("this run was not opened with a hub to submit to")
        from ._submission import send  # httpx: only to submit

        return SubmissionResult(*send(self._keeper(), self.submission))

    def close(self) -> None:
        """Stop what runs ahead (:meth:`Prefetcher.close`: what has not started is cancelled,
        every model call in flight too), then release the model clients, the sandbox and the
        store."""
        if self._ahead is not None:
            self._ahead.close(calls_refused)
        self.evaluator.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def _keeper(self) -> Controller:
        if self.controller is None:
            raise ConfigurationError("this process only evaluates items of the run (joined); "
                                     "the process that opened it records and finishes it")
        return self.controller
