"""The rule set: every number and option the rules leave to a table (R3, R10, R12).

A house rule is a :class:`RuleSet` value, not a fork: ``dataclasses.replace(HUNAN, min_huxi=10)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from paohuzi.cards import NUM_KINDS, RED_KINDS, Kind, is_big, rank
from paohuzi.groups import Group, GroupType
from paohuzi.mingtang import HUNAN_MINGTANG, Mingtang


@dataclass(frozen=True)
class Points:
    """Hu-xi of one row of the R3 table: small kind / big kind, and red kinds where they differ."""

    small: int
    big: int
    red_small: int | None = None
    red_big: int | None = None

    def of(self, kind: Kind) -> int:
        """Hu-xi of this row for a group of the given kind."""
        if kind in RED_KINDS and self.red_small is not None and self.red_big is not None:
            return self.red_big if is_big(kind) else self.red_small
        return self.big if is_big(kind) else self.small


@dataclass(frozen=True)
class HuxiTable:
    """The hu-xi table of R3. Sequences other than 1-2-3 and 2-7-10, 绞 and the pair score 0."""

    run123: Points = Points(3, 6)
    run2710: Points = Points(3, 6)
    peng: Points = Points(1, 3)
    wei: Points = Points(3, 6)
    kan: Points = Points(3, 6)
    pao: Points = Points(6, 9)
    ti: Points = Points(9, 12)
    cap: int | None = None
    """Highest hu-xi of one group, if any (Luzhou: 18)."""

    @cached_property
    def _same_kind(self) -> dict[GroupType, tuple[int, ...]]:
        rows = {
            GroupType.PENG: self.peng,
            GroupType.WEI: self.wei,
            GroupType.CHOUWEI: self.wei,
            GroupType.KAN: self.kan,
            GroupType.PAO: self.pao,
            GroupType.TI: self.ti,
        }
        return {t: tuple(self._capped(p.of(k)) for k in range(NUM_KINDS)) for t, p in rows.items()}

    def _capped(self, value: int) -> int:
        return value if self.cap is None else min(value, self.cap)

    def same_kind(self, gtype: GroupType, kind: Kind) -> int:
        """Hu-xi of a 碰, 偎, 臭偎, 坎, 跑 or 提 of a kind."""
        return self._same_kind[gtype][kind]

    def sequence(self, cards: tuple[Kind, ...]) -> int:
        """Hu-xi of a sequence or 绞 (sorted cards)."""
        ranks = tuple(rank(k) for k in cards)
        if is_big(cards[0]) == is_big(cards[2]):
            if ranks == (1, 2, 3):
                return self._capped(self.run123.of(cards[0]))
            if ranks == (2, 7, 10):
                return self._capped(self.run2710.of(cards[0]))
        return 0

    def group(self, group: Group) -> int:
        """Hu-xi of any group (R3)."""
        if group.type is GroupType.PAIR:
            return 0
        if group.type in (GroupType.CHI, GroupType.RUN, GroupType.JIAO):
            return self.sequence(group.cards)
        return self.same_kind(group.type, group.cards[0])


@dataclass(frozen=True)
class RuleSet:
    """Every table-dependent number and option. Defaults: Hunan, QQ game hall."""

    name: str = "hunan"
    huxi: HuxiTable = field(default_factory=HuxiTable)
    min_huxi: int = 15
    """Fewest hu-xi to win (R9.1)."""
    deng_base: int = 15
    """Hu-xi worth 1 等 (R10.1)."""
    deng_step: int = 3
    """Hu-xi per further 等 (R10.1)."""
    self_draw_bonus: int = 1
    """等 added for 自摸 and 天胡 (R10.2)."""
    tianhu_double: bool = True
    """天胡 hu-xi counts double towards 等 (R10.1)."""
    mingtang: tuple[Mingtang, ...] = HUNAN_MINGTANG
    """The 名堂 table (R10.1)."""
    haidi_fan: int = 1
    """番 added for 海底胡, which is not a 名堂 (R10.1) [decision]."""
    hu_on_discard: bool = False
    """Whether a discarded card may be won on (R4.2, R9.2)."""
    take_needs_discard: bool = True
    """R6.2 [decision]: a 吃 or 碰 that obliges a discard is illegal when nothing left in the
    hand may be discarded."""
    break_kan_when_stuck: bool = True
    """R6.3 [decision]: when a forced take obliges a discard and only 坎 cards are left, a 坎
    is broken; otherwise the turn passes with no discard."""
    tianhu_partial_huxi: bool = True
    """R9.5.1 [decision]: a forced 天胡 scores its 提 and 坎 plus the best partial
    decomposition of the other cards; otherwise the 提 and 坎 alone."""

    def deng(self, huxi: int, *, tianhu: bool = False) -> int:
        """等 for a hu-xi total, before the 自摸 bonus (R10.1); 0 below ``deng_base``."""
        effective = 2 * huxi if tianhu and self.tianhu_double else huxi
        if effective < self.deng_base:
            return 0
        return 1 + (effective - self.deng_base) // self.deng_step


HUNAN = RuleSet()
"""Hunan, as played in the QQ game hall: the default (RULES.md)."""

LUZHOU = RuleSet(
    name="luzhou",
    huxi=HuxiTable(
        run123=Points(3, 6),
        run2710=Points(6, 9),
        peng=Points(1, 3, 6, 9),
        wei=Points(6, 9, 9, 12),
        kan=Points(6, 9, 9, 12),
        pao=Points(9, 12, 12, 15),
        ti=Points(12, 15, 15, 18),
        cap=18,
    ),
    min_huxi=10,
    deng_base=10,
    hu_on_discard=True,
)
"""泸州 大贰 (R12), from seed 001; 招 = 跑 and 垅 = 提 are [decision]s."""

PRESETS: dict[str, RuleSet] = {r.name: r for r in (HUNAN, LUZHOU)}
