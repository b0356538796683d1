"""Ctrl-C's report: a traceback pytest can print wherever the interrupt landed.

CPython 3.11 gives some instructions no line number (a loop's jump back after an ``if`` that
``break``s, in pluggy's hook loop and in this plugin's look-ahead, for example). A
KeyboardInterrupt raised while the main thread is at one of them has a traceback entry
whose ``tb_lineno`` is ``None``; pytest's report of the interrupt computes ``tb_lineno - 1``,
fails with a TypeError, and the run ends with exit code 1 instead of 2. A run whose main
thread waits on model calls while other threads answer is often interrupted in such loops.
"""

from __future__ import annotations

from types import CodeType, TracebackType


def mend_lineless(error: BaseException) -> None:
    """Give each traceback entry of ``error``, and of the exceptions chained to it, that has
    no line number the line of the last instruction before it that has one, in place.

    The first entry of a traceback is the frame that caught the exception, at a call or a
    ``raise``, which always has a line; the entries after it are replaced through the
    previous entry's ``tb_next``, so whoever holds the first one sees the mended chain."""
    seen: set[int] = set()
    pending: list[BaseException] = [error]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        entry = current.__traceback__
        while entry is not None and entry.tb_next is not None:
            following = entry.tb_next
            if following.tb_lineno is None:
                entry.tb_next = TracebackType(
                    following.tb_next, following.tb_frame, following.tb_lasti,
                    _line_before(following.tb_frame.f_code, following.tb_lasti))
            entry = entry.tb_next
        pending.extend(chained for chained in (current.__cause__, current.__context__)
                       if chained is not None)


def _line_before(code: CodeType, offset: int) -> int:
    """The line of the last instruction of ``code`` at or before byte ``offset`` that has one
    (the function's first line when none has)."""
    line = code.co_firstlineno
    for unit, (start, *_) in enumerate(code.co_positions()):
        if unit * 2 > offset:
            break
        if start is not None:
            line = start
    return line
