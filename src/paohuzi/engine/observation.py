"""What one seat may know (R4, R5): the only view of a game that bots, clients and
environments get.

Hidden from a seat: the other hands, the wall, the kind of another seat's face-down 偎, the
cards others drew and did not show, and the answers others gave in a claim window (R8).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from paohuzi.engine.actions import Action
from paohuzi.engine.cards import COPIES, KIND_NAMES, Kind
from paohuzi.engine.evaluator import Wait, prepare
from paohuzi.engine.game import PRIVATE_CARD_EVENTS, Event, Game
from paohuzi.engine.groups import Group, GroupType
from paohuzi.engine.position import ClaimWindow, GameResult, Over, Source
from paohuzi.engine.rules import RuleSet, Seating

HIDDEN = "?"


@dataclass(frozen=True, slots=True)
class SeenGroup:
    """Another seat's face-down 偎 as a seat sees it: its kind (``cards``) is None."""

    type: GroupType
    cards: tuple[Kind, ...] | None

    def __str__(self) -> str:
        if self.cards is None:
            return f"{self.type.value}:{HIDDEN}"
        return f"{self.type.value}:" + "".join(KIND_NAMES[k] for k in self.cards)


@dataclass(frozen=True, slots=True)
class Observation:
    """One seat's view of a game."""

    seat: int | None
    """The observing seat; None for a spectator, who sees public information only."""
    rules: RuleSet
    dealer: int
    liang: Kind
    hand: tuple[int, ...]
    """The seat's own hand, as counts per kind."""
    hand_sizes: tuple[int, ...]
    tables: tuple[tuple[Group | SeenGroup, ...], ...]
    """Every seat's table groups: visible ones as they are, another's 偎 as a SeenGroup."""
    rows: tuple[tuple[Kind, ...], ...]
    """The passed and discarded cards in front of each seat, in order."""
    discarded: tuple[frozenset[Kind], ...]
    """Kinds each seat has discarded (public: every discard is seen)."""
    wall: int
    turn: int | None
    """Whose card is on offer, or who is drawing or discarding: public knowledge."""
    offer: Kind | None
    """The card on offer (a shown draw, a discard, the 亮张), if any."""
    offer_source: Source | None
    legal: tuple[Action, ...]
    """The seat's own choices; empty unless it is to decide now."""
    chou: frozenset[Kind]
    """Kinds that are 臭 for this seat (R7.1)."""
    chou_hu: tuple[tuple[Kind, int], ...]
    """Kinds this seat declined to win on, with its hu-xi then (R9.3)."""
    events: tuple[Event, ...]
    """The log as this seat saw it."""
    result: GameResult | None

    @property
    def to_act(self) -> bool:
        return bool(self.legal)

    @property
    def seating(self) -> Seating:
        """Who plays this hand, in what order (R2, R12)."""
        return self.rules.seating(self.dealer)

    def hand_cards(self) -> list[Kind]:
        """The seat's own hand as cards, in canonical order."""
        return [k for k in range(len(self.hand)) for _ in range(self.hand[k])]

    def own_table(self) -> list[Group]:
        """The seat's own table groups (all visible to it)."""
        if self.seat is None:
            return []
        return [g for g in self.tables[self.seat] if isinstance(g, Group)]

    def hint(self) -> tuple[int, list[Wait]]:
        """The seat's current total hu-xi (R10.6) and its waits (听牌)."""
        prepared = prepare(self.hand_cards(), self.own_table(), self.rules)
        return prepared.current_huxi(), prepared.waits()

    def unseen(self) -> list[int]:
        """Per kind, the copies this seat has not seen anywhere (other hands, the wall, face-down
        偎)."""
        seen = list(self.hand)
        for table in self.tables:
            for group in table:
                for k in group.cards or ():
                    seen[k] += 1
        for row in self.rows:
            for k in row:
                seen[k] += 1
        if self.offer is not None:
            seen[self.offer] += 1
        return [max(0, COPIES - n) for n in seen]


HIDDEN_WEI = SeenGroup(GroupType.WEI, None)


def _seen_group(group: Group, mine: bool) -> Group | SeenGroup:
    return HIDDEN_WEI if group.type is GroupType.WEI and not mine else group


def seen_event(event: Event, seat: int | None) -> Event:
    """``event`` as ``seat`` may see it (None: a spectator): a card drawn or taken into a
    hand by another seat is hidden."""
    if event.seat != seat and event.type in PRIVATE_CARD_EVENTS and event.card is not None:
        return Event(event.type, event.seat)
    return event


def observe(game: Game, seat: int | None, *, events: bool = True) -> Observation:
    """What ``seat`` may know of ``game``; ``seat`` None: what a spectator may know.
    ``events`` False leaves the log out (it is the costly part). ValueError for a seat that
    is not at the table (a negative one would read another seat's hand from the end)."""
    if seat is not None and not 0 <= seat < game.rules.players:
        raise ValueError(f"seat must be 0–{game.rules.players - 1} or None, not {seat!r}")
    public = public_observation(game, events=events and seat is None)
    return public if seat is None else seat_observation(public, game, seat, events=events)


def public_observation(game: Game, *, events: bool = True) -> Observation:
    """What everyone may know of ``game``: a spectator's observation."""
    phase = game.phase
    seats = game.seats
    offer: Kind | None = None
    source: Source | None = None
    if isinstance(phase, ClaimWindow):
        turn: int | None = phase.owner
        offer = phase.card
        source = phase.source
    else:
        turn = phase.to_act
    return Observation(
        seat=None,
        rules=game.rules,
        dealer=game.dealer,
        liang=game.liang,
        hand=(0,) * len(seats[0].hand),
        hand_sizes=tuple(sum(s.hand) for s in seats),
        tables=tuple(tuple(_seen_group(g, False) for g in s.table) for s in seats),
        rows=tuple(s.row for s in seats),
        discarded=tuple(s.discarded for s in seats),
        wall=game.wall,
        turn=turn,
        offer=offer,
        offer_source=source,
        legal=(),
        chou=frozenset(),
        chou_hu=(),
        events=tuple(seen_event(e, None) for e in game.log) if events else (),
        result=phase.result if isinstance(phase, Over) else None,
    )


def seat_observation(
    public: Observation, game: Game, seat: int, *, events: bool = True
) -> Observation:
    """What ``seat`` may know of ``game``, given :func:`public_observation` of the same moment:
    that, with the seat's own hand, its own table face up, its choices and its 臭 (a server
    building every seat's state at once observes the public part once)."""
    own = game.seats[seat]
    tables = list(public.tables)
    tables[seat] = tuple(own.table)
    return replace(
        public,
        seat=seat,
        hand=own.hand,
        tables=tuple(tables),
        legal=tuple(game.legal_actions()) if game.to_act == seat else (),
        chou=own.chou,
        chou_hu=own.chou_hu,
        events=tuple(seen_event(e, seat) for e in game.log) if events else (),
    )
