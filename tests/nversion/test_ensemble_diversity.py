"""NVersionEvaluator's diversity: measured once per task (the first ensemble check carries the
calls' usage), and on resume taken from a stored ensemble check unless one of its calls failed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pytest_req2rank.execution import RunOptions
from pytest_req2rank.judging import ApproachJudge
from pytest_req2rank.models import ItemResult, MBCSResult, NVersionRecord, SDPResult
from pytest_req2rank.nversion import NVersionEvaluator, SemanticMeasures
from pytest_req2rank.providers import LiteLLMProvider, ReferenceProvider
from pytest_req2rank.providers.fake import fake_calls, reset_fake_state, set_fake_script
from pytest_req2rank.sandbox import ProcessSandbox

CODES = ["def f(x):\n    return x + 1\n", "def f(x):\n    return sum((x, 1))\n",
         "def f(x):\n    y = x\n    y += 1\n    return y\n"]
KEY = "nversion/T_0"


@pytest.fixture
def evaluator(sandbox: ProcessSandbox) -> Iterator[NVersionEvaluator]:
    async def no_sleep(seconds: float) -> None:
        return None

    reset_fake_state()
    set_fake_script({"models": {"judge": [{"responses": [{"text": '{"same_approach": false}'}]}],
                                "emb": [{"responses": [{"embedding": [1.0, 0.5]}]}]}})
    measures = SemanticMeasures(judge=ApproachJudge(LiteLLMProvider("fake/judge",
                                                                    sleep=no_sleep)),
                                embedder=LiteLLMProvider("fake/emb", sleep=no_sleep))
    yield NVersionEvaluator(ReferenceProvider(), sandbox, RunOptions(), n=3, library={},
                            builtin=False, measures=measures)
    reset_fake_state()


def _stored(key: str, sdp: SDPResult, mbcs: MBCSResult) -> ItemResult:
    record = NVersionRecord(role="ensemble", task=key, versions=3, pattern="Pat-CL0",
                            diversity={"levenshtein": 0.25}, sdp=sdp, mbcs=mbcs)
    return ItemResult(item_id=f"{key}/Pat-CL0", dataset="nversion", task_id="T/0", model="m",
                      status="success", nversion=record)


def test_a_task_is_measured_once_and_its_first_check_carries_the_calls(
        evaluator: NVersionEvaluator) -> None:
    first: Any = evaluator._diversity_of(KEY, CODES, "Add one.")
    again: Any = evaluator._diversity_of(KEY, CODES, "Add one.")
    assert first["sdp"].sdp == 1.0 and first["mbcs"].mbcs == pytest.approx(1.0)
    assert first["diversity_usage"].calls == 4  # three pairs and one embedding call
    assert "diversity_usage" not in again and again["sdp"] == first["sdp"]
    assert len(fake_calls()) == 4


def test_resume_reuses_stored_values_but_retries_failed_calls(
        evaluator: NVersionEvaluator) -> None:
    kept = SDPResult(judge="fake/judge", sdp=0.5, pairs=3, judged=2, same=1, parse_failures=1)
    evaluator.remember(_stored(KEY, kept, MBCSResult(status="not_measured", reason="none")))
    reused: Any = evaluator._diversity_of(KEY, CODES, "Add one.")
    assert reused["sdp"] == kept and reused["diversity"] == {"levenshtein": 0.25}
    assert "diversity_usage" not in reused and fake_calls() == []
    failed = kept.model_copy(update={"call_failures": 1, "parse_failures": 0})
    evaluator.remember(_stored("nversion/T_1", failed, MBCSResult(status="measured", mbcs=0.9)))
    evaluator.remember(_stored("nversion/T_2", kept, MBCSResult(status="failed", reason="x")))
    for key in ("nversion/T_1", "nversion/T_2"):
        remeasured: Any = evaluator._diversity_of(key, CODES, "Add one.")
        assert remeasured["sdp"].judged == 3 and remeasured["mbcs"].status == "measured"
    assert len(fake_calls()) == 8
