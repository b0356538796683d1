"""What the provider layer must not do: import litellm needlessly, override the user's environment,
or reach the network."""

from __future__ import annotations

import json
import socket
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_req2rank.providers import OFFLINE_DEFAULTS
from pytest_req2rank.providers._env import apply_offline_defaults, import_litellm

RunPython = Callable[..., subprocess.CompletedProcess[str]]


def test_offline_models_never_import_litellm(tmp_path: Path, run_python: RunPython) -> None:
    (tmp_path / "samples.jsonl").write_text('{"task_id": "t1", "completion": "    return 1\\n"}\n')
    result = run_python('''
        import json, sys
        from pytest_req2rank.models import Task
        from pytest_req2rank.providers import CompletionRequest, Message, resolve_provider
        from pytest_req2rank.providers._resolve import load_offline
        import pytest_req2rank.providers.fake

        task = Task(item_id="d/t1", dataset="d", task_id="t1", form="function", prompt="def f():\\n",
                    reference="def f():\\n    return 1\\n", entry_point="f", test="")
        request = CompletionRequest(messages=(Message(role="user", content="go"),), task=task)
        texts = [resolve_provider(m).complete(request).text
                 for m in ("r2r/reference", "r2r/samples:samples.jsonl")]
        load_offline("r2r/samples:samples.jsonl", task_ids=["t1"]).close()
        remote = resolve_provider("gpt-4o")  # built, never called
        print(json.dumps({"texts": texts, "litellm": "litellm" in sys.modules,
                          "openai": "openai" in sys.modules}))
    ''')
    report = json.loads(result.stdout)
    assert report == {"texts": ["```python\ndef f():\n    return 1\n```\n", "    return 1\n"],
                      "litellm": False, "openai": False}


def test_defaults_never_override_the_user() -> None:
    environ = {"LITELLM_MODE": "DEV", "HF_HUB_OFFLINE": "0"}
    applied = apply_offline_defaults(environ)
    assert environ["LITELLM_MODE"] == "DEV" and environ["HF_HUB_OFFLINE"] == "0"
    assert applied == {"LITELLM_LOCAL_MODEL_COST_MAP": "True",
                       "LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS": "True"}
    assert environ == {**OFFLINE_DEFAULTS, "LITELLM_MODE": "DEV", "HF_HUB_OFFLINE": "0"}


def test_importing_litellm_applies_the_defaults_first(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in OFFLINE_DEFAULTS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    import os

    import_litellm()
    assert os.environ["HF_HUB_OFFLINE"] == "0"
    assert {name: os.environ[name] for name in OFFLINE_DEFAULTS if name != "HF_HUB_OFFLINE"} == {
        name: value for name, value in OFFLINE_DEFAULTS.items() if name != "HF_HUB_OFFLINE"}


def test_the_first_call_imports_litellm_offline(run_python: RunPython,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    for name in OFFLINE_DEFAULTS:  # an in-process run in this worker may have set them
        monkeypatch.delenv(name, raising=False)
    result = run_python('''
        import json, os, sys
        from pytest_req2rank.providers import LiteLLMProvider
        provider = LiteLLMProvider("gpt-4o")
        print("litellm" in sys.modules)
        provider.validate()
        import litellm
        print(json.dumps({k: os.environ.get(k) for k in (
            "LITELLM_LOCAL_MODEL_COST_MAP", "LITELLM_MODE", "HF_HUB_OFFLINE")}))
        print(litellm.model_cost["gpt-4o"]["litellm_provider"])
    ''', env={"HF_HUB_OFFLINE": "0"})
    imported_before, defaults, provider = result.stdout.splitlines()
    assert imported_before == "False"
    assert json.loads(defaults) == {"LITELLM_LOCAL_MODEL_COST_MAP": "True",
                                    "LITELLM_MODE": "PRODUCTION", "HF_HUB_OFFLINE": "0"}
    assert provider == "openai"
    assert "fetch" not in result.stderr.lower()


def test_the_network_guard_fails_loudly() -> None:
    with pytest.raises(RuntimeError, match="tests must not use the network: getaddrinfo"):
        socket.getaddrinfo("example.com", 443)
    with socket.socket() as sock, pytest.raises(RuntimeError, match="tests must not use the network"):
        sock.settimeout(0.01)
        sock.connect(("203.0.113.7", 443))
    socket.getaddrinfo("127.0.0.1", 80)


def test_the_network_guard_covers_child_processes(run_python: RunPython) -> None:
    result = run_python('''
        import socket
        for target in (lambda: socket.getaddrinfo("pypi.org", 443),
                       lambda: socket.create_connection(("198.51.100.1", 80), timeout=0.01)):
            try:
                target()
            except RuntimeError as exc:
                print(exc)
    ''')
    assert result.stdout.splitlines() == [
        "tests must not use the network: getaddrinfo('pypi.org')",
        "tests must not use the network: getaddrinfo('198.51.100.1')",
    ]
