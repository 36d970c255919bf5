"""名堂 (special hands, R10.1): each one a small object with the same typed signature.

A 名堂 looks at a :class:`WinContext`: the whole winning arrangement (every group, table and
hand, with the card that won in its place), the winning card and how it was won. Its
:meth:`Mingtang.fan` is 0 when it does not apply. A regional table is a tuple of these objects
in a :class:`~paohuzi.engine.rules.RuleSet`; how their 番 combine is the rule set's ``fan_combine``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from functools import cached_property
from itertools import chain
from typing import Any, ClassVar, Protocol

from paohuzi.engine.cards import NUM_KINDS, RED_KINDS, Kind, is_big
from paohuzi.engine.groups import Group, GroupType

_NOT_TRIPLET = frozenset({GroupType.CHI, GroupType.RUN, GroupType.JIAO})
_IS_RED = tuple(int(k in RED_KINDS) for k in range(NUM_KINDS))
_IS_BIG = tuple(int(is_big(k)) for k in range(NUM_KINDS))


@dataclass(frozen=True)
class WinContext:
    """Everything a 名堂 may look at: the winner's cards at the moment of winning (R10.1)."""

    groups: tuple[Group, ...]
    """The winning arrangement: table groups (a 碰/偎 the card joined is already its 跑/提),
    坎, the hand's sequences and 绞, and the pair."""
    win: Kind | None
    """The winning card; None for a forced 天胡 (R9.5.1)."""
    self_drawn: bool = False
    """The winner drew the winning card himself (自摸, R10.2)."""
    from_discard: bool = False
    """Won on a discarded card (only with ``hu_on_discard``, R9.2)."""
    tianhu: bool = False
    """Either kind of 天胡 (R9.5); it counts as 自摸."""
    haidi: bool = False
    """Won on the last wall card (海底胡)."""
    leftover: tuple[Kind, ...] = ()
    """Cards in no group: only a forced 天胡 has them (R9.5.1)."""

    @cached_property
    def cards(self) -> tuple[Kind, ...]:
        """All the winner's cards: every group's and the leftovers."""
        return (*chain.from_iterable(g.cards for g in self.groups), *self.leftover)

    @cached_property
    def red(self) -> int:
        """Red cards (红字, R1)."""
        return sum(map(_IS_RED.__getitem__, self.cards))

    @cached_property
    def big(self) -> int:
        """Big cards (大字)."""
        return sum(map(_IS_BIG.__getitem__, self.cards))

    @property
    def small(self) -> int:
        """Small cards (小字)."""
        return len(self.cards) - self.big

    @cached_property
    def all_triplets(self) -> bool:
        """No sequence and no 绞 in any group, and no leftover but a pair (对对胡)."""
        left = self.leftover
        if left and not (len(left) == 2 and left[0] == left[1]):
            return False
        return all(g.type not in _NOT_TRIPLET for g in self.groups)


class Mingtang(Protocol):
    """One 名堂: a name and the 番 it is worth for a win (0 when it does not apply)."""

    @property
    def name(self) -> str: ...

    def fan(self, win: WinContext) -> int: ...


@dataclass(frozen=True, slots=True)
class RedCount:
    """A 名堂 on the number of red cards: ``low <= red <= high`` (红胡, 红乌, 点胡, 乌胡)."""

    kind: ClassVar[str] = "red_count"
    name: str
    low: int
    high: int
    value: int

    def fan(self, win: WinContext) -> int:
        return self.value if self.low <= win.red <= self.high else 0


@dataclass(frozen=True, slots=True)
class SizeCount:
    """大字胡 / 小字胡: at least ``threshold`` cards of one size, +``per_extra`` per card beyond."""

    kind: ClassVar[str] = "size_count"
    name: str
    big: bool
    threshold: int
    value: int
    per_extra: int

    def fan(self, win: WinContext) -> int:
        n = win.big if self.big else win.small
        return self.value + self.per_extra * (n - self.threshold) if n >= self.threshold else 0


@dataclass(frozen=True, slots=True)
class AllTriplets:
    """对对胡: only 坎, 碰, 偎, 跑, 提 and the pair."""

    kind: ClassVar[str] = "all_triplets"
    name: str
    value: int

    def fan(self, win: WinContext) -> int:
        return self.value if win.all_triplets else 0


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

MINGTANG_TYPES: dict[str, type[RedCount] | type[SizeCount] | type[AllTriplets]] = {
    t.kind: t for t in (RedCount, SizeCount, AllTriplets)
}
"""The 名堂 types a rule set's JSON may name, by their ``kind``."""


def mingtang_json(mingtang: Mingtang) -> dict[str, Any]:
    """A 名堂 as JSON: its type's ``kind`` and its fields."""
    kind = getattr(mingtang, "kind", None)
    if kind not in MINGTANG_TYPES or not isinstance(mingtang, MINGTANG_TYPES[kind]):
        raise ValueError(f"名堂 {mingtang.name!r} is of a type that has no JSON form")
    return {"type": kind, **asdict(mingtang)}


class MingtangError(ValueError):
    """A 名堂's JSON refused; :attr:`key` names its field at fault, if one is."""

    def __init__(self, key: str | None, problem: str) -> None:
        super().__init__(problem)
        self.key = key


def mingtang_from_json(data: Any) -> Mingtang:
    """Read :func:`mingtang_json`; raises :class:`MingtangError` (a ValueError) naming what is
    wrong. The ranges of the values are the rule set's business (``paohuzi.engine.rules``)."""
    if not isinstance(data, dict):
        raise MingtangError(None, "a 名堂 is a JSON object")
    kind = data.get("type", "")
    cls = MINGTANG_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        shown = repr(kind) if len(repr(kind)) <= 40 else repr(kind)[:37] + "..."
        raise MingtangError("type", f"unknown 名堂 type {shown} ({', '.join(MINGTANG_TYPES)})")
    wanted = {f.name: f.type for f in fields(cls)}
    given = {k: v for k, v in data.items() if k != "type"}
    if set(given) != set(wanted):
        odd = sorted(set(given) ^ set(wanted))[0]
        raise MingtangError(odd, f"a {cls.kind} 名堂 has the fields {', '.join(wanted)}")
    for key, value in given.items():
        expected = str if wanted[key] == "str" else bool if wanted[key] == "bool" else int
        if type(value) is not expected:
            raise MingtangError(key, f"名堂 field {key!r} must be {expected.__name__}")
    return cls(**given)
