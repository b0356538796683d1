"""The per-process side of a run: tasks of the plan, the provider and the sandbox, lazily built."""

from __future__ import annotations

import os
from functools import cached_property

from ..execution import RunOptions, run_task
from ..models import ItemResult, Task
from ..plan import RunPlan
from ..providers import Provider, resolve_provider
from ..sandbox import Sandbox, create_sandbox
from ..settings import Settings


class Runner:
    """Runs items on one process (an xdist worker, or the only process without xdist)."""

    def __init__(self, settings: Settings, plan: RunPlan, tasks: dict[str, Task]) -> None:
        self.settings = settings
        self.plan = plan
        self.tasks = tasks

    def task(self, item_id: str) -> Task:
        return self.tasks[item_id]

    @cached_property
    def provider(self) -> Provider:
        return resolve_provider(
            self.settings.model,
            api_base=self.settings.api_base,
            concurrency=self.settings.concurrency,
        )

    @cached_property
    def sandbox(self) -> Sandbox:
        return create_sandbox(self.settings.sandbox)

    @cached_property
    def options(self) -> RunOptions:
        return RunOptions(
            max_tokens=self.settings.max_tokens,
            temperature=self.settings.temperature,
            seed=self.plan.seed,
            api_timeout_s=self.settings.timeout,
            sandbox_timeout_s=self.settings.sandbox_timeout_s,
            worker=os.environ.get("PYTEST_XDIST_WORKER", "main"),
        )

    def evaluate(self, task: Task) -> ItemResult:
        return run_task(task, self.provider, self.sandbox, self.options)

    def close(self) -> None:
        if "sandbox" in self.__dict__:
            self.sandbox.close()
        if "provider" in self.__dict__:
            self.provider.close()
