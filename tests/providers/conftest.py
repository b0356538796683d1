"""Fixtures for the provider tests: tasks, the scripted fake, a sleep that only records, subprocesses."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_req2rank.models import Task
from pytest_req2rank.providers import CompletionRequest, LiteLLMProvider, Message
from pytest_req2rank.providers.fake import LOG_ENV, reset_fake_state, write_fake_script

# Installed first in every subprocess these tests start: the same rule as tests/conftest.py.
NETWORK_GUARD = textwrap.dedent('''
    import ipaddress, sys
    def _loopback(host):
        if isinstance(host, bytes):
            host = host.decode(errors="replace")
        if not isinstance(host, str):
            return False
        if host in ("", "localhost"):
            return True
        try:
            return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
        except ValueError:
            return False
    def _guard(event, args):
        if event == "socket.getaddrinfo" and not _loopback(args[0]):
            raise RuntimeError(f"tests must not use the network: getaddrinfo({args[0]!r})")
        if event == "socket.connect" and isinstance(args[1], tuple) and not _loopback(args[1][0]):
            raise RuntimeError(f"tests must not use the network: connect({args[1]!r})")
    sys.addaudithook(_guard)
''')


def _task(task_id: str = "t1", reference: str = "def add(a, b):\n    return a + b\n") -> Task:
    return Task(
        item_id=f"demo/{task_id}", dataset="demo", task_id=task_id, form="function",
        prompt="def add(a, b):\n", reference=reference, entry_point="add",
        test="def check(candidate):\n    assert candidate(1, 2) == 3\n",
    )


def _ask(text: str = "write add", **options: Any) -> CompletionRequest:
    return CompletionRequest(messages=(Message(role="user", content=text),), **options)


@pytest.fixture
def make_task() -> Callable[..., Task]:
    """``make_task(task_id="t1", reference=...)``: a small function-form task."""
    return _task


@pytest.fixture
def ask() -> Callable[..., CompletionRequest]:
    """``ask(text, **request_options)``: a one-message request."""
    return _ask


@pytest.fixture(autouse=True)
def _clean_fake_state() -> Iterator[None]:
    reset_fake_state()
    yield
    reset_fake_state()


@pytest.fixture
def fake_script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[dict[str, Any]], Path]:
    """Install a script through the environment, as another process would see it; returns the log path."""

    def install(script: dict[str, Any]) -> Path:
        env = write_fake_script(tmp_path / "script.json", script)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        return Path(env[LOG_ENV])

    return install


@pytest.fixture
def delays() -> list[float]:
    """The waits the adapter asked for, in order; nothing really sleeps."""
    return []


@pytest.fixture
def make_provider(delays: list[float]) -> Callable[..., LiteLLMProvider]:
    async def record(seconds: float) -> None:
        delays.append(seconds)

    def make(model: str = "fake/coder", **options: Any) -> LiteLLMProvider:
        return LiteLLMProvider(model, sleep=record, **options)

    return make


@pytest.fixture
def run_python(tmp_path: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run code in a fresh interpreter with the network guard installed; fail on a non-zero exit."""

    def run(code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        script = tmp_path / "child.py"
        script.write_text(NETWORK_GUARD + textwrap.dedent(code))
        result = subprocess.run(
            [sys.executable, str(script)], capture_output=True, text=True, timeout=120,
            env={**os.environ, **(env or {})}, cwd=tmp_path, check=False,
        )
        assert result.returncode == 0, result.stderr
        return result

    return run
