"""pytest hooks and fixtures of req2rank. Thin: each adapts a pytest phase to the session's
:class:`~pytest_req2rank.run.Run` (started in :mod:`._start`), where the work happens.

Inert in a session that neither asks for a benchmark nor collects one (:mod:`._activation`).
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import TYPE_CHECKING

import pytest

from .._startup import freeze_long_lived
from ..errors import ConfigurationError
from ._activation import DormantPlugin, active_run, asked_for, is_worker
from ._ceilings import guard_with_ceilings
from ._config import add_options, nversion_asked
from ._interrupt import mend_lineless
from ._keys import BENCHMARK_COLLECTED_KEY, FROZEN_AFTER_ITEM_KEY, RESULT_KEY, RUN_KEY
from ._lookahead import task_id, upcoming

if TYPE_CHECKING:
    from ..models import ItemResult, Task


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


@pytest.hookimpl(wrapper=True)
def pytest_cmdline_main(config: pytest.Config) -> Generator[None, int | pytest.ExitCode, int | pytest.ExitCode]:
    """Under ``-n`` without ``--dist``, a benchmark is distributed with xdist's ``worksteal``:
    each worker gets its share of the items at once and can start them ahead (``run._prefetch``);
    xdist's default (``load``) hands long-running items out two at a time. (A wrapper: it
    must run before xdist's own hook turns ``--dist`` from ``no`` into ``load``.) An N-version
    run gets ``loadgroup``: a task's versions and ensemble checks stay on one worker, in order."""
    if getattr(config.option, "numprocesses", None) and config.option.dist == "no" \
            and asked_for(config):
        config.option.dist = "loadgroup" if nversion_asked(config) else "worksteal"
    return (yield)


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    if asked_for(config):
        from ._start import start_run  # the engine: only in a benchmark session

        try:
            start_run(config)
        except ConfigurationError as exc:  # several lines (the preflight's): one ERROR each
            raise pytest.UsageError(*(str(exc).splitlines() or [str(exc)])) from None
    elif not is_worker(config):
        config.pluginmanager.register(DormantPlugin(config), DormantPlugin.name)


def pytest_unconfigure(config: pytest.Config) -> None:
    run = config.stash.get(RUN_KEY, None)
    if run is not None:
        run.close()
        freeze_long_lived()  # its collections at exit skip what the run left


def pytest_report_header(config: pytest.Config) -> list[str]:
    run = config.stash.get(RUN_KEY, None)
    return run.header() if run is not None else []


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "r2r_task" not in metafunc.fixturenames:
        return
    plan = active_run(metafunc.config).plan
    metafunc.config.stash[BENCHMARK_COLLECTED_KEY] = True
    metafunc.parametrize("r2r_task", plan.item_ids, ids=plan.item_ids, indirect=True)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, items: list[pytest.Item]) -> None:
    """A session that asked for a benchmark but collected no benchmark test gets the
    plugin's own items (before -k, --lf and the like select among them); a resumed run's
    kept items are deselected."""
    config = session.config
    run = config.stash.get(RUN_KEY, None)
    if run is not None and not config.stash.get(BENCHMARK_COLLECTED_KEY, False):
        from ._builtin import builtin_items  # the engine: only in a benchmark session

        items.extend(builtin_items(session))
    if run is not None:
        kept = run.kept
        if kept:  # a resumed run: what it keeps is not run again
            from ._resume import deselect_kept

            deselect_kept(config, items, kept)
        guard_with_ceilings(config, items)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Start this item's evaluation, and those of the items this process runs next."""
    run = item.config.stash.get(RUN_KEY, None)
    if run is not None and task_id(item) is not None:
        run.look_ahead(upcoming(item, nextitem))


@pytest.hookimpl(tryfirst=True)
def pytest_keyboard_interrupt(excinfo: pytest.ExceptionInfo[BaseException]) -> None:
    """Before pytest reports Ctrl-C: an interrupt that landed on an instruction without a line
    number would crash the report (:mod:`._interrupt`); any other traceback is left as is."""
    mend_lineless(excinfo.value)


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> None:
    if RUN_KEY in session.config.stash:
        freeze_long_lived()


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    if RESULT_KEY in item.stash and FROZEN_AFTER_ITEM_KEY not in item.config.stash:
        item.config.stash[FROZEN_AFTER_ITEM_KEY] = True
        freeze_long_lived()


@pytest.fixture
def r2r_task(request: pytest.FixtureRequest) -> Task:
    """The task of this benchmark item."""
    return request.config.stash[RUN_KEY].task(request.param)


@pytest.fixture
def r2r_evaluate(request: pytest.FixtureRequest) -> Callable[[Task], ItemResult]:
    """Benchmark the configured model on a task; the item fails unless the task is solved
    (an N-version ensemble check: unless its measurement was made, ``ItemResult.test_failed``)."""
    run = request.config.stash[RUN_KEY]

    def evaluate(task: Task) -> ItemResult:
        from ._messages import failure_message  # as above (it imports the models)
        from ._properties import item_properties

        result = run.evaluate(task)
        request.node.stash[RESULT_KEY] = result
        request.node.user_properties.extend(item_properties(result))
        if result.test_failed:
            pytest.fail(failure_message(result), pytrace=False)
        return result

    return evaluate


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    result = item.stash.get(RESULT_KEY, None)
    if result is not None and report.when == "call":
        # One JSON string: xdist serializes nested dicts object by object, in Python.
        report.r2r_result = result.model_dump_json()  # type: ignore[attr-defined]
        from ..providers import calls_in_flight, run_stop_reason  # loaded already: the item ran

        report.r2r_calls_in_flight = calls_in_flight()  # type: ignore[attr-defined]
        stop = run_stop_reason()
        if stop is not None:  # a model fails for good: this process runs no further item
            report.r2r_stop = stop  # type: ignore[attr-defined]
            item.session.shouldstop = item.session.shouldstop or stop
    return report
