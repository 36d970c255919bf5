"""Player decisions (F3): discard, 吃 (with its 比 groups), 碰, 胡, pass.

Forced and automatic events (deal, draw, 提, 偎, 臭偎, 跑, 必需天胡) are never actions.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from paohuzi.engine.cards import KIND_NAMES, Kind, NotationError, parse_cards, parse_kind
from paohuzi.engine.groups import is_jiao, is_sequence


class ActionType(enum.Enum):
    DISCARD = "discard"
    CHI = "chi"
    PENG = "peng"
    HU = "hu"
    PASS = "pass"

    __hash__ = object.__hash__


Cards = tuple[Kind, ...]


@dataclass(frozen=True, slots=True)
class Action:
    """One decision. ``card`` is the discarded kind; ``groups`` the 吃 group then its 比 groups,
    each sorted, the 比 groups in canonical order (F3)."""

    type: ActionType
    card: Kind | None = None
    groups: tuple[Cards, ...] = ()

    def __str__(self) -> str:
        if self.type is ActionType.DISCARD:
            assert self.card is not None
            return f"discard {KIND_NAMES[self.card]}"
        if self.type is ActionType.CHI:
            return "chi " + " ".join("".join(KIND_NAMES[k] for k in g) for g in self.groups)
        return str(self.type.value)

    def __lt__(self, other: Action) -> bool:
        return str(self) < str(other)


PASS = Action(ActionType.PASS)
PENG = Action(ActionType.PENG)
HU = Action(ActionType.HU)


def discard(kind: Kind) -> Action:
    return Action(ActionType.DISCARD, kind)


def chi(take: Cards, bi: tuple[Cards, ...] = ()) -> Action:
    """A 吃 action in canonical form: the taking group, then the 比 groups sorted."""
    return Action(
        ActionType.CHI, None, (tuple(sorted(take)), *sorted(tuple(sorted(b)) for b in bi))
    )


def parse_action(text: str) -> Action:
    """Parse an F3 action without its seat: ``discard x5``, ``chi x1x2x3 x2x2d2``, ``peng``."""
    words = text.split()
    if not words:
        raise NotationError("empty action")
    name, args = words[0].lower(), words[1:]
    try:
        atype = ActionType(name)
    except ValueError:
        raise NotationError(f"unknown action {words[0]!r} (discard, chi, peng, hu, pass)") from None
    if atype is ActionType.DISCARD:
        if len(args) != 1:
            raise NotationError("discard takes one card: discard x5")
        return discard(parse_kind(args[0]))
    if atype is ActionType.CHI:
        if not args:
            raise NotationError("chi takes its group: chi x1x2x3 [比 groups]")
        groups = []
        for word in args:
            cards = tuple(sorted(parse_cards(word)))
            if not (is_sequence(cards) or is_jiao(cards)):
                raise NotationError(f"{word!r} is neither a sequence nor a 绞")
            groups.append(cards)
        return chi(groups[0], tuple(groups[1:]))
    if args:
        raise NotationError(f"{name} takes no cards")
    return Action(atype)


def parse_seat_action(text: str) -> tuple[int, Action]:
    """Parse an F3 line ``SEAT ACTION`` (whether the seat sits at the table is the game's to
    say: 0–2, or 0–3 at a four-seat table, R12)."""
    parts = text.split(maxsplit=1)  # any white space after the seat, as between cards
    seat, rest = (parts + ["", ""])[:2]
    if not (seat.isascii() and seat.isdigit() and len(seat) == 1):
        raise NotationError(f"an action starts with its seat number: {text!r}")
    return int(seat), parse_action(rest)
