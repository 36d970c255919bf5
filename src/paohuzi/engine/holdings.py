"""Random holdings near a win, for tests, benchmarks and fuzzing other implementations.

A holding is a hand, a table and a candidate winning card, built from a random complete
seven-group hand (R6.1) with one hand card taken out. Mostly the card taken out is offered
back as the winning card; otherwise another kind is.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from paohuzi.engine.cards import COPIES, NUM_KINDS, Kind
from paohuzi.engine.groups import SEQUENCES, Group, GroupType

_SEQUENCES: tuple[tuple[Kind, ...], ...] = tuple(s for s in SEQUENCES if s[2] - s[0] == 2) + tuple(
    s for s in SEQUENCES if s[2] - s[0] != 2
)
"""Every sequence: the consecutive ones, then the 2-7-10s."""
_JIAOS: tuple[tuple[Kind, ...], ...] = tuple(
    cards for r in range(10) for cards in ((r, r, r + 10), (r, r + 10, r + 10))
)


@dataclass(frozen=True, slots=True)
class Holding:
    """A hand and table (before the winning card) and a candidate winning card."""

    hand: tuple[Kind, ...]
    table: tuple[Group, ...]
    win: Kind
    self_drawn: bool


def random_holding(rng: random.Random) -> Holding:
    """One random holding: 20 + max(0, k − 1) cards in hand and table (R6)."""
    while True:
        holding = _try_holding(rng)
        if holding is not None:
            return holding


def _try_holding(rng: random.Random) -> Holding | None:
    left = [COPIES] * NUM_KINDS

    def take(cards: tuple[Kind, ...]) -> bool:
        need = [cards.count(k) for k in cards]
        if any(left[k] < n for k, n in zip(cards, need, strict=True)):
            return False
        for k in cards:
            left[k] -= 1
        return True

    fours = rng.choice((0, 0, 0, 1, 1, 2))
    table: list[Group] = []
    hand_groups: list[tuple[Kind, ...]] = []
    kans: set[Kind] = set()
    for _ in range(fours):
        k = rng.randrange(NUM_KINDS)
        if not take((k,) * 4):
            return None
        table.append(Group(rng.choice((GroupType.TI, GroupType.PAO)), (k,) * 4))
    if fours:
        k = rng.randrange(NUM_KINDS)
        if not take((k, k)):
            return None
        hand_groups.append((k, k))
    while len(table) + len(hand_groups) < 7:
        roll = rng.random()
        if roll < 0.45:
            cards = rng.choice(_SEQUENCES)
        elif roll < 0.55:
            cards = rng.choice(_JIAOS)
        else:
            cards = (rng.randrange(NUM_KINDS),) * 3
        if not take(cards):
            return None
        on_table = rng.random() < 0.35
        if len(set(cards)) == 1:
            if on_table:
                gtype = rng.choice((GroupType.PENG, GroupType.WEI, GroupType.CHOUWEI))
                table.append(Group(gtype, cards))
            elif cards[0] in kans or any(cards[0] in g for g in hand_groups):
                return None
            else:
                kans.add(cards[0])
                hand_groups.append(cards)
        elif on_table:
            table.append(Group(GroupType.CHI, tuple(sorted(cards))))
        else:
            hand_groups.append(cards)
    hand = [k for g in hand_groups for k in g]
    if not hand:
        return None
    counts = [hand.count(k) for k in range(NUM_KINDS)]
    if any(c == 3 and k not in kans for k, c in enumerate(counts)) or max(counts) > 3:
        return None
    win = hand.pop(rng.randrange(len(hand)))
    if rng.random() < 0.35:
        held = [hand.count(k) + sum(g.cards.count(k) for g in table) for k in range(NUM_KINDS)]
        others = [k for k in range(NUM_KINDS) if k != win and held[k] < COPIES]
        win = rng.choice(others)
    rng.shuffle(hand)
    return Holding(tuple(hand), tuple(table), win, rng.random() < 0.3)
