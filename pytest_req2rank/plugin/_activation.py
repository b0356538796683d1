"""When the plugin works: in a session that asks for a benchmark, or one that collects its items.

A session *asks* by naming an ``--r2r-*`` option on its command line or an ``r2r_*`` key
in its ini file. It then plans the run at configure time (xdist ships the plan to its
workers before they collect), and when no collected test requests ``r2r_task`` the
plugin adds the benchmark items itself (:mod:`._builtin`), so a suite file is all a
directory needs.

Any other session is *inert*: no header, no plan, no sandbox, nothing heavy imported —
unless it collects a test that requests ``r2r_task`` (a benchmark module, such as the
project's ``benchmarks/``). Then every process that collects plans the run itself, from
its settings and a :class:`~pytest_req2rank.draws.Draw` (seed and run id) made once for
the session, and an xdist controller, which collects nothing, takes the run up when the
first result arrives. Environment variables configure a run; they never start one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from ..draws import Draw, new_draw
from ..errors import ConfigurationError
from ._config import named_options, submit_asked
from ._keys import RUN_KEY

if TYPE_CHECKING:
    from ..run import Run

CONFIGURATION_ERROR = "req2rank: "
"""How a configuration error found while collecting starts: the controller recognises it
in the collection report (from any xdist worker) and exits with pytest's usage-error code."""

_DRAW = "r2r_draw"
_LATE_ERROR_KEY = pytest.StashKey[str]()


def asked_for(config: pytest.Config) -> bool:
    return bool(named_options(config)) or submit_asked(config)


def is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def active_run(config: pytest.Config) -> Run:
    """The session's run; a session that had not asked starts it now (it collects a
    benchmark test). A configuration error becomes a one-line collection error."""
    run = config.stash.get(RUN_KEY, None)
    if run is not None:
        return run
    error = config.stash.get(_LATE_ERROR_KEY, None)
    if error is None:
        from ._start import start_run  # the engine: only in a benchmark session

        try:
            return start_run(config, draw=_session_draw(config))
        except ConfigurationError as exc:
            error = CONFIGURATION_ERROR + str(exc)
            config.stash[_LATE_ERROR_KEY] = error
    raise pytest.Collector.CollectError(error)


def _session_draw(config: pytest.Config) -> Draw:
    if is_worker(config):
        seed, run_id = config.workerinput[_DRAW]  # type: ignore[attr-defined]
        return Draw(seed, run_id)
    dormant = config.pluginmanager.get_plugin(DormantPlugin.name)
    return dormant.draw if isinstance(dormant, DormantPlugin) else new_draw()


class DormantPlugin:
    """On the controller (or the only process) of a session that has not asked: waits,
    cheaply, for the session to collect benchmark items."""

    name = "req2rank-dormant"

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.draw = new_draw()
        self.configuration_error = False
        self._header_due = True

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[_DRAW] = list(self.draw)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """The header lines of a session set up while collecting (its header was printed)."""
        if RUN_KEY in self.config.stash:
            self._write_header()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """An xdist controller takes the run up with the first benchmark result."""
        if RUN_KEY in self.config.stash or getattr(report, "r2r_result", None) is None:
            return
        from ._reporting import ControllerPlugin  # the engine: only in a benchmark session
        from ._start import start_run

        try:  # no preflight: the workers have called the models already
            start_run(self.config, draw=self.draw, preflight=False)
        except ConfigurationError as exc:  # the workers planned it: this would be a bug
            raise pytest.UsageError(str(exc)) from None
        self._write_header()
        controller = self.config.pluginmanager.get_plugin(ControllerPlugin.name)
        assert isinstance(controller, ControllerPlugin)  # start_run registers it on a controller
        controller.pytest_runtest_logreport(report)  # registered after this report was sent

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed and str(report.longrepr).startswith(CONFIGURATION_ERROR):
            self.configuration_error = True

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.configuration_error:
            session.exitstatus = pytest.ExitCode.USAGE_ERROR

    def _write_header(self) -> None:
        if not self._header_due:
            return
        self._header_due = False
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None and reporter.showheader and not reporter.no_header:
            for line in self.config.stash[RUN_KEY].header():
                reporter.write_line(line)
