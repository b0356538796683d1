"""The evidence chain: built from items, verified, and every kind of tampering named."""

from __future__ import annotations

import copy

import pytest

from pytest_req2rank.evidence import (
    EvidenceChain,
    canonical_json,
    chain_for,
    entry_hash,
    sha256_hex,
    verify_chain,
    verify_items,
    verify_run,
)
from pytest_req2rank.evidence._chain import FORMAT
from pytest_req2rank.models import ItemResult, JudgeVerdict


def _item(n: int, score: float = 80.0) -> ItemResult:
    return ItemResult(
        item_id=f"dynamic/T{n}", dataset="dynamic", task_id=f"T{n}", model="m", status="success",
        pass_ratio=1.0, tests_passed=2, tests_total=2, prompt=f"prompt {n}", response=f"code {n}",
        score=score, started_at="2026-01-01T00:00:00+00:00",
        finished_at="2026-01-01T00:00:05+00:00",
        requirement={"title": f"R{n}"},
        judges=[JudgeVerdict(judge="r2r/static", scores={"quality": 70.0}, overall=70.0)],
    )


ITEMS = [_item(1), _item(2), _item(3)]
RUN = {"id": "run-1", "seed": 7, "model": "m", "judges": ["r2r/static"], "isolation": "full",
       "settings": {"concurrency": 8, "generator": None}}
SUMMARY = {"overall_score": 80.0, "items_total": 3, "items_planned": 3}


def _chain() -> list[dict]:
    return chain_for("nonce-1", "run-1", "2026-01-01T00:00:00+00:00", ITEMS, run=RUN,
                     summary=SUMMARY)


def test_canonical_json_sorts_keys_and_drops_whitespace() -> None:
    assert canonical_json({"b": 1, "a": [1.0, "x"]}) == b'{"a":[1,"x"],"b":1}'
    assert sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def test_a_chain_starts_with_the_nonce_links_every_entry_and_ends_with_the_run() -> None:
    chain = _chain()
    assert [e["kind"] for e in chain] == ["nonce", "item", "item", "item", "run"]
    assert chain[0]["nonce"] == "nonce-1" and chain[0]["prev"] == "0" * 64
    assert chain[0]["format"] == FORMAT == 2
    assert all(chain[i]["prev"] == chain[i - 1]["hash"] for i in range(1, 5))
    assert chain[1]["prompt_sha256"] == sha256_hex("prompt 1")
    assert chain[1]["judges"][0]["judge"] == "r2r/static"
    assert chain[4] | {"hash": None, "prev": None} == {
        "index": 4, "kind": "run", "items": 3, "run_sha256": sha256_hex(RUN),
        "summary_sha256": sha256_hex(SUMMARY), "hash": None, "prev": None}
    assert verify_chain(chain) is None and verify_items(chain, ITEMS) is None
    assert verify_run(chain, RUN, SUMMARY) is None


def test_the_builder_adds_an_item_once_and_its_head_is_the_last_hash() -> None:
    chain = EvidenceChain("nonce-1", "run-1", "2026-01-01T00:00:00+00:00")
    for item in [*ITEMS, ITEMS[0]]:
        chain.add(item)
    chain.close(RUN, SUMMARY)
    chain.close(RUN, SUMMARY)  # closing again with the same run changes nothing
    assert len(chain.entries) == 5 and chain.head == chain.entries[-1]["hash"]
    assert chain.entries == _chain()
    with pytest.raises(ValueError, match="closed"):
        chain.add(_item(4))
    with pytest.raises(ValueError, match="another run header"):
        chain.close({**RUN, "seed": 8}, SUMMARY)


@pytest.mark.parametrize(("where", "edit", "named"), [
    ("run", lambda run, summary: run["settings"].update(concurrency=1024), "run header"),
    ("run", lambda run, summary: run.update(judges=["r2r/static", "openai/gpt-4o"]),
     "run header"),
    ("run", lambda run, summary: run.update(isolation="rlimits"), "run header"),
    ("summary", lambda run, summary: summary.update(items_planned=2), "summary"),
])
def test_the_run_entry_binds_the_header_and_the_summary(where: str, edit, named: str  # type: ignore[no-untyped-def]
                                                         ) -> None:
    chain = _chain()
    run, summary = copy.deepcopy(RUN), copy.deepcopy(SUMMARY)
    edit(run, summary)
    mismatch = verify_run(chain, run, summary)
    assert mismatch is not None and mismatch.index == 4 and named in mismatch.reason


def test_a_chain_of_the_former_format_or_without_its_run_entry_is_refused() -> None:
    former = chain_for("nonce-1", "run-1", "2026-01-01T00:00:00+00:00", ITEMS, run=RUN,
                       summary=SUMMARY)[:-1]
    del former[0]["format"]
    for entry in former:  # a format-1 chain, consistent in itself
        entry["prev"] = former[entry["index"] - 1]["hash"] if entry["index"] else "0" * 64
        entry["hash"] = entry_hash(entry)
    mismatch = verify_chain(former)
    assert mismatch is not None and mismatch.index == 0 and "format 1" in mismatch.reason
    unclosed = EvidenceChain("nonce-1", "run-1", "2026-01-01T00:00:00+00:00")
    for item in ITEMS:
        unclosed.add(item)
    mismatch = verify_chain(unclosed.entries)
    assert mismatch is not None and mismatch.index == 3 and "run entry" in mismatch.reason
    assert "run entry" in str(verify_chain(unclosed.entries[:1]))


@pytest.mark.parametrize("index", [0, 1, 2, 3, 4])
def test_an_edited_entry_anywhere_is_named(index: int) -> None:
    chain = _chain()
    chain[index][{0: "nonce", 4: "items"}.get(index, "timeline")] = "forged"
    mismatch = verify_chain(chain)
    assert mismatch is not None and mismatch.index == index
    assert "hash does not match" in mismatch.reason


def test_an_entry_rehashed_after_editing_breaks_the_next_link() -> None:
    chain = _chain()
    chain[2]["score"] = 100.0
    chain[2]["hash"] = entry_hash(chain[2])
    mismatch = verify_chain(chain)
    assert mismatch is not None and mismatch.index == 3 and "link" in mismatch.reason


def test_a_reordered_chain_is_refused() -> None:
    chain = _chain()
    chain[1], chain[2] = chain[2], chain[1]
    mismatch = verify_chain(chain)
    assert mismatch is not None and mismatch.index == 1 and mismatch.item_id == "dynamic/T2"


def test_a_chain_without_its_nonce_is_refused() -> None:
    chain = _chain()[1:]
    mismatch = verify_chain(chain)
    assert mismatch is not None and mismatch.index == 0
    assert verify_chain([]) is not None


def test_a_tampered_item_is_named_with_what_differs() -> None:
    chain = _chain()
    items = copy.deepcopy(ITEMS)
    items[1] = items[1].model_copy(update={"score": 99.0})
    mismatch = verify_items(chain, items)
    assert mismatch is not None and mismatch.index == 2 and mismatch.item_id == "dynamic/T2"
    assert "item_sha256" in mismatch.reason and "score" in mismatch.reason
    assert "entry 2 (item dynamic/T2)" in str(mismatch)


def test_items_missing_from_the_chain_or_the_results_are_named() -> None:
    chain = _chain()
    assert "no such item" in str(verify_items(chain, ITEMS[:2]))
    extra = [*ITEMS, _item(4)]
    mismatch = verify_items(chain, extra)
    assert mismatch is not None and mismatch.item_id == "dynamic/T4"
    assert "twice" in str(verify_items(chain, [*ITEMS, ITEMS[0]]))


def test_the_judges_verdict_is_in_the_hash() -> None:
    chain = _chain()
    items = list(ITEMS)
    verdict = items[0].judges[0].model_copy(update={"overall": 95.0})
    items[0] = items[0].model_copy(update={"judges": [verdict]})
    mismatch = verify_items(chain, items)
    assert mismatch is not None and "judges" in mismatch.reason
