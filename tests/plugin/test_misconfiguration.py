"""Every misconfiguration a new user can make stops the run at start: pytest's usage error
(exit code 4), exactly one line saying what, where and how to fix, no INTERNALERROR and no
traceback. The store and the outputs: test_misconfigured_outputs.py."""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest
from _usage import BENCHMARK, DATA, SERIAL, SUITE, make_bench, one_line, real_store

from pytest_req2rank.jsonl import MAX_LINE_BYTES
from pytest_req2rank.providers.fake import reset_fake_state, write_fake_script


@pytest.fixture
def bench(pytester: pytest.Pytester) -> pytest.Pytester:
    return make_bench(pytester)


def nothing_written(bench: pytest.Pytester) -> None:
    assert not (bench.path / ".req2rank").exists()


# --- the model, the generator, the judges --------------------------------------------------

@pytest.mark.parametrize("where", ["cli", "env", "ini"])
def test_an_empty_model_name_is_an_error_not_the_default(
    bench: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """``--r2r-model=$MODEL`` with MODEL unset benchmarked the built-in reference model."""
    args = [SUITE, *SERIAL]
    if where == "cli":
        args.append("--r2r-model=")
        expected = "--r2r-model: the value is empty (an unset shell variable?); give a value*"
    elif where == "env":
        monkeypatch.setenv("R2R_MODEL", "")
        expected = ("--r2r-model (from environment variable R2R_MODEL): the variable is set but "
                    "empty; give a value, or unset R2R_MODEL for the default (r2r/reference)")
    else:
        bench.makeini("[pytest]\nr2r_model =\n")
        expected = "--r2r-model (from ini option r2r_model): the value is empty; give a value*"
    one_line(bench.runpytest(*args), expected)
    nothing_written(bench)


@pytest.mark.parametrize(("option", "extra"), [
    ("--r2r-model", SUITE),
    ("--r2r-generator", "--r2r-rounds=1"),
    ("--r2r-judges", SUITE),
])
def test_an_unroutable_model_stops_at_start(bench: pytest.Pytester, option: str, extra: str) -> None:
    """It failed item by item with api_error: the check looked for a LiteLLM provider behind
    the response cache. The store is not built to check a name."""
    result = bench.runpytest(f"{option}=nosuchprovider/x", extra, *SERIAL)
    one_line(result, f"{option}: LiteLLM cannot route model 'nosuchprovider/x'; use a LiteLLM "
                     "model string such as gpt-4o*")
    nothing_written(bench)


@pytest.mark.parametrize(("script", "expected"), [
    (None, "--r2r-model: no fake script: set R2R_FAKE_SCRIPT to a JSON script file*"),
    ("{", "--r2r-model: R2R_FAKE_SCRIPT=*script.json: cannot read a JSON script*"),
    ({"models": {"other": [{"responses": [{"text": "x"}]}]}},
     "--r2r-model: fake/coder is not in the fake script (R2R_FAKE_SCRIPT=*script.json; scripted "
     "models: fake/other); add it under \"models\" or pick a scripted model"),
])
def test_a_fake_model_without_a_usable_script_stops_at_start(
    bench: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, script: object, expected: str
) -> None:
    monkeypatch.delenv("R2R_FAKE_SCRIPT", raising=False)
    if isinstance(script, dict):
        for name, value in write_fake_script(bench.path / "script.json", script).items():
            monkeypatch.setenv(name, value)
    elif isinstance(script, str):
        (bench.path / "script.json").write_text(script)
        monkeypatch.setenv("R2R_FAKE_SCRIPT", str(bench.path / "script.json"))
    try:
        one_line(bench.runpytest("--r2r-model=fake/coder", SUITE, *SERIAL), expected)
    finally:
        reset_fake_state()


# --- the baseline, the template library, the suite, the samples ----------------------------

@pytest.mark.parametrize(("make", "expected"), [
    (None, "--r2r-baseline: */base.json: no such results file; pass the results.json of an "
           "earlier run"),
    (lambda p: p.write_text("garbage"), "--r2r-baseline: */base.json: not a readable results "
                                        "JSON (Expecting value: line 1 column 1 (char 0))"),
    (lambda p: p.write_text('{"schema_version": 1}'), "--r2r-baseline: */base.json: not a valid "
                                                      "results JSON at the top level: *"),
    (lambda p: p.mkdir(), "--r2r-baseline: */base.json: not a readable results JSON (*Is a "
                          "directory*"),
])
def test_an_unreadable_baseline_stops_at_start(bench: pytest.Pytester, make, expected: str) -> None:
    if make is not None:
        make(bench.path / "base.json")
    one_line(bench.runpytest(SUITE, "--r2r-baseline=base.json", *SERIAL), expected)


TEMPLATE_SCHEMA_ERROR = 'id = "x"\ntitle = 1\n'


@pytest.mark.parametrize(("files", "templates", "expected"), [
    ({"a.toml": "id = [\n"}, "lib",
     "--r2r-templates: */lib/a.toml:2:1: <toml>: Invalid value; fix the template file, or point "
     "--r2r-templates at another library"),
    ({"a.toml": "x = 1\ny = ?\n", "b.toml": "z = [\n"}, "lib",
     "--r2r-templates: */lib/a.toml:2:5: <toml>: Invalid value (and 1 more problem in */lib); fix*"),
    ({"x.toml": TEMPLATE_SCHEMA_ERROR}, "lib",
     "--r2r-templates: */lib/x.toml: *; fix the template file*"),
    ({}, "lib", "--r2r-templates: */lib: no template files (*.toml) in the library; point "
                "--r2r-templates at a directory of template files (*.toml)"),
    ({}, "missing", "--r2r-templates: */missing: no such template library; point*"),
    ({}, "test_benchmark.py", "--r2r-templates: */test_benchmark.py: not a directory; point*"),
])
def test_a_broken_template_library_stops_at_start(
    bench: pytest.Pytester, files: dict[str, str], templates: str, expected: str
) -> None:
    library = bench.mkdir("lib")
    for name, text in files.items():
        (library / name).write_text(text)
    one_line(bench.runpytest(f"--r2r-templates={templates}", "--r2r-rounds=1", *SERIAL), expected)


GOOD = (DATA / "status_suite.jsonl").read_text().splitlines()[0]
BIG_LINE = json.dumps({"task_id": "big", "prompt": "p" * MAX_LINE_BYTES})


@pytest.mark.parametrize(("content", "expected"), [
    (None, "--r2r-suite: */suite.jsonl: suite file not found; check the path given to "
           "--r2r-suite=jsonl:PATH"),
    (f'{GOOD}\n{{"task_id": "b", "prompt": "p", x}}\n',
     "--r2r-suite: */suite.jsonl:2:33: invalid JSON: Expecting property name enclosed in double "
     "quotes"),
    (f'{GOOD}\n{{"task_id": "b", "prompt": 7, "canonical_solution": "x", "tests": []}}\n',
     "--r2r-suite: */suite.jsonl:2:28: field 'prompt' must be a string, got int"),
    (f'{GOOD}\n{{"task_id": "b"}}\n', "--r2r-suite: */suite.jsonl:2:1: cannot tell the form; *"),
    (GOOD.encode() + b'\n{"task_id": "\xff"}\n',
     "--r2r-suite: */suite.jsonl:2:14: not UTF-8 (byte 0xff); save the file as UTF-8"),
    (f"{GOOD}\n{BIG_LINE}\n",
     f"--r2r-suite: */suite.jsonl:2:1: the line is {len(BIG_LINE):,} bytes, over the limit of "
     "8,388,608 bytes (8 MiB) a line; shorten it (fewer or smaller tests, a shorter prompt or "
     "answer)"),
    ("dir", "--r2r-suite: */suite.jsonl: is a directory, not a JSONL file"),
])
def test_a_bad_suite_file_stops_at_start_at_its_exact_position(
    bench: pytest.Pytester, content: str | bytes | None, expected: str
) -> None:
    """A 50 MB line was accepted and copied into a 101 MB Q&A log, a 151 MB results JSON and
    151 MB in the store; a malformed line was reported at column 1."""
    path = bench.path / "suite.jsonl"
    if content == "dir":
        path.mkdir()
    elif isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    one_line(bench.runpytest("--r2r-suite=jsonl:suite.jsonl", *SERIAL), expected)
    nothing_written(bench)


BIG_SAMPLE = json.dumps({"task_id": "st_ok", "completion": "c" * MAX_LINE_BYTES})


@pytest.mark.parametrize(("content", "expected"), [
    ('{"task_id": "st_ok", "completion": 5}\n',  # the 5 is in column 36
     "--r2r-model: */samples.jsonl:1:36: \"completion\" must be a string, got int; *"),
    (BIG_SAMPLE + "\n", f"--r2r-model: */samples.jsonl:1:1: the line is {len(BIG_SAMPLE):,} bytes, "
                        "over the limit of 8,388,608 bytes (8 MiB) a line; *"),
])
def test_a_bad_samples_file_stops_at_start_at_its_exact_position(
    bench: pytest.Pytester, content: str, expected: str
) -> None:
    (bench.path / "samples.jsonl").write_text(content)
    one_line(bench.runpytest(SUITE, "--r2r-model=r2r/samples:samples.jsonl", *SERIAL), expected)


# --- the sandbox ---------------------------------------------------------------------------

# In subprocesses: an in-process run would import httpx and the docker SDK into this test
# process and leave them half-restored for later tests (pytester restores sys.modules).

def test_no_sandboxfusion_server_stops_at_start(bench: pytest.Pytester) -> None:
    result = bench.runpytest_subprocess(SUITE, "--r2r-sandbox=sandboxfusion:http://127.0.0.1:1",
                                        *SERIAL)
    one_line(result, "no SandboxFusion service answers at http://127.0.0.1:1 (ConnectError); "
                     "start one or pick another backend (--r2r-sandbox=process)")


def test_no_docker_engine_stops_at_start(bench: pytest.Pytester,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """One line naming the engine's socket, not an INTERNALERROR traceback."""
    socket = bench.path / "no-engine-here.sock"
    monkeypatch.setenv("DOCKER_HOST", f"unix://{socket}")
    one_line(bench.runpytest_subprocess(SUITE, "--r2r-sandbox=docker", *SERIAL),
             f"*Docker*{socket}*")


# --- resuming and other options ------------------------------------------------------------

@pytest.mark.parametrize(("args", "expected"), [
    (("--r2r-resume=nope", "--r2r-db=store.db"),
     "--r2r-resume: no run 'nope' in */store.db; `req2rank runs --db */store.db` lists its "
     "runs (the id is also in a run's header and results.json)"),
    (("--r2r-resume=nope", "--r2r-db=missing.db"),
     "--r2r-resume: no store at */missing.db, so no run 'nope' to resume; pass the --r2r-db (or "
     "--r2r-dir) of the interrupted run"),
    (("--r2r-resume=../etc",), "--r2r-resume: must be a run id such as 20261123-101500-3f9a1c*"),
    (("--r2r-weights=functionality=100",), "--r2r-weights: weights lacks dimension(s) quality*"),
    (("--r2r-sandbox=vm",), "--r2r-sandbox: unknown sandbox 'vm'; allowed: *"),
    (("--r2r-seed=soon",), "--r2r-seed: expected an integer, got 'soon'"),
])
def test_other_bad_options_are_one_line(bench: pytest.Pytester, args: tuple[str, ...],
                                        expected: str) -> None:
    real_store(bench.path / "store.db")
    one_line(bench.runpytest(SUITE, *args, *SERIAL), expected)
    assert not (bench.path / "missing.db").exists()


# --- relative paths ------------------------------------------------------------------------

# The -n 2 variant is slow; the fast loop keeps the serial one.
@pytest.mark.parametrize("workers", [SERIAL, pytest.param(("-n", "2"), marks=pytest.mark.slow)])
def test_relative_paths_resolve_from_where_they_were_given(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, workers: tuple[str, ...]
) -> None:
    """From a subdirectory: command-line and environment paths start there (a baseline in the
    current directory was "no such results file"), ini paths at the ini file, the default
    output directory under the rootdir."""
    pytester.makeini("[pytest]\nr2r_dir = from-ini\n")
    sub = pytester.mkdir("sub")
    (sub / "test_benchmark.py").write_text(BENCHMARK)
    shutil.copy(DATA / "status_suite.jsonl", sub / "suite.jsonl")
    shutil.copy(DATA / "status_samples.jsonl", sub / "samples.jsonl")
    monkeypatch.chdir(sub)
    monkeypatch.setenv("R2R_DB", "history.db")
    first = pytester.runpytest(
        "--r2r-suite=jsonl:suite.jsonl", "--r2r-model=r2r/samples:samples.jsonl",
        "--r2r-sandbox-timeout-ms=750", "--r2r-json=base.json", *workers)
    assert first.ret == pytest.ExitCode.TESTS_FAILED, first.stdout.str()
    baseline = json.loads((sub / "base.json").read_text())
    assert baseline["run"]["suite"] == f"jsonl:{sub / 'suite.jsonl'}"
    assert baseline["run"]["model"] == f"r2r/samples:{sub / 'samples.jsonl'}"
    second = pytester.runpytest(
        "--r2r-suite=jsonl:suite.jsonl", "--r2r-baseline=base.json", *workers)
    assert second.ret == pytest.ExitCode.OK, second.stdout.str()
    second.stdout.fnmatch_lines([f"q&a log: {pytester.path}/from-ini/runs/*/qa.jsonl | store: "
                                 f"{sub}/history.db"])
    with sqlite3.connect(sub / "history.db") as connection:
        assert connection.execute("SELECT count(*) FROM runs").fetchone()[0] == 2
    assert len(list((pytester.path / "from-ini" / "runs").glob("*/qa.jsonl"))) == 2
    assert not (sub / "from-ini").exists() and not (pytester.path / ".req2rank").exists()
