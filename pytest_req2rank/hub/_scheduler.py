"""Re-verifying new submissions on a schedule, in the serving process."""

from __future__ import annotations

import logging
import threading
from typing import Any

from ._board import leaderboard
from ._config import HubConfig
from ._reverify import Reverification, pending_reverification, reverify_submission

log = logging.getLogger("req2rank.hub")


def reverify_pending(sessions: Any, config: HubConfig) -> dict[int, Reverification]:
    """Re-verify every submission not re-verified yet whose backoff is over, oldest first
    (a replay that fails for the hub's own reasons is retried a bounded number of times:
    :func:`reverify_submission`); a failure of the database is logged and leaves that
    submission for the next round."""
    done: dict[int, Reverification] = {}
    with sessions() as session:
        waiting = pending_reverification(session)
    for submission_id in waiting:
        try:
            with sessions() as session:
                done[submission_id] = reverify_submission(session, submission_id, config)
        except Exception:  # one submission's failure must not stop the others
            log.exception("re-verifying submission %s failed", submission_id)
    if done:
        rank_new_version(sessions)
    return done


def rank_new_version(sessions: Any) -> None:
    """Rank the leaderboard's version as it is now (its default view), in this thread, so
    that the first reader after a re-verification finds it ranked; a failure is logged (the
    first reader ranks it then)."""
    try:
        with sessions() as session:
            leaderboard(session)
    except Exception:
        log.exception("ranking the leaderboard after re-verifying failed")


class ReverifySchedule:
    """A daemon thread that runs :func:`reverify_pending` at start, then every
    ``config.reverify_every_s`` (one process of a hub should run it: two would replay the
    same submissions twice)."""

    def __init__(self, sessions: Any, config: HubConfig) -> None:
        self._sessions, self._config = sessions, config
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="r2r-reverify", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(timeout=30)

    def _loop(self) -> None:
        while not self._stopping.is_set():
            for submission_id, outcome in reverify_pending(self._sessions, self._config).items():
                log.info("submission %s re-verified: %s", submission_id, outcome.status)
            self._stopping.wait(self._config.reverify_every_s)
