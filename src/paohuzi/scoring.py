"""Scoring a win (R10): 等, 自摸, 名堂 and 番, 底数, settlement."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from paohuzi.cards import RED_KINDS, Kind, is_big
from paohuzi.groups import Group, GroupType
from paohuzi.mingtang import HandFacts
from paohuzi.rules import RuleSet

_NOT_TRIPLET = frozenset({GroupType.CHI, GroupType.RUN, GroupType.JIAO})


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
    """番: the sum of the 名堂 (1 for 平胡), plus the 海底胡 番."""
    points: int
    """底数 = 等 × 番 (R10.4): what each other player pays."""


def hand_facts(cards: Iterable[Kind], groups: Iterable[Group]) -> HandFacts:
    """Facts for the 名堂 of all a winner's cards and the groups they form."""
    red = big = total = 0
    for k in cards:
        total += 1
        red += k in RED_KINDS
        big += is_big(k)
    triplets = all(g.type not in _NOT_TRIPLET for g in groups)
    return HandFacts(red=red, big=big, small=total - big, all_triplets=triplets)


def fan_of(
    facts: HandFacts, rules: RuleSet, *, haidi: bool
) -> tuple[tuple[tuple[str, int], ...], int]:
    """The 名堂 that apply, and the hand's 番 (R10.3; 海底胡 adds ``rules.haidi_fan``)."""
    names = tuple((m.name, f) for m in rules.mingtang if (f := m.fan(facts)) > 0)
    fan = sum(f for _, f in names) if names else 1
    return names, fan + (rules.haidi_fan if haidi else 0)


def score(
    huxi: int,
    facts: HandFacts,
    rules: RuleSet,
    *,
    self_drawn: bool,
    tianhu: bool = False,
    haidi: bool = False,
) -> Score:
    """Score a win of ``huxi`` hu-xi (R10). Both kinds of 天胡 count as 自摸 (R9.5.3)."""
    self_drawn = self_drawn or tianhu
    deng = rules.deng(huxi, tianhu=tianhu) + (rules.self_draw_bonus if self_drawn else 0)
    names, fan = fan_of(facts, rules, haidi=haidi)
    return Score(huxi, deng, self_drawn, tianhu, haidi, names, fan, deng * fan)


def payments(winner: int | None, points: int, players: int = 3) -> list[int]:
    """Settlement (R10.5): every other player pays the winner ``points``; 荒庄 pays nothing."""
    if winner is None:
        return [0] * players
    return [points * (players - 1) if seat == winner else -points for seat in range(players)]
