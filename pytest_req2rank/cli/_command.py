"""What a subcommand is: its name, help, arguments and what it runs."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import Req2RankError

EXIT_OK = 0
EXIT_ERROR = 2
"""A user mistake or an unreadable input (unknown run, missing or broken store): one line."""


class CommandError(Req2RankError, ValueError):
    """Stops a command with one line (what, where, how to fix) and exit code 2."""


@dataclass(frozen=True)
class Command:
    """One ``req2rank`` subcommand. ``run`` returns the exit code; it writes to stdout."""

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
