"""With an embedding model configured, the generation pipeline's IRQN judges programs by the
embedding's cosine, and those embedding calls count in the task's generation cost."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_req2rank.execution import RunOptions
from pytest_req2rank.models import GenerationConfig
from pytest_req2rank.nversion import NVersionEvaluator, SemanticMeasures
from pytest_req2rank.providers import LiteLLMProvider
from pytest_req2rank.providers.fake import fake_calls, reset_fake_state, set_fake_script
from pytest_req2rank.sandbox import ProcessSandbox

from ._scripts import ADD3, RIGHT, fenced, no_sleep, script

JUDGE_ALL = GenerationConfig(solutions=1, p_qn1=1.0, p_qn2=0.0, irqn_iterations=1)


@pytest.fixture(autouse=True)
def _fresh_fake() -> Iterator[None]:
    reset_fake_state()
    yield
    reset_fake_state()


def _evaluator(sandbox: ProcessSandbox, embedder: LiteLLMProvider | None) -> NVersionEvaluator:
    return NVersionEvaluator(
        LiteLLMProvider("fake/nv", sleep=no_sleep), sandbox,
        RunOptions(seed=7, sandbox_timeout_s=3.0), n=3, library={}, builtin=False,
        measures=SemanticMeasures(embedder=embedder), generation=JUDGE_ALL)


def test_irqn_judges_by_the_embedding_and_counts_its_calls(nv_sandbox: ProcessSandbox) -> None:
    # Every program embeds to the same vector: cosine 1 > theta_ident, so IRQN negates.
    set_fake_script({"models": {
        "nv": script([fenced(code) for code in RIGHT[:3]]),
        "emb": [{"responses": [{"embedding": [1, 0], "usage": {"prompt_tokens": 5,
                                                                "completion_tokens": 0}}]}]}})
    evaluator = _evaluator(nv_sandbox, LiteLLMProvider("fake/emb", sleep=no_sleep))
    generation = evaluator.generated(ADD3)
    embedding_calls = [c for c in fake_calls() if c.get("outcome") == "embedding"]
    assert embedding_calls, "IRQN never asked the embedding model"
    assert generation.record.irqn["negate"] > 0
    chat_calls = len(fake_calls()) - len(embedding_calls)
    assert generation.usage.calls == chat_calls + len(embedding_calls)


def test_without_an_embedding_model_irqn_is_structural(nv_sandbox: ProcessSandbox) -> None:
    set_fake_script({"models": {"nv": script([fenced(code) for code in RIGHT[:3]])}})
    generation = _evaluator(nv_sandbox, None).generated(ADD3)
    assert all(call.get("outcome") != "embedding" for call in fake_calls())
    assert generation.record.irqn["negate"] == 0  # three structurally distinct programs
