"""A run from plain Python: ``pytest_req2rank.run.Run`` without the pytest plugin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from pytest_req2rank.errors import ConfigurationError
from pytest_req2rank.judging import LLMJudge
from pytest_req2rank.models import ModelSpec, SuiteSpec
from pytest_req2rank.providers import CachedProvider, LiteLLMProvider
from pytest_req2rank.providers.fake import fake_calls, reset_fake_state, set_fake_script
from pytest_req2rank.run import Run
from pytest_req2rank.settings import Settings, SettingsError
from pytest_req2rank.store import Store

ADD = {"task_id": "add", "entry_point": "add",
       "prompt": 'def add(a: int, b: int) -> int:\n    """Return the sum of a and b."""\n',
       "canonical_solution": "    return a + b\n",
       "test": "def check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(0, 0) == 0\n"}
MUL = {"task_id": "mul", "entry_point": "mul",
       "prompt": 'def mul(a: int, b: int) -> int:\n    """Return the product of a and b."""\n',
       "canonical_solution": "    return a * b\n",
       "test": "def check(candidate):\n    assert candidate(2, 3) == 6\n    assert candidate(1, 1) == 1\n"}
SUM_CODE = "```python\ndef {name}(a: int, b: int) -> int:\n    return a + b\n```"


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    path = tmp_path / "two.jsonl"
    path.write_text("".join(json.dumps(task) + "\n" for task in (ADD, MUL)), encoding="utf-8")
    return path


@pytest.fixture
def coder() -> Iterator[None]:
    """``fake/coder`` answers every task with a sum: right for ``add``, wrong for ``mul``."""
    reset_fake_state()
    set_fake_script({"models": {"coder": [
        {"match": "product", "responses": [{"text": SUM_CODE.format(name="mul")}]},
        {"responses": [{"text": SUM_CODE.format(name="add")}]}]}})
    yield
    set_fake_script(None)
    reset_fake_state()


def evaluate_all(run: Run) -> None:
    for item_id in run.item_ids:
        run.record(run.evaluate(item_id))


def test_an_offline_humaneval_run_writes_its_results(tmp_path: Path) -> None:
    settings = Settings(suite=SuiteSpec.parse("humaneval"), sample=3, seed=11, dir=tmp_path)
    with Run.open(settings) as run:
        assert len(run.item_ids) == 3 and run.plan.seed == 11
        assert run.header()[0].startswith(f"req2rank: run {run.plan.run_id} | seed 11 | suite humaneval (3 items)")
        evaluate_all(run)
        document = run.finish()
    assert document is not None
    results = tmp_path / "runs" / run.plan.run_id / "results.json"
    written = json.loads(results.read_text(encoding="utf-8"))
    assert [item["item_id"] for item in written["items"]] == run.item_ids
    assert {item["status"] for item in written["items"]} == {"success"}  # the reference solutions
    assert written["summary"]["items_total"] == 3 and written["run"]["seed"] == 11
    assert (tmp_path / "runs" / run.plan.run_id / "qa.jsonl").read_text().count("\n") == 3
    store = Store(tmp_path / "req2rank.db")
    try:
        assert [item.item_id for item in store.items(run.plan.run_id)] == run.item_ids
    finally:
        store.close()


def test_a_fake_model_run_is_graded_item_by_item(tmp_path: Path, suite: Path, coder: None) -> None:
    settings = Settings(model=ModelSpec.parse("fake/coder"), suite=SuiteSpec.parse(f"jsonl:{suite}"),
                        seed=3, dir=tmp_path,
                        json=tmp_path / "results.json")
    with Run.open(settings) as run:
        evaluate_all(run)
        document = run.finish()
    assert document is not None
    statuses = {item.task_id: item.status for item in document.items}
    assert statuses == {"add": "success", "mul": "wrong_answer"}
    assert len(fake_calls(preflight=True)) == 1  # the preflight: one call before the items
    assert len(fake_calls(preflight=False)) == 2
    written = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert written["run"]["model"] == "fake/coder"
    assert written["summary"]["items_total"] == 2


def test_items_evaluated_by_a_joined_run_are_recorded_by_the_opened_one(
        tmp_path: Path, suite: Path, coder: None) -> None:
    """As an xdist worker: the plan travels, the results come back; only the opener records."""
    settings = Settings(model=ModelSpec.parse("fake/coder"), suite=SuiteSpec.parse(f"jsonl:{suite}"),
                        seed=3, dir=tmp_path,
                        preflight=False)
    with Run.open(settings) as run, Run.join(settings, run.plan) as worker:
        assert worker.controller is None and worker.item_ids == run.item_ids
        for item_id in worker.item_ids:
            run.record(worker.evaluate(item_id))
        with pytest.raises(ConfigurationError, match="only evaluates items"):
            worker.record(worker.evaluate(worker.item_ids[0]))
        document = run.finish()
    assert document is not None
    assert sorted(item.status for item in document.items) == ["success", "wrong_answer"]


def test_a_resumed_run_keeps_its_finished_items(tmp_path: Path) -> None:
    settings = Settings(suite=SuiteSpec.parse("humaneval"), sample=2, seed=4, dir=tmp_path)
    with Run.open(settings) as first:
        first.record(first.evaluate(first.item_ids[0]))
        first.finish(interrupted=True)
    resumed = settings.model_copy(update={"resume": first.plan.run_id})
    with Run.open(resumed) as run:
        assert run.plan == first.plan and run.kept == {first.item_ids[0]}
        assert "1 of 2 items kept" in run.header()[1]
        for item_id in run.item_ids:
            if item_id not in run.kept:
                run.record(run.evaluate(item_id))
        document = run.finish()
    assert document is not None and document.summary.items_total == 2


@pytest.mark.parametrize(("settings", "message"), [
    ({"model": "fake/absent"}, r"^--r2r-model: fake/absent is not in the fake script"),
    ({"suite": "jsonl:missing.jsonl"}, r"^--r2r-suite: .*missing\.jsonl"),
    ({"resume": "20260101-000000-abcdef"}, r"^--r2r-resume: no store at "),
])
def test_a_usage_error_is_one_line_before_any_item(
        tmp_path: Path, coder: None, settings: dict[str, object], message: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SettingsError, match=message) as info:
        Run.open(Settings.model_validate({"dir": tmp_path, **settings}))
    assert "\n" not in str(info.value)
    assert not (tmp_path / "req2rank.db").exists()


def test_the_runs_models_share_its_call_gate_of_concurrency_slots(
        tmp_path: Path, suite: Path, coder: None) -> None:
    """``--r2r-concurrency`` is the run's: one gate for the target and the judges alike."""
    settings = Settings(model=ModelSpec.parse("fake/coder"), suite=SuiteSpec.parse(f"jsonl:{suite}"),
                        judges=("fake/coder",), concurrency=3, dir=tmp_path, preflight=False)
    with Run.open(settings) as run:
        gate = run.evaluator.gate
        equipment = run.evaluator.equipment()
        models = [*equipment.providers.values(), *(judge.provider for judge in equipment.judges
                                                   if isinstance(judge, LLMJudge))]
        assert len(models) == 2
        inner = [model.inner if isinstance(model, CachedProvider) else model for model in models]
        assert all(isinstance(model, LiteLLMProvider) and model.gate is gate for model in inner)
        assert gate.slots == 3


def test_an_evaluator_builds_its_models_once_when_threads_ask_at_once(
        tmp_path: Path, suite: Path, coder: None) -> None:
    settings = Settings(model=ModelSpec.parse("fake/coder"), suite=SuiteSpec.parse(f"jsonl:{suite}"),
                        dir=tmp_path, preflight=False)
    with Run.open(settings) as run, ThreadPoolExecutor(max_workers=8) as pool:
        built = list(pool.map(lambda _: run.evaluator.equipment(), range(8)))
    assert all(equipment is built[0] for equipment in built)
    assert built[0].judges == [] and built[0].nversion is None and built[0].templates == {}


def test_a_process_evaluating_offline_models_loads_no_model_machinery(tmp_path: Path) -> None:
    """As a worker of a static suite answered by the built-in model: no look-ahead thread,
    no store, no asyncio (the call gate is built all the same), no judges or generator."""
    code = (
        "import sys, threading\n"
        "from pytest_req2rank.models import SuiteSpec\n"
        "from pytest_req2rank.run import Run\n"
        "from pytest_req2rank.settings import Settings\n"
        f"settings = Settings(suite=SuiteSpec.parse('humaneval'), sample=2, dir={str(tmp_path)!r})\n"
        "with Run.open(settings, controller=False) as run:\n"
        "    run.look_ahead(run.item_ids)\n"
        "    assert all(run.evaluate(i).status == 'success' for i in run.item_ids)\n"
        "    assert run.evaluator.equipment().store is None\n"
        "    assert not [t for t in threading.enumerate() if t.name.startswith('r2r-item')]\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(done.stdout.split())
    heavy = {"asyncio", "litellm", "sqlite_utils", "pytest_req2rank.judging",
             "pytest_req2rank.generation", "pytest_req2rank.nversion"}
    assert not loaded & heavy, sorted(loaded & heavy)


@pytest.mark.parametrize(("settings", "message"), [
    ("model=ModelSpec.parse('nosuch/x')", "--r2r-model: LiteLLM cannot route model 'nosuch/x'"),
    ("judges=('nosuch/y',)", "--r2r-judges: LiteLLM cannot route model 'nosuch/y'"),
    ("model=ModelSpec.parse('fake/coder')", "--r2r-model: no fake script: set R2R_FAKE_SCRIPT"),
    ("json=blocked / 'results.json'", "--r2r-json: {blocked} cannot be created: "),
    ("db=blocked / 'sub' / 'req2rank.db'", "--r2r-db: {blocked}/sub/req2rank.db: its directory "),
])
def test_what_the_settings_show_wrong_is_refused_before_the_suite_is_drawn(
        tmp_path: Path, settings: str, message: str) -> None:
    """Drawing the dynamic suite (the generator, numpy, the template library) is most of a
    usage error's time: a wrong model name is refused before it, an unroutable one without
    importing LiteLLM, and so is an output under a file."""
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory\n")
    message = message.format(blocked=blocked)
    probe = (
        "import sys\nfrom pathlib import Path\n"
        "from pytest_req2rank.models import ModelSpec\n"
        "from pytest_req2rank.run import Run\n"
        "from pytest_req2rank.settings import Settings, SettingsError\n"
        f"blocked = Path({str(blocked)!r})\n"
        "try:\n"
        f"    Run.open(Settings(dir=Path({str(tmp_path / 'out')!r}), {settings}))\n"
        "except SettingsError as exc:\n"
        "    print(exc)\n"
        "print(' '.join(sorted(m for m in ('pytest_req2rank.generation', 'litellm', 'numpy')"
        " if m in sys.modules)))\n"
    )
    no_run_settings = {k: v for k, v in os.environ.items() if not k.startswith("R2R_")}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True, env=no_run_settings)
    refusal, loaded = done.stdout.splitlines()
    assert refusal.startswith(message), done.stdout
    assert loaded == "", done.stdout
    assert not (tmp_path / "out").exists(), "an output directory was made before the refusal"
