"""Shared setup of the plugin's own tests: pytester, and a guard that fails any network use."""

from __future__ import annotations

import importlib
import ipaddress
import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest

pytest_plugins = ["pytester"]

KEPT_ACROSS_RUNS = ("numpy", "httpx", "docker")
"""Modules a plugin run imports that cannot be dropped and imported again in one process."""

_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


def _is_loopback(host: Any) -> bool:
    if isinstance(host, bytes):
        host = host.decode(errors="replace")
    if not isinstance(host, str) or host in _LOOPBACK_NAMES or host == "":
        return isinstance(host, str)
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def _no_network(event: str, args: tuple[Any, ...]) -> None:
    if event == "socket.getaddrinfo" and not _is_loopback(args[0]):
        raise RuntimeError(f"tests must not use the network: getaddrinfo({args[0]!r})")
    if event == "socket.connect":
        address = args[1]
        if isinstance(address, tuple) and not _is_loopback(address[0]):
            raise RuntimeError(f"tests must not use the network: connect({address!r})")


sys.addaudithook(_no_network)


@pytest.fixture(scope="session")
def _modules_kept_across_runs() -> None:
    """Import, once per test process, what an in-process pytester run would import and then
    drop: pytester restores ``sys.modules`` after each run, numpy (a C extension) and litellm
    cannot be imported a second time, and a re-imported httpx or docker SDK leaves two copies of
    their exception classes. Imported here first, they are part of the snapshot and stay."""
    from pytest_req2rank.providers import OFFLINE_DEFAULTS
    from pytest_req2rank.providers._env import import_litellm

    saved = {name: os.environ.get(name) for name in OFFLINE_DEFAULTS}
    import_litellm()
    for name, value in saved.items():  # the defaults stay the import's business, not the tests'
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    for name in KEPT_ACROSS_RUNS:
        importlib.import_module(name)


@pytest.fixture
def pytester(pytester: pytest.Pytester,
              _modules_kept_across_runs: None) -> Iterator[pytest.Pytester]:
    """pytester, safe for in-process runs of the plugin (``runpytest``): they start no new
    interpreter, so they skip its start-up and litellm's 2-4 s import."""
    yield pytester
