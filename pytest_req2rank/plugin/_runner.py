"""The per-process side of a run: tasks of the plan, the provider and the sandbox, lazily built."""

from __future__ import annotations

import os
from functools import cached_property
from pathlib import Path

from ..execution import RunOptions, run_task
from ..models import ItemResult, Task
from ..plan import RunPlan
from ..providers import CachedProvider, Provider, resolve_provider
from ..sandbox import Sandbox, create_sandbox
from ..settings import Settings
from ..store import Store


class Runner:
    """Runs items on one process (an xdist worker, or the only process without xdist).

    Every model answer is written to the store's response cache as it arrives,
    keyed by run id; a resumed run (same run id) is answered from the cache and
    returns items that had already finished without running them again.
    """

    def __init__(
        self, settings: Settings, plan: RunPlan, tasks: dict[str, Task], store_path: Path
    ) -> None:
        self.settings = settings
        self.plan = plan
        self.tasks = tasks
        self.store_path = store_path

    def task(self, item_id: str) -> Task:
        return self.tasks[item_id]

    @cached_property
    def store(self) -> Store:
        return Store(self.store_path)

    @cached_property
    def provider(self) -> Provider:
        provider = resolve_provider(
            self.settings.model,
            api_base=self.settings.api_base,
            concurrency=self.settings.concurrency,
        )
        if provider.offline:
            return provider
        return CachedProvider(
            provider, self.store, namespace=self.plan.run_id, api_base=self.settings.api_base
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
        if self.settings.resume:
            finished = self.store.item(self.plan.run_id, task.item_id)
            if finished is not None:
                return finished
        return run_task(task, self.provider, self.sandbox, self.options)

    def close(self) -> None:
        for name in ("sandbox", "provider", "store"):
            if name in self.__dict__:
                getattr(self, name).close()
