"""Runs the hostile corpus as whatever uid started it; prints the outcomes as one JSON object.

Usage: ``python unprivileged_driver.py CONTEXT_JSON MODE...``. Started by
``test_hostile.py`` after dropping to an unprivileged uid, with a copy of the
sandbox package on ``PYTHONPATH``. ``host_pid`` and ``other_root`` are filled in
here (this process is the host, and another sandbox instance of its own is the other).
"""

from __future__ import annotations

import json
import os
import sys

from hostile import ATTACKS, Context, request, result

from pytest_req2rank.sandbox import ProcessSandbox, SandboxUnavailable


def main() -> None:
    fields = json.loads(sys.argv[1])
    report: dict[str, object] = {"uid": os.getuid()}
    for mode in sys.argv[2:]:
        try:
            box, other = ProcessSandbox(mode=mode), ProcessSandbox(mode=mode)  # type: ignore[arg-type]
        except SandboxUnavailable as exc:
            report[mode] = {"unavailable": str(exc)}
            continue
        with box, other:
            ctx = Context(**{**fields, "host_pid": os.getpid(), "other_root": str(other.work_root)})
            # The fork bomb goes last: in the shared-uid unshare fallback its processes take a
            # moment to be reaped and would starve the next run's launcher (a known limit
            # of that fallback, not of the forkserver/bwrap modes).
            ordered = sorted(ATTACKS, key=lambda a: a.name == "fork_bomb")
            results = {a.name: result(box.run(request(a, ctx)), ctx)
                       for a in ordered if box.mode in a.modes}
            binary = getattr(box._executor, "binary", None)
            report[mode] = {"mode": box.mode, "isolation": box.isolation,
                            "level": box.isolation_level, "results": results,
                            "origin": binary.origin if binary is not None else None}
    print(json.dumps(report))


if __name__ == "__main__":
    main()
