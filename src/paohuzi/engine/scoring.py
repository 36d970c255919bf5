"""Scoring a win (R10): 等, 自摸, 名堂 and 番, 底数, settlement."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from paohuzi.engine.cards import NUM_KINDS
from paohuzi.engine.groups import SCORING_SEQUENCES, GroupType
from paohuzi.engine.mingtang import AllTriplets, RedCount, SizeCount, WinContext
from paohuzi.engine.rules import HAND_SIZE, FanCombine, RuleSet, Seating


@dataclass(frozen=True, slots=True)
class Score:
    """The R10 figures of a win."""

    huxi: int
    deng: int
    """等, including the 自摸 bonus (R10.2)."""
    self_drawn: bool
    tianhu: bool
    haidi: bool
    mingtang: tuple[tuple[str, int], ...]
    """Each 名堂 that applies, with its 番 (海底胡 is not one)."""
    fan: int
    """番: the 名堂 combined by the rule set (1 for 平胡), plus the 海底胡 番."""
    points: int
    """底数 = 等 × 番 (R10.4): what each other player pays."""


def combine_fan(values: Sequence[int], how: FanCombine) -> int:
    """The hand's 番 from its 名堂's (R10.3): 平胡 (no 名堂) is 1."""
    if not values:
        return 1
    if how is FanCombine.PRODUCT:
        return math.prod(values)
    if how is FanCombine.MAX:
        return max(values)
    return sum(values)


def fan_of(win: WinContext, rules: RuleSet) -> tuple[tuple[tuple[str, int], ...], int]:
    """The 名堂 that apply, and the hand's 番 (R10.3; 海底胡 adds ``rules.haidi_fan``, D1)."""
    names = tuple((m.name, f) for m in rules.mingtang if (f := m.fan(win)) > 0)
    fan = combine_fan([f for _, f in names], rules.fan_combine)
    return names, fan + (rules.haidi_fan if win.haidi else 0)


def score(huxi: int, win: WinContext, rules: RuleSet) -> Score:
    """Score a win of ``huxi`` hu-xi (R10). Both kinds of 天胡 count as 自摸 (R9.5.3)."""
    self_drawn = win.self_drawn or win.tianhu
    deng = rules.deng(huxi, tianhu=win.tianhu) + (rules.self_draw_bonus if self_drawn else 0)
    names, fan = fan_of(win, rules)
    return Score(huxi, deng, self_drawn, win.tianhu, win.haidi, names, fan, deng * fan)


def payments(winner: int | None, points: int, seating: Seating) -> list[int]:
    """Settlement (R10.5): every other player of the hand pays the winner ``points``; 荒庄 pays
    nothing, and a seat sitting the hand out (R12) neither pays nor is paid."""
    paid = [0] * seating.seats
    if winner is None:
        return paid
    for seat in seating.playing:
        paid[seat] = points * (len(seating.playing) - 1) if seat == winner else -points
    return paid


_MOST_FOURS = 6
"""More 跑/提 than this cannot fit in a winning holding (R6: 20 + max(0, k − 1) cards, then
the winning card)."""
_SAME_KIND = (
    GroupType.PENG,
    GroupType.WEI,
    GroupType.CHOUWEI,
    GroupType.KAN,
    GroupType.PAO,
    GroupType.TI,
)
_RED_CARDS = 24
"""Red cards in the deck: six red kinds, four copies each."""


@cache
def largest_payment(rules: RuleSet) -> int:
    """An upper bound on what one seat can pay in one hand (R10.5: the winner's 底数).

    It bounds each factor apart, so it is well above any hand seen in play: the hu-xi of a
    winning holding of at most 21 + max(0, k − 1) cards with k 跑/提, each group at the table's
    highest value, doubled as for a 天胡, plus 自摸; the 番 over every possible count of red, big
    and small cards and 对对胡, plus 海底胡. Raises ValueError for a 名堂 table with other kinds
    of 名堂 (their 番 cannot be bounded here)."""
    huxi = rules.huxi
    same = {t: max(huxi.same_kind(t, k) for k in range(NUM_KINDS)) for t in _SAME_KIND}
    four = max(same[GroupType.PAO], same[GroupType.TI])
    three = max(
        *(v for t, v in same.items() if t not in (GroupType.PAO, GroupType.TI)),
        *(huxi.sequence(cards) for cards in SCORING_SEQUENCES),
    )
    most_huxi = 0
    most_cards = 0
    for k in range(_MOST_FOURS + 1):
        cards = HAND_SIZE + 1 + max(0, k - 1)
        most_cards = max(most_cards, cards)
        if 4 * k <= cards:
            most_huxi = max(most_huxi, k * four + (cards - 4 * k) // 3 * three)
    deng = max(rules.deng(most_huxi), rules.deng(most_huxi, tianhu=True)) + rules.self_draw_bonus
    return max(1, deng) * (_largest_fan(rules, most_cards) + rules.haidi_fan)


def _largest_fan(rules: RuleSet, cards: int) -> int:
    known = [m for m in rules.mingtang if isinstance(m, RedCount | SizeCount | AllTriplets)]
    for m in rules.mingtang:
        if m not in known:
            raise ValueError(f"cannot bound the 番 of the 名堂 {m.name}")
    best = 1
    for n in range(cards + 1):
        for big in range(n + 1):
            for red in range(min(n, _RED_CARDS) + 1):
                for triplets in (False, True):
                    values = [f for m in known if (f := _fan(m, n, big, red, triplets)) > 0]
                    best = max(best, combine_fan(values, rules.fan_combine))
    return best


def _fan(m: RedCount | SizeCount | AllTriplets, n: int, big: int, red: int, triplets: bool) -> int:
    if isinstance(m, RedCount):
        return m.value if m.low <= red <= m.high else 0
    if isinstance(m, SizeCount):
        count = big if m.big else n - big
        return m.value + m.per_extra * (count - m.threshold) if count >= m.threshold else 0
    return m.value if triplets else 0
