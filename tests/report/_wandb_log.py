"""Reading what an offline W&B run wrote, from its transaction log (``run-ID.wandb``).

Offline, W&B keeps no ``wandb-summary.json``: everything is in the log, a LevelDB-style
record log (32 KiB blocks of records with a 7-byte header: CRC32, length, type) after a
7-byte file header, each record one ``wandb_internal_pb2.Record`` (wandb's own protobuf).
wandb no longer ships a Python reader of it, so the tests read it here.
"""

from __future__ import annotations

import json
import struct
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BLOCK = 32 * 1024
HEADER = 7
FULL, FIRST, MIDDLE, LAST = 1, 2, 3, 4
WRITTEN_WITHIN_S = 60.0
"""W&B's service process writes the log on its own: ``run.finish()`` may return before the
log has its last record (seen under load), so the reader waits for the run's exit record."""


@dataclass
class OfflineRun:
    """What the log holds: the run's config and project, its summary, its history rows,
    the files it saved and its artifacts (type, name, file paths)."""

    project: str = ""
    name: str = ""
    config: dict[str, Any] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)
    history: list[dict[str, Any]] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    artifacts: list[tuple[str, str, list[str]]] = field(default_factory=list)


def records(path: Path) -> list[bytes]:
    data = path.read_bytes()
    assert data[:4] == b":W&B", f"{path} is not a W&B transaction log"
    found: list[bytes] = []
    pending = b""
    pos = HEADER
    while pos + HEADER <= len(data):
        left = BLOCK - pos % BLOCK
        if left < HEADER:  # the block's trailer
            pos += left
            continue
        _, length, kind = struct.unpack("<IHB", data[pos:pos + HEADER])
        if kind == 0 and length == 0:
            pos += left
            continue
        if pos + HEADER + length > len(data):  # still being written
            break
        chunk = data[pos + HEADER:pos + HEADER + length]
        pos += HEADER + length
        if kind == FULL:
            found.append(chunk)
        elif kind == FIRST:
            pending = chunk
        elif kind == MIDDLE:
            pending += chunk
        elif kind == LAST:
            found.append(pending + chunk)
    return found


def _key(item: Any) -> str:
    return "/".join(item.nested_key) if item.nested_key else item.key


def read_offline_run(run_dir: Path) -> OfflineRun:
    """The run of an ``offline-run-*`` directory."""
    from wandb.proto import wandb_internal_pb2 as pb

    (log,) = run_dir.glob("run-*.wandb")
    deadline = time.monotonic() + WRITTEN_WITHIN_S
    while True:
        parsed = []
        for data in records(log):
            record = pb.Record()
            record.ParseFromString(data)
            parsed.append(record)
        if any(r.WhichOneof("record_type") == "exit" for r in parsed) \
                or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    run = OfflineRun()
    for record in parsed:
        kind = record.WhichOneof("record_type")
        if kind == "run":
            # a run record may come again later, as an update with only some fields
            run.project = run.project or record.run.project
            run.name = run.name or record.run.display_name
            for item in record.run.config.update:
                run.config[_key(item)] = json.loads(item.value_json)
        elif kind == "config":
            for item in record.config.update:
                run.config[_key(item)] = json.loads(item.value_json)
        elif kind == "summary":
            for item in record.summary.update:
                run.summary[_key(item)] = json.loads(item.value_json)
        elif kind == "history":
            run.history.append({_key(item): json.loads(item.value_json)
                                for item in record.history.item})
        elif kind == "files":
            run.files += [f.path for f in record.files.files]
        elif kind == "artifact":
            art = record.artifact
            run.artifacts.append((art.type, art.name,
                                  [entry.path for entry in art.manifest.contents]))
    return run
