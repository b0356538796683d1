"""A process sandbox and an in-memory reference cache shared by the N-version tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_req2rank.execution import ReferenceCache
from pytest_req2rank.sandbox import ProcessSandbox


@pytest.fixture(scope="session")
def nv_sandbox() -> Iterator[ProcessSandbox]:
    with ProcessSandbox() as box:
        yield box  # type: ignore[misc]


@pytest.fixture(scope="session")
def nv_cache() -> ReferenceCache:
    return ReferenceCache()
