"""Controller-only hooks: receive item results, finish the run, set the exit status, print."""

from __future__ import annotations

import re
from typing import Any

import pytest

from ..models import ItemResult
from ._config import WORKER_SETTINGS, worker_settings
from ._controller import Controller, lost_item
from ._keys import EVALUATOR_KEY
from ._progress import Progress, write_own_line

_PARAM_ID = re.compile(r"\[(.+)\](?:@[^\[\]]*)?$")  # "@group": xdist's loadgroup suffix
EXIT_OUTPUT_FAILED = 7
"""The run finished, but an output (results JSON, Q&A log, store) could not be written."""


class ControllerPlugin:
    """Registered on the controller (the only process without xdist)."""

    def __init__(self, controller: Controller) -> None:
        self.controller = controller
        self._planned = set(controller.plan.item_ids)
        self.other_failures = 0
        self.progress = Progress(total=len(self._planned))
        self._terminal: Any = None

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        terminal = session.config.pluginmanager.get_plugin("terminalreporter")
        self._terminal = terminal if terminal is not None and terminal.verbosity >= 0 else None

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        evaluator = node.config.stash[EVALUATOR_KEY]
        node.workerinput["r2r_plan"] = evaluator.plan.model_dump(mode="json")
        node.workerinput[WORKER_SETTINGS] = worker_settings(evaluator.settings)

    @pytest.hookimpl(optionalhook=True, tryfirst=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        """An N-version run under ``loadgroup``: each task's items on one worker (:mod:`._grouping`)."""
        if self.controller.plan.nversion is None or config.option.dist != "loadgroup":
            return None
        from ._grouping import TaskGroupScheduling  # xdist: only under -n

        return TaskGroupScheduling(config, log)

    @pytest.hookimpl(trylast=True)  # after pytest wrote the report's letter: the line follows it
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        payload = getattr(report, "r2r_result", None)
        if payload is not None:
            item = ItemResult.model_validate_json(payload)
            self.controller.record(item)
            self.progress.record(item, str(getattr(report, "worker_id", "main")),
                                 getattr(report, "r2r_calls_in_flight", None))
            if self._terminal is not None and self.progress.due():
                write_own_line(self._terminal, self.progress.line())
            return
        if not report.failed:
            return
        # xdist reports a crashed worker's item with when="???" and no result.
        match = _PARAM_ID.search(report.nodeid)
        item_id = match.group(1) if match else None
        crashed = report.when not in ("setup", "call", "teardown")
        if crashed and item_id in self._planned and item_id not in self.controller.items:
            self.controller.record(lost_item(self.controller, item_id, str(report.longrepr)))
        else:
            self.other_failures += 1

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        # Interrupted: Ctrl-C, or stopped early on a failure (-x, --maxfail).
        self.controller.finish(interrupted=exitstatus == pytest.ExitCode.INTERRUPTED
                               or bool(session.shouldstop or session.shouldfail))
        document = self.controller.document
        if document is None:
            return
        normal = (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
        if document.summary.gates and exitstatus in normal and not self.other_failures:
            # With a gate, unsolved items are measurements, not failures: the gate decides.
            # Anything else that failed (errors, other tests) keeps pytest's own status.
            from ..scoring import EXIT_GATE_FAILED  # as render_summary

            session.exitstatus = EXIT_GATE_FAILED if self.controller.gate_failed else pytest.ExitCode.OK
        if self.controller.output_errors and session.exitstatus in normal:
            session.exitstatus = EXIT_OUTPUT_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        document = self.controller.document
        if document is None:
            return
        from ..report import render_summary  # at the end, not at start

        terminalreporter.write_sep("=", "req2rank summary")
        for line in render_summary(document, self.controller.paths, self.controller.output_errors):
            terminalreporter.write_line(line)
        for line in self.controller.report_lines:
            terminalreporter.write_line(line)
