"""``python -m pytest_req2rank.submit RUN_ID --db PATH [--hub URL] [--token TOKEN]``: send a
run's kept submission (again)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ._client import HubError
from ._run import SubmitError, submit_run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pytest_req2rank.submit",
                                     description="Submit a run made with --r2r-submit (again)")
    parser.add_argument("run_id")
    parser.add_argument("--db", type=Path, default=Path(".req2rank/req2rank.db"),
                        help="The run's store (default .req2rank/req2rank.db)")
    parser.add_argument("--hub", help="Hub URL (default: the hub the run was made for)")
    parser.add_argument("--token", help="Hub token (default: $R2R_HUB_TOKEN or the login's)")
    args = parser.parse_args(argv)
    try:
        outcome = submit_run(args.db, args.run_id, args.hub, args.token)
    except (SubmitError, HubError) as exc:
        print(f"req2rank: {exc}", file=sys.stderr)
        return 2
    print(f"req2rank: submission of run {outcome.run_id}: {outcome.status}"
          + (f" - {outcome.url}" if outcome.url else "") + f" ({outcome.message})")
    if outcome.retry:
        print(f"req2rank: everything is kept; retry with: {outcome.retry}")
    return 0 if outcome.status in ("accepted", "flagged") else 1


if __name__ == "__main__":
    sys.exit(main())
