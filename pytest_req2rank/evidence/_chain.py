"""Building and verifying the chain of entries."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..models import ItemResult
from ._digest import sha256_hex

GENESIS = "0" * 64
"""The ``prev`` of the first entry (the nonce)."""

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
    """A chain under construction: the nonce first, then one entry per item as it finishes."""

    def __init__(self, nonce: str, run_id: str, issued_at: str) -> None:
        self.entries: Chain = []
        self._append({"kind": "nonce", "nonce": nonce, "run_id": run_id,
                      "issued_at": issued_at})

    @property
    def head(self) -> str:
        """The hash of the last entry."""
        return str(self.entries[-1]["hash"])

    @property
    def item_ids(self) -> set[str]:
        return {entry["item_id"] for entry in self.entries if entry["kind"] == "item"}

    def add(self, item: ItemResult) -> None:
        """Append ``item``'s entry; an item already in the chain is not added again."""
        if item.item_id not in self.item_ids:
            self._append(item_entry(item))

    def _append(self, body: dict[str, Any]) -> None:
        entry = {"index": len(self.entries),
                 "prev": self.entries[-1]["hash"] if self.entries else GENESIS, **body}
        entry["hash"] = entry_hash(entry)
        self.entries.append(entry)


def chain_for(nonce: str, run_id: str, issued_at: str, items: Iterable[ItemResult]) -> Chain:
    """The chain of ``items`` in the order given, started from ``nonce``."""
    chain = EvidenceChain(nonce, run_id, issued_at)
    for item in items:
        chain.add(item)
    return chain.entries


def verify_chain(entries: Sequence[dict[str, Any]]) -> ChainMismatch | None:
    """Recompute the chain: every entry's index, link to the one before and hash; the first
    entry must be a nonce and no other may be. ``None`` when all match."""
    if not entries:
        return ChainMismatch(0, "the chain is empty; it starts with the nonce entry")
    prev = GENESIS
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
        if position and kind != "item":
            return ChainMismatch(position, f"unknown entry kind {kind!r}", item_id)
        prev = entry["hash"]
    return None


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
    for entry in entries[1:]:
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
        return ChainMismatch(len(entries), "the results hold an item the chain does not record",
                             missing[0])
    return None
