"""Fail closed: where no bwrap can build a sandbox, the default refuses in one line and runs
nothing; a weaker mode runs only when named, and says so with a WARNING."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pytester_output import shown_lines

from pytest_req2rank.errors import ConfigurationError
from pytest_req2rank.sandbox import (
    PYTHON,
    ExecRequest,
    ProcessSandbox,
    SandboxUnavailable,
    create_sandbox,
)
from pytest_req2rank.sandbox._bwrap_binary import ENV_OVERRIDE

from .hiding import hidden, refusing_bwrap, system_bwraps, wheel_bwrap, why_not_hidable

BENCHMARK = (Path(__file__).parents[2] / "benchmarks" / "test_benchmark.py").read_text()
REFUSAL = "no sandbox with filesystem isolation can run here, so no model code will run"
WAYS_FORWARD = ("To enable one: ", "--r2r-sandbox=process:unshare", "--r2r-sandbox=process:rlimits")
USERNS_DISABLED = "No permissions to create new namespace"

Wrap = Callable[[list[str]], list[str]]
"""Turns a command into one that runs where no bwrap works."""


def assert_one_line_refusal(message: str) -> None:
    assert "\n" not in message and message.startswith("sandbox: " + REFUSAL), message
    assert all(part in message for part in WAYS_FORWARD), message


def test_a_bwrap_that_cannot_run_is_a_one_line_refusal(monkeypatch: pytest.MonkeyPatch,
                                                        nowhere_dir: Path) -> None:
    monkeypatch.setenv(ENV_OVERRIDE, str(nowhere_dir / "missing"))
    with pytest.raises(SandboxUnavailable) as missing:
        ProcessSandbox()
    assert_one_line_refusal(str(missing.value))
    assert f"{ENV_OVERRIDE}={nowhere_dir / 'missing'}: " in str(missing.value)
    assert isinstance(missing.value, ConfigurationError)  # the plugin makes it exit code 4
    monkeypatch.setenv(ENV_OVERRIDE, refusing_bwrap(nowhere_dir))
    for spec in ("process", "process:auto", "process:forkserver", "process:bwrap"):
        with pytest.raises(SandboxUnavailable) as refused:
            create_sandbox(spec)
        assert_one_line_refusal(str(refused.value))
        assert USERNS_DISABLED in str(refused.value)


def test_r2r_bwrap_names_the_binary_in_use(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_OVERRIDE, wheel_bwrap())
    with ProcessSandbox() as box:
        assert f"named by {ENV_OVERRIDE}={wheel_bwrap()}" in box.isolation
        outcome = box.run(ExecRequest(files={"main.py": "print(6 * 7)"}, argv=(PYTHON, "main.py")))
    assert outcome.stdout == "42\n", outcome


def _by_override(directory: Path) -> Wrap:
    refusing = refusing_bwrap(directory)
    return lambda argv: ["env", f"{ENV_OVERRIDE}={refusing}", *argv]


def _by_hiding(directory: Path) -> Wrap:
    """Every bwrap there is, the wheel's included, replaced by one that fails as bwrap does
    where user namespaces are disabled."""
    reason = why_not_hidable()
    if reason is not None:
        pytest.skip(reason)
    refusing = refusing_bwrap(directory)
    covers = {path: refusing for path in (wheel_bwrap(), *system_bwraps())}
    return lambda argv: ["env", "-u", ENV_OVERRIDE, *hidden(covers, argv)]


WAYS = {"hidden": _by_hiding, "override": _by_override}


@pytest.fixture
def nowhere_dir() -> Iterator[Path]:
    """A directory for a refusing bwrap that every uid can reach (pytest's tmp dirs are 0700,
    and as root the probe runs as the uid executions drop to)."""
    directory = Path(tempfile.mkdtemp(prefix="r2r-refusing-"))
    directory.chmod(0o755)
    yield directory
    shutil.rmtree(directory)


@pytest.fixture(params=sorted(WAYS))
def nowhere(request: pytest.FixtureRequest, nowhere_dir: Path) -> Wrap:
    return WAYS[request.param](nowhere_dir)


PROBE = """
import json, sys
from pytest_req2rank.sandbox import PYTHON, ExecRequest, ProcessSandbox, SandboxUnavailable
try:
    box = ProcessSandbox()
except SandboxUnavailable as exc:
    print(json.dumps({"refused": str(exc)}))
    sys.exit(0)
outcome = box.run(ExecRequest(files={"main.py": "import sys; open(sys.argv[1], 'w')"},
                              argv=(PYTHON, "main.py", sys.argv[1])))
print(json.dumps({"ran": outcome.model_dump()}))
"""


def test_with_no_working_bwrap_the_default_sandbox_refuses(nowhere: Wrap) -> None:
    marker = f"/tmp/r2r-ran-{uuid.uuid4().hex}"
    done = subprocess.run(nowhere([sys.executable, "-c", PROBE, marker]), capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert "refused" in report, report
    assert_one_line_refusal(report["refused"])
    assert USERNS_DISABLED in report["refused"]
    assert not os.path.exists(marker)


@pytest.fixture
def project(pytester: pytest.Pytester) -> Iterator[tuple[pytest.Pytester, str]]:
    """A benchmark of one I/O task whose sampled answer leaves a file in /tmp when it runs."""
    marker = f"/tmp/r2r-model-ran-{uuid.uuid4().hex}"
    pytester.makepyfile(test_benchmark=BENCHMARK)
    task = {"task_id": "double", "prompt": "Print twice the integer read from stdin.",
            "canonical_solution": "print(2 * int(input()))\n",
            "tests": [{"input": "2\n", "output": "4\n"}]}
    answer = f"```python\nopen({marker!r}, 'w').write('ran')\nprint(2 * int(input()))\n```\n"
    pytester.makefile(".jsonl", suite=json.dumps(task),
                      samples=json.dumps({"task_id": "double", "completion": answer}))
    yield pytester, marker
    if os.path.exists(marker):
        os.unlink(marker)


def test_the_plugin_stops_with_exit_code_4_and_runs_no_model_code(
    nowhere: Wrap, project: tuple[pytest.Pytester, str],
) -> None:
    pytester, marker = project
    command = [sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider",
               "--r2r-suite=jsonl:suite.jsonl", "--r2r-model=r2r/samples:samples.jsonl"]
    refused = pytester.run(*nowhere(command), timeout=120)
    assert refused.ret == pytest.ExitCode.USAGE_ERROR, refused.outlines + refused.errlines
    errors = shown_lines(refused.errlines)
    assert len(errors) == 1 and errors[0].startswith("ERROR: sandbox: "), errors
    assert_one_line_refusal(errors[0].removeprefix("ERROR: "))
    assert "INTERNALERROR" not in refused.stdout.str() + refused.stderr.str()
    assert not os.path.exists(marker), "model code ran although the sandbox refused"

    weak = pytester.run(*nowhere([*command, "--r2r-sandbox=process:unshare"]), timeout=120)
    assert weak.ret == pytest.ExitCode.OK, weak.outlines + weak.errlines
    weak.stdout.fnmatch_lines(["req2rank: sandbox isolation namespaces, weaker than the default *"
                               "| process: WARNING no filesystem isolation *"])
    assert os.path.exists(marker), "named explicitly, the weaker mode runs the model's code"
