"""The events of a seat's state, as JSON text built once each.

Every state a seat is sent carries the hand's whole log as that seat may see it, so building
it afresh for each state (each seat and the spectators, at every public moment) made a hand
cost the square of its length: about half of a server's CPU (``benchmarks/server.py``). The
log only grows during a hand and how a seat sees an event never changes, so each event is
turned into its seat's JSON once.
"""

from __future__ import annotations

import json

from paohuzi.bots.protocol import event_json
from paohuzi.game import Game
from paohuzi.observation import seen_event


class SeatEvents:
    """For one game at a time (the hand in play): each seat's events as JSON text."""

    def __init__(self) -> None:
        self._game: Game | None = None
        self._parts: dict[int | None, list[str]] = {}

    def text(self, game: Game, seat: int | None) -> str:
        """The JSON array of ``game``'s events as ``seat`` sees them (None: a spectator)."""
        if game is not self._game:
            self._game = game
            self._parts = {}
        parts = self._parts.setdefault(seat, [])
        log = game.log
        for k in range(len(parts), len(log)):
            parts.append(json.dumps(event_json(seen_event(log[k], seat)), ensure_ascii=False))
        return "[" + ", ".join(parts) + "]"


def events_text(game: Game, seat: int | None) -> str:
    """:meth:`SeatEvents.text` without keeping anything (a game that is not the room's)."""
    return SeatEvents().text(game, seat)
