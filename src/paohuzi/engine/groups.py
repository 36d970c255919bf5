"""Groups (门子, R3) and their notation (F2)."""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from paohuzi.engine.cards import (
    KIND_NAMES,
    NUM_KINDS,
    Kind,
    NotationError,
    is_big,
    parse_cards,
    rank,
)


class GroupType(enum.Enum):
    """The F2 group types."""

    CHI = "chi"
    """吃/比: a sequence or 绞 laid on the table."""
    PENG = "peng"
    """碰: a hand pair plus another player's card."""
    WEI = "wei"
    """偎: a hand pair plus one's own drawn card, face down to others."""
    CHOUWEI = "chouwei"
    """臭偎: a 偎 of a kind that is 臭 for its owner; one card shows."""
    PAO = "pao"
    """跑: four of a kind, one card from outside."""
    TI = "ti"
    """提: four of a kind, all one's own."""
    RUN = "run"
    """一句话 in hand (incl. 2-7-10)."""
    JIAO = "jiao"
    """绞 in hand."""
    KAN = "kan"
    """坎: three identical cards in hand."""
    PAIR = "pair"
    """将: the pair."""

    # Members are singletons: hash by identity, in C, rather than by name in Python (groups
    # are hashed on the evaluator's hot path).
    __hash__ = object.__hash__


TABLE_TYPES = frozenset(
    {GroupType.CHI, GroupType.PENG, GroupType.WEI, GroupType.CHOUWEI, GroupType.PAO, GroupType.TI}
)
HAND_TYPES = frozenset({GroupType.RUN, GroupType.JIAO, GroupType.KAN, GroupType.PAIR})
FOUR_TYPES = frozenset({GroupType.PAO, GroupType.TI})
_SAME_KIND_SIZE = {
    GroupType.PENG: 3,
    GroupType.WEI: 3,
    GroupType.CHOUWEI: 3,
    GroupType.KAN: 3,
    GroupType.PAO: 4,
    GroupType.TI: 4,
    GroupType.PAIR: 2,
}


SET_SIZE = 3
"""Cards in a sequence, a 绞, a 坎, a 碰 or a 偎 (R3)."""

RUN_123 = (1, 2, 3)
"""Ranks of the 1-2-3 sequence, one of the two that score hu-xi (R3)."""
RUN_2710 = (2, 7, 10)
"""Ranks of 2-7-10 (二七十): the only sequence that is not consecutive, and the other one that
scores hu-xi (R3)."""


def is_sequence(cards: Sequence[Kind]) -> bool:
    """一句话: three consecutive ranks of one size, or 2-7-10 of one size (R3). Sorted input."""
    if len(cards) != 3 or len({is_big(k) for k in cards}) != 1:
        return False
    a, b, c = cards
    return (b == a + 1 and c == a + 2) or (rank(a), rank(b), rank(c)) == RUN_2710


def is_jiao(cards: Sequence[Kind]) -> bool:
    """绞: three cards of one rank, not all one size (R3)."""
    return (
        len(cards) == 3
        and len({rank(k) for k in cards}) == 1
        and len({is_big(k) for k in cards}) == 2
    )


def is_special_sequence(cards: Sequence[Kind]) -> bool:
    """A 1-2-3 or 2-7-10 sequence, the ones that score hu-xi (R3). Sorted input."""
    return is_sequence(cards) and tuple(rank(k) for k in cards) in (RUN_123, RUN_2710)


def _sequences() -> tuple[tuple[Kind, Kind, Kind], ...]:
    found = []
    for base in (0, 10):
        for r in range(8):
            found.append((base + r, base + r + 1, base + r + 2))
        a, b, c = (base + r - 1 for r in RUN_2710)
        found.append((a, b, c))
    return tuple(found)


SEQUENCES = _sequences()
"""Every sequence (一句话) as sorted kinds: the consecutive ones, then 2-7-10, small then big."""
SCORING_SEQUENCES: tuple[tuple[Kind, Kind, Kind], ...] = tuple(
    s for s in SEQUENCES if tuple(rank(k) for k in s) in (RUN_123, RUN_2710)
)
"""The 1-2-3 and 2-7-10 of each size: the sequences that score hu-xi (R3)."""


def _partners(kind: Kind) -> tuple[Kind, ...]:
    found = {k for s in SEQUENCES if kind in s for k in s} | {(kind + 10) % NUM_KINDS}
    found.discard(kind)
    return tuple(sorted(found))


PARTNERS: tuple[tuple[Kind, ...], ...] = tuple(_partners(k) for k in range(NUM_KINDS))
"""Per kind, the other kinds it can share a sequence or 绞 with."""


@dataclass(frozen=True, slots=True)
class Group:
    """One group: its type and its cards in canonical order."""

    type: GroupType
    cards: tuple[Kind, ...]

    def __str__(self) -> str:
        return f"{self.type.value}:" + "".join(KIND_NAMES[k] for k in self.cards)

    @property
    def kind(self) -> Kind:
        """The lowest card: for a same-kind group, its kind."""
        return self.cards[0]

    @property
    def is_four(self) -> bool:
        """Whether this is a 提 or 跑, the groups that count as *k* in R6."""
        return self.type in FOUR_TYPES

    @property
    def on_table(self) -> bool:
        return self.type in TABLE_TYPES


def make_group(gtype: GroupType, cards: Iterable[Kind]) -> Group:
    """Build a group, checking that its cards have the shape its type needs."""
    ordered = tuple(sorted(cards))
    size = _SAME_KIND_SIZE.get(gtype)
    label = f"{gtype.value}:" + "".join(KIND_NAMES[k] for k in ordered)
    if size is not None:
        if len(ordered) == 1:
            ordered = ordered * size
        elif len(ordered) != size or len(set(ordered)) != 1:
            raise NotationError(f"{label} is not {size} identical cards")
    elif gtype is GroupType.RUN:
        if not is_sequence(ordered):
            raise NotationError(f"{label} is not a sequence (一句话)")
    elif gtype is GroupType.JIAO:
        if not is_jiao(ordered):
            raise NotationError(f"{label} is not a 绞")
    elif not (is_sequence(ordered) or is_jiao(ordered)):
        raise NotationError(f"{label} is neither a sequence nor a 绞")
    return Group(gtype, ordered)


_GROUP_START = re.compile(r"([A-Za-z]+)\s*:")


def parse_group(text: str) -> Group:
    """Parse one F2 group, e.g. ``peng:x5x5x5`` or its short form ``peng:x5``."""
    groups = parse_groups(text)
    if len(groups) != 1:
        raise NotationError(f"expected one group, got {text!r}")
    return groups[0]


def parse_groups(text: str) -> list[Group]:
    """Parse a list of F2 groups separated by spaces or commas: ``"peng:x5 chi:x1x2x3"``."""
    starts = list(_GROUP_START.finditer(text))
    if not starts:
        if text.strip(" ,\t\n"):
            raise NotationError(f"not a group: {text.strip()!r} (write TYPE:CARDS, e.g. peng:x5)")
        return []
    leading = text[: starts[0].start()].strip(" ,\t\n")
    if leading:
        raise NotationError(f"not a group: {leading!r} (write TYPE:CARDS, e.g. peng:x5)")
    groups: list[Group] = []
    for i, match in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        name = match.group(1).lower()
        try:
            gtype = GroupType(name)
        except ValueError:
            raise NotationError(f"unknown group type {match.group(1)!r}") from None
        cards = parse_cards(text[match.end() : end])
        if not cards:
            raise NotationError(f"group {name}: has no cards")
        groups.append(make_group(gtype, cards))
    return groups


def format_groups(groups: Iterable[Group]) -> list[str]:
    """F2 text of each group."""
    return [str(g) for g in groups]
