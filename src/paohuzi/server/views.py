"""The events of a seat's state, as JSON text built once each.

Every state a seat is sent carries the hand's whole log as that seat may see it, so building
it afresh for each state (each seat and the spectators, at every public moment) made a hand
cost the square of its length: about half of a server's CPU (``benchmarks/server.py``). The
log only grows during a hand and how a seat sees an event never changes, so each event is
turned into its seat's JSON once.

The rest of a state changes little from one public moment to the next (a card played, a
group laid down), so :class:`StateParts` keeps the JSON of each part (a seat's table, row,
hand …) with what it was made from, and makes it again only when that has changed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from paohuzi.bots.protocol import event_json
from paohuzi.engine.cards import KIND_NAMES, Kind, format_cards
from paohuzi.engine.game import Game
from paohuzi.engine.groups import Group
from paohuzi.engine.observation import Observation, seen_event
from paohuzi.engine.rules import RuleSet

T = TypeVar("T")
V = TypeVar("V")
_encode = json.JSONEncoder(ensure_ascii=False).encode
"""``json.dumps(…, ensure_ascii=False)`` without making an encoder at each call."""


def _quoted(notation: str) -> str:
    """A JSON string of card notation (F1, F2: letters, digits, ``:``, ``?`` and spaces, so
    nothing to escape) without the encoder's cost for so small a value."""
    return '"' + notation + '"'


def _texts(values: Sequence[object]) -> str:
    """A JSON list of notation (each value's ``str``)."""
    return "[" + ", ".join('"' + str(v) + '"' for v in values) + "]"


def _inner(data: dict[str, object]) -> str:
    """A JSON object's text without its braces."""
    return _encode(data)[1:-1]


def _cards_text(kinds: Iterable[Kind]) -> str:
    """Cards as a JSON string of F1 notation, in canonical order."""
    return _quoted(format_cards(kinds))


def _row_text(kinds: Iterable[Kind]) -> str:
    """Cards as a JSON string of F1 notation, in their order (a row of passed cards)."""
    return _quoted(format_cards(kinds, sort=False))


def _hand_text(counts: Sequence[int]) -> str:
    """A hand's count array as a JSON string of F1 notation."""
    return _quoted(format_cards(k for k in range(len(counts)) for _ in range(counts[k])))


def _numbers(values: Sequence[int | None]) -> str:
    """A JSON list of integers and nulls."""
    return "[" + ", ".join("null" if v is None else str(v) for v in values) + "]"


class StateText(str):
    """A state's JSON text (``{…, "events": [...]}``, the events last) that knows its parts:
    the text before the events, the list the events' texts are kept in (shared by every state
    of the seat in this hand, growing) and how many of them this state holds."""

    head: str
    parts: list[str]
    held: int

    @classmethod
    def of(cls, head: str, parts: list[str], joined: str | None = None) -> StateText:
        """``joined``: the parts already joined with ``", "`` (:meth:`SeatEvents.joined`)."""
        if joined is None:
            joined = ", ".join(parts)
        text = cls(head + ', "events": [' + joined + "]}")
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
        self._joins: dict[int | None, tuple[int, str]] = {}
        self._whole: list[str] = []
        """Each event's text as it is: what a seat that sees all of it is sent."""

    def parts(self, game: Game, seat: int | None) -> list[str]:
        """The JSON of each of ``game``'s events as ``seat`` sees them (None: a spectator):
        the same list object for the whole of the game, grown to its log."""
        if game is not self._game:
            self._game = game
            self._parts, self._joins, self._whole = {}, {}, []
        parts = self._parts.setdefault(seat, [])
        if game.event_count > len(parts):
            whole = self._whole
            for n, event in enumerate(game.events_since(len(parts)), len(parts)):
                if n == len(whole):
                    whole.append(_encode(event_json(event)))
                seen = seen_event(event, seat)
                parts.append(whole[n] if seen is event else _encode(event_json(seen)))
        return parts

    def copy(self) -> SeatEvents:
        """What is kept now, apart from what is kept later (the texts are shared)."""
        kept = SeatEvents()
        kept._game, kept._whole, kept._joins = self._game, list(self._whole), dict(self._joins)
        kept._parts = {seat: list(texts) for seat, texts in self._parts.items()}
        return kept

    def joined(self, game: Game, seat: int | None) -> tuple[list[str], str]:
        """:meth:`parts`, and the same joined with ``", "`` (grown from the last join)."""
        parts = self.parts(game, seat)
        done, text = self._joins.get(seat, (0, ""))
        if done < len(parts):
            more = ", ".join(parts[done:])
            text = more if not done else text + ", " + more
            self._joins[seat] = (len(parts), text)
        return parts, text

    def text(self, game: Game, seat: int | None) -> str:
        """The JSON array of those events."""
        return "[" + ", ".join(self.parts(game, seat)) + "]"


def events_text(game: Game, seat: int | None) -> str:
    """:meth:`SeatEvents.text` without keeping anything (a game that is not the room's)."""
    return SeatEvents().text(game, seat)


class StateParts:
    """The JSON text of a state's parts, each kept with the value it was made from and made
    again only when that value has changed (an equal value makes the same text). The engine
    hands out the same objects while nothing changes, so comparing them mostly stops at
    identity. What the parts say is :func:`~paohuzi.bots.protocol.observation_json`'s, and
    the room's tests hold the two equal at every step of whole hands."""

    def __init__(self) -> None:
        self._kept: dict[object, tuple[object, object]] = {}

    def copy(self) -> StateParts:
        """What is kept now, apart from what is kept later (the texts are shared)."""
        kept = StateParts()
        kept._kept = dict(self._kept)
        return kept

    def _part(self, slot: object, value: V, make: Callable[[V], T]) -> T:
        """``make(value)``, or what it made for ``slot`` last if ``value`` is the same."""
        kept = self._kept.get(slot)
        if kept is not None and kept[0] == value:
            return kept[1]  # type: ignore[return-value]  # made by this slot's make
        made = make(value)
        self._kept[slot] = (value, made)
        return made

    def facts(self, facts: dict[str, object]) -> str:
        """A dict of JSON values as the text between a JSON object's braces (made again only
        when it has changed: the room's facts change seldom within a hand)."""
        return self._part("facts", facts, _inner)

    def public(self, public: Observation) -> str:
        """The public part of :func:`observation_json` (a spectator's observation
        ``public``) but the tables, as the text between a JSON object's braces."""
        rows = ", ".join(
            self._part(("row", s), row, _row_text) for s, row in enumerate(public.rows)
        )
        discarded = ", ".join(
            self._part(("discarded", s), kinds, _cards_text)
            for s, kinds in enumerate(public.discarded)
        )
        offer = "null" if public.offer is None else _quoted(KIND_NAMES[public.offer])
        source = "null" if public.offer_source is None else _quoted(public.offer_source.value)
        turn = "null" if public.turn is None else str(public.turn)
        return (
            f'"dealer": {public.dealer}, "liang": {_quoted(KIND_NAMES[public.liang])}, '
            f'"hand_sizes": {_numbers(public.hand_sizes)}, "discards": [{rows}], '
            f'"discarded": [{discarded}], "wall": {public.wall}, '
            f'"turn": {turn}, "offer": {offer}, "offer_source": {source}'
        )

    def tables(self, game: Game, public: Observation) -> list[tuple[tuple[str, str], ...]]:
        """Per seat, its table as (the JSON list of its groups, the JSON list of their hu-xi)
        as others see it (a 偎 face down, its hu-xi null) and as the seat itself does."""
        rules = game.rules
        seats = game.seats

        def texts(made_of: tuple[RuleSet, Sequence[object]]) -> tuple[str, str]:
            table = made_of[1]
            return _texts(table), _numbers(
                [rules.huxi.group(g) if isinstance(g, Group) else None for g in table]
            )

        return [
            (
                self._part(("table", s), (rules, seen), texts),
                self._part(("own table", s), (rules, own.table), texts),
            )
            for s, (seen, own) in enumerate(zip(public.tables, seats, strict=True))
        ]

    def own(
        self, game: Game, seat: int | None, tables: list[tuple[tuple[str, str], ...]]
    ) -> tuple[str, str, bool]:
        """What of :func:`observation_json` ``seat`` sees as its own (``seat``, ``hand``,
        ``tables``, ``chou``, ``chou_hu``, ``legal``: the text between a JSON object's
        braces), its ``table_huxi`` (:meth:`tables`) and whether it has a choice to make."""
        tables_text = ", ".join(t[1 if s == seat else 0][0] for s, t in enumerate(tables))
        huxi = ", ".join(t[1 if s == seat else 0][1] for s, t in enumerate(tables))
        if seat is None:
            return (
                f'"seat": null, "hand": "", "tables": [{tables_text}], "chou": "", '
                f'"chou_hu": [], "legal": []',
                f"[{huxi}]",
                False,
            )
        mine = game.seats[seat]
        hand_text = self._part(("hand", seat), mine.hand, _hand_text)
        chou = self._part(("chou", seat), mine.chou, _cards_text)
        chou_hu = _encode([[KIND_NAMES[k], h] for k, h in mine.chou_hu]) if mine.chou_hu else "[]"
        legal = sorted(str(a) for a in game.legal_actions()) if game.to_act == seat else []
        return (
            f'"seat": {seat}, "hand": {hand_text}, "tables": [{tables_text}], '
            f'"chou": {chou}, "chou_hu": {chou_hu}, "legal": {_texts(legal)}',
            f"[{huxi}]",
            bool(legal),
        )
