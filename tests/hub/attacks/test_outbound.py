"""Attacks on what the hub calls: a model string that names an address (server-side request
forgery, with the answer read back), a path, a look-alike of another model, a provider the
operator did not allow; and a provider's error body published in the re-verification
reasons. Over HTTP against a served hub, with an attacker's server on loopback that must
receive nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from forgery import SCHEDULE, AttackerServer, forged, judged_by, wait_for
from hub_server import Hub, hub_process, make_items, rechain, refused

from pytest_req2rank.providers import CompletionRequest, LiteLLMProvider, Message, ProviderError


def test_the_package_would_send_a_request_to_the_address_an_oobabooga_model_names(
        _modules_kept_across_runs: None) -> None:
    """The attack is real: LiteLLM takes an http(s) URL in an ``oobabooga/`` model string
    as the address to call, so a hub that replayed such a run would POST there."""
    with AttackerServer().serving() as attacker:
        provider = LiteLLMProvider(f"oobabooga/{attacker.url}")
        try:
            provider.complete(CompletionRequest(messages=(Message(role="user", content="hi"),),
                                                timeout_s=10))
        except ProviderError:
            pass  # whatever LiteLLM makes of the answer: the request was sent
    assert attacker.received and attacker.received[0].path == "/v1/chat/completions"


@pytest.mark.parametrize("model", [
    "oobabooga/{url}", "oobabooga/{url}/v1", "huggingface/{url}/generate", "openai/{url}",
])
def test_a_run_relabelled_as_a_model_at_an_address_is_refused(hub: Hub, user: str,
                                                              model: str) -> None:
    with AttackerServer().serving() as attacker, hub.client(user) as client:
        message = refused(client.post("/api/submissions", json=forged(
            client, model=model.format(url=attacker.url))), 422, "model_url")
        assert "carries a URL; the hub never calls an address a submission names" in message
    assert attacker.received == []


@pytest.mark.parametrize(("model", "code"), [
    (" r2r/samples:../x", "model_name"),           # passed a startswith("r2r/samples") guard
    ("r2r/samples:/dev/zero", "model_path"),       # a replay reading it would spin a core
    ("r2r/samples:../../etc/passwd", "model_path"),
    ("/dev/zero", "model_path"),
    ("gpt-4\u043e", "model_name"),                 # a Cyrillic o: looks like gpt-4o
    ("gpt-4o\u200b", "model_name"),                # a zero-width space after gpt-4o
    ("\uff47\uff50\uff54-4o", "model_name"),       # fullwidth letters: gpt-4o after NFKC
    ("gpt-4o ", "model_name"),                     # a trailing space: two rows for one model
    ("gpt\u00a04o", "model_name"),                 # a no-break space
    ("gpt-4o\u202e", "model_name"),                # a right-to-left override: shown reversed
    ("gpt-4o\n", "model_name"),                    # a control character
    ("gpt-\u0391-4o", "model_name"),               # a Greek capital alpha
    ("gpt-4o\u0301", "model_name"),                # a combining accent (NFKC composes none)
    ("gpt-4o@http://127.0.0.1:1/v1", "model_url"),  # an address after the name
    ("ollama/llama3", "model_provider"),           # Ollama: localhost:11434 unless configured
    ("hosted_vllm/qwen", "model_provider"),        # an address from configuration only
])
def test_model_names_that_name_a_path_or_pass_for_another_are_refused(
        hub: Hub, user: str, model: str, code: str) -> None:
    with hub.client(user) as client:
        message = refused(client.post("/api/submissions", json=forged(client, model=model)),
                          422, code)
        assert message.isascii()  # the look-alike is shown escaped, never as itself
        assert model.strip() not in [row["model"] for row in
                                     client.get("/api/leaderboard").json()["rows"]]


@pytest.mark.parametrize(("judge", "code"), [
    ("oobabooga/{url}/v1", "model_url"),  # the replay would ask it to judge the answers again
    ("openai/{url}", "model_url"),
    ("gpt-4\u043e", "model_name"),        # passes for gpt-4o on the run's page
    ("ollama/llama3", "model_provider"),   # an address from configuration only
])
def test_a_run_judged_by_a_model_at_an_address_or_passing_for_another_is_refused(
        hub: Hub, user: str, judge: str, code: str) -> None:
    """An LLM judge is a model the hub calls (it asks it again on the replay's sample): its
    name meets the model's checks at submission, and the judge's address receives nothing."""
    with AttackerServer().serving() as attacker, hub.client(user) as client:
        name = judge.format(url=attacker.url)
        items = [judged_by(item, name, 99.0) for item in make_items()]
        message = refused(client.post("/api/submissions", json=forged(
            client, items, model="r2r/reference", judges=[name], execution_weight=0.7)),
            422, code)
        assert message.startswith(f"run.judges[0] {name!a}: ") and message.isascii()
        unverified = client.get("/api/leaderboard/unverified").json()["rows"]
    assert attacker.received == []
    assert not any(ascii(name) in row["why"] for row in unverified)


def test_a_model_the_hub_does_not_call_is_kept_apart_not_ranked(hub: Hub, user: str) -> None:
    """The hub's default providers are the hosted ones: a Hugging Face model's run (a
    provider that takes URLs as models, not allowed here) is kept but never ranked."""
    with hub.client(user) as client:
        reply = client.post("/api/submissions", json=forged(
            client, model="huggingface/bigcode/starcoder2-15b"))
        assert reply.status_code == 201 and reply.json()["status"] == "unverified", reply.text
        assert reply.json()["receipt"]["status"] == "unverified"
        assert "huggingface/bigcode/starcoder2-15b" not in [
            row["model"] for row in client.get("/api/leaderboard").json()["rows"]]
        listed = {row["id"]: row for row in
                  client.get("/api/leaderboard/unverified").json()["rows"]}
        assert "this hub does not call huggingface models (its R2R_HUB_REVERIFY_PROVIDERS: " \
               "hosted)" in listed[reply.json()["id"]]["why"]


@pytest.mark.slow  # the served hub's schedule re-verifies it
@pytest.mark.parametrize(("field", "name"), [
    ("model", "oobabooga/{url}/v1"), ("model", " r2r/samples:/dev/zero"),
    ("judge", "oobabooga/{url}/v1"),
])
def test_a_run_kept_before_the_check_is_replayed_without_calling_what_it_names(
        tmp_path: Path, field: str, name: str) -> None:
    """A hub upgraded with such a run in its database (its model, or its LLM judge,
    rewritten there, as an earlier version took it): its re-verification calls nothing the
    run names. The run is kept and rewritten while the hub re-verifies nothing, then served
    by a hub that does (else its schedule could replay the run before it was rewritten)."""
    providers = {"R2R_HUB_REVERIFY_PROVIDERS": "hosted,oobabooga,huggingface"}
    with AttackerServer().serving() as attacker:
        with hub_process(tmp_path / "hub", env=providers) as hub, \
                hub.client(hub.token("mallory")) as client:
            judged = {"judges": ["fake/judge"], "execution_weight": 0.7} \
                if field == "judge" else {}
            items = [judged_by(item, "fake/judge", 50.0 + 5 * n)
                     for n, item in enumerate(make_items())] if judged else None
            kept = client.post("/api/submissions", json=forged(
                client, items, model="acme/coder", **judged))
            assert kept.status_code == 201 and kept.json()["status"] == "accepted", kept.text
            submission, name = kept.json()["id"], name.format(url=attacker.url)
            if field == "model":
                hub.sql("UPDATE submissions SET model = :name, document = json_set(document, "
                        "'$.run.model', :name) WHERE id = :id", name=name, id=submission)
            else:
                hub.sql("UPDATE submissions SET document = json_set(document, "
                        "'$.run.judges[0]', :name) WHERE id = :id", name=name, id=submission)
        with hub_process(tmp_path / "hub", env={**SCHEDULE, **providers}) as hub, \
                hub.client() as client:
            details = wait_for(client, submission,
                               lambda details: details["history"][-1]["actor"] == "reverify")
    assert attacker.received == []
    assert details["status"] not in ("accepted", "verified")
    replay = details["reverification"]["replays"][1 if field == "model" else 0]
    assert replay["status"] == "unverifiable" and replay["items"] == []
    assert replay["reasons"][0].startswith("the hub does not call " if field == "model" else
                                           f"its scores come from the LLM judge {name!a}")


@pytest.mark.slow  # two replays, the model's through the real LiteLLM client
def test_a_providers_error_body_is_not_published(tmp_path: Path) -> None:
    """The operator allows a provider served at an address of its own (``hosted_vllm`` at
    ``HOSTED_VLLM_API_BASE``); its error answers reach the hub's log, never the public
    reasons."""
    secret = "SECRET-7f3a answered by the provider"
    provider = AttackerServer(status=401, body={"error": {"message": secret, "code": 401}})
    with provider.serving():
        env = {**SCHEDULE, "R2R_HUB_REVERIFY_PROVIDERS": "hosted,hosted_vllm",
               "HOSTED_VLLM_API_BASE": f"{provider.url}/v1", "R2R_HUB_REVERIFY_ATTEMPTS": "1"}
        with hub_process(tmp_path / "hub", env=env) as hub, \
                hub.client(hub.token("mallory")) as client:
            reply = client.post("/api/submissions", json=forged(
                client, model="hosted_vllm/coder", drawn=5, rounds=5))
            assert reply.status_code == 201, reply.text
            submission = reply.json()["id"]
            details = wait_for(client, submission,
                               lambda details: details["history"][-1]["actor"] == "reverify")
            published = [json.dumps(details), client.get(f"/submissions/{submission}").text,
                         json.dumps(client.get("/api/leaderboard/unverified").json()),
                         client.get("/unverified").text]
    assert provider.received, "the replay asked the operator's endpoint"
    model_replay: dict[str, Any] = details["reverification"]["replays"][1]
    assert model_replay["status"] == "unverifiable" and model_replay["reasons"][0].startswith((
        "no answer of hosted_vllm/coder to compare: its 5 calls failed on the hub (5 api_error)",
        "the replay stopped before writing its results"))  # a preflight that stops the run
    assert not any(secret.split()[0] in page for page in published)
    assert secret.split()[0] in (tmp_path / "hub" / "serve.log").read_text()  # the operator's


@pytest.mark.slow  # two replays, the model's through the real LiteLLM client
def test_a_runs_api_base_is_never_where_the_replay_asks(tmp_path: Path) -> None:
    """A run of a provider the operator allows (``hosted_vllm``, at the operator's own
    ``HOSTED_VLLM_API_BASE``) whose settings name the submitter's server as ``api_base``
    (``--r2r-api-base``): the replay asks the operator's server, and the submitter's
    receives nothing."""
    with AttackerServer().serving() as operator, AttackerServer().serving() as attacker:
        env = {**SCHEDULE, "R2R_HUB_REVERIFY_PROVIDERS": "hosted,hosted_vllm",
               "HOSTED_VLLM_API_BASE": f"{operator.url}/v1", "R2R_HUB_REVERIFY_ATTEMPTS": "1"}
        with hub_process(tmp_path / "hub", env=env) as hub, \
                hub.client(hub.token("mallory")) as client:
            payload = forged(client, model="hosted_vllm/coder", drawn=5, rounds=5)
            payload["results"]["run"]["settings"]["api_base"] = f"{attacker.url}/v1"
            reply = client.post("/api/submissions", json=rechain(payload))
            assert reply.status_code == 201, reply.text
            details = wait_for(client, reply.json()["id"],
                               lambda details: details["history"][-1]["actor"] == "reverify")
    assert attacker.received == []
    assert any(request.path == "/v1/chat/completions" for request in operator.received)
    assert details["reverification"]["replays"][1]["kind"] == "model"
