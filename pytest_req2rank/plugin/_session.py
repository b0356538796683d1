"""Setting up a run in a pytest process: settings, plan, runner, controller."""

from __future__ import annotations

import pytest

from ..models import ItemResult
from ..plan import RunPlan, build_plan
from ..providers import LiteLLMProvider, ProviderConfigError, load_offline
from ..settings import DEFAULT_MODEL, SettingsError
from ..suites import SuiteError, load_suite
from ._config import load_settings
from ._controller import Controller
from ._keys import CONTROLLER_KEY, RUNNER_KEY
from ._runner import Runner


def configure_session(config: pytest.Config) -> None:
    """Resolve settings, load the suite and freeze (or, on a worker, receive) the plan."""
    settings = load_settings(config)
    try:
        tasks = load_suite(settings.suite, rootdir=config.rootpath)
    except SuiteError as exc:
        raise SettingsError(f"--r2r-suite: {exc}") from None
    by_id = {task.item_id: task for task in tasks}
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        plan = RunPlan.model_validate(workerinput["r2r_plan"])
        config.stash[RUNNER_KEY] = Runner(settings, plan, by_id)
        return
    plan = build_plan(tasks, model=settings.model, suite=settings.suite, seed=settings.seed,
                      sample=settings.sample)
    runner = Runner(settings, plan, by_id)
    _check_model(runner, [by_id[item_id].task_id for item_id in plan.item_ids])
    config.stash[RUNNER_KEY] = runner
    controller = Controller(settings, plan, config.rootpath, runner.sandbox.isolation)
    config.stash[CONTROLLER_KEY] = controller
    from ._reporting import ControllerPlugin

    config.pluginmanager.register(ControllerPlugin(controller), "req2rank-controller")


def _check_model(runner: Runner, task_ids: list[str]) -> None:
    """Check the model once, up front, so a broken samples file or an unroutable model name
    is one clear error rather than one failure per item."""
    model = runner.settings.model
    try:
        if model.startswith("r2r/"):
            load_offline(model, task_ids=task_ids)
        elif isinstance(runner.provider, LiteLLMProvider):
            runner.provider.validate()
    except ProviderConfigError as exc:
        raise SettingsError(f"--r2r-model: {exc}") from None


def header_lines(config: pytest.Config) -> list[str]:
    runner: Runner | None = config.stash.get(RUNNER_KEY, None)
    if runner is None:
        return []
    settings, plan = runner.settings, runner.plan
    model = plan.model
    if settings.model_is_default:
        model = (f"{DEFAULT_MODEL} (offline default: answers with each task's reference solution; "
                 "pass --r2r-model=MODEL to benchmark a model)")
    return [
        f"req2rank: run {plan.run_id} | seed {plan.seed} | suite {plan.suite} "
        f"({len(plan.item_ids)} items) | model {model}",
        f"req2rank: sandbox {runner.sandbox.isolation}",
    ]


def lost_item(controller: Controller, item_id: str, detail: str) -> ItemResult:
    """The result of an item whose worker crashed: infrastructure, kept and reported."""
    task_id = item_id.split("/", 1)[-1]
    lines = [line for line in detail.strip().splitlines() if line.strip()]
    return ItemResult(
        item_id=item_id,
        dataset=item_id.split("/", 1)[0],
        task_id=task_id,
        model=controller.plan.model,
        status="sandbox_error",
        reason="worker crashed while running this item: " + (lines[-1] if lines else "no detail"),
    )
