"""The docker backend where no real engine is needed: no engine at all, an engine that fails
in ways a real one cannot be made to on demand (a fake on a unix socket), reply parsing."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytester_output import shown_lines

from pytest_req2rank.sandbox import SandboxUnavailable, create_sandbox
from pytest_req2rank.sandbox._forkserver import reply_outcome

from .fake_docker import FakeEngine

BENCHMARK = (Path(__file__).parents[2] / "benchmarks" / "test_benchmark.py").read_text()


@pytest.fixture()
def broken_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeEngine]:
    server = FakeEngine(str(tmp_path / "docker.sock"), 500,
                        "layer store:\nmetadata corrupt")
    server.start()
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path / 'docker.sock'}")
    yield server
    server.shutdown()
    server.server_close()


def test_no_engine_is_a_clean_one_line_error(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path / 'nothing.sock'}")
    with pytest.raises(SandboxUnavailable) as caught:
        create_sandbox("docker")
    message = str(caught.value)
    assert "\n" not in message and "no Docker engine answers" in message
    assert "--r2r-sandbox=process" in message and str(tmp_path) in message


def test_no_engine_stops_the_run_with_one_line(pytester: pytest.Pytester, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(test_benchmark=BENCHMARK)
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path / 'nothing.sock'}")
    result = pytester.runpytest_subprocess("--r2r-sandbox=docker", "--r2r-suite=humaneval",
                                           "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = shown_lines(result.stderr.lines)
    assert len(errors) == 1 and errors[0].startswith("ERROR: no Docker engine answers at unix://")
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_an_engine_that_cannot_look_up_the_image(broken_engine: FakeEngine) -> None:
    with pytest.raises(SandboxUnavailable) as caught:
        create_sandbox("docker:example/python:test")
    message = str(caught.value)
    assert message == (f"the Docker engine at {os.environ['DOCKER_HOST']} cannot look up image "
                       "example/python:test: layer store: metadata corrupt")
    assert not any(path.startswith("/containers") for _, path in broken_engine.calls)


def test_a_reply_that_is_not_one_is_a_sandbox_error() -> None:
    broken = reply_outcome({"status": 0, "timed_out": False}, [b"", b""], "docker")
    assert broken.error is not None and "malformed reply" in broken.error
    fine = reply_outcome({"status": 9, "timed_out": True, "duration_s": 1.0, "truncated": False,
                          "files": [["out.txt", 2]]}, [b"o\xff", b"e", b"ok"], "docker")
    assert (fine.signal, fine.exit_code, fine.timed_out, fine.error) == (9, None, True, None)
    assert (fine.stdout, fine.stderr, fine.files) == ("o\ufffd", "e", {"out.txt": "ok"})
