"""The hand evaluator (R3, R6.1, R9): best winning arrangement, waits, current hu-xi, 天胡.

The hand is split into locked 坎 (R3) and *free* cards. Free cards form sequences, 绞 and at
most one pair. A 绞 is the only group that mixes the two sizes, so the evaluator tries each way
of taking 绞 out of the free cards, then looks both sizes up separately in memoised tables of
the best decomposition of one size: the tables fill quickly, since few one-size patterns occur.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import product
from typing import Protocol

from paohuzi.engine.cards import KIND_NAMES, NUM_KINDS, Counts, Kind, to_counts
from paohuzi.engine.groups import (
    FOUR_TYPES,
    PARTNERS,
    RUN_2710,
    SCORING_SEQUENCES,
    SET_SIZE,
    Group,
    GroupType,
)
from paohuzi.engine.mingtang import WinContext
from paohuzi.engine.rules import HUNAN, HuxiTable, RuleSet, holding_limit
from paohuzi.engine.scoring import Score, score

GROUPS_TO_WIN = 7
"""A complete hand has exactly seven groups (R6.1)."""

_Best = tuple[int, tuple[Group, ...]]
"""A decomposition: its hu-xi and its groups."""

_R2, _R7, _R10 = (r - 1 for r in RUN_2710)
"""Rank offsets (0–9) of 2-7-10 within a size."""
_SHIFT7, _SHIFT10 = 2 * _R7, 2 * _R10
_KEY2710 = (1 << 2 * _R2) + (1 << _SHIFT7) + (1 << _SHIFT10)
"""A suit key holds two bits a rank: the shifts of 7 and 10, and the key of one 2-7-10."""
_JOINABLE = frozenset({GroupType.PENG, GroupType.WEI, GroupType.CHOUWEI})


@dataclass(frozen=True, slots=True)
class HuResult:
    """A winning arrangement (R9.1) with its score (R10)."""

    win: Kind | None
    """The winning card; None for a forced 天胡 (R9.5.1)."""
    groups: tuple[Group, ...]
    group_huxi: tuple[int, ...]
    score: Score
    leftover: tuple[Kind, ...] = ()
    """Cards in no group: only a forced 天胡 has them."""

    @property
    def huxi(self) -> int:
        return self.score.huxi

    @property
    def points(self) -> int:
        """底数 (R10.4)."""
        return self.score.points


@dataclass(frozen=True, slots=True)
class Wait:
    """One winning kind of a hand that is 听牌, for a card shown from another player's draw."""

    win: Kind
    huxi: int
    points: int


@dataclass(slots=True)
class _Placement:
    """One place R9.1 allows the winning card to go, and what is left to decompose."""

    table: tuple[Group, ...]
    """The table groups, a 碰/偎 the card joined now a 跑/提; plus any group the card made
    with a hand pair or 坎."""
    kans: tuple[Kind, ...]
    """The locked 坎 still in hand."""
    free: Counts
    """The free cards to decompose."""
    huxi: int
    """Hu-xi of the table groups and the 坎."""
    fours: int
    """提 and 跑 on the table: *k* of R6."""
    n_free: int


class _SuitTable:
    """Best decompositions of one size's free cards into sequences and at most one pair.

    A key packs the counts of ranks 1–10 two bits each. The value is (best without a pair,
    best with exactly one pair), None where impossible.
    """

    def __init__(self, base: Kind, w123: int, w2710: int) -> None:
        self._w123 = w123
        self._w2710 = w2710
        self._runs = [
            Group(GroupType.RUN, (base + r, base + r + 1, base + r + 2)) for r in range(8)
        ]
        self._run2710 = Group(GroupType.RUN, (base + _R2, base + _R7, base + _R10))
        self._pairs = [Group(GroupType.PAIR, (base + r, base + r)) for r in range(10)]
        self._cache: dict[int, tuple[_Best | None, _Best | None]] = {0: ((0, ()), None)}

    def solve(self, key: int) -> tuple[_Best | None, _Best | None]:
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        # The lowest rank present must be in a sequence starting at it, in 2-7-10 (if it is
        # rank 2), or in the pair. A key holds two bits a rank.
        shift = ((key & -key).bit_length() - 1) & ~1
        r = shift >> 1
        best_np: _Best | None = None
        best_p: _Best | None = None
        options: list[tuple[int, Group, int]] = []
        if r <= 7 and (key >> (shift + 2)) & 3 and (key >> (shift + 4)) & 3:
            options.append((key - (0b010101 << shift), self._runs[r], self._w123 if r == 0 else 0))
        if r == _R2 and (key >> _SHIFT7) & 3 and (key >> _SHIFT10) & 3:
            options.append((key - _KEY2710, self._run2710, self._w2710))
        for sub_key, group, weight in options:
            sub_np, sub_p = self.solve(sub_key)
            if sub_np is not None and (best_np is None or sub_np[0] + weight > best_np[0]):
                best_np = (sub_np[0] + weight, (group, *sub_np[1]))
            if sub_p is not None and (best_p is None or sub_p[0] + weight > best_p[0]):
                best_p = (sub_p[0] + weight, (group, *sub_p[1]))
        if (key >> shift) & 3 >= 2:
            sub_np = self.solve(key - (2 << shift))[0]
            if sub_np is not None and (best_p is None or sub_np[0] > best_p[0]):
                best_p = (sub_np[0], (self._pairs[r], *sub_np[1]))
        result = (best_np, best_p)
        self._cache[key] = result
        return result


class Evaluator:
    """The evaluator for one hu-xi table, with its memo tables. Use :func:`evaluator`."""

    def __init__(self, huxi: HuxiTable) -> None:
        self.huxi = huxi
        small123, small2710, big123, big2710 = (huxi.sequence(s) for s in SCORING_SEQUENCES)
        self._small = _SuitTable(0, small123, small2710)
        self._big = _SuitTable(10, big123, big2710)
        self._jiao = [
            (
                Group(GroupType.JIAO, (r, r, r + 10)),
                Group(GroupType.JIAO, (r, r + 10, r + 10)),
            )
            for r in range(10)
        ]
        self.kan_huxi = [huxi.same_kind(GroupType.KAN, k) for k in range(NUM_KINDS)]
        self.group_huxi = huxi.group
        """Hu-xi of a group (R3): the rule set's own table."""

    def free_best(self, free: Sequence[int], need_pair: bool) -> _Best | None:
        """Best decomposition of free cards into sequences, 绞 and (iff ``need_pair``) a pair."""
        small_key = big_key = 0
        jiao_ranks: list[int] = []
        for r in range(10):
            s = free[r]
            b = free[r + 10]
            if s:
                small_key |= s << (2 * r)
            if b:
                big_key |= b << (2 * r)
                if s and s + b >= 3:
                    jiao_ranks.append(r)
        if not jiao_ranks:
            return self._combine(small_key, big_key, need_pair, ())
        best: _Best | None = None
        per_rank: list[list[tuple[int, int, Group | None]]] = []
        for r in jiao_ranks:
            shift = 2 * r
            xx_d, x_dd = self._jiao[r]
            choices: list[tuple[int, int, Group | None]] = [(0, 0, None)]
            if free[r] >= 2:
                choices.append((2 << shift, 1 << shift, xx_d))
            if free[r + 10] >= 2:
                choices.append((1 << shift, 2 << shift, x_dd))
            per_rank.append(choices)
        for combo in product(*per_rank):
            sk, bk = small_key, big_key
            jiaos: list[Group] = []
            for ds, db, group in combo:
                if group is not None:
                    sk -= ds
                    bk -= db
                    jiaos.append(group)
            found = self._combine(sk, bk, need_pair, tuple(jiaos))
            if found is not None and (best is None or found[0] > best[0]):
                best = found
        return best

    def _combine(
        self, small_key: int, big_key: int, need_pair: bool, jiaos: tuple[Group, ...]
    ) -> _Best | None:
        s_np, s_p = self._small.solve(small_key)
        b_np, b_p = self._big.solve(big_key)
        best: _Best | None = None
        if need_pair:
            if s_p is not None and b_np is not None:
                best = (s_p[0] + b_np[0], jiaos + s_p[1] + b_np[1])
            if (
                s_np is not None
                and b_p is not None
                and (best is None or s_np[0] + b_p[0] > best[0])
            ):
                best = (s_np[0] + b_p[0], jiaos + s_np[1] + b_p[1])
        elif s_np is not None and b_np is not None:
            best = (s_np[0] + b_np[0], jiaos + s_np[1] + b_np[1])
        return best

    def best_partial(self, free: Sequence[int]) -> tuple[int, tuple[Group, ...]]:
        """Greatest hu-xi of groups formed from free cards, leftovers allowed (R10.6)."""
        total = 0
        groups: list[Group] = []
        for table in (self._small, self._big):
            base = 0 if table is self._small else 10
            one, two, three, seven, ten = (free[base + i] for i in (0, 1, 2, 6, 9))
            best = (-1, 0, 0)
            for n123 in range(min(one, two, three) + 1):
                n2710 = min(two - n123, seven, ten)
                value = n123 * table._w123 + n2710 * table._w2710
                if value > best[0]:
                    best = (value, n123, n2710)
            total += best[0]
            groups += [table._runs[0]] * best[1] + [table._run2710] * best[2]
        return total, tuple(groups)


_EVALUATORS: dict[int, tuple[HuxiTable, Evaluator]] = {}


def evaluator(rules: RuleSet = HUNAN) -> Evaluator:
    """The shared evaluator of a rule set's hu-xi table."""
    # Keyed by identity: hashing the table on every call would cost more than the lookup.
    entry = _EVALUATORS.get(id(rules.huxi))
    if entry is None or entry[0] is not rules.huxi:
        entry = _EVALUATORS[id(rules.huxi)] = (rules.huxi, Evaluator(rules.huxi))
    return entry[1]


def clear_memo() -> None:
    """Forget every evaluator and its memo tables (to measure a cold start)."""
    _EVALUATORS.clear()


_NEIGHBOURS = tuple(sum(1 << n for n in (k, *PARTNERS[k])) for k in range(NUM_KINDS))
"""Per kind, a bit mask of itself and the kinds it can share a group with."""


class Prepared(Protocol):
    """A hand prepared for evaluation: :class:`PreparedHand` (Python, the reference) or the
    native core's own (:func:`prepare`), with the same methods and the same answers."""

    def win(
        self,
        card: Kind,
        *,
        self_drawn: bool,
        from_discard: bool = False,
        tianhu: bool = False,
        haidi: bool = False,
    ) -> HuResult | None: ...

    def complete(
        self, *, self_drawn: bool = True, win: Kind | None = None, haidi: bool = False
    ) -> HuResult | None: ...

    def waits(self) -> list[Wait]: ...

    def current_huxi(self) -> int: ...


def prepare(
    hand: Iterable[Kind], table: Sequence[Group], rules: RuleSet, *, native: bool = True
) -> Prepared:
    """The hand prepared by the native core where it is built and serves ``rules`` (and
    ``native``), else a :class:`PreparedHand` (D86)."""
    if native and _NATIVE is not None:
        found = _NATIVE.prepare(hand, table, rules)
        if found is not None:
            return found
    return PreparedHand(hand, table, rules)


def prepare_counts(
    counts: Sequence[int], table: Sequence[Group], rules: RuleSet, *, native: bool = True
) -> Prepared:
    """:func:`prepare` for a hand given as a count array."""
    if native and _NATIVE is not None:
        found = _NATIVE.prepare_counts(counts, table, rules)
        if found is not None:
            return found
    return PreparedHand.from_counts(counts, table, rules)


class PreparedHand:
    """A hand and table split and summed once, to evaluate many winning cards on it cheaply:
    the Python evaluator, always (:func:`prepare` gives the native core's where it serves).

    The functions below (:func:`best_win`, :func:`waits` …) each prepare one; a game that asks
    about several cards between two changes of a hand keeps one instead.
    """

    __slots__ = (
        "counts",
        "ev",
        "fixed_huxi",
        "fours",
        "free",
        "free_mask",
        "isolated",
        "joinable",
        "kans",
        "n_free",
        "rules",
        "table",
    )

    def __init__(self, hand: Iterable[Kind], table: Sequence[Group], rules: RuleSet) -> None:
        counts = [0] * NUM_KINDS
        for k in hand:
            counts[k] += 1
        self._prepare(counts, table, rules)

    @classmethod
    def from_counts(
        cls, counts: Sequence[int], table: Sequence[Group], rules: RuleSet
    ) -> PreparedHand:
        """The same for a hand given as a count array."""
        prepared = object.__new__(cls)
        prepared._prepare(list(counts), table, rules)
        return prepared

    def _prepare(self, counts: list[int], table: Sequence[Group], rules: RuleSet) -> None:
        groups = tuple(table)
        if max(counts) >= 4:
            # A four of a kind in hand is the 提 it must become (R5.1).
            laid = [k for k in range(NUM_KINDS) if counts[k] >= 4]
            for k in laid:
                counts[k] -= 4
            groups += tuple(Group(GroupType.TI, (k,) * 4) for k in laid)
        self.rules = rules
        self.ev = ev = evaluator(rules)
        self.counts = counts
        self.table = groups
        kans: list[Kind] = []
        mask = n_free = huxi = 0
        for k, c in enumerate(counts):
            if c == 3:
                kans.append(k)
                huxi += ev.kan_huxi[k]
            elif c:
                mask |= 1 << k
                n_free += c
        free = counts
        if kans:
            free = list(counts)
            for k in kans:
                free[k] = 0
        self.kans = tuple(kans)
        self.free = free
        self.n_free = n_free
        self.free_mask = mask
        # A single free card with no partner among the others can only become the pair with
        # the winning card itself: one such card fixes what can win, two rule out a win.
        self.isolated = tuple(
            k for k in range(NUM_KINDS) if free[k] == 1 and not mask & _NEIGHBOURS[k] & ~(1 << k)
        )
        fours = 0
        self.joinable: dict[Kind, int] = {}
        for i, g in enumerate(groups):
            huxi += ev.group_huxi(g)
            if g.type in FOUR_TYPES:
                fours += 1
            elif g.type in _JOINABLE:
                self.joinable[g.cards[0]] = i
        self.fixed_huxi = huxi
        self.fours = fours

    def _placements(self, win: Kind, *, self_drawn: bool, from_discard: bool) -> list[_Placement]:
        """Every place R9.1 allows the winning card to go (R4.1, R4.2, R5)."""
        if self.isolated:
            if len(self.isolated) > 1 or self.isolated[0] != win or self.counts[win] != 1:
                return []
            # Only as the isolated card's pair, the winning card in the free cards.
            in_hand = list(self.free)
            in_hand[win] += 1
            return [
                _Placement(
                    self.table, self.kans, in_hand, self.fixed_huxi, self.fours, self.n_free + 1
                )
            ]
        held = self.counts[win]
        index = self.joinable.get(win)
        joinable = self.table[index].type if index is not None else None
        found: list[_Placement] = []
        if self_drawn:
            # A drawn card that makes a 提 or 偎 is taken by force before anyone may win (R4.1).
            if held == 3:
                return [self._with_kan(win, GroupType.TI)]
            if joinable in (GroupType.WEI, GroupType.CHOUWEI):
                return [self._joined(win, GroupType.TI)]
            if held == 2:
                return [self._with_pair(win, GroupType.WEI)]
            if joinable is GroupType.PENG:
                found.append(self._joined(win, GroupType.PAO))  # R5.2.2; or 破跑胡 below
        else:
            if held == 2:
                found.append(self._with_pair(win, GroupType.PENG))
            elif held == 3:
                found.append(self._with_kan(win, GroupType.PAO))
            if joinable in (GroupType.WEI, GroupType.CHOUWEI) or (
                joinable is GroupType.PENG and not from_discard  # R4.2: no 跑 on a discard
            ):
                found.append(self._joined(win, GroupType.PAO))
        # The card into the free cards: only worth trying if it has a card to go with.
        if self.free_mask & _NEIGHBOURS[win]:
            in_hand = list(self.free)
            in_hand[win] += 1
            found.append(
                _Placement(
                    self.table, self.kans, in_hand, self.fixed_huxi, self.fours, self.n_free + 1
                )
            )
        return found

    def _joined(self, win: Kind, gtype: GroupType) -> _Placement:
        """The card joins the table 碰/偎 of its kind."""
        index = self.joinable[win]
        table = self.table
        new = Group(gtype, (win,) * 4)
        huxi = self.fixed_huxi - self.ev.group_huxi(table[index]) + self.ev.group_huxi(new)
        groups = (*table[:index], new, *table[index + 1 :])
        return _Placement(groups, self.kans, self.free, huxi, self.fours + 1, self.n_free)

    def _with_pair(self, win: Kind, gtype: GroupType) -> _Placement:
        """The card and a hand pair make a 碰 or 偎."""
        rest = list(self.free)
        rest[win] -= 2
        new = Group(gtype, (win,) * 3)
        huxi = self.fixed_huxi + self.ev.group_huxi(new)
        return _Placement((*self.table, new), self.kans, rest, huxi, self.fours, self.n_free - 2)

    def _with_kan(self, win: Kind, gtype: GroupType) -> _Placement:
        """The card and a hand 坎 make a 跑 or 提."""
        new = Group(gtype, (win,) * 4)
        huxi = self.fixed_huxi - self.ev.kan_huxi[win] + self.ev.group_huxi(new)
        rest = tuple(k for k in self.kans if k != win)
        return _Placement((*self.table, new), rest, self.free, huxi, self.fours + 1, self.n_free)

    def _best(
        self,
        options: list[_Placement],
        win: Kind | None,
        *,
        self_drawn: bool,
        from_discard: bool = False,
        tianhu: bool = False,
        haidi: bool = False,
    ) -> HuResult | None:
        """The best of some placements by 底数, then hu-xi (R9.1). Each placement's free cards
        are arranged for the greatest hu-xi; its 名堂 see that arrangement."""
        ev, rules = self.ev, self.rules
        best: tuple[int, int, _Placement, _Best, Score] | None = None
        for option in options:
            k = option.fours
            rest = option.n_free - (2 if k else 0)
            if rest < 0 or rest % SET_SIZE:
                continue
            if len(option.table) + len(option.kans) + rest // 3 + (k > 0) != GROUPS_TO_WIN:
                continue
            found = ev.free_best(option.free, k > 0)
            if found is None:
                continue
            huxi = found[0] + option.huxi
            if huxi < rules.min_huxi:
                continue
            kans = tuple(Group(GroupType.KAN, (c,) * 3) for c in option.kans)
            context = WinContext(
                (*option.table, *kans, *found[1]),
                win,
                self_drawn=self_drawn,
                from_discard=from_discard,
                tianhu=tianhu,
                haidi=haidi,
            )
            result = score(huxi, context, rules)
            if best is None or (result.points, huxi) > (best[0], best[1]):
                best = (result.points, huxi, option, found, result)
        if best is None:
            return None
        _, _, option, found, result = best
        hand = sorted(found[1], key=lambda g: (g.type is GroupType.PAIR, g.cards))
        groups = (*option.table, *(Group(GroupType.KAN, (c,) * 3) for c in option.kans), *hand)
        return HuResult(win, groups, tuple(ev.group_huxi(g) for g in groups), result)

    def win(
        self,
        card: Kind,
        *,
        self_drawn: bool,
        from_discard: bool = False,
        tianhu: bool = False,
        haidi: bool = False,
    ) -> HuResult | None:
        """:func:`best_win` on this hand."""
        options = self._placements(card, self_drawn=self_drawn, from_discard=from_discard)
        if not options:
            return None
        return self._best(
            options,
            card,
            self_drawn=self_drawn,
            from_discard=from_discard,
            tianhu=tianhu,
            haidi=haidi,
        )

    def complete(
        self, *, self_drawn: bool = True, win: Kind | None = None, haidi: bool = False
    ) -> HuResult | None:
        """:func:`best_complete` on this hand."""
        option = _Placement(
            self.table, self.kans, self.free, self.fixed_huxi, self.fours, self.n_free
        )
        result = self._best([option], None, self_drawn=self_drawn, haidi=haidi)
        if result is None or win is None:
            return result
        return HuResult(win, result.groups, result.group_huxi, result.score)

    def waits(self) -> list[Wait]:
        """:func:`waits` of this hand."""
        held = list(self.counts)
        for g in self.table:
            for k in g.cards:
                held[k] += 1
        found: list[Wait] = []
        for card in range(NUM_KINDS):
            if held[card] < 4 and (result := self.win(card, self_drawn=False)) is not None:
                found.append(Wait(card, result.huxi, result.points))
        return found

    def current_huxi(self) -> int:
        """:func:`current_huxi` of this hand."""
        return self.fixed_huxi + self.ev.best_partial(self.free)[0]


def best_win(
    hand: Iterable[Kind],
    table: Sequence[Group],
    win: Kind,
    *,
    self_drawn: bool,
    rules: RuleSet = HUNAN,
    from_discard: bool = False,
    tianhu: bool = False,
    haidi: bool = False,
    native: bool = True,
) -> HuResult | None:
    """The best winning arrangement on ``win`` (R9.1), or None when the hand does not win.

    ``hand`` holds the cards in hand before ``win``; ``table`` the player's table groups;
    ``self_drawn``: the player drew ``win`` himself. Of all placements and decompositions the
    one with the greatest 底数, then the greatest hu-xi, is returned (R9.1). ``native`` False:
    the Python evaluator even where the native core serves (here and below, D86).
    """
    return prepare(hand, table, rules, native=native).win(
        win, self_drawn=self_drawn, from_discard=from_discard, tianhu=tianhu, haidi=haidi
    )


def best_complete(
    hand: Iterable[Kind],
    table: Sequence[Group],
    *,
    rules: RuleSet = HUNAN,
    self_drawn: bool = True,
    win: Kind | None = None,
    haidi: bool = False,
    native: bool = True,
) -> HuResult | None:
    """The best arrangement of a hand that is complete as it is, as right after a forced 偎
    or 提 of the drawn card ``win`` (R4.1 step 3, R9.2). ``win`` is already in hand or table."""
    prepared = prepare(hand, table, rules, native=native)
    return prepared.complete(self_drawn=self_drawn, win=win, haidi=haidi)


class InvalidHolding(ValueError):
    """Cards that no player can hold (more than four of a kind, a count R6 does not allow)."""


def check_holding(hand: Sequence[Kind], table: Sequence[Group], win: Kind | None = None) -> None:
    """Raise :class:`InvalidHolding` unless a player can hold this hand and table (R1, R6):
    at most four of a kind (counting ``win``), no four of a kind still in hand (R5.1), table
    groups only on the table, and 20 + max(0, k − 1) cards in hand and table — or one fewer
    with two or more 提/跑, as a non-dealer dealt two 提 holds until his takes catch up (R6)."""
    for g in table:
        if not g.on_table:
            raise InvalidHolding(
                f"{g} is a hand group; a table holds chi, peng, wei, chouwei, pao, ti"
            )
    in_hand = to_counts(hand)
    held = list(in_hand)
    for g in table:
        for k in g.cards:
            held[k] += 1
    if win is not None:
        held[win] += 1
    for k in range(NUM_KINDS):
        if held[k] > 4:
            raise InvalidHolding(f"more than four {KIND_NAMES[k]} ({held[k]} given)")
        if in_hand[k] == 4:
            raise InvalidHolding(
                f"four {KIND_NAMES[k]} in hand: four of a kind is laid down as "
                f"ti:{KIND_NAMES[k]} (R5.1)"
            )
    fours = sum(g.is_four for g in table)
    need = holding_limit(fours)
    have = len(hand) + sum(len(g.cards) for g in table)
    if have != need and not (fours >= 2 and have == need - 1):
        raise InvalidHolding(
            f"hand and table hold {have} card{'' if have == 1 else 's'}; with {fours} ti/pao on "
            f"the table they must hold "
            f"{need} (R6)"
        )


def waits(
    hand: Iterable[Kind], table: Sequence[Group], rules: RuleSet = HUNAN, *, native: bool = True
) -> list[Wait]:
    """听牌: every kind that wins when shown from another player's draw, in kind order."""
    return prepare(hand, table, rules, native=native).waits()


def current_huxi(
    hand: Iterable[Kind], table: Sequence[Group], rules: RuleSet = HUNAN, *, native: bool = True
) -> int:
    """A player's current total hu-xi (R10.6): the greatest over all combinations of his table
    and hand cards, leftovers allowed."""
    return prepare(hand, table, rules, native=native).current_huxi()


def is_forced_tianhu(counts: Sequence[int]) -> bool:
    """必需天胡 (R9.5.1): three or more 提, or five or more 坎 and 提 together."""
    fours = sum(c == 4 for c in counts)
    return fours >= 3 or fours + sum(c == 3 for c in counts) >= 5


def forced_tianhu(
    cards: Iterable[Kind], rules: RuleSet = HUNAN, *, native: bool = True
) -> HuResult | None:
    """The forced 天胡 of dealt cards (R9.5.1; the dealer's include the 亮张), or None.

    Hu-xi: the 提 and 坎 plus the best partial decomposition of the rest [decision]. 对对胡
    applies when no sequence scores and the cards left over are at most one pair [decision].
    """
    if native and _NATIVE is not None and _NATIVE.serves(rules):
        return _NATIVE.forced_tianhu(cards, rules)
    counts = to_counts(cards)
    if not is_forced_tianhu(counts):
        return None
    holding = PreparedHand(cards, (), rules)
    ev = holding.ev
    partial, runs = ev.best_partial(holding.free) if rules.tianhu_partial_huxi else (0, ())
    free = list(holding.free)
    for run in runs:
        for k in run.cards:
            free[k] -= 1
    leftover = tuple(k for k in range(NUM_KINDS) for _ in range(free[k]))
    groups = (*holding.table, *(Group(GroupType.KAN, (k,) * 3) for k in holding.kans), *runs)
    context = WinContext(groups, None, self_drawn=True, tianhu=True, leftover=leftover)
    result = score(holding.fixed_huxi + partial, context, rules)
    return HuResult(None, groups, tuple(ev.group_huxi(g) for g in groups), result, leftover)


class NativeEvaluators(Protocol):
    """What :mod:`paohuzi.native` plugs in here when the native core is built (issue 14)."""

    def evaluator_for(self, rules: RuleSet) -> object | None:
        """The native evaluator of a rule set (what a native game plays with), or None for a
        rule set only Python serves."""

    def prepare(
        self, hand: Iterable[Kind], table: Sequence[Group], rules: RuleSet
    ) -> Prepared | None:
        """A hand prepared natively, with :class:`PreparedHand`'s methods (its type is the
        native core's own), or None (``hand`` untouched) for a rule set only Python serves."""

    def prepare_counts(
        self, counts: Sequence[int], table: Sequence[Group], rules: RuleSet
    ) -> Prepared | None:
        """The same for a hand given as a count array."""

    def serves(self, rules: RuleSet) -> bool: ...

    def forced_tianhu(self, cards: Iterable[Kind], rules: RuleSet) -> HuResult | None: ...


_NATIVE: NativeEvaluators | None = None
"""The native core serving :func:`prepare` and the functions above, plugged in once by
:mod:`paohuzi.native` when it loads the extension (:func:`plug`); None: pure Python."""


def plug(core: NativeEvaluators) -> None:
    """Serve :func:`prepare` and the functions above by the native core from now on: called
    once, by :mod:`paohuzi.native` as it loads the extension (there is no unplugging: a caller
    that wants the Python evaluator says so with ``native=False`` or :class:`PreparedHand`)."""
    global _NATIVE
    _NATIVE = core
