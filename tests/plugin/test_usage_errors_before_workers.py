"""Under ``-n``, a usage error is reported by the controller before any xdist worker starts:
the run is opened (and checked) in ``pytest_configure``, before xdist brings up its nodes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_req2rank.providers.fake import write_fake_script


@pytest.mark.parametrize(("option", "message"), [
    ("--r2r-concurrency=0", "ERROR: --r2r-concurrency: must be greater than or equal to 1*"),
    ("--r2r-model=fake/absent", "ERROR: --r2r-model: fake/absent is not in the fake script*"),
    ("--r2r-suite=jsonl:missing.jsonl", "ERROR: --r2r-suite: *missing.jsonl: suite file not found*"),
    ("--r2r-model=nosuch/x", "ERROR: --r2r-model: LiteLLM cannot route model 'nosuch/x'*"),
    ("--r2r-judges=nosuch/y", "ERROR: --r2r-judges: LiteLLM cannot route model 'nosuch/y'*"),
    ("--r2r-json=blocked/results.json", "ERROR: --r2r-json: *blocked cannot be created*"),
])
def test_a_usage_error_starts_no_worker(pytester: pytest.Pytester, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch, option: str,
                                        message: str) -> None:
    for name, value in write_fake_script(tmp_path / "script.json",
                                         {"models": {"coder": [{"responses": [{"text": "x"}]}]}}
                                         ).items():
        monkeypatch.setenv(name, value)
    (pytester.path / "blocked").write_text("a file where a directory is expected\n")
    result = pytester.runpytest_subprocess("-n", "2", "-p", "no:cacheprovider", option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    result.stderr.fnmatch_lines([message])
    output = result.stdout.str() + result.stderr.str()
    assert "bringing up nodes" not in output, output
    assert not re.search(r"created: \d+/\d+ workers", output), output
    assert "Traceback" not in output
