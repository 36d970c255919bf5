"""The pace of a room's frames: what the seats are shown, in order, public moments apart.

A room captures a :class:`Frame` at every public moment of a hand and at every question it
puts to a person (:mod:`rooms`); the :class:`Pacer` lets them out in the order captured, each
public one at least ``gap`` seconds after the last, so when a frame arrives tells no seat
whether anyone was asked a hidden question meanwhile (R8, issue 22 point 7).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Frame:
    """What the seats are shown at one moment: a view per seat (None: spectators)."""

    views: dict[int | None, str]
    public: bool
    """A public moment takes its place in the room's pace; a private question does not."""
    decider: int | None = None
    """A person's seat asked to decide from this frame on: its turn timer starts with it."""
    window: bool = False
    """The questions of a claim window, put to its people at once: its timer starts with it."""


class Pacer:
    """A room's frames: captured while the room changes, then shown in order by a task of its
    own, public ones at least ``gap`` apart; ``deliver`` sends each to the connections."""

    def __init__(self, gap: float, deliver: Callable[[Frame], None]) -> None:
        self.gap = gap
        self._deliver = deliver
        self.captured: list[Frame] = []
        """Frames of a change under way: queued by :meth:`show`, or dropped if it fails."""
        self.queued: deque[Frame] = deque()
        self.shown: dict[int | None, str] = {}
        """The last view shown to each seat (for a newcomer while frames wait)."""
        self.drained = asyncio.Event()
        """Set when every queued frame is shown (bots decide on what the table saw)."""
        self.drained.set()
        self._next = 0.0
        self._task: asyncio.Task[None] | None = None

    def capture(self, frame: Frame) -> None:
        self.captured.append(frame)

    def show(self) -> None:
        """Queue the captured frames and let them out at the pace."""
        self.queued.extend(self.captured)
        self.captured.clear()
        self.drained.clear()
        if self._task is None:
            self._task = asyncio.create_task(self._release())

    def last_shown(self, seat: int | None) -> str | None:
        """What the table last saw of ``seat`` while frames wait to be shown (else None)."""
        return self.shown.get(seat) if self.queued else None

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _release(self) -> None:
        clock = asyncio.get_running_loop().time  # the clock its sleeps are timed by
        try:
            while self.queued:
                frame = self.queued[0]
                if frame.public and frame.views:
                    wait = self._next - clock()
                    if wait > 0:
                        await asyncio.sleep(wait)
                self.queued.popleft()
                if frame.views:
                    self.shown.update(frame.views)
                else:
                    self.shown.clear()  # built for nobody: what the table saw is unknown
                self._deliver(frame)
                if frame.public and frame.views:
                    self._next = clock() + self.gap
        finally:
            self._task = None
            self.drained.set()
