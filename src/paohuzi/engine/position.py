"""A position: everything that decides how a hand goes on, as a value (like a chess FEN).

A :class:`Position` holds the dealer, the 亮张, the wall still to draw, one :class:`SeatState`
per seat and the :data:`Phase` — what the game waits for, as a tagged union:

* :class:`ClaimWindow` — seats answer, in turn, on a card on offer (R8);
* :class:`Discarding` — a seat must discard (R6);
* :class:`SelfHu` — the drawer may win right after his forced 偎 or 提 (R4.1 step 3);
* :class:`Over` — the hand has ended, with its :class:`GameResult`.

``phase.to_act`` is the seat to decide (None once over). Positions compare by value and have a
JSON notation (:meth:`Position.to_json`, :meth:`Position.from_json`) that round-trips exactly.
:meth:`~paohuzi.engine.game.Game.position` takes one from a game,
:meth:`~paohuzi.engine.game.Game.from_position` plays on from one. What a position leaves out
is derived from it: the options of each seat still to answer on a card (R8), the pending
forced 跑, the drawer's winning arrangement.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from paohuzi.engine.actions import Action, parse_action
from paohuzi.engine.cards import (
    KIND_NAMES,
    NUM_KINDS,
    Kind,
    NotationError,
    format_cards,
    parse_cards,
)
from paohuzi.engine.evaluator import HuResult
from paohuzi.engine.groups import Group, parse_group
from paohuzi.engine.scoring import Score

JSON = dict[str, Any]

FORMAT = "paohuzi-position/1"


class Source(enum.Enum):
    """Where a card on offer comes from."""

    LIANG = "liang"
    """The 亮张, offered for 选择天胡 (R9.5.2)."""
    DRAWN = "drawn"
    """Drawn from the wall and shown (R4.1)."""
    DISCARDED = "discarded"
    """Discarded (R4.2)."""


@dataclass(frozen=True, slots=True)
class SeatState:
    """One seat's part of a position."""

    hand: tuple[int, ...]
    """Copies of each kind in hand (a count array)."""
    table: tuple[Group, ...] = ()
    """Groups on the table, in the order they were laid down."""
    row: tuple[Kind, ...] = ()
    """The passed and discarded cards in front of the seat, in order."""
    discarded: frozenset[Kind] = frozenset()
    """Kinds the seat has discarded: it may never 吃 or 碰 them (R7.1)."""
    chou: frozenset[Kind] = frozenset()
    """Kinds the seat passed a 吃 or 碰 on (臭, R7.1)."""
    chou_hu: tuple[tuple[Kind, int], ...] = ()
    """Kinds the seat declined to win on, with its hu-xi then, by kind (臭胡, R9.3)."""

    def but(
        self,
        *,
        hand: tuple[int, ...] | None = None,
        table: tuple[Group, ...] | None = None,
        row: tuple[Kind, ...] | None = None,
        discarded: frozenset[Kind] | None = None,
    ) -> SeatState:
        """This state with its hand, table, row or discarded kinds replaced: the engine's
        frequent changes, faster than ``dataclasses.replace``."""
        return SeatState(
            self.hand if hand is None else hand,
            self.table if table is None else table,
            self.row if row is None else row,
            self.discarded if discarded is None else discarded,
            self.chou,
            self.chou_hu,
        )

    def chou_hu_of(self, kind: Kind) -> int | None:
        """The hu-xi at which the seat declined to win on ``kind``, if it did."""
        for k, huxi in self.chou_hu:
            if k == kind:
                return huxi
        return None

    def hand_cards(self) -> list[Kind]:
        """The hand as cards, in canonical order."""
        return [k for k in range(NUM_KINDS) for _ in range(self.hand[k])]


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a hand ended (R10, R11): a win, or 荒庄 with ``winner`` None."""

    winner: int | None
    win: Kind | None
    """The winning card; None for 必需天胡 and 荒庄."""
    hu: HuResult | None
    payments: tuple[int, ...]
    """Per seat; zero for a seat that sat the hand out (R12)."""
    other_huxi: Mapping[int, int]
    """Every other playing seat's current total hu-xi (R10.6); every playing seat's after 荒庄."""


@dataclass(frozen=True, slots=True)
class ClaimWindow:
    """Seats answer on a card on offer (R8): each seat with an option is asked once, in order."""

    card: Kind
    owner: int
    """Who drew or discarded the card (the dealer for the 亮张)."""
    source: Source
    asking: tuple[int, ...]
    """The seats still to answer, in asking order; the first decides now."""
    offered: tuple[Action, ...]
    """What the first is offered, pass aside: his options not already outranked (R8)."""
    claims: tuple[tuple[int, Action], ...] = ()
    """The answers declared so far, in order: hidden from the other players (R8)."""

    @property
    def to_act(self) -> int:
        return self.asking[0]


@dataclass(frozen=True, slots=True)
class Discarding:
    """``seat`` must discard (R6)."""

    seat: int

    @property
    def to_act(self) -> int:
        return self.seat


@dataclass(frozen=True, slots=True)
class SelfHu:
    """``seat`` has just 偎'd or 提'd the card he drew (``card``) and may win (R4.1 step 3)."""

    seat: int
    card: Kind

    @property
    def to_act(self) -> int:
        return self.seat


@dataclass(frozen=True, slots=True)
class Over:
    """The hand has ended."""

    result: GameResult

    @property
    def to_act(self) -> None:
        return None


Phase = ClaimWindow | Discarding | SelfHu | Over
"""What the game waits for."""


@dataclass(frozen=True, slots=True)
class Position:
    """Everything that decides how a hand goes on. See the module docstring."""

    dealer: int
    liang: Kind
    """The 亮张 (R2): the dealer's 21st card, shown to all."""
    wall: tuple[Kind, ...]
    """The cards still to draw, in order."""
    seats: tuple[SeatState, ...]
    """One per seat of the table; a seat sitting the hand out holds nothing (R12)."""
    phase: Phase

    @property
    def to_act(self) -> int | None:
        return self.phase.to_act

    def card_count(self) -> int:
        """The cards the position places: hands, tables, rows, the wall and a card on offer
        (80 in every position of a hand in play, R1)."""
        total = len(self.wall) + (1 if isinstance(self.phase, ClaimWindow) else 0)
        for s in self.seats:
            total += sum(s.hand) + sum(len(g.cards) for g in s.table) + len(s.row)
        return total

    def to_json(self) -> JSON:
        """The position's JSON notation (docs/position.md)."""
        return {
            "format": FORMAT,
            "dealer": self.dealer,
            "liang": KIND_NAMES[self.liang],
            "wall": format_cards(self.wall, sort=False),
            "seats": [_seat_json(s) for s in self.seats],
            "phase": _phase_json(self.phase),
        }

    @classmethod
    def from_json(cls, data: Any) -> Position:
        """Read :meth:`to_json`; raises ValueError (NotationError for bad cards) naming what is
        wrong."""
        obj = _object(data, "a position")
        if obj.get("format", FORMAT) != FORMAT:
            raise ValueError(f"not a {FORMAT} position (format: {obj.get('format')!r})")
        seats = obj.get("seats")
        if not isinstance(seats, list):
            raise ValueError("seats must be a list")
        return cls(
            dealer=_int(obj.get("dealer"), "dealer"),
            liang=_kind(obj.get("liang"), "liang"),
            wall=tuple(_cards(obj.get("wall"), "wall")),
            seats=tuple(_seat_from_json(s) for s in seats),
            phase=_phase_from_json(obj.get("phase")),
        )


# ----------------------------------------------------------------------------- JSON helpers


def _object(data: Any, what: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ValueError(f"{what} is a JSON object")
    return data


def _int(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{what} must be an integer, not {value!r}")
    return value


def _bool(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{what} must be true or false, not {value!r}")
    return value


def _cards(value: Any, what: str) -> list[Kind]:
    if not isinstance(value, str):
        raise ValueError(f"{what} must be a string of cards")
    return parse_cards(value)


def _kind(value: Any, what: str) -> Kind:
    cards = _cards(value, what)
    if len(cards) != 1:
        raise ValueError(f"{what} must be one card, not {value!r}")
    return cards[0]


def _maybe_kind(value: Any, what: str) -> Kind | None:
    return None if value is None else _kind(value, what)


def _groups(value: Any, what: str) -> tuple[Group, ...]:
    if not isinstance(value, list) or not all(isinstance(g, str) for g in value):
        raise ValueError(f"{what} must be a list of groups")
    return tuple(parse_group(g) for g in value)


def _actions(value: Any, what: str) -> tuple[Action, ...]:
    if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
        raise ValueError(f"{what} must be a list of actions")
    return tuple(parse_action(a) for a in value)


def _seat_json(seat: SeatState) -> JSON:
    return {
        "hand": format_cards(seat.hand_cards()),
        "table": [str(g) for g in seat.table],
        "row": format_cards(seat.row, sort=False),
        "discarded": format_cards(seat.discarded),
        "chou": format_cards(seat.chou),
        "chou_hu": {KIND_NAMES[k]: h for k, h in seat.chou_hu},
    }


def _seat_from_json(data: Any) -> SeatState:
    obj = _object(data, "a seat")
    hand = [0] * NUM_KINDS
    for k in _cards(obj.get("hand", ""), "hand"):
        hand[k] += 1
    chou_hu = _object(obj.get("chou_hu", {}), "chou_hu")
    return SeatState(
        hand=tuple(hand),
        table=_groups(obj.get("table", []), "table"),
        row=tuple(_cards(obj.get("row", ""), "row")),
        discarded=frozenset(_cards(obj.get("discarded", ""), "discarded")),
        chou=frozenset(_cards(obj.get("chou", ""), "chou")),
        chou_hu=tuple(
            sorted((_kind(k, "chou_hu"), _int(h, "chou_hu hu-xi")) for k, h in chou_hu.items())
        ),
    )


def _phase_json(phase: Phase) -> JSON:
    if isinstance(phase, ClaimWindow):
        return {
            "type": "claim",
            "card": KIND_NAMES[phase.card],
            "owner": phase.owner,
            "source": phase.source.value,
            "asking": list(phase.asking),
            "offered": [str(a) for a in phase.offered],
            "claims": [f"{seat} {action}" for seat, action in phase.claims],
        }
    if isinstance(phase, Discarding):
        return {"type": "discard", "seat": phase.seat}
    if isinstance(phase, SelfHu):
        return {"type": "self_hu", "seat": phase.seat, "card": KIND_NAMES[phase.card]}
    return {"type": "over", "result": _result_json(phase.result)}


def _phase_from_json(data: Any) -> Phase:
    obj = _object(data, "a phase")
    kind = obj.get("type")
    if kind == "claim":
        asking = obj.get("asking")
        if not isinstance(asking, list) or not asking:
            raise ValueError("a claim window's asking is a non-empty list of seats")
        claims = obj.get("claims", [])
        if not isinstance(claims, list) or not all(isinstance(c, str) for c in claims):
            raise ValueError("claims must be a list of F3 lines")
        try:
            source = Source(obj.get("source"))
        except ValueError:
            raise ValueError(f"unknown source {obj.get('source')!r}") from None
        return ClaimWindow(
            card=_kind(obj.get("card"), "card"),
            owner=_int(obj.get("owner"), "owner"),
            source=source,
            asking=tuple(_int(s, "asking") for s in asking),
            offered=_actions(obj.get("offered", []), "offered"),
            claims=tuple(_claim(c) for c in claims),
        )
    if kind == "discard":
        return Discarding(_int(obj.get("seat"), "seat"))
    if kind == "self_hu":
        return SelfHu(_int(obj.get("seat"), "seat"), _kind(obj.get("card"), "card"))
    if kind == "over":
        return Over(_result_from_json(obj.get("result")))
    raise ValueError(f"unknown phase {kind!r} (claim, discard, self_hu, over)")


def _claim(text: str) -> tuple[int, Action]:
    seat, _, action = text.strip().partition(" ")
    if not seat.isdigit():
        raise NotationError(f"a claim starts with its seat: {text!r}")
    return int(seat), parse_action(action)


def _result_json(result: GameResult) -> JSON:
    hu = result.hu
    return {
        "winner": result.winner,
        "win": KIND_NAMES[result.win] if result.win is not None else None,
        "payments": list(result.payments),
        "other_huxi": {str(s): h for s, h in result.other_huxi.items()},
        "hu": None if hu is None else _hu_json(hu),
    }


def _result_from_json(data: Any) -> GameResult:
    obj = _object(data, "a result")
    winner = obj.get("winner")
    payments = obj.get("payments")
    if not isinstance(payments, list):
        raise ValueError("payments must be a list")
    other = _object(obj.get("other_huxi"), "other_huxi")
    if not all(k.isdigit() for k in other):
        raise ValueError("other_huxi is keyed by seat")
    hu = obj.get("hu")
    return GameResult(
        winner=None if winner is None else _int(winner, "winner"),
        win=_maybe_kind(obj.get("win"), "win"),
        hu=None if hu is None else _hu_from_json(hu),
        payments=tuple(_int(p, "payment") for p in payments),
        other_huxi={int(s): _int(h, "other_huxi") for s, h in other.items()},
    )


def _hu_json(hu: HuResult) -> JSON:
    s = hu.score
    return {
        "win": KIND_NAMES[hu.win] if hu.win is not None else None,
        "groups": [str(g) for g in hu.groups],
        "group_huxi": list(hu.group_huxi),
        "leftover": format_cards(hu.leftover, sort=False),
        "score": {
            "huxi": s.huxi,
            "deng": s.deng,
            "self_drawn": s.self_drawn,
            "tianhu": s.tianhu,
            "haidi": s.haidi,
            "mingtang": [[name, fan] for name, fan in s.mingtang],
            "fan": s.fan,
            "points": s.points,
        },
    }


def _hu_from_json(data: Any) -> HuResult:
    obj = _object(data, "a win")
    s = _object(obj.get("score"), "a score")
    mingtang = s.get("mingtang")
    if not isinstance(mingtang, list) or not all(
        isinstance(m, list) and len(m) == 2 and isinstance(m[0], str) for m in mingtang
    ):
        raise ValueError("mingtang must be a list of [name, fan]")
    huxi = obj.get("group_huxi")
    if not isinstance(huxi, list):
        raise ValueError("group_huxi must be a list")
    score = Score(
        huxi=_int(s.get("huxi"), "huxi"),
        deng=_int(s.get("deng"), "deng"),
        self_drawn=_bool(s.get("self_drawn"), "self_drawn"),
        tianhu=_bool(s.get("tianhu"), "tianhu"),
        haidi=_bool(s.get("haidi"), "haidi"),
        mingtang=tuple((name, _int(fan, "fan")) for name, fan in mingtang),
        fan=_int(s.get("fan"), "fan"),
        points=_int(s.get("points"), "points"),
    )
    return HuResult(
        win=_maybe_kind(obj.get("win"), "win"),
        groups=_groups(obj.get("groups"), "groups"),
        group_huxi=tuple(_int(h, "group_huxi") for h in huxi),
        score=score,
        leftover=tuple(_cards(obj.get("leftover", ""), "leftover")),
    )
