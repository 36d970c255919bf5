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
from paohuzi.engine.game import Game
from paohuzi.engine.observation import seen_event


class StateText(str):
    """A state's JSON text (``{…, "events": [...]}``, the events last) that knows its parts:
    the text before the events, the list the events' texts are kept in (shared by every state
    of the seat in this hand, growing) and how many of them this state holds."""

    head: str
    parts: list[str]
    held: int

    @classmethod
    def of(cls, head: str, parts: list[str]) -> StateText:
        text = cls(head + ', "events": [' + ", ".join(parts) + "]}")
        text.head, text.parts, text.held = head, parts, len(parts)
        return text

    def since(self, sent: int) -> str:
        """The same state with only the events from the ``sent``-th on (``events_from``)."""
        new = ", ".join(self.parts[sent : self.held])
        return f'{self.head}, "events_from": {sent}, "events": [{new}]}}'


class SeatEvents:
    """For one game at a time (the hand in play): each seat's events as JSON text."""

    def __init__(self) -> None:
        self._game: Game | None = None
        self._parts: dict[int | None, list[str]] = {}

    def parts(self, game: Game, seat: int | None) -> list[str]:
        """The JSON of each of ``game``'s events as ``seat`` sees them (None: a spectator):
        the same list object for the whole of the game, grown to its log."""
        if game is not self._game:
            self._game = game
            self._parts = {}
        parts = self._parts.setdefault(seat, [])
        if game.event_count > len(parts):
            for event in game.events_since(len(parts)):
                parts.append(json.dumps(event_json(seen_event(event, seat)), ensure_ascii=False))
        return parts

    def text(self, game: Game, seat: int | None) -> str:
        """The JSON array of those events."""
        return "[" + ", ".join(self.parts(game, seat)) + "]"


def events_text(game: Game, seat: int | None) -> str:
    """:meth:`SeatEvents.text` without keeping anything (a game that is not the room's)."""
    return SeatEvents().text(game, seat)
