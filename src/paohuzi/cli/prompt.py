"""Asking a person at a terminal, so that Ctrl-C is never lost.

Python turns SIGINT into ``KeyboardInterrupt`` only when it runs Python code again: a Ctrl-C
that arrives after the prompt is printed but before ``input()`` has entered its ``read()``
(or that the kernel hands to another thread) sets Python's flag and nothing more, and the
program sleeps in ``read()`` until a line comes, deaf to the key that should have stopped it.
On a busy machine that window is wide enough to be hit (a CI run lost a Ctrl-C this way:
the program asleep in the terminal's read, SIGINT caught and nothing pending). :func:`ask`
waits for the line in :func:`select.select` with a timeout first, so Python looks at its
flag at least every :data:`POLL` seconds, then reads the line that is there.

A Ctrl-C must not cut a line of output in half either. rich keeps a count of the writes under
way and writes its buffer out only when the count is back to zero; a ``KeyboardInterrupt``
raised just as a print ends (in rich's ``_exit_buffer``, before the count goes down) leaves the
count at one for good, and from then on rich writes nothing at all: the program's question
after the Ctrl-C ("Leaving. Save the record…? [y/N]") stays in the buffer while it waits for
the answer (a CI run hung so: asleep in ``select`` here, nothing on the screen after the ^C).
:class:`Console` therefore holds a Ctrl-C that comes while it prints, and raises it when the
print is done; :func:`ctrl_c_between_prints` installs the handler that does so.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, TextIO

import rich.console

POLL = 0.1
"""Seconds at most between two looks at Python's signal flag while a prompt waits."""


class _Held:
    """How many prints are under way, and whether a Ctrl-C came during one of them."""

    prints = 0
    ctrl_c = False


def _on_ctrl_c(signum: int, frame: FrameType | None) -> None:
    """The SIGINT handler of :func:`ctrl_c_between_prints`: ``KeyboardInterrupt`` at once, as
    Python's own handler, unless a print is under way; then at its end."""
    if _Held.prints:
        _Held.ctrl_c = True
        return
    raise KeyboardInterrupt


@contextmanager
def ctrl_c_between_prints() -> Iterator[None]:
    """While inside, a Ctrl-C that comes while :class:`Console` prints is raised when the print
    is done. Changes nothing unless SIGINT has Python's own handler and this is the main thread
    (only there may a handler be set); puts the handler back on the way out."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield
        return
    signal.signal(signal.SIGINT, _on_ctrl_c)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        _Held.prints, _Held.ctrl_c = 0, False


class Console(rich.console.Console):
    """A rich console whose prints a Ctrl-C does not break (see the module docstring): under
    :func:`ctrl_c_between_prints`, the ``KeyboardInterrupt`` comes when the print is done.
    Only the main thread's prints hold it: the signal is raised in no other thread."""

    def on_broken_pipe(self) -> None:
        """Standard output's reader has gone (``| head``): quiet from here on, and
        ``BrokenPipeError`` for the command to end as on any broken pipe (rich exits 1)."""
        self.quiet = True
        # What is still buffered for standard output goes nowhere, not into a second error
        # when Python flushes it on the way out.
        devnull = os.open(os.devnull, os.O_WRONLY)
        with contextlib.suppress(AttributeError, OSError, ValueError):
            os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        raise BrokenPipeError

    def print(self, *objects: Any, **options: Any) -> None:
        if threading.current_thread() is not threading.main_thread():
            super().print(*objects, **options)
            return
        _Held.prints += 1
        try:
            super().print(*objects, **options)
        finally:
            _Held.prints -= 1
            if not _Held.prints and _Held.ctrl_c:
                _Held.ctrl_c = False
                raise KeyboardInterrupt


def interactive(stream: TextIO | None = None) -> bool:
    """Whether ``stream`` (standard input by default) is a terminal a person types on."""
    stream = sys.stdin if stream is None else stream
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, OSError, ValueError):
        return False


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


def ask(console: rich.console.Console, prompt: str, *, markup: bool = True) -> str:
    """:meth:`rich.console.Console.input`, but a Ctrl-C typed at any moment, even before the
    read began, ends the wait with ``KeyboardInterrupt`` (see the module docstring), and a
    standard input or output that is closed is the end of input (``EOFError``), as for
    ``input()`` at the end of a file, not its ``RuntimeError``."""
    if prompt:
        console.print(prompt, markup=markup, end="")
    wait_for_line()
    try:
        return console.input()
    except RuntimeError as error:
        if "lost sys.std" not in str(error):
            raise
        raise EOFError(str(error)) from None
