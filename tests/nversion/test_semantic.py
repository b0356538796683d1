"""SDP through an approach judge and MBCS through an embedding model, over the scripted fake:
what is counted, what is an error, and what is not measured."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pytest_req2rank.judging import ApproachJudge
from pytest_req2rank.nversion._semantic import (
    MBCS_NOT_MEASURED,
    SDP_NOT_MEASURED,
    embedding_similarity,
    measure_mbcs,
    measure_sdp,
)
from pytest_req2rank.providers import LiteLLMProvider, ProviderError
from pytest_req2rank.providers.fake import fake_calls, reset_fake_state, set_fake_script

CODES = [f"def f(x):\n    return x  # MARK{k}\n" for k in range(4)]
SAME, DIFFERENT = '{"same_approach": true}', '{"same_approach": false}'
USAGE = {"prompt_tokens": 100, "completion_tokens": 5}


def _pair(i: int, j: int, response: dict[str, Any]) -> dict[str, Any]:
    return {"match": f"(?s)MARK{i}.*MARK{j}", "responses": [{**response, "usage": USAGE}
                                                            if "text" in response else response]}


@pytest.fixture
def fake() -> Iterator[Any]:
    async def no_sleep(seconds: float) -> None:
        return None

    def provider(name: str, rules: list[dict[str, Any]], **script: Any) -> LiteLLMProvider:
        set_fake_script({"models": {name: rules}, **script})
        return LiteLLMProvider(f"fake/{name}", sleep=no_sleep)

    reset_fake_state()
    yield provider
    reset_fake_state()


def test_sdp_counts_verdicts_and_keeps_failures_apart(fake: Any) -> None:
    judge = ApproachJudge(fake("judge", [
        _pair(0, 1, {"text": SAME}), _pair(0, 2, {"text": DIFFERENT}),
        _pair(0, 3, {"text": "not json"}), _pair(1, 2, {"text": DIFFERENT}),
        _pair(1, 3, {"error": "auth"}), _pair(2, 3, {"text": SAME})]))
    result, usage = measure_sdp(CODES, "Return x.", judge)
    assert result.status == "measured" and result.judge == "fake/judge"
    assert (result.pairs, result.judged, result.same) == (6, 4, 2)
    assert (result.parse_failures, result.call_failures) == (1, 1)
    assert result.sdp == 0.5  # 1 - 2 same / 4 judged: the failures are in neither
    assert result.reason is not None and result.reason.startswith("pair (0, 3): invalid answer")
    assert usage.calls == 6 and usage.prompt_tokens == 500  # five answers with usage
    assert len(fake_calls()) == 6


def test_sdp_with_every_pair_failed_is_failed_not_a_value(fake: Any) -> None:
    judge = ApproachJudge(fake("judge", [{"responses": [{"error": "bad_request"}]}]))
    result, _ = measure_sdp(CODES[:3], "t", judge)
    assert result.status == "failed" and result.sdp is None and result.call_failures == 3


def test_sdp_and_mbcs_without_their_models_are_not_measured() -> None:
    sdp, usage = measure_sdp(CODES, "t", None)
    assert (sdp.status, sdp.sdp, sdp.pairs, sdp.reason) == ("not_measured", None, 6,
                                                            SDP_NOT_MEASURED)
    assert usage.calls == 0
    mbcs, _ = measure_mbcs(CODES, None)
    assert (mbcs.status, mbcs.mbcs, mbcs.reason) == ("not_measured", None, MBCS_NOT_MEASURED)


def test_mbcs_is_the_mean_cosine_of_the_models_vectors(fake: Any) -> None:
    embedder = fake("emb", [{"match": "MARK0", "responses": [{"embedding": [1, 0]}]},
                            {"match": "MARK1", "responses": [{"embedding": [0, 1]}]},
                            {"responses": [{"embedding": [1, 1], "usage": USAGE}]}])
    result, usage = measure_mbcs(CODES[:3], embedder)
    assert result.status == "measured" and result.model == "fake/emb"
    assert result.mbcs == pytest.approx((0 + 2 ** -0.5 + 2 ** -0.5) / 3, abs=1e-6)
    assert usage.calls == 1 and usage.prompt_tokens == 100


def test_a_failed_embedding_call_is_the_error_never_a_vector(fake: Any) -> None:
    embedder = fake("emb", [{"match": "MARK1", "responses": [{"error": "not_found"}]},
                            {"responses": [{"embedding": [1, 0]}]}])
    result, usage = measure_mbcs(CODES[:3], embedder)
    assert result.status == "failed" and result.mbcs is None
    assert result.reason is not None and "NotFoundError" in result.reason
    assert usage.calls == 1


def test_embedding_similarity_is_the_largest_cosine_and_embeds_each_text_once(fake: Any
                                                                               ) -> None:
    similarity = embedding_similarity(fake("emb", [
        {"match": "MARK0", "responses": [{"embedding": [1, 0]}]},
        {"match": "MARK1", "responses": [{"embedding": [0, 1]}]},
        {"match": "MARK2", "responses": [{"embedding": [1, 1]}]},
        {"responses": [{"error": "server_error"}]}]))
    assert similarity(CODES[0], []) == 0.0
    assert similarity(CODES[0], [CODES[1], CODES[2]]) == pytest.approx(2 ** -0.5)
    assert similarity(CODES[1], [CODES[0]]) == pytest.approx(0.0)
    assert [call["input"] for call in fake_calls()] == [CODES[:3]]  # the rest from memory
    assert similarity.usage.calls == 1
    with pytest.raises(ProviderError):
        similarity(CODES[3], [CODES[0]])
