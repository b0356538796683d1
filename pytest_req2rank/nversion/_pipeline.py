"""The N-version generation pipeline of one task: the state machine driven through
understanding, ideation (HILE thought and solution levels), synthesis (HILE implementation
level, IRQN, the implementation veto), validation (the task's tests in the sandbox,
test-driven repair) and collection. Usable without pytest.

Exit checks, all computed: understanding — a schema-valid JSON answer naming a known family;
ideation — distinct ideas (paradigms differ, texts below θ_ident) and plans without code;
synthesis — every answer compiles and defines the function, and IRQN accepted at least N
implementations (else a rollback to ideation, the reason remembered); validation — at least
one candidate passes after repair (else a rollback to understanding); failing candidates
are repaired, in order, until N distinct programs pass. Past the rollback bound
the pipeline goes on with what it has; past a prompt's retry bound it ends in error, keeping
the candidates it has.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, replace

from ..execution import ReferenceCache, RunOptions, grade
from ..models import ExecutionResult, GenerationConfig, GenerationRecord, Task, Usage
from ..providers import Provider, ProviderError
from ..sandbox import Sandbox
from . import _prompting as prompts
from ._answers import AnswerError, Understanding, parse_code, parse_json
from ._asking import Asker
from ._collection import Graded, Picked, collect
from ._fsm import RetryBoundReached, State, StateMachine
from ._hile import Branch, ideate, implement
from ._irqn import Candidate, Similarity, irqn
from ._knowledge import GENERAL, KnowledgeBase
from ._repair import repair

REGENERATE_T = 0.8
"""Temperature of IRQN's question and negate prompts."""
REPAIR_T = 0.2
"""Temperature of a repair prompt (a run temperature above it wins)."""


@dataclass
class Generation:
    """What the pipeline made of one task: N picked versions (fewer, or none, only when it
    ended in error early or the provider failed), its record, and the provider's failure."""

    versions: list[Picked]
    record: GenerationRecord
    usage: Usage
    provider_error: ProviderError | None = None


class GenerationPipeline:
    """Runs the state machine for ``task`` once (:meth:`run`)."""

    def __init__(self, task: Task, provider: Provider, sandbox: Sandbox, options: RunOptions, *,
                 n: int, config: GenerationConfig, knowledge: KnowledgeBase,
                 similarity: Similarity, family: str | None = None,
                 cache: ReferenceCache | None = None,
                 rng: random.Random | None = None) -> None:
        self.task, self.sandbox, self.options, self.n = task, sandbox, options, n
        self.config, self.knowledge, self.similarity = config, knowledge, similarity
        self.family = family
        self.cache = cache
        self.rng = rng or random.Random(f"{options.seed or 0}:{task.item_id}")
        self.machine = StateMachine(max_retries=config.retries, max_rollbacks=config.rollbacks)
        self.asker = Asker(provider, task, options, self.machine)
        self.pool: list[Candidate] = []
        self.drafts: list[Candidate] = []  # this round's programs, before IRQN has judged them
        self.graded: dict[str, Graded] = {}
        self.irqn_counts = dict.fromkeys(("unjudged", "retain", "question", "negate"), 0)
        self.repair_iterations = 0
        self.candidates = 0
        self.unresolved: set[str] = set()
        self.repair_tried: set[str] = set()
        self.family_used: str | None = None
        self._rounds = 0

    def run(self) -> Generation:
        m = self.machine
        understood: Understanding | None = None
        branches: list[Branch] = []
        picked: list[Picked] = []
        failure: ProviderError | None = None
        try:
            while not m.done:
                if m.state is State.UNDERSTANDING:
                    understood = self._understand()
                    m.transition(f"understood; family {understood.family}")
                elif m.state is State.IDEATION:
                    assert understood is not None
                    branches = self._ideate(understood)
                    m.transition(f"{len(branches)} distinct ideas, "
                                 f"{sum(len(b.solutions) for b in branches)} plans without code")
                elif m.state is State.SYNTHESIS:
                    self._synthesise(branches)
                elif m.state is State.VALIDATION:
                    self._validate()
                else:
                    picked = collect(list(self._graded_pool()), self.n, self.similarity)
                    passing = sum(p.graded.passed for p in picked)
                    m.transition(f"{len(picked)} versions collected, {passing} passing")
        except RetryBoundReached:
            pass  # the machine recorded the error end
        except ProviderError as exc:
            failure = exc
            m.fail(f"the provider failed: {exc.message}")
        if m.state is State.ERROR and failure is None:
            known = {c.id for c in self.pool}
            self.pool += [c for c in self.drafts if c.id not in known]
            self.unresolved |= {c.id for c in self.drafts if c.id not in known}
            picked = collect(list(self._graded_pool()), self.n, self.similarity)
        return Generation(versions=picked, record=self._record(), usage=m.usage,
                          provider_error=failure)

    # -- the states --------------------------------------------------------------------------

    def _understand(self) -> Understanding:
        families = sorted(self.knowledge.families)

        def parse(text: str) -> Understanding:
            answer = parse_json(text, Understanding)
            if answer.family not in self.knowledge.families:
                raise AnswerError(f"family {answer.family!r} is not one of {', '.join(families)}")
            return answer

        understood = self.asker.checked(
            prompts.understanding(self.task, families, self.machine.memory), parse,
            temperature=self.options.temperature, json_mode=True)
        if self.family is not None:  # the library knows the task's family: it wins
            understood = understood.model_copy(update={"family": self.family})
        self.family_used = understood.family
        return understood

    def _ideate(self, understood: Understanding) -> list[Branch]:
        return ideate(self.asker, understood, self.knowledge.of(understood.family),
                      count=self.config.thoughts_for(self.n), config=self.config,
                      memory=self.machine.memory)

    def _synthesise(self, branches: list[Branch]) -> None:
        knowledge = self.knowledge.of(self.family_used or GENERAL)
        fresh: list[Candidate] = []
        self.drafts = fresh
        implement(self.asker, branches, knowledge, config=self.config,
                  memory=self.machine.memory, round_=self._rounds, found=fresh)
        self._rounds += 1
        self.candidates += len(fresh)
        history = list(self.pool)

        def regenerate(candidate: Candidate, decision: str, similarity: float) -> Candidate:
            build = prompts.question if decision == "question" else prompts.negate
            code = self.asker.checked(
                build(self.task, candidate.code, similarity, knowledge.as_data(),
                      self.machine.memory),
                lambda text: parse_code(text, self.task), temperature=REGENERATE_T)
            self.candidates += 1
            mark = "+q" if decision == "question" else "+n"
            return Candidate(id=candidate.id + mark, code=code, thought=candidate.thought,
                             decisions=(*candidate.decisions, decision),
                             prompt=self.asker.last_prompt, response=self.asker.last_answer)

        outcome = irqn(fresh, similarity=self.similarity, rng=self.rng, regenerate=regenerate,
                       config=self.config, history=history)
        for name, count in outcome.counts().items():
            self.irqn_counts[name] += count
        self.pool += outcome.accepted + outcome.unresolved
        self.drafts = []
        self.unresolved |= {c.id for c in outcome.unresolved}
        accepted = len(self.pool) - len(self.unresolved)
        if accepted < self.n and self.machine.can_roll_back():
            self.machine.rollback(State.IDEATION, (
                f"the implementation veto: IRQN accepted {accepted} distinct implementations "
                f"of the {self.n} needed; propose ideas unlike "
                f"{', '.join(sorted({c.thought for c in fresh}))}"))
        else:
            self.machine.transition(f"{accepted} implementations accepted by IRQN, "
                                    f"{len(self.unresolved)} unresolved")

    def _validate(self) -> None:
        graded = list(self._graded_pool())
        passing = {g.candidate.code.strip() for g in graded if g.passed}  # distinct programs
        for g in graded:
            if len(passing) >= self.n:
                break
            if g.passed or g.candidate.id in self.repair_tried:
                continue
            self.repair_tried.add(g.candidate.id)
            fixed = repair(g.candidate.code, g.execution, grade=self._grade, fix=self._fix,
                           max_iterations=self.config.repairs)
            self.repair_iterations += fixed.iterations
            candidate = g.candidate
            if fixed.iterations:
                candidate = replace(candidate, code=fixed.code, prompt=self.asker.last_prompt,
                                    response=self.asker.last_answer)
            self.graded[g.candidate.id] = Graded(candidate, fixed.execution, g.accepted,
                                                 repairs=fixed.iterations)
            if fixed.execution.status == "success":
                passing.add(fixed.code.strip())
        if not passing and self.machine.can_roll_back():
            first = graded[0].execution.reason if graded else "no candidate"
            self.machine.rollback(State.UNDERSTANDING, (
                f"no candidate passes the task's tests after repair (first failure: {first}); "
                "re-read the specification"))
        else:
            self.machine.transition(f"{len(passing)} distinct programs of {len(graded)} "
                                    "candidates pass the tests")

    # -- helpers -----------------------------------------------------------------------------

    def _graded_pool(self) -> Iterator[Graded]:
        """Every candidate with its grading (graded on first need, then kept)."""
        for candidate in self.pool:
            known = self.graded.get(candidate.id)
            if known is None:
                known = self.graded[candidate.id] = Graded(
                    candidate, self._grade(candidate.code),
                    accepted=candidate.id not in self.unresolved)
            yield known

    def _grade(self, code: str) -> ExecutionResult:
        return grade(self.task, {"solution.py": code}, self.sandbox,
                     timeout_s=self.options.sandbox_timeout_s, reference_cache=self.cache)

    def _fix(self, code: str, failing: list[str]) -> str:
        return self.asker.checked(prompts.repair(self.task, code, failing),
                                  lambda text: parse_code(text, self.task),
                                  temperature=REPAIR_T)

    def _record(self) -> GenerationRecord:
        m, usage = self.machine, self.machine.usage
        error = next((t.reason for t in reversed(m.transitions) if t.action == "error"), None)
        return GenerationRecord(
            end="error" if m.state is State.ERROR else "complete", reason=error,
            family=self.family_used, knowledge_version=self.knowledge.version,
            transitions=list(m.transitions), retries=m.retries, rollbacks=m.rollbacks,
            candidates=self.candidates, irqn=dict(self.irqn_counts),
            repair_iterations=self.repair_iterations, calls=usage.calls,
            prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens,
            cost_usd=usage.cost_usd,
            seconds=round(sum(t.seconds for t in m.transitions), 6), config=self.config)

