"""Shared setup of the plugin's own tests: pytester, and a guard that fails any network use."""

from __future__ import annotations

import ipaddress
import sys
from typing import Any

pytest_plugins = ["pytester"]

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
