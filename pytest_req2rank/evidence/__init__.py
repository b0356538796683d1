"""The evidence chain of a run: one hashed entry per finished item, chained from the hub's nonce.

Each entry holds SHA-256 hashes of what an item saw and produced (the requirement as shown
to the model, the prompt, the response, the per-test outcomes, each judge's verdict), the
figures the score is made of, the stage timestamps, and the hash of the entry before it.
An entry's hash is SHA-256 over its canonical JSON (RFC 8785). The first entry is the
nonce (with the chain's format); the last, the run entry, binds the run's header (model,
suite, seed, judges, isolation, settings, times) and its summary; its hash is the chain's
head.
"""

from ._chain import (
    EvidenceChain,
    chain_for,
    entry_hash,
    item_entries,
    item_entry,
    verify_chain,
    verify_items,
    verify_run,
)
from ._digest import canonical_json, sha256_hex

__all__ = [
    "EvidenceChain",
    "canonical_json",
    "chain_for",
    "entry_hash",
    "item_entries",
    "item_entry",
    "sha256_hex",
    "verify_chain",
    "verify_items",
    "verify_run",
]
