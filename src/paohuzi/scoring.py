"""Scoring a win (R10): 等, 自摸, 名堂 and 番, 底数, settlement."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from paohuzi.mingtang import WinContext
from paohuzi.rules import FanCombine, RuleSet, Seating


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
