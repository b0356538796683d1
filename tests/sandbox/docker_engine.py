"""What the engine-bound docker tests share: the engine (or why it is absent), the test image,
a lock that lets a test be alone on the engine, and the containers a stretch of time created.

Test modules import the fixtures: ``docker_setup`` (client and image; skips with the reason
when there is no engine), ``engine_shared`` (autouse: every test holds the engine lock
shared) and ``alone`` (held exclusively, for a test that counts or sweeps containers).

The image is ``R2R_TEST_DOCKER_IMAGE`` when set (``.ci/docker-engine.sh`` exports it), else
built here from the machine's own Python (:mod:`docker_image`, idempotent).
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_req2rank.sandbox._docker_container import LABEL

from .docker_image import ensure_image

IMAGE_ENV = "R2R_TEST_DOCKER_IMAGE"
HOW = ".ci/docker-engine.sh installs and starts one"
_LOCK = Path(tempfile.gettempdir()) / "r2r-docker-engine-tests.lock"


@functools.cache
def engine() -> tuple[Any, str] | str:
    """(client, image), or why the engine-bound tests cannot run here."""
    try:
        import docker

        client = docker.from_env(timeout=120)
        client.ping()
    except Exception as exc:  # noqa: BLE001 - any failure means: no engine here
        return f"no Docker engine answers ({type(exc).__name__}: {exc}); {HOW}"
    image = os.environ.get(IMAGE_ENV, "").strip()
    if image:
        return client, image
    try:
        with _locked(_LOCK.with_suffix(".build"), exclusive=True):
            return client, ensure_image(client)
    except Exception as exc:  # noqa: BLE001
        return f"cannot build the test image from this machine's Python: {exc}"


@contextlib.contextmanager
def _locked(path: Path, *, exclusive: bool) -> Iterator[None]:
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        yield


@contextlib.contextmanager
def engine_share(*, alone: bool) -> Iterator[None]:
    """Held by every engine-bound test: shared, or ``alone`` (no other test of ours uses the
    engine meanwhile, whichever xdist worker runs it), for tests that count containers."""
    with _locked(_LOCK, exclusive=alone):
        yield


def now_ns() -> int:
    return time.time_ns()


def created_since(client: Any, since_ns: int, **labels: str) -> list[dict[str, str]]:
    """Our containers created since ``since_ns`` (as the engine's events say), with their
    labels; only those carrying ``labels`` when given."""
    found = []
    for event in client.api.events(since=f"{since_ns / 1e9:.9f}", until=f"{time.time():.9f}",
                                   filters={"type": "container", "event": "create",
                                            "label": LABEL}, decode=True):
        if event.get("timeNano", 0) < since_ns:
            continue
        attributes = event["Actor"]["Attributes"]
        if all(attributes.get(key) == value for key, value in labels.items()):
            found.append({"id": event["Actor"]["ID"], **attributes})
    return found


def existing(client: Any, ids: list[str]) -> list[str]:
    """Those of ``ids`` the engine still has, in any state."""
    present = {entry["Id"] for entry in client.api.containers(all=True, filters={"label": LABEL})}
    return [ident for ident in ids if ident in present]


def wait_until_gone(client: Any, ids: list[str], within_s: float = 30.0) -> list[str]:
    """``ids`` still present after waiting up to ``within_s`` for the engine's auto-removal."""
    deadline = time.monotonic() + within_s
    left = existing(client, ids)
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = existing(client, ids)
    return left


@pytest.fixture(scope="session")
def docker_setup() -> tuple[Any, str]:
    found = engine()
    if isinstance(found, str):
        pytest.skip(found)
    return found


@pytest.fixture(autouse=True)
def engine_shared(request: pytest.FixtureRequest) -> Iterator[None]:
    if "alone" in request.fixturenames:
        yield
        return
    with engine_share(alone=False):
        yield


@pytest.fixture()
def alone() -> Iterator[None]:
    """No other engine-bound test of ours runs meanwhile: this one counts or sweeps containers."""
    with engine_share(alone=True):
        yield
