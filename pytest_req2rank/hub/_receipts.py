"""Ed25519 acceptance receipts: the hub's signature over what it accepted."""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ..evidence import canonical_json, sha256_hex


class Signer:
    """Signs receipts with the hub's key, created (mode 0600) on first use."""

    def __init__(self, path: Path) -> None:
        if not path.exists():
            _create_key(path)
        try:
            key = serialization.load_pem_private_key(path.read_bytes(), password=None)
        except (ValueError, TypeError):
            key = None
        if not isinstance(key, Ed25519PrivateKey):
            raise ValueError(f"{path}: not an Ed25519 private key; remove it to make a new one")
        self._key = key
        raw = key.public_key().public_bytes(serialization.Encoding.Raw,
                                            serialization.PublicFormat.Raw)
        self.public_key = base64.b64encode(raw).decode("ascii")
        self.key_id = sha256_hex(raw)[:16]

    def sign(self, receipt: dict[str, Any]) -> dict[str, Any]:
        """``receipt`` with ``key_id`` and an Ed25519 ``signature`` (base64) over its
        canonical JSON (every field but ``signature``)."""
        body = {**receipt, "key_id": self.key_id}
        signature = self._key.sign(canonical_json(body))
        return {**body, "signature": base64.b64encode(signature).decode("ascii")}


def _create_key(path: Path) -> None:
    """Write a new key, readable by the owner only; another process creating it at the same
    moment wins (its key is the one read)."""
    key = Ed25519PrivateKey.generate()
    path.parent.mkdir(parents=True, exist_ok=True)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(pem)
    try:
        os.link(temporary, path)  # fails when another process made the key first
    except FileExistsError:
        pass
    finally:
        temporary.unlink()


def verify_receipt(receipt: dict[str, Any], public_key: str) -> bool:
    """Whether ``receipt`` carries a valid signature of the key ``public_key`` (base64)."""
    from cryptography.exceptions import InvalidSignature

    body = {key: value for key, value in receipt.items() if key != "signature"}
    try:
        Ed25519PublicKey.from_public_bytes(base64.b64decode(public_key)).verify(
            base64.b64decode(receipt.get("signature", "")), canonical_json(body))
    except (InvalidSignature, ValueError):
        return False
    return True
