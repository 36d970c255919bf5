"""吃 and 比 (R7): every full combination of taking a card into a sequence or 绞.

A 吃 takes the card into a group with two hand cards; every copy of the card still in hand
must then be laid down too, each in a 比 group of hand cards only (one 比 group may hold two
copies). A 吃 with its 比 groups is one action; a 吃 whose copies cannot all be laid down is
illegal. 坎 cards never take part (R3).
"""

from __future__ import annotations

from collections.abc import Sequence

from paohuzi.engine.actions import Action, chi
from paohuzi.engine.cards import NUM_KINDS, Kind
from paohuzi.engine.groups import is_jiao, is_sequence

Triple = tuple[Kind, Kind, Kind]


def _triples_with(kind: Kind) -> tuple[Triple, ...]:
    """Every sorted sequence or 绞 containing ``kind``."""
    found: set[Triple] = set()
    for a in range(NUM_KINDS):
        for b in range(a, NUM_KINDS):
            cards = tuple(sorted((kind, a, b)))
            if is_sequence(cards) or is_jiao(cards):
                found.add((cards[0], cards[1], cards[2]))
    return tuple(sorted(found))


TRIPLES_WITH: tuple[tuple[Triple, ...], ...] = tuple(_triples_with(k) for k in range(NUM_KINDS))
"""Per kind, the sorted sequences and 绞 that contain it."""


def _bi_sets(rest: list[int], kind: Kind) -> list[tuple[Triple, ...]]:
    """Every multiset of 比 groups from ``rest`` that lays down all its copies of ``kind``."""
    if rest[kind] == 0:
        return [()]
    found: set[tuple[Triple, ...]] = set()
    for triple in TRIPLES_WITH[kind]:
        a, b, c = triple
        rest[a] -= 1
        rest[b] -= 1
        rest[c] -= 1
        if rest[a] >= 0 and rest[b] >= 0 and rest[c] >= 0:
            for tail in _bi_sets(rest, kind):
                found.add(tuple(sorted((triple, *tail))))
        rest[a] += 1
        rest[b] += 1
        rest[c] += 1
    return sorted(found)


def chi_options(hand: Sequence[int], kind: Kind, *, must_discard: bool) -> list[Action]:
    """Every legal 吃 of ``kind`` for a hand of counts ``hand`` (R7).

    ``must_discard``: the player will have to discard after taking (R6); then a 吃 that leaves
    no card he may discard is illegal (R6.2).
    """
    free = [0 if n == 3 else n for n in hand]
    if not any(free[k] for t in TRIPLES_WITH[kind] for k in t if k != kind) and free[kind] < 2:
        return []
    actions: list[Action] = []
    for triple in TRIPLES_WITH[kind]:
        others = list(triple)
        others.remove(kind)
        a, b = others
        free[a] -= 1
        free[b] -= 1
        if free[a] >= 0 and free[b] >= 0:
            for bi in _bi_sets(free, kind):
                if must_discard and sum(free) - 3 * len(bi) == 0:
                    continue  # R6.2: nothing left that may be discarded
                actions.append(chi(triple, bi))
        free[a] += 1
        free[b] += 1
    return actions
