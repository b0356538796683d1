"""A scripted fake LLM provider, for testing benchmark suites offline and deterministically.

``fake/<name>`` models are served in-process by a ``litellm.CustomLLM``
registered in ``litellm.custom_provider_map``; the plugin's LiteLLM adapter
registers it by itself when asked for a ``fake/`` model, so
``pytest --r2r-model=fake/coder`` exercises the real adapter (retries,
accounting, concurrency cap) without a network.

The script is a JSON file named by ``R2R_FAKE_SCRIPT``, so pytest-xdist
workers and pytester subprocesses read the same one (:func:`set_fake_script`
sets one for the current process only)::

    {
      "models": {
        "coder": [
          {"match": "FizzBuzz",
           "responses": [{"error": "rate_limit", "retry_after": 2},
                         {"text": "```python\\ndef fizzbuzz(n): ...\\n```",
                          "usage": {"prompt_tokens": 120, "completion_tokens": 40}}]},
          {"responses": [{"text": "I cannot help with that."}]}
        ]
      },
      "prices": {"coder": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}}
    }

A model's rules are tried in order against the last user message (``match`` is
a regex searched in it; a rule without one matches everything); the first
matching rule answers. Its ``responses`` are used in order, per process, and
the last one repeats. A response is ``{"text": ...}`` or ``{"error": kind}``
with kind one of ``rate_limit``, ``timeout``, ``server_error``,
``service_unavailable``, ``connection``, ``auth``, ``bad_request``,
``not_found``, ``context_window``, ``content_policy``, ``missing_key`` (an
``InternalServerError`` saying "Missing credentials", as LiteLLM reports a missing
OpenAI key), ``permission`` (403), ``quota`` (a 429 saying the quota is exhausted) and
``unreachable`` (a refused connection naming the URL tried), raised as the real
litellm exception. Optional keys: ``usage`` (token counts; without it usage is
unknown; ``reasoning_tokens`` among them are reported as a reasoning model's),
``retry_after`` (seconds, sent as a Retry-After header with an
error), ``delay_s`` (hold the call that long, to simulate a slow model), and
for a ``text`` answer ``finish_reason`` (``stop``, the default; ``length`` for
an answer cut by the token limit; ``content_filter``) and ``reasoning`` (sent
as the message's ``reasoning_content``, as a server with a reasoning parser does).
``prices`` registers ``fake/<name>`` in litellm's price map, so costs can be
checked; ``info`` its model information (``max_output_tokens``,
``supports_reasoning``: it then takes a reasoning effort, ``supports_response_schema``:
it is asked for structured output with a JSON Schema), e.g.
``"info": {"thinker": {"max_output_tokens": 4096, "supports_reasoning": true}}``.

A run's preflight asks every model once, before the first item, with
:data:`~pytest_req2rank.providers.PREFLIGHT_PROMPT` (an embedding model: that one text).
The fake answers it ``"ok"`` (an embedding: a fixed vector), with unknown usage and
without consuming any response, so scripts written for the items are unaffected, unless
a rule whose ``match`` matches the prompt is scripted: that rule answers it as usual, which
makes the preflight fail on purpose (``{"match": "req2rank preflight", "responses":
[{"error": "auth"}]}``). A rule without ``match`` never answers it.

Every call is kept in memory (:func:`fake_calls`) and appended as one JSON line
to the file named by ``R2R_FAKE_LOG`` (:func:`read_fake_log`), with model,
messages, temperature, max_tokens, max_completion_tokens, seed, response_format,
reasoning_effort (``None`` when not sent), the rule and
response used, ``outcome`` (``text``, an error kind or ``script_error``),
``in_flight`` (fake calls running in this process when it started), pid, and
``preflight: true`` for the preflight's calls.

In a test::

    env = write_fake_script(tmp_path / "script.json", {"models": {"coder": [...]}})
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    ...  # run pytest --r2r-model=fake/coder, in-process or in a subprocess
    assert len(read_fake_log()) == 3

and call :func:`reset_fake_state` in a fixture's teardown. Only
:func:`register_fake_provider` imports litellm.
"""

from __future__ import annotations

from ._register import register_fake_provider, reset_fake_state
from ._script import LOG_ENV, SCRIPT_ENV, FakeScriptError, parse_script, write_fake_script
from ._state import check_scripted, declares_info, fake_calls, read_fake_log, set_fake_script

__all__ = [
    "LOG_ENV",
    "SCRIPT_ENV",
    "FakeScriptError",
    "check_scripted",
    "declares_info",
    "fake_calls",
    "parse_script",
    "read_fake_log",
    "register_fake_provider",
    "reset_fake_state",
    "set_fake_script",
    "write_fake_script",
]
