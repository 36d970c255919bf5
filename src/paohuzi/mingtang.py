"""名堂 (special hands, R10.1): each one a small object with the same typed signature.

A 名堂 looks only at :class:`HandFacts`, the counts taken over all the winner's cards at the
moment of winning (hand, table, winning card). Its :meth:`Mingtang.fan` is 0 when it does not
apply. A regional table is a tuple of these objects in a :class:`~paohuzi.rules.RuleSet`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class HandFacts:
    """What a 名堂 may look at."""

    red: int
    """Red cards (红字, R1)."""
    big: int
    """Big cards (大字)."""
    small: int
    """Small cards (小字)."""
    all_triplets: bool
    """No sequence and no 绞 in any group (对对胡)."""


class Mingtang(Protocol):
    """One 名堂: a name and the 番 it is worth for a hand (0 when it does not apply)."""

    @property
    def name(self) -> str: ...

    def fan(self, facts: HandFacts) -> int: ...


@dataclass(frozen=True, slots=True)
class RedCount:
    """A 名堂 on the number of red cards: ``low <= red <= high`` (红胡, 红乌, 点胡, 乌胡)."""

    name: str
    low: int
    high: int
    value: int

    def fan(self, facts: HandFacts) -> int:
        return self.value if self.low <= facts.red <= self.high else 0


@dataclass(frozen=True, slots=True)
class SizeCount:
    """大字胡 / 小字胡: at least ``threshold`` cards of one size, +``per_extra`` per card beyond."""

    name: str
    big: bool
    threshold: int
    value: int
    per_extra: int

    def fan(self, facts: HandFacts) -> int:
        n = facts.big if self.big else facts.small
        return self.value + self.per_extra * (n - self.threshold) if n >= self.threshold else 0


@dataclass(frozen=True, slots=True)
class AllTriplets:
    """对对胡: only 坎, 碰, 偎, 跑, 提 and the pair."""

    name: str
    value: int

    def fan(self, facts: HandFacts) -> int:
        return self.value if facts.all_triplets else 0


MANY = 1000
"""An upper bound for a count that has none."""

HUNAN_MINGTANG: tuple[Mingtang, ...] = (
    RedCount("红胡", 10, 12, 2),
    RedCount("红乌", 13, MANY, 4),
    RedCount("点胡", 1, 1, 3),
    RedCount("乌胡", 0, 0, 5),
    AllTriplets("对对胡", 4),
    SizeCount("大字胡", big=True, threshold=18, value=6, per_extra=1),
    SizeCount("小字胡", big=False, threshold=16, value=8, per_extra=1),
)
"""The QQ hall table of R10.1."""
