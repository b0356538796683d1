"""Shared setup of the plugin's own tests: pytester, and a guard that fails any network use."""

from __future__ import annotations

import importlib
import ipaddress
import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from pytester_output import UNUSED_DEV_PLUGINS

pytest_plugins = ["pytester"]


_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Under ``-n`` without ``--dist``, distribute this suite with ``worksteal``: xdist's
    default (``load``) leaves each worker a queue it keeps to the end, and a queue of long
    plugin runs kept one worker busy ~90 s after the other had finished (``-m "not slow"``:
    316 s with load, 209 s with worksteal, same load on 2 cores)."""
    if getattr(config.option, "numprocesses", None) and config.option.dist == "no":
        config.option.dist = "worksteal"


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
    """Import, once per test process, the modules an in-process pytester run would import
    and then drop: pytester restores ``sys.modules`` after each run, and neither numpy (a C
    extension) nor litellm can be imported a second time; httpx (kept, litellm imports it)
    caches httpcore's exception classes on first use, so a dropped httpcore would leave later
    tests with errors it no longer maps. Imported here first, they are part of the snapshot
    and stay. (Runs with the SandboxFusion or Docker backend stay subprocesses.)"""
    from pytest_req2rank.providers import OFFLINE_DEFAULTS
    from pytest_req2rank.providers._env import import_litellm

    saved = {name: os.environ.get(name) for name in OFFLINE_DEFAULTS}
    import_litellm()
    for name, value in saved.items():  # the defaults stay the import's business, not the tests'
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    for name in ("numpy", "httpcore"):
        importlib.import_module(name)


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
             _modules_kept_across_runs: None) -> Iterator[pytest.Pytester]:
    """pytester, safe for in-process runs of the plugin (``runpytest``): they start no new
    interpreter, so they skip its start-up and litellm's 2-4 s import. The processes its
    runs start load none of :data:`UNUSED_DEV_PLUGINS` (pytester clears ``PYTEST_ADDOPTS``
    when it starts; this sets it after)."""
    monkeypatch.setenv("PYTEST_ADDOPTS", " ".join(f"-p no:{name}" for name in UNUSED_DEV_PLUGINS))
    yield pytester


@pytest.fixture(autouse=True)
def _closed_breakers() -> Iterator[None]:
    """Each test starts with no model of the process stopped by an earlier test's failures
    (the providers' breakers are per process)."""
    yield
    breaker = sys.modules.get("pytest_req2rank.providers._breaker")
    if breaker is not None:
        breaker.reset_breakers()


CHROMIUM = os.environ.get("R2R_CHROMIUM", "/usr/bin/chromium")
"""The browser of the browser tests: Debian's chromium (``.ci/chromium.sh`` installs it)."""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """The one place Chromium is launched, driven by Playwright: the system's build (no
    browser download is possible here), without its own sandbox (CI runs as root, where it
    refuses to start). Skips, saying why, without Chromium or Playwright. Module-scoped:
    Playwright's sync API keeps an event loop running in this thread while it is open, which
    would break every later test of the worker that calls ``asyncio.run``."""
    if not os.path.isfile(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM}: install Debian's chromium (bash "
                    ".ci/chromium.sh) or set R2R_CHROMIUM to run the browser tests")
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="Playwright is not installed: pip install -e '.[dev]'")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()
