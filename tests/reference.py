"""A deliberately slow, independent evaluator of R3, R9.1, R9.5.1 and R10 (Hunan), for
cross-checks.

It shares nothing with ``paohuzi.engine.evaluator`` but the card ints: cards are lists, groups are
(type, sorted cards) tuples, every decomposition is enumerated by brute force, and the hu-xi
and 名堂 tables are written out again from RULES.md.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from itertools import combinations

RefGroup = tuple[str, tuple[int, ...]]

# R3: (small, big)
SAME_KIND_HUXI = {
    "peng": (1, 3),
    "wei": (3, 6),
    "chouwei": (3, 6),
    "kan": (3, 6),
    "pao": (6, 9),
    "ti": (9, 12),
}
RED = {1, 6, 9, 11, 16, 19}


def _size(card: int) -> str:
    return "big" if card >= 10 else "small"


def _rank(card: int) -> int:
    return card % 10 + 1


def shape(cards: tuple[int, ...]) -> str | None:
    """'seq', 'jiao' or None for three sorted cards."""
    a, b, c = cards
    sizes = {_size(a), _size(b), _size(c)}
    ranks = [_rank(a), _rank(b), _rank(c)]
    if len(sizes) == 1 and (ranks == [ranks[0], ranks[0] + 1, ranks[0] + 2] or ranks == [2, 7, 10]):
        return "seq"
    if len(set(ranks)) == 1 and len(sizes) == 2:
        return "jiao"
    return None


def group_huxi(group: RefGroup) -> int:
    gtype, cards = group
    if gtype in SAME_KIND_HUXI:
        small, big = SAME_KIND_HUXI[gtype]
        return big if cards[0] >= 10 else small
    if gtype == "pair":
        return 0
    ranks = [_rank(c) for c in cards]
    if shape(cards) == "seq" and ranks in ([1, 2, 3], [2, 7, 10]):
        return 6 if cards[0] >= 10 else 3
    return 0


def decompositions(cards: list[int], pairs_left: int) -> Iterator[list[RefGroup]]:
    """Every way to split sorted ``cards`` into sequences, 绞 and exactly ``pairs_left`` pairs."""
    if not cards:
        if pairs_left == 0:
            yield []
        return
    first, rest = cards[0], cards[1:]
    if pairs_left and rest and rest[0] == first:
        for tail in decompositions(rest[1:], pairs_left - 1):
            yield [("pair", (first, first)), *tail]
    tried = set()
    for i, j in combinations(range(len(rest)), 2):
        triple = (first, rest[i], rest[j])
        if triple in tried or shape(triple) is None:
            continue
        tried.add(triple)
        remaining = [c for n, c in enumerate(rest) if n not in (i, j)]
        for tail in decompositions(remaining, pairs_left):
            gtype = "run" if shape(triple) == "seq" else "jiao"
            yield [(gtype, triple), *tail]


@dataclass
class RefResult:
    huxi: int
    deng: int
    fan: int
    points: int
    mingtang: list[tuple[str, int]]
    groups: list[RefGroup]


def mingtang(
    all_cards: list[int], groups: list[RefGroup], leftover: list[int] | None = None
) -> list[tuple[str, int]]:
    """R10.1's table; ``leftover``: a forced 天胡's cards in no group (D3: 对对胡 allows a pair)."""
    left = leftover or []
    red = sum(c in RED for c in all_cards)
    big = sum(c >= 10 for c in all_cards)
    small = len(all_cards) - big
    found = []
    if 10 <= red <= 12:
        found.append(("红胡", 2))
    if red >= 13:
        found.append(("红乌", 4))
    if red == 1:
        found.append(("点胡", 3))
    if red == 0:
        found.append(("乌胡", 5))
    pair_at_most = not left or (len(left) == 2 and left[0] == left[1])
    if pair_at_most and all(g[0] not in ("chi", "run", "jiao") for g in groups):
        found.append(("对对胡", 4))
    if big >= 18:
        found.append(("大字胡", 6 + big - 18))
    if small >= 16:
        found.append(("小字胡", 8 + small - 16))
    return found


def ref_score(
    huxi: int,
    all_cards: list[int],
    groups: list[RefGroup],
    self_drawn: bool,
    haidi: bool = False,
    tianhu: bool = False,
) -> RefResult:
    """R10: 等 from the hu-xi (counted double for a 天胡, R10.1), +1 for 自摸 (a 天胡 is one,
    R9.5.3); 番 the sum of the 名堂 (平胡 1), +1 for 海底胡 (D1); 底数 = 等 × 番."""
    counted = 2 * huxi if tianhu else huxi
    deng = (counted - 12) // 3 + (1 if self_drawn or tianhu else 0)
    names = mingtang(all_cards, groups)
    fan = sum(f for _, f in names) if names else 1
    if haidi:
        fan += 1
    return RefResult(huxi, deng, fan, deng * fan, names, groups)


def ref_best_win(
    hand: list[int],
    table: list[RefGroup],
    win: int,
    self_drawn: bool,
    from_discard: bool = False,
    *,
    haidi: bool = False,
    tianhu: bool = False,
    min_huxi: int = 15,
) -> RefResult | None:
    """Best win by 底数 then hu-xi, or None (R9.1), by enumerating everything. ``self_drawn``
    places the card as the winner's own draw (R9.1, point 1); a 天胡 scores as 自摸 either way."""
    counts = Counter(hand)
    kans = sorted(k for k, n in counts.items() if n == 3)
    table_kind = {g[1][0]: g[0] for g in table if g[0] in ("peng", "wei", "chouwei")}

    def replaced(kind: int, gtype: str) -> list[RefGroup]:
        return [
            (gtype, (kind,) * 4) if g[1][0] == kind and g[0] in ("peng", "wei", "chouwei") else g
            for g in table
        ]

    loose_hand = [c for c in hand if counts[c] != 3] + [win]
    no_kan_hand = [c for c in hand if counts[c] != 3]
    without_pair = list(no_kan_hand)
    if counts[win] == 2:
        without_pair.remove(win)
        without_pair.remove(win)
    # Each option: (table groups, locked kans, cards to decompose)
    options: list[tuple[list[RefGroup], list[int], list[int]]] = []
    if self_drawn:
        if counts[win] == 3:
            options.append(
                (table + [("ti", (win,) * 4)], [k for k in kans if k != win], no_kan_hand)
            )
        elif table_kind.get(win) in ("wei", "chouwei"):
            options.append((replaced(win, "ti"), kans, no_kan_hand))
        elif counts[win] == 2:
            options.append((table + [("wei", (win,) * 3)], kans, without_pair))
        else:
            options.append((table, kans, loose_hand))
            if table_kind.get(win) == "peng":
                options.append((replaced(win, "pao"), kans, no_kan_hand))
    else:
        options.append((table, kans, loose_hand))
        if counts[win] == 2:
            options.append((table + [("peng", (win,) * 3)], kans, without_pair))
        if counts[win] == 3:
            options.append(
                (table + [("pao", (win,) * 4)], [k for k in kans if k != win], no_kan_hand)
            )
        if table_kind.get(win) in ("wei", "chouwei") or (
            table_kind.get(win) == "peng" and not from_discard
        ):
            options.append((replaced(win, "pao"), kans, no_kan_hand))

    all_cards = list(hand) + [win] + [c for g in table for c in g[1]]
    best: RefResult | None = None
    for groups_on_table, locked, free in options:
        has_four = any(g[0] in ("pao", "ti") for g in groups_on_table)
        fixed = groups_on_table + [("kan", (k,) * 3) for k in locked]
        for rest in decompositions(sorted(free), 1 if has_four else 0):
            groups = fixed + rest
            if len(groups) != 7:
                continue
            huxi = sum(group_huxi(g) for g in groups)
            if huxi < min_huxi:
                continue
            result = ref_score(huxi, all_cards, groups, self_drawn, haidi, tianhu)
            if best is None or (result.points, result.huxi) > (best.points, best.huxi):
                best = result
    return best


@cache
def _best_partial(cards: tuple[int, ...]) -> tuple[int, tuple[RefGroup, ...]]:
    """Greatest hu-xi of sequences and 绞 formed from sorted ``cards``, leftovers allowed."""
    if not cards:
        return 0, ()
    first, rest = cards[0], cards[1:]
    best = _best_partial(rest)  # the first card left over
    for i, j in combinations(range(len(rest)), 2):
        triple = (first, rest[i], rest[j])
        kind = shape(triple)
        if kind is None:
            continue
        group: RefGroup = ("run" if kind == "seq" else "jiao", triple)
        value, groups = _best_partial(tuple(c for n, c in enumerate(rest) if n not in (i, j)))
        if value + group_huxi(group) > best[0]:
            best = (value + group_huxi(group), (group, *groups))
    return best


def ref_partial(cards: list[int]) -> tuple[int, list[RefGroup], list[int]]:
    """The greatest hu-xi of cards in hand with leftovers allowed (R10.6, R9.5.1): a four is a
    提, three of a kind a locked 坎 (R3), the rest the best sequences and 绞. Returns the
    hu-xi, those groups, and the cards left in no group."""
    counts = Counter(cards)
    fixed: list[RefGroup] = [("ti", (k,) * 4) for k in sorted(counts) if counts[k] == 4]
    fixed += [("kan", (k,) * 3) for k in sorted(counts) if counts[k] == 3]
    loose = sorted(c for c in cards if counts[c] < 3)
    value, groups = _best_partial(tuple(loose))
    leftover = Counter(loose) - Counter(c for _, cards in groups for c in cards)
    return sum(map(group_huxi, fixed)) + value, fixed + list(groups), sorted(leftover.elements())


def ref_current_huxi(hand: list[int], table: list[RefGroup]) -> int:
    """A player's current total hu-xi (R10.6): his table's groups plus the best of his hand."""
    return sum(map(group_huxi, table)) + ref_partial(hand)[0]
