"""Where a run starts in a pytest process: the session's :class:`~pytest_req2rank.run.Run`,
opened (the controller, or the only process), or joined (an xdist worker, from the plan its
controller sent), and the controller's hooks registered."""

from __future__ import annotations

import pytest

from ..draws import Draw
from ..plan import RunPlan
from ..run import Run
from ._config import load_settings, submit_asked
from ._keys import KEPT_INPUT, PLAN_INPUT, RUN_KEY
from ._reporting import ControllerPlugin


def start_run(config: pytest.Config, draw: Draw | None = None, *, preflight: bool = True) -> Run:
    """Resolve the settings and open the session's run (on a worker given the plan: join it);
    raise ``ConfigurationError`` (one line) for anything the user must fix.

    ``draw``: the run's seed and id when every process plans the run itself (a session set
    up while collecting, see :mod:`._activation`); otherwise the controller draws them and
    ships the plan to its workers. ``preflight``: whether the controller calls the run's
    models once before the first item; not when it takes up a run its workers have started.
    """
    settings = load_settings(config)
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and PLAN_INPUT in workerinput:
        run = Run.join(settings, RunPlan.model_validate(workerinput[PLAN_INPUT]),
                       frozenset(workerinput.get(KEPT_INPUT, ())))
    else:
        target = None
        if submit_asked(config) and workerinput is None:  # a missing hub or token: before any work
            from ._submitting import submission_target  # httpx: only to submit

            target = submission_target(config)
        run = Run.open(settings, draw=draw, submit_to=target,
                       preflight=preflight and _runs_items(config),
                       controller=workerinput is None)
    config.stash[RUN_KEY] = run
    if run.controller is not None:
        config.pluginmanager.register(ControllerPlugin(run), ControllerPlugin.name)
        if run.submission is not None:
            from ._submitting import SubmitPlugin  # as submission_target

            config.pluginmanager.register(SubmitPlugin(run), SubmitPlugin.name)
    return run


def _runs_items(config: pytest.Config) -> bool:
    """Whether this session runs items (not ``--collect-only``, ``--help``, ``--fixtures``…)."""
    option = config.option
    return not any(getattr(option, name, False) for name in (
        "collectonly", "help", "version", "showfixtures", "show_fixtures_per_test", "markers",
        "setupplan"))
