"""Grading a HumanEval-form task, ``check(candidate)``, by record and replay: verdicts the code
under test cannot forge.

A pass is never taken from a process in which the code under test ran. Per item:

1. Decompose (on the host, cached; :mod:`._decompose`): each top-level statement of
   ``check`` that holds an assert is one test; asserts of a shape the host can evaluate
   make their test *host-decided*.
2. Predict (``record``): the reference's run of the check, recorded once per task and
   cached on disk (:mod:`._recording`), says which calls each test makes (arguments,
   returned values, times) and the operands of the host-decided asserts.
3. Call (``calls``): the candidate runs on the predicted arguments only, in an execution
   that holds no test code and no expected value, and reports what each call returned or
   raised, through the type firewall (exact builtin types only).
4. Decide: a host-decided test is decided on the host, by evaluating its own asserts on
   the returned values (:mod:`._hosteval`); any other test runs in a ``checker``
   execution that holds no candidate code, each call answered with the candidate's answer
   (its changes to mutable arguments applied).
5. When the reference cannot predict a test — no usable reference run, or the check's
   calls depend on the candidate's answers (the checker reports ``diverged``) — the
   candidate's own run of the check predicts it, and steps 3 and 4 follow with the checker
   deciding every test. Of that run only a failure is taken as it is — a crash, a failed
   import, a timeout, a value too large to report: forging a failure gains the code
   nothing; anything else it reports is a prediction. If any test's calls then differ
   from the prediction, every test the checker judged is a runtime error: the program
   does not answer the same twice, or its run forged the prediction (whose arguments,
   had they been wrong, could have carried what the run saw of the test into the calls
   execution).

A check that passes the candidate a value that cannot cross the firewall (a function, an
object of the test's own) in the reference's run cannot be graded this way: the item is a
``sandbox_error`` (:class:`Ungradable`), never a verdict against the model. Such a value
that appears only with the candidate's answers is the candidate's runtime error.

A test's time budget follows the reference's time in its calls (:mod:`._budget`), and it may
report ``OUTPUT_FACTOR`` x the reference's output bytes; predicted by the candidate's own
run, the base budget and the default output limit. The first test that runs out of time ends
the program's execution: the tests after it are ``timeout``, unrun. A warm task whose tests
are all host-decided (163 of HumanEval's 164) is graded in one execution.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import Req2RankError
from ..models import Task, TestOutcome, TestStatus
from ..sandbox import Limits, Sandbox
from ._budget import BudgetRule
from ._compare import NotPlain, decode_plain
from ._decompose import DecomposedCheck, decompose
from ._execute import SHOWN_CHARS, process_failure
from ._extract import ENTRY_FILE
from ._harness import duration_of, run_harness, show, text
from ._hosteval import HostEvalError, evaluate
from ._recording import RecordedTest, Recording, ReferenceCache, Unusable, recorded_test

OUTPUT_FACTOR = 4
"""A test's outputs may take this many times the reference's bytes before they are too large."""
RECORD_LIMITS = Limits(output_bytes=8_000_000)
MODULE = ENTRY_FILE.removesuffix(".py")
SEED = 0
"""``random`` is seeded with this before the check's steps run (record and checker alike)."""

_FAILED: dict[str, TestStatus] = {"fail": "wrong_answer", "nonplain": "wrong_answer",
                                  "toolarge": "wrong_answer", "timeout": "timeout"}


class Ungradable(Req2RankError):
    """The check cannot be graded with verdicts the code cannot forge: a limit of the task,
    not a fault of the model."""


@dataclass(frozen=True)
class Answer:
    """What the candidate did in one call (``tagged``: its arguments as the firewall tags
    them): returned ``value``, or raised (``raised``: its class names and message);
    ``after``: the arguments after the call, when it changed them."""

    tagged: list[Any]
    value: Any
    raised: list[Any] | None
    after: list[Any] | None


def check_outcomes(task: Task, files: dict[str, str], sandbox: Sandbox, *, rule: BudgetRule,
                   cache: ReferenceCache) -> tuple[list[TestOutcome], float]:
    """Each test's outcome, and the sandbox time; raises :class:`Ungradable` and
    :class:`SandboxFailed`."""
    check = decompose(task.test or "", task.entry_point or "")
    item = _Item(task, files, sandbox, check, rule)
    reference = reference_recording(task, check, sandbox, rule, cache)
    if isinstance(reference, Unusable) and reference.ungradable:
        raise Ungradable(f"the check cannot be graded with verdicts the code cannot forge: "
                         f"{reference.why}")
    pending = set(range(check.tests))
    if isinstance(reference, Recording):
        pending = item.replay(dict(enumerate(reference.tests)), trusted=True)
    if pending:
        item.replay(item.own_run(pending), trusted=False)
    return item.outcomes(), item.duration


def reference_recording(task: Task, check: DecomposedCheck, sandbox: Sandbox, rule: BudgetRule,
               cache: ReferenceCache) -> Recording | Unusable:
    """The reference's recording (from the cache, or recorded now), or why it is unusable."""
    found = cache.reference(task, check)
    if found is None:
        budgets = rule.for_reference().unknown(check.tests)
        run = run_harness(sandbox, _record_spec(task, check, frozenset()),
                          files={ENTRY_FILE: task.reference}, tests=check.tests,
                          budgets=budgets, limits=RECORD_LIMITS)
        why = (process_failure(run.outcome) or ("", "no record"))[1]
        found = cache.keep(task, check, run.records, why)
    return found


def _record_spec(task: Task, check: DecomposedCheck, skip: frozenset[int]) -> dict[str, Any]:
    return {"mode": "record", "module": MODULE, "entry_point": task.entry_point or "",
            **_check_spec(task, check, skip)}


def _check_spec(task: Task, check: DecomposedCheck, skip: frozenset[int]) -> dict[str, Any]:
    """What record and checker runs need of the check; the steps of tests in ``skip`` are not
    run (their setup steps are)."""
    steps: list[dict[str, Any]] = []
    last = check.tests - 1
    for position, step in enumerate(check.steps):
        owner = step.test  # a setup step belongs to the test that follows it
        if owner is None:
            owner = next((s.test for s in check.steps[position:] if s.test is not None), last)
        steps.append({"source": step.source, "test": step.test, "owner": owner,
                      "skip": step.test is not None and step.test in skip})
    return {"param": check.param, "entry": check.entry, "prompt": _prompt_module(task.prompt),
            "test": task.test, "seed": SEED, "tests": check.tests, "steps": steps}


class _Item:
    """One item's grading: its verdicts so far, the candidate's answers, the sandbox time."""

    def __init__(self, task: Task, files: dict[str, str], sandbox: Sandbox,
                 check: DecomposedCheck, rule: BudgetRule) -> None:
        self.task, self.files, self.sandbox, self.check = task, files, sandbox, check
        self.rule = rule
        self.verdicts: dict[int, TestOutcome] = {}
        self.answers: dict[int, list[Answer]] = {}
        """Per test not decided on the host, the answers of its calls that ran."""
        self.durations: dict[int, float] = {}
        self.duration = 0.0

    def decide(self, index: int, status: TestStatus, detail: str = "", **shown: Any) -> None:
        self.verdicts[index] = TestOutcome(
            name=self.check.names[index], input=self.check.shown[index].strip()[:SHOWN_CHARS],
            status=status, detail=detail[:SHOWN_CHARS * 4],
            duration_s=self.durations.get(index, 0.0), **shown)

    def outcomes(self) -> list[TestOutcome]:
        return [self.verdicts[index] for index in range(self.check.tests)]

    def replay(self, predicted: dict[int, RecordedTest], *, trusted: bool) -> set[int]:
        """Steps 3 and 4 for the ``predicted`` tests; the tests that diverged."""
        if not predicted:
            return set()
        budgets = (self.rule.budgets([test.seconds for test in predicted.values()]) if trusted
                   else self.rule.unknown(len(predicted)))
        limits = None
        if trusted:
            largest = max(test.size for test in predicted.values())
            limits = Limits(output_bytes=max(Limits().output_bytes,
                                             OUTPUT_FACTOR * largest * (self.check.tests + 1)))
        host = {index for index, test in predicted.items()
                if trusted and test.host and index in self.check.host_tests}
        spec = {"mode": "calls", "module": MODULE, "entry_point": self.task.entry_point or "",
                "tests": [{"i": index, "calls": [(c.args, c.kwargs) for c in test.calls],
                           "budget": budget, "stop": index in host}
                          for (index, test), budget in zip(predicted.items(), budgets.tests)]}
        run = run_harness(self.sandbox, spec, files=self.files, tests=self.check.tests,
                          budgets=budgets, limits=limits)
        self.duration += run.outcome.duration_s
        judged: set[int] = set()
        for index, test in predicted.items():
            record = run.records[index]
            if record is None:
                self.decide(index, *run.missing())
                continue
            self.durations[index] = duration_of(record)
            answers = self._answers(record, test)
            if not isinstance(answers, str) and index not in host:
                self.answers[index] = answers  # for the checker: they also set up later tests
            status = str(record.get("status"))
            if status != "pass":
                self._failed(index, status, record)
            elif isinstance(answers, str):
                self.decide(index, "wrong_answer", f"returned a non-plain value ({answers})")
            elif len(answers) != len(test.calls):
                self.decide(index, "runtime_error", "the run did not report every call of this test")
            elif index in host:
                self._host_verdict(index, test, answers)
            else:
                judged.add(index)
        return self._checker(judged, trusted) if judged else set()

    def own_run(self, pending: set[int]) -> dict[int, RecordedTest]:
        """Step 5: the candidate's own run of the check predicts the ``pending`` tests; a
        crash, a timeout, or a failure it reports without calls to replay is the verdict."""
        skip = frozenset(range(self.check.tests)) - pending
        run = run_harness(self.sandbox, _record_spec(self.task, self.check, skip),
                          files=self.files, tests=self.check.tests,
                          budgets=self.rule.unknown(len(pending)))
        self.duration += run.outcome.duration_s
        predicted: dict[int, RecordedTest] = {}
        for index in sorted(pending):
            record = run.records[index]
            if record is None:
                self.decide(index, *run.missing())
                continue
            self.durations[index] = duration_of(record)
            status = str(record.get("status"))
            try:
                test = recorded_test(record, self.check)
            except (NotPlain, KeyError, TypeError, ValueError, AttributeError):
                if status == "pass":
                    self.decide(index, "runtime_error", "the run's record of this test is malformed")
                else:  # e.g. the import failed, a value too large to report
                    self._failed(index, status, record)
                continue
            if status == "timeout":  # running it again would only time out again
                self._failed(index, status, record)
            else:
                predicted[index] = test
        return predicted

    @staticmethod
    def _answers(record: dict[str, Any], test: RecordedTest) -> list[Answer] | str:
        """The answers a calls record reports for ``test``'s calls (those that ran), or why
        they are not plain data."""
        outputs, raised, changed = record.get("o", []), record.get("x", []), record.get("m", [])
        try:
            if (type(outputs) is not list or type(raised) is not list or type(changed) is not list
                    or len(outputs) > len(test.calls)):
                raise ValueError("malformed outputs")
            values = [decode_plain(value) for value in outputs]
            raises = {int(position): [[str(name) for name in names], str(message)]
                      for position, names, message in raised}
            afters = {int(position): decode_plain(after) for position, after in changed}
            if any(type(a) is not list or len(a) != 2 or type(a[0]) is not list
                   or type(a[1]) is not dict for a in afters.values()):
                raise ValueError("malformed arguments")
        except (NotPlain, TypeError, ValueError) as exc:
            return str(exc)
        return [Answer(call.tagged, value, raises.get(position), afters.get(position))
                for position, (call, value) in enumerate(zip(test.calls, values))]

    def _failed(self, index: int, status: str, record: dict[str, Any]) -> None:
        detail = text(record.get("detail"))
        raised = record.get("raised")
        ended = raised if isinstance(raised, list) else []
        if status == "nonplain":
            detail = detail or "returned a non-plain value"
        self.decide(index, "wrong_answer" if "AssertionError" in ended
                    else _FAILED.get(status, "runtime_error"), detail)

    def _host_verdict(self, index: int, test: RecordedTest, answers: list[Answer]) -> None:
        values = [answer.value for answer in answers]
        for instance in test.instances:
            sites = {site: values[call] for site, call in instance.sites.items()}
            host = self.check.asserts[instance.key]
            try:
                holds = evaluate(host, sites, instance.leaves)
            except HostEvalError as exc:
                return self.decide(index, "runtime_error", str(exc))
            if not holds:
                calls = sorted(instance.sites.values())
                return self.decide(
                    index, "wrong_answer", f"assertion failed: assert {host.source}",
                    actual=show(values[calls[0]]) if calls else None,
                    expected=show(test.calls[calls[0]].expected) if calls else None)
        return self.decide(index, "success")

    def _checker(self, judged: set[int], trusted: bool) -> set[int]:
        """Judge the ``judged`` tests in an execution without candidate code; those that
        diverged (predicted by the candidate's own run: none, they all failed)."""
        oracle = {index: [(a.tagged, a.value, a.raised, a.after) for a in answers]
                  for index, answers in self.answers.items()}
        skip = frozenset(range(self.check.tests)) - judged
        spec = {"mode": "checker", **_check_spec(self.task, self.check, skip),
                "judge": sorted(judged), "oracle": oracle}
        run = run_harness(self.sandbox, spec, files={}, tests=self.check.tests,
                          budgets=self.rule.unknown(len(judged)))
        self.duration += run.outcome.duration_s
        diverged: set[int] = set()
        for index in sorted(judged):
            record = run.records[index]
            if record is None:
                status, why = run.missing()
                self.decide(index, status, f"checker: {why}")
                continue
            kind, detail = str(record.get("status")), text(record.get("detail"))
            if kind == "diverged":
                diverged.add(index)
            elif kind == "fail":
                first = self.check.shown[index].strip().splitlines()[0]
                self.decide(index, "wrong_answer", f"assertion failed: {first}"
                            + (f" ({detail})" if detail else ""))
            else:
                self.decide(index, "success" if kind == "pass"
                            else _FAILED.get(kind, "runtime_error"), detail)
        if diverged and not trusted:
            for index in judged:
                self.decide(index, "runtime_error", "the program's calls differ between two runs "
                            "of the check: it does not answer the same twice")
            return set()
        return diverged


def _prompt_module(prompt: str) -> str:
    """The prompt as a module whose helpers the test may use (HumanEval's tests call some)."""
    for candidate in (prompt, prompt.rstrip() + "\n    pass\n"):
        try:
            compile(candidate, "<prompt>", "exec", dont_inherit=True)
        except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError):
            continue
        return candidate
    return ""
