"""Asking a person at a terminal, so that Ctrl-C is never lost.

Python turns SIGINT into ``KeyboardInterrupt`` only when it runs Python code again: a Ctrl-C
that arrives after the prompt is printed but before ``input()`` has entered its ``read()``
(or that the kernel hands to another thread) sets Python's flag and nothing more, and the
program sleeps in ``read()`` until a line comes, deaf to the key that should have stopped it.
On a busy machine that window is wide enough to be hit (a CI run lost a Ctrl-C this way:
the program asleep in the terminal's read, SIGINT caught and nothing pending). :func:`ask`
waits for the line in :func:`select.select` with a timeout first, so Python looks at its
flag at least every :data:`POLL` seconds, then reads the line that is there.
"""

from __future__ import annotations

import os
import select
import sys
from typing import TextIO

from rich.console import Console

POLL = 0.1
"""Seconds at most between two looks at Python's signal flag while a prompt waits."""


def wait_for_line(stream: TextIO | None = None) -> None:
    """Return when a line (or the end of input) can be read from the terminal ``stream``
    (standard input by default) without blocking, raising ``KeyboardInterrupt`` on a Ctrl-C
    typed at any moment. Does nothing unless ``stream`` is a terminal on a POSIX system: a
    terminal's read returns one line at a time, so nothing waits unseen in a buffer (a pipe's
    reader may hold lines in its buffer that ``select`` does not see)."""
    stream = sys.stdin if stream is None else stream
    if os.name != "posix":
        return
    try:
        fd = stream.fileno()
        if not os.isatty(fd):
            return
    except (AttributeError, OSError, ValueError):
        return
    while True:  # each turn is a look at the signal flag
        try:
            ready, _, _ = select.select([fd], [], [], POLL)
        except (OSError, ValueError):
            return
        if ready:
            return


def ask(console: Console, prompt: str, *, markup: bool = True) -> str:
    """:meth:`rich.console.Console.input`, but a Ctrl-C typed at any moment, even before the
    read began, ends the wait with ``KeyboardInterrupt`` (see the module docstring)."""
    if prompt:
        console.print(prompt, markup=markup, end="")
    wait_for_line()
    return console.input()
