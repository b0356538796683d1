"""Controller-only hooks: receive item results, finish the run, set the exit status, print."""

from __future__ import annotations

from typing import Any

import pytest

from ..models import ItemId, ItemResult
from ..run import Run, lost_item, stopped_warning
from ._config import WORKER_SETTINGS, worker_settings
from ._keys import KEPT_INPUT, PLAN_INPUT
from ._progress import Progress, write_own_line

EXIT_OUTPUT_FAILED = 7
"""The run finished, but an output (results JSON, Q&A log, store) could not be written."""
EXIT_MODEL_FAILED = 8
"""The run stopped early: a model kept failing for a cause no retry mends (revoked key,
exhausted quota); the finished items are kept, the others were not run."""
_KEEPS_ITS_CODE = (pytest.ExitCode.INTERNAL_ERROR, pytest.ExitCode.USAGE_ERROR,
                   pytest.ExitCode.NO_TESTS_COLLECTED)


class ControllerPlugin:
    """Registered on the controller (the only process without xdist): adapts pytest's
    reports, session end and exit status to the run's :meth:`~Run.record` and
    :meth:`~Run.finish`."""

    name = "req2rank-controller"

    def __init__(self, run: Run) -> None:
        assert run.controller is not None
        self.run = run
        self.controller = run.controller
        controller = run.controller
        self._planned = set(controller.plan.item_ids)
        self.other_failures = 0
        self.progress = Progress(total=len(self._planned - controller.kept))
        self._terminal: Any = None
        self.interrupted = False
        """Whether the run stopped before its end (Ctrl-C, -x, a crash, a stop)."""
        self._session: pytest.Session | None = None

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self._session = session
        terminal = session.config.pluginmanager.get_plugin("terminalreporter")
        self._terminal = terminal if terminal is not None and terminal.verbosity >= 0 else None

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[PLAN_INPUT] = self.run.plan.model_dump(mode="json")
        node.workerinput[WORKER_SETTINGS] = worker_settings(self.run.settings)
        node.workerinput[KEPT_INPUT] = sorted(self.run.kept)

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
            self.run.record(item)
            self.progress.record(item, str(getattr(report, "worker_id", "main")),
                                 getattr(report, "r2r_calls_in_flight", None))
            if self._terminal is not None and self.progress.due():
                write_own_line(self._terminal, self.progress.line())
            stop = getattr(report, "r2r_stop", None)
            if stop is not None and self.controller.stop(str(stop)):
                self._stop_session(str(stop))
            return
        if not report.failed:
            return
        # xdist reports a crashed worker's item with when="???" and no result.
        found = ItemId.in_node_id(report.nodeid)
        item_id = str(found) if found else None
        crashed = report.when not in ("setup", "call", "teardown")
        if crashed and item_id in self._planned and item_id not in self.controller.items:
            self.run.record(lost_item(self.controller, item_id, str(report.longrepr)))
        else:
            self.other_failures += 1

    def _stop_session(self, reason: str) -> None:
        """No item starts after this one: pytest's loop here, and under xdist the
        controller's, which tells the workers to shut down (each also stops by itself,
        its own calls of the model failing the same way)."""
        if self._session is None:
            return
        dsession = self._session.config.pluginmanager.get_plugin("dsession")
        if dsession is not None and not getattr(dsession, "shouldstop", False):
            dsession.shouldstop = reason
        self._session.shouldstop = self._session.shouldstop or reason

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        # Interrupted: Ctrl-C, a crash, or stopped early (-x, --maxfail, a model's failure).
        self.interrupted = exitstatus in (pytest.ExitCode.INTERRUPTED,
                                          pytest.ExitCode.INTERNAL_ERROR) \
            or bool(session.shouldstop or session.shouldfail)
        self.run.finish(interrupted=self.interrupted)
        if self.controller.stopped is not None and session.exitstatus not in _KEEPS_ITS_CODE:
            session.exitstatus = EXIT_MODEL_FAILED
        if exitstatus == pytest.ExitCode.INTERNAL_ERROR:  # pytest prints no terminal summary
            self._write(self._resume_hint(session.config))
        document = self.controller.document
        if document is not None and document.summary.ranking is not None:
            from ._properties import ranking_properties, record_suite_properties

            record_suite_properties(session.config, ranking_properties(document.summary.ranking))
        if document is None or self.controller.stopped is not None:
            return
        normal = (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
        if self.controller.kept and exitstatus in (*normal, pytest.ExitCode.NO_TESTS_COLLECTED):
            exitstatus = session.exitstatus = self._resumed_status(exitstatus)
        if document.summary.gates and exitstatus in normal and not self.other_failures:
            # With a gate, unsolved items are measurements, not failures: the gate decides.
            # Anything else that failed (errors, other tests) keeps pytest's own status.
            from ..scoring import EXIT_GATE_FAILED  # as render_summary

            session.exitstatus = EXIT_GATE_FAILED if self.controller.gate_failed else pytest.ExitCode.OK
        if self.controller.output_errors and session.exitstatus in normal:
            session.exitstatus = EXIT_OUTPUT_FAILED

    def _resumed_status(self, exitstatus: int) -> int:
        """A resumed run's exit status is the whole run's: its kept items count as they did
        in the session that ran them (deselected here, so pytest does not count them)."""
        kept = [self.controller.items[i] for i in self.controller.kept if i in self.controller.items]
        if exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:  # every item was kept
            exitstatus = pytest.ExitCode.OK
        if exitstatus == pytest.ExitCode.OK and any(item.test_failed for item in kept):
            return pytest.ExitCode.TESTS_FAILED
        return exitstatus

    def _resume_hint(self, config: pytest.Config) -> str | None:
        """The line that tells how to resume the run, when it stopped with items left to run."""
        if not self.interrupted or self.controller.document is None \
                or self._planned <= set(self.controller.items):
            return None
        return (f"run {self.controller.plan.run_id} stopped before its end; resume it with: "
                f"{self._resume_command(config)}")

    def _resume_command(self, config: pytest.Config) -> str:
        from ._resume import resume_command  # shlex: only for a run that stopped early

        return resume_command(config, self.controller.plan.run_id, self.controller.paths.store)

    def _write(self, line: str | None) -> None:
        if line is not None and self._terminal is not None:
            self._terminal.write_line(line)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        document = self.controller.document
        if document is None and self.controller.stopped is None:
            return
        terminalreporter.write_sep("=", "req2rank summary")
        if document is not None:
            from ..report import render_summary  # at the end, not at start

            if self.controller.stopped is not None:  # said below with the command to resume
                stop = stopped_warning(self.controller.stopped, self.controller.plan.run_id)
                document = document.model_copy(update={"summary": document.summary.model_copy(
                    update={"warnings": [w for w in document.summary.warnings if w != stop]})})
            for line in render_summary(document, self.controller.paths,
                                       self.controller.output_errors):
                terminalreporter.write_line(line)
            for line in self.controller.report_lines:
                terminalreporter.write_line(line)
        if self.controller.stopped is not None:
            from ._resume import stopped_lines  # as _resume_command

            lines = stopped_lines(
                self.controller.stopped, finished=len(self.controller.items),
                planned=len(self.controller.plan.item_ids),
                command=self._resume_command(terminalreporter.config), exit_code=EXIT_MODEL_FAILED)
        else:
            hint = self._resume_hint(terminalreporter.config)
            lines = [hint] if hint is not None else []
        for line in lines:
            terminalreporter.write_line(line)
