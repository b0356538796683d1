"""Building and verifying the chain of entries."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..models import ItemResult
from ._digest import sha256_hex

GENESIS = "0" * 64
"""The ``prev`` of the first entry (the nonce)."""
FORMAT = 2
"""The chain's format, recorded in its nonce entry. 2: a ``run`` entry closes the chain,
binding the run's header and summary (format 1 had none)."""

Chain = list[dict[str, Any]]
"""Entries as plain JSON data, each with ``index``, ``prev``, ``kind`` and ``hash``."""


@dataclass(frozen=True)
class ChainMismatch:
    """The first entry that does not match, and why; ``item_id`` for an item entry."""

    index: int
    reason: str
    item_id: str | None = None

    def __str__(self) -> str:
        what = f"entry {self.index}" + (f" (item {self.item_id})" if self.item_id else "")
        return f"{what}: {self.reason}"


def entry_hash(entry: dict[str, Any]) -> str:
    """The hash of an entry: SHA-256 over the canonical JSON of every field but ``hash``."""
    return sha256_hex({key: value for key, value in entry.items() if key != "hash"})


def run_entry(run: Mapping[str, Any], summary: Mapping[str, Any], items: int
               ) -> dict[str, Any]:
    """The entry that closes a chain: the hashes of the run's header (the results JSON's
    ``run``: model, suite, seed, judges, isolation, settings, times) and of its ``summary``,
    and how many item entries come before it."""
    return {"kind": "run", "items": items, "run_sha256": sha256_hex(dict(run)),
            "summary_sha256": sha256_hex(dict(summary))}


def item_entries(entries: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The chain's item entries, in chain order."""
    return [entry for entry in entries if entry.get("kind") == "item"]


def item_entry(item: ItemResult) -> dict[str, Any]:
    """What the chain records of one finished item (without its place in the chain)."""
    data = item.model_dump(mode="json")
    return {
        "kind": "item",
        "item_id": item.item_id,
        "status": item.status,
        "score": item.score,
        "pass_ratio": item.pass_ratio,
        "tests": [item.tests_passed, item.tests_total],
        "requirement_sha256": sha256_hex(data["requirement"] if item.requirement is not None
                                         else item.prompt),
        "prompt_sha256": sha256_hex(item.prompt),
        "response_sha256": sha256_hex(item.response),
        "code_sha256": sha256_hex(data["code"]),
        "tests_sha256": sha256_hex(data["tests"]),
        "judges": [{"judge": verdict["judge"], "verdict_sha256": sha256_hex(verdict)}
                   for verdict in data["judges"]],
        "panel_sha256": sha256_hex(data["panel"]) if item.panel is not None else None,
        "timeline": {
            "started_at": item.started_at,
            "finished_at": item.finished_at,
            "generation_s": item.timings.generation_s,
            "execution_s": item.timings.execution_s,
            "total_s": item.timings.total_s,
        },
        "item_sha256": sha256_hex(data),
    }


class EvidenceChain:
    """A chain under construction: the nonce first, then one entry per item as it finishes,
    closed by the run entry (:meth:`close`)."""

    def __init__(self, nonce: str, run_id: str, issued_at: str) -> None:
        self.entries: Chain = []
        self._append({"kind": "nonce", "format": FORMAT, "nonce": nonce, "run_id": run_id,
                      "issued_at": issued_at})

    @property
    def closed(self) -> bool:
        return bool(self.entries[-1]["kind"] == "run")

    @property
    def head(self) -> str:
        """The hash of the last entry."""
        return str(self.entries[-1]["hash"])

    @property
    def item_ids(self) -> set[str]:
        return {entry["item_id"] for entry in self.entries if entry["kind"] == "item"}

    def add(self, item: ItemResult) -> None:
        """Append ``item``'s entry; an item already in the chain is not added again."""
        if self.closed:
            raise ValueError(f"the chain is closed; item {item.item_id} came after the run entry")
        if item.item_id not in self.item_ids:
            self._append(item_entry(item))

    def close(self, run: Mapping[str, Any], summary: Mapping[str, Any]) -> None:
        """Append the run entry over the results JSON's ``run`` and ``summary`` (as JSON data);
        no item can be added after it. Closing again with the same header and summary is a
        no-op."""
        entry = run_entry(run, summary, len(item_entries(self.entries)))
        if self.closed:
            if {key: self.entries[-1][key] for key in entry} != entry:
                raise ValueError("the chain was closed with another run header or summary")
            return
        self._append(entry)

    def _append(self, body: dict[str, Any]) -> None:
        entry = {"index": len(self.entries),
                 "prev": self.entries[-1]["hash"] if self.entries else GENESIS, **body}
        entry["hash"] = entry_hash(entry)
        self.entries.append(entry)


def chain_for(nonce: str, run_id: str, issued_at: str, items: Iterable[ItemResult], *,
              run: Mapping[str, Any], summary: Mapping[str, Any]) -> Chain:
    """The chain of ``items`` in the order given, started from ``nonce`` and closed by the
    run entry over ``run`` and ``summary`` (the results JSON's, as JSON data)."""
    chain = EvidenceChain(nonce, run_id, issued_at)
    for item in items:
        chain.add(item)
    chain.close(run, summary)
    return chain.entries


def verify_chain(entries: Sequence[dict[str, Any]]) -> ChainMismatch | None:
    """Recompute the chain: every entry's index, link to the one before and hash; the first
    entry must be a nonce of this format, the last the run entry, every other an item.
    ``None`` when all match."""
    if not entries:
        return ChainMismatch(0, "the chain is empty; it starts with the nonce entry")
    prev = GENESIS
    last = len(entries) - 1
    for position, entry in enumerate(entries):
        item_id = entry.get("item_id") if isinstance(entry.get("item_id"), str) else None
        if entry.get("index") != position:
            return ChainMismatch(position, f"index {entry.get('index')!r}, expected {position} "
                                 "(entries missing or reordered)", item_id)
        if entry.get("prev") != prev:
            return ChainMismatch(position, "its link to the entry before does not match "
                                 "(entries changed, missing or reordered)", item_id)
        if entry.get("hash") != entry_hash(entry):
            return ChainMismatch(position, "its hash does not match its content", item_id)
        kind = entry.get("kind")
        if (position == 0) != (kind == "nonce"):
            return ChainMismatch(position, "the chain must start with the nonce entry, and only "
                                 f"there (found kind {kind!r})", item_id)
        if position == 0 and entry.get("format") != FORMAT:
            return ChainMismatch(0, f"chain format {entry.get('format', 1)!r}, this hub takes "
                                 f"format {FORMAT} (a run entry binding the run's header and "
                                 "summary): submit with the current pytest-req2rank")
        if position and (position == last) != (kind == "run"):
            return ChainMismatch(position, "the chain must end with the run entry, and only "
                                 f"there (found kind {kind!r})", item_id)
        if position and kind not in ("item", "run"):
            return ChainMismatch(position, f"unknown entry kind {kind!r}", item_id)
        prev = entry["hash"]
    if last == 0:
        return ChainMismatch(1, "the chain ends with the nonce entry; the run entry closes it")
    return None


def verify_run(entries: Sequence[dict[str, Any]], run: Mapping[str, Any],
               summary: Mapping[str, Any]) -> ChainMismatch | None:
    """Whether the chain's run entry binds exactly this ``run`` header and ``summary`` (the
    results JSON's, as JSON data) after all its item entries. Run :func:`verify_chain`
    first. ``None`` when they match."""
    entry = entries[-1]
    expected = run_entry(run, summary, len(entries) - 2)
    differing = [key for key in expected if entry.get(key) != expected[key]]
    if not differing:
        return None
    named = {"run_sha256": "the run header (results.run)",
             "summary_sha256": "the summary (results.summary)",
             "items": "its count of item entries"}
    return ChainMismatch(entry["index"], "the run entry does not match "
                         + ", ".join(named.get(key, key) for key in differing)
                         + ": the run was edited after its chain was closed")


def verify_items(entries: Sequence[dict[str, Any]], items: Sequence[ItemResult]
                 ) -> ChainMismatch | None:
    """Whether the chain's item entries record exactly ``items``, each as its entry would be
    recomputed from it. Run :func:`verify_chain` first. ``None`` when all match."""
    by_id: dict[str, ItemResult] = {}
    for item in items:
        if item.item_id in by_id:
            return ChainMismatch(-1, "the results hold this item twice", item.item_id)
        by_id[item.item_id] = item
    seen: set[str] = set()
    for entry in item_entries(entries):
        item_id = str(entry.get("item_id"))
        if item_id in seen:
            return ChainMismatch(entry["index"], "the item is in the chain twice", item_id)
        seen.add(item_id)
        found = by_id.get(item_id)
        if found is None:
            return ChainMismatch(entry["index"], "the results hold no such item", item_id)
        expected = {"index": entry["index"], "prev": entry["prev"], **item_entry(found)}
        differing = sorted(key for key in expected.keys() | entry.keys()
                           if key != "hash" and expected.get(key) != entry.get(key))
        if differing:
            return ChainMismatch(entry["index"], "the item in the results differs from its "
                                 f"entry ({', '.join(differing)})", item_id)
    missing = [item_id for item_id in by_id if item_id not in seen]
    if missing:
        return ChainMismatch(len(entries) - 1, "the results hold an item the chain does not "
                             "record", missing[0])
    return None
