"""The life of a room as an explicit state that refuses illegal transitions (D80).

As Starlette's ``WebSocketState`` does for a connection: every change of a room's stage goes
through :meth:`Stage.to`, and a change the table below does not allow raises
:class:`IllegalTransition` instead of leaving the room half in one stage and half in another.
"""

from __future__ import annotations

import enum


class RoomStateError(Exception):
    """A room was used in a state that does not allow it (a bug). Not a ``RuntimeError``,
    which Starlette raises for a closed connection and the WebSocket handler takes quietly."""


class IllegalTransition(RoomStateError):
    """A room was asked to go from one state to another it may not go to (a bug)."""


class RoomState(enum.Enum):
    WAITING = "waiting"
    """Nothing dealt yet: the waiting room, until every person has come (or the host starts)."""
    DEALING = "dealing"
    """A hand is dealt in memory and its write is in flight: nothing of it may be shown."""
    PLAYING = "playing"
    """A hand in play."""
    SETTLING = "settling"
    """The hand is over: its record is stored (or retried), the table waits to be ready."""
    CLOSED = "closed"
    """The room closed (idle, moved to another process, or the server stops): final."""


ALLOWED: dict[RoomState, frozenset[RoomState]] = {
    RoomState.WAITING: frozenset({RoomState.DEALING, RoomState.CLOSED}),
    # DEALING → WAITING: the first deal's write failed; → SETTLING: a forced 天胡 (R2), or
    # the next deal's write failed and the finished hand is back.
    RoomState.DEALING: frozenset(
        {RoomState.PLAYING, RoomState.SETTLING, RoomState.WAITING, RoomState.CLOSED}
    ),
    RoomState.PLAYING: frozenset({RoomState.SETTLING, RoomState.CLOSED}),
    RoomState.SETTLING: frozenset({RoomState.DEALING, RoomState.CLOSED}),
    RoomState.CLOSED: frozenset(),
}
"""Where each state may go."""


class Stage:
    """A room's state, changed only along :data:`ALLOWED`."""

    __slots__ = ("state",)

    def __init__(self, state: RoomState = RoomState.WAITING) -> None:
        self.state = state

    def to(self, state: RoomState) -> None:
        """Go to ``state``; raises :class:`IllegalTransition` if the table does not allow it."""
        if state not in ALLOWED[self.state]:
            raise IllegalTransition(f"a room cannot go from {self.state.value} to {state.value}")
        self.state = state

    def __repr__(self) -> str:
        return f"Stage({self.state})"
