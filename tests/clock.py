"""Waiting in tests: progress deadlines, never speeds (issue 21).

A test whose point is "this does not stall" waits for the progress itself (a state that
arrives, a hand that ends, a server that answers) and fails only when none comes within a
deadline that a machine ten times slower than a quiet one still meets. Figures of speed are
the benchmarks' (``benchmarks/``), which print them; CI runs on a shared machine.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

PATIENCE = 60.0
"""Seconds a test waits for progress before it calls a stall: the slowest single wait here
(a server process starting, a hand of bots with their pauses) takes a few seconds on a quiet
2-core machine, so ten times slower still meets it."""

LEAST = 5.0
"""No deadline is shorter: below this a loaded machine, not the code, decides the test."""


def deadline(seconds: float = PATIENCE) -> float:
    """The moment, ``seconds`` from now, after which waiting is a stall."""
    if seconds < LEAST:
        raise ValueError(f"a deadline of {seconds} s would time the machine, not the code")
    # The only wall clock a test reads to bound a wait: progress is awaited, never timed.
    return time.monotonic() + seconds


def expired(moment: float) -> bool:
    """Whether a deadline from :func:`deadline` has passed."""
    return time.monotonic() > moment  # a progress deadline (see deadline()), not a speed


def wait_until(
    condition: Callable[[], object],
    what: str = "timed out",
    seconds: float = PATIENCE,
    *,
    progress: Callable[[], object] | None = None,
) -> None:
    """Poll ``condition`` until it holds; fail naming ``what`` if the deadline passes first.
    With ``progress`` (a mark of the work done so far, :class:`Progress`), the deadline moves
    on whenever the mark changes: a wait over many steps fails only when one stalls."""
    step = Progress(seconds)
    while not condition():
        step.check(progress() if progress is not None else None, what)
        time.sleep(0.02)


async def until(
    condition: Callable[[], object],
    what: str = "timed out",
    seconds: float = PATIENCE,
    *,
    progress: Callable[[], object] | None = None,
) -> None:
    """:func:`wait_until` inside an event loop, letting it run between two polls."""
    step = Progress(seconds)
    while not condition():
        step.check(progress() if progress is not None else None, what)
        await asyncio.sleep(0.005)


class Progress:
    """A deadline that moves on with the work: a wait over many steps (a hand of moves, a
    review of every decision) fails only when no step is made for ``seconds``, however many
    steps a loaded machine takes minutes for."""

    def __init__(self, seconds: float = PATIENCE) -> None:
        self.seconds = seconds
        self._mark: object = None
        self._end = deadline(seconds)
        """The mark of the last step seen, and when the wait for the next one ends."""

    def check(self, mark: object, what: str = "no progress") -> None:
        """Note the work's progress so far (``mark``: anything that changes with each step,
        a count, a state); fail naming ``what`` if it has not changed within the patience."""
        if mark != self._mark:
            self._mark = mark
            self._end = deadline(self.seconds)
        assert not expired(self._end), what
