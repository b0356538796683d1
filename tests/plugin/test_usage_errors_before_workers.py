"""Under ``-n``, a usage error is reported by the controller before any xdist worker starts:
the run is opened (and checked) in ``pytest_configure``, before xdist brings up its nodes."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_req2rank.providers.fake import write_fake_script


@pytest.mark.parametrize(("option", "message"), [
    ("--r2r-concurrency=0", "ERROR: --r2r-concurrency: must be greater than or equal to 1*"),
    ("--r2r-model=fake/absent", "ERROR: --r2r-model: fake/absent is not in the fake script*"),
    ("--r2r-suite=jsonl:missing.jsonl", "ERROR: --r2r-suite: *missing.jsonl: suite file not found*"),
])
def test_a_usage_error_starts_no_worker(pytester: pytest.Pytester, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch, option: str,
                                        message: str) -> None:
    for name, value in write_fake_script(tmp_path / "script.json",
                                         {"models": {"coder": [{"responses": [{"text": "x"}]}]}}
                                         ).items():
        monkeypatch.setenv(name, value)
    result = pytester.runpytest_subprocess("-n", "2", "-p", "no:cacheprovider", option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()
    result.stderr.fnmatch_lines([message])
    output = result.stdout.str() + result.stderr.str()
    assert "bringing up nodes" not in output and "created:" not in output, output
    assert "Traceback" not in output
