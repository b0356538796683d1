"""``r2r/degraded:P``: its draws, its wrong answers (each fails a hidden test), and its
accepted@1 over many seeds, through the engine's own item runners and a real sandbox."""

from __future__ import annotations

import math

import pytest

from pytest_req2rank.execution import RunOptions, run_requirement, run_task
from pytest_req2rank.generation import instantiate, load_templates
from pytest_req2rank.models import ModelSpec, ProjectRequirement, Task
from pytest_req2rank.providers import (
    CompletionRequest,
    DegradedProvider,
    Message,
    ProviderConfigError,
    resolve_provider,
)
from pytest_req2rank.sandbox import ProcessSandbox
from pytest_req2rank.suites import load_humaneval

HUMANEVAL = load_humaneval()[:6]
TEMPLATES = ("word-frequency", "cart-pricing")
REQUIREMENTS = [instantiate(t) for t in load_templates() if t.id in TEMPLATES]


def _requirement_task(requirement: ProjectRequirement) -> Task:
    return Task(item_id=f"dynamic/{requirement.id}", dataset="dynamic", task_id=requirement.id,
                form="requirement", prompt=requirement.description, reference="",
                reference_files=requirement.reference)


def _request(task: Task, seed: int) -> CompletionRequest:
    return CompletionRequest(messages=(Message(role="user", content="solve"),), task=task,
                             seed=seed)


@pytest.mark.parametrize("text, message", [
    ("r2r/degraded:", "probability P from 0 to 1, got ''"),
    ("r2r/degraded:1.5", "got '1.5'"),
    ("r2r/degraded:nan", "got 'nan'"),
    ("r2r/degraded:high", "got 'high'"),
    ("r2r/degrade", "built-ins are r2r/reference, r2r/samples:PATH and r2r/degraded:P"),
])
def test_a_bad_quality_is_refused_with_what_to_write(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ModelSpec.parse(text)


def test_the_spec_and_provider() -> None:
    spec = ModelSpec.parse("r2r/degraded:0.7")
    assert (spec.kind, spec.quality, spec.is_builtin, str(spec)) == (
        "degraded", 0.7, True, "r2r/degraded:0.7")
    provider = resolve_provider(spec)
    assert isinstance(provider, DegradedProvider) and provider.offline
    assert provider.model == "r2r/degraded:0.7"
    with pytest.raises(ProviderConfigError, match="needs an item's hidden tests"):
        provider.complete(_request(HUMANEVAL[0], 1))


def test_the_draw_is_reproducible_and_its_rate_is_p() -> None:
    """Over 100 seeds x 164 tasks the share of reference answers is P within 4 standard
    errors, the same request always draws the same, and different P draw independently."""
    tasks = load_humaneval()
    requests = [_request(task, seed) for seed in range(100) for task in tasks]
    for quality in (0.0, 0.3, 0.9, 1.0):
        provider = DegradedProvider(ModelSpec.parse(f"r2r/degraded:{quality}"))
        share = sum(map(provider.draws_reference, requests)) / len(requests)
        bound = 4 * math.sqrt(quality * (1 - quality) / len(requests))
        assert abs(share - quality) <= bound, (quality, share)
    low, high = (DegradedProvider(ModelSpec.parse(f"r2r/degraded:{q}")) for q in (0.5, 0.6))
    both = [(low.draws_reference(r), high.draws_reference(r)) for r in requests[:4000]]
    assert both == [(low.draws_reference(r), high.draws_reference(r)) for r in requests[:4000]]
    # independent: about 0.5 x 0.4 of the requests get the reference from 0.5 but not from 0.6
    assert 0.17 < sum(a and not b for a, b in both) / len(both) < 0.23


def test_every_wrong_answer_fails_a_hidden_test(box: ProcessSandbox) -> None:
    """P = 0: every answer is a mutant, and the engine grades each one a failure (never
    success, never the sandbox's fault); requirements score below 100."""
    provider = resolve_provider("r2r/degraded:0")
    options = RunOptions(sandbox_timeout_s=5.0, seed=3)
    for task in HUMANEVAL:
        item = run_task(task, provider, box, options)
        assert item.status in ("wrong_answer", "runtime_error", "timeout", "syntax_error"), (
            task.task_id, item.status, item.reason)
        assert item.status != "syntax_error" or item.response == ""
        assert item.tests_passed < item.tests_total and item.score == 0.0
    for requirement in REQUIREMENTS:
        item = run_requirement(_requirement_task(requirement), requirement, provider, box,
                               options)
        assert item.status in ("wrong_answer", "runtime_error", "timeout"), item.reason
        assert item.score is not None and item.score < 100.0
        assert item.code is not None and item.code != dict(requirement.reference)


def test_p_one_is_the_reference(box: ProcessSandbox) -> None:
    provider = resolve_provider("r2r/degraded:1")
    for task in HUMANEVAL[:2]:
        assert run_task(task, provider, box, RunOptions(seed=1)).status == "success"


@pytest.mark.slow
def test_mean_accepted_at_1_over_many_seeds_is_p(box: ProcessSandbox) -> None:
    """P = 0.7 on 6 HumanEval tasks and 2 requirements over 15 seeds (120 items through the
    engine and the sandbox): accepted@1 is within 3 standard errors of P."""
    quality = 0.7
    provider = resolve_provider(f"r2r/degraded:{quality}")
    accepted = []
    for seed in range(15):
        options = RunOptions(sandbox_timeout_s=5.0, seed=seed)
        accepted += [run_task(task, provider, box, options).status == "success"
                     for task in HUMANEVAL]
        accepted += [run_requirement(_requirement_task(r), r, provider, box, options).status
                     == "success" for r in REQUIREMENTS]
    share = sum(accepted) / len(accepted)
    assert abs(share - quality) <= 3 * math.sqrt(quality * (1 - quality) / len(accepted)), share
