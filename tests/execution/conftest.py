"""Shared fixtures of the execution tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_req2rank.sandbox import ProcessSandbox


@pytest.fixture(scope="module")
def box() -> Iterator[ProcessSandbox]:
    """A process sandbox for one test module."""
    sandbox = ProcessSandbox()
    yield sandbox
    sandbox.close()
