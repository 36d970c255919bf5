"""The rule set: every number and option the rules leave to a table (R3, R10, R12), and the
few rules every table shares that more than one module needs: who plays a hand and in what
order (R2, R12), and how many cards a player holds (R6).

A house rule is a :class:`RuleSet` value, not a fork: ``dataclasses.replace(HUNAN, min_huxi=10)``.
A rule set travels as JSON (:meth:`RuleSet.to_json`), so a record replays under its own rules.

Every value has a range (:data:`RANGES`, the hu-xi table's :data:`HUXI_RANGE`, the 名堂's
:data:`MINGTANG_RANGES` and :data:`MOST_FAN`): a rule set outside them is refused when it is
made, by :meth:`RuleSet.from_json` and by the constructor alike, with a :class:`RuleSetError`
naming the field. Inside them every rule set plays: no 等 divides by zero, and every figure of
a hand (hu-xi, 等, 番, 底数) stays far inside 64 bits, and inside the 2**53 a browser counts
exactly (decision D66).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field, fields, replace
from functools import cache, cached_property
from typing import Any

from paohuzi.engine.cards import NUM_KINDS, RED_KINDS, Kind, is_big, rank
from paohuzi.engine.groups import RUN_123, RUN_2710, SCORING_SEQUENCES, Group, GroupType
from paohuzi.engine.mingtang import (
    HUNAN_MINGTANG,
    MANY,
    AllTriplets,
    Mingtang,
    MingtangError,
    RedCount,
    SizeCount,
    mingtang_from_json,
    mingtang_json,
)

HAND_SIZE = 20
"""Cards dealt to each seat that plays a hand (R2)."""

DEALT = 3
"""Seats dealt into a hand (R2): the whole table, or three of four (R12)."""

SEAT_COUNTS = (DEALT, DEALT + 1)
"""Seats a table may have (R12 ``players``)."""


MOST_CARDS = 27
"""More cards than a winner holds: 20 + max(0, k - 1) with k 提 and 跑 (R6), and the winning
card (a bound of the cards one 名堂 counts)."""

HUXI_RANGE = range(0, 1001)
"""Hu-xi of one group in the R3 table (every row, red rows too, and the ``cap``)."""

RANGES: dict[str, range] = {
    "min_huxi": range(0, 10_001),
    "deng_base": range(1, 10_001),
    "deng_step": range(1, 10_001),
    "self_draw_bonus": range(0, 1001),
    "haidi_fan": range(0, 1001),
}
"""The integers a rule set's numeric fields may hold (R9.1, R10.1, R10.2). ``deng_step`` is a
divisor (R10.1); ``deng_base`` at least 1 so a hand of no hu-xi is worth no 等."""

MINGTANG_RANGES: dict[str, range] = {
    "low": range(0, MANY + 1),
    "high": range(0, MANY + 1),
    "threshold": range(0, MANY + 1),
    "value": range(0, 1001),
    "per_extra": range(0, 1001),
}
"""The integers each field of a 名堂 (R10.1) may hold."""

MOST_MINGTANG = 32
"""The most 名堂 a table may list."""

MOST_FAN = 2**31
"""The most 番 the 名堂 of a table may make together (:func:`fan_bound`): with the ranges
above, a hand's 底数 stays under 2**46."""

NAME_LENGTH = range(1, 33)
"""Characters of a preset's or a 名堂's name."""


class RuleSetError(ValueError):
    """A rule set refused: :attr:`field` names the value at fault (``deng_step``,
    ``huxi.peng``, ``mingtang[2].value``), and the message starts with it."""

    def __init__(self, field: str | None, problem: str) -> None:
        super().__init__(problem if field is None else f"{field}: {problem}")
        self.field = field


def fan_bound(mingtang: tuple[Mingtang, ...], how: FanCombine) -> int | None:
    """An upper bound of the 番 these 名堂 may make together (no 海底胡), or None for a 名堂
    of a shape other than ``paohuzi.engine.mingtang``'s three (its 番 cannot be bounded here)."""
    most: list[int] = []
    for m in mingtang:
        if type(m) is SizeCount:
            most.append(m.value + m.per_extra * max(0, MOST_CARDS - m.threshold))
        elif type(m) is RedCount or type(m) is AllTriplets:
            most.append(m.value)
        else:
            return None
    if how is FanCombine.PRODUCT:
        bound = 1
        for value in most:
            bound *= max(value, 1)
        return bound
    if how is FanCombine.MAX:
        return max(most, default=1)
    return max(sum(most), 1)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_int(field: str, value: Any, allowed: range) -> None:
    if not _is_int(value):
        raise RuleSetError(field, f"must be an integer, not {_shown(value)}")
    if value not in allowed:
        raise RuleSetError(
            field,
            f"must be an integer from {allowed.start} to {allowed.stop - 1}, not {_shown(value)}",
        )


def _check_bool(field: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise RuleSetError(field, f"must be true or false, not {_shown(value)}")


def _check_name(field: str, value: Any) -> None:
    if not isinstance(value, str) or len(value) not in NAME_LENGTH or not value.isprintable():
        raise RuleSetError(
            field,
            f"must be a name of {NAME_LENGTH.start} to {NAME_LENGTH.stop - 1} printable "
            f"characters, not {_shown(value)}",
        )


def _shown(value: Any) -> str:
    """A value in a message: short whatever the client sent."""
    if isinstance(value, int) and value.bit_length() > 64:
        return "a number beyond 64 bits"  # and repr() refuses one of over 4,300 digits
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def holding_limit(fours: int) -> int:
    """R6: the most cards (hand plus table) a player holds with no discard pending, with
    ``fours`` 提 and 跑 on his table — 20 + max(0, k − 1). One more obliges a discard."""
    return HAND_SIZE + max(0, fours - 1)


def _seat_list(seats: int) -> str:
    names = [str(s) for s in range(seats)]
    return f"{', '.join(names[:-1])} or {names[-1]}"


class Seating:
    """Who plays a hand and in what order (R2, R12): every seat of a three-seat table; at a
    four-seat table, all but the seat opposite the dealer. Play and asking go round the playing
    seats in increasing seat order; the deal gives them their cards in that order from the
    dealer. Use :func:`seating`."""

    __slots__ = ("_next", "_orders", "dealer", "playing", "seats", "sitting_out")

    def __init__(self, seats: int, dealer: int) -> None:
        if seats not in SEAT_COUNTS:
            raise ValueError(f"a table has {' or '.join(map(str, SEAT_COUNTS))} seats, not {seats}")
        if isinstance(dealer, bool) or dealer not in range(seats):
            raise ValueError(f"dealer must be {_seat_list(seats)}, not {dealer!r}")
        self.seats = seats
        self.dealer = dealer
        self.sitting_out: int | None = (dealer + seats // 2) % seats if seats > DEALT else None
        """The seat that sits the hand out: dealt nothing, neither pays nor is paid (R12)."""
        self.playing: tuple[int, ...] = tuple(
            s for s in ((dealer + i) % seats for i in range(seats)) if s != self.sitting_out
        )
        """The seats dealt in, in deal order from the dealer (R2)."""
        n = len(self.playing)
        self._orders = {
            s: tuple(self.playing[(i + j) % n] for j in range(n))
            for i, s in enumerate(self.playing)
        }
        self._next = {s: order[1] for s, order in self._orders.items()}

    def next(self, seat: int) -> int:
        """The seat's 下家: the next playing seat (R2)."""
        return self._next[seat]

    def order_from(self, seat: int) -> tuple[int, ...]:
        """The playing seats in play order, starting at ``seat`` (R8's asking order)."""
        return self._orders[seat]

    def __repr__(self) -> str:
        return f"Seating(seats={self.seats}, dealer={self.dealer})"


@cache
def seating(seats: int, dealer: int) -> Seating:
    """The (shared) :class:`Seating` of a table of ``seats`` with this dealer."""
    return Seating(seats, dealer)


class FanCombine(enum.Enum):
    """How the 番 of several 名堂 make the hand's 番 (R10.3)."""

    SUM = "sum"
    """Added up: the QQ hall's rule."""
    PRODUCT = "product"
    """Multiplied, as tables that double per 名堂 play."""
    MAX = "max"
    """Only the greatest counts."""


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

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            name = f"huxi.{f.name}"
            if f.name == "cap":
                if value is not None:
                    _check_int(name, value, HUXI_RANGE)
                continue
            if not isinstance(value, Points):
                raise RuleSetError(name, "must be a row of hu-xi (Points)")
            _check_int(name, value.small, HUXI_RANGE)
            _check_int(name, value.big, HUXI_RANGE)
            if (value.red_small is None) != (value.red_big is None):
                raise RuleSetError(name, "has red values for both sizes or for neither")
            if value.red_small is not None:
                _check_int(name, value.red_small, HUXI_RANGE)
                _check_int(name, value.red_big, HUXI_RANGE)

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
            if ranks == RUN_123:
                return self._capped(self.run123.of(cards[0]))
            if ranks == RUN_2710:
                return self._capped(self.run2710.of(cards[0]))
        return 0

    @cached_property
    def _sequences(self) -> dict[tuple[Kind, ...], int]:
        return {cards: value for cards in SCORING_SEQUENCES if (value := self.sequence(cards))}

    def group(self, group: Group) -> int:
        """Hu-xi of any group (R3). The evaluator scores every group with it."""
        row = self._same_kind.get(group.type)
        if row is not None:
            return row[group.cards[0]]
        # Sequences, 绞 and the pair: only 1-2-3 and 2-7-10 score.
        return self._sequences.get(group.cards, 0)

    def to_json(self) -> dict[str, Any]:
        """Each row as [small, big] or [small, big, red small, red big], and the cap."""
        data: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Points):
                data[f.name] = [value.small, value.big] + (
                    [] if value.red_small is None else [value.red_small, value.red_big]
                )
            else:
                data[f.name] = value
        return data

    @classmethod
    def from_json(cls, data: Any) -> HuxiTable:
        """Read :meth:`to_json`; rows it leaves out keep the R3 values."""
        if not isinstance(data, dict):
            raise RuleSetError("huxi", "must be a JSON object")
        known = {f.name for f in fields(cls)}
        changes: dict[str, Any] = {}
        for key, value in data.items():
            if key not in known:
                raise RuleSetError(f"huxi.{_key(key)}", f"unknown huxi row {_shown(key)}")
            if key == "cap":
                if value is not None and not _is_int(value):
                    raise RuleSetError("huxi.cap", "huxi cap must be an integer or null")
                changes[key] = value
            elif isinstance(value, list) and len(value) in (2, 4) and all(map(_is_int, value)):
                changes[key] = Points(*value)
            else:
                raise RuleSetError(
                    f"huxi.{key}", f"huxi row {key!r} must be [small, big] or four integers"
                )
        return replace(cls(), **changes)


@dataclass(frozen=True)
class RuleSet:
    """Every table-dependent number and option. Defaults: Hunan, QQ game hall."""

    name: str = "hunan"
    """The preset the rule set started from: a house rule made with ``replace`` keeps it."""
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
    fan_combine: FanCombine = FanCombine.SUM
    """How the 番 of several 名堂 combine (R10.3): the QQ hall adds them up."""
    players: int = DEALT
    """Seats at the table, 3 or 4 (R12 [decision]: with four, the seat opposite the dealer sits
    each hand out)."""

    def __post_init__(self) -> None:
        """Refuse a value outside its range or of the wrong type: RuleSetError naming it."""
        _check_name("preset", self.name)
        if not isinstance(self.huxi, HuxiTable):
            raise RuleSetError("huxi", "must be a HuxiTable")
        for key, allowed in RANGES.items():
            _check_int(key, getattr(self, key), allowed)
        for f in fields(self):
            if f.type == "bool":
                _check_bool(f.name, getattr(self, f.name))
        if not isinstance(self.fan_combine, FanCombine):
            raise RuleSetError("fan_combine", "must be a FanCombine")
        if not _is_int(self.players) or self.players not in SEAT_COUNTS:
            seats = " or ".join(map(str, SEAT_COUNTS))
            raise RuleSetError("players", f"a table has {seats} seats, not {_shown(self.players)}")
        self._check_mingtang()

    def _check_mingtang(self) -> None:
        table = self.mingtang
        if not isinstance(table, tuple):
            raise RuleSetError("mingtang", "must be a tuple of 名堂")
        if len(table) > MOST_MINGTANG:
            raise RuleSetError("mingtang", f"a table lists at most {MOST_MINGTANG} 名堂")
        for i, m in enumerate(table):
            _check_name(f"mingtang[{i}].name", getattr(m, "name", None))
            if type(m) in (RedCount, SizeCount, AllTriplets):
                for key, allowed in MINGTANG_RANGES.items():
                    if hasattr(m, key):
                        _check_int(f"mingtang[{i}].{key}", getattr(m, key), allowed)
            if type(m) is SizeCount:
                _check_bool(f"mingtang[{i}].big", m.big)
            if type(m) is RedCount and m.low > m.high:
                raise RuleSetError(f"mingtang[{i}].low", f"{m.low} is above high ({m.high})")
        bound = fan_bound(table, self.fan_combine)
        if bound is not None and bound > MOST_FAN:
            raise RuleSetError(
                "mingtang",
                f"these 名堂 may make up to {bound} 番 ({self.fan_combine.value}); "
                f"at most {MOST_FAN}",
            )

    def seating(self, dealer: int) -> Seating:
        """Who plays a hand with this dealer, in what order (R2, R12)."""
        return seating(self.players, dealer)

    def deng(self, huxi: int, *, tianhu: bool = False) -> int:
        """等 for a hu-xi total, before the 自摸 bonus (R10.1); 0 below ``deng_base``."""
        effective = 2 * huxi if tianhu and self.tianhu_double else huxi
        if effective < self.deng_base:
            return 0
        return 1 + (effective - self.deng_base) // self.deng_step

    def to_json(self) -> dict[str, Any]:
        """Every field of a rule set as JSON, ``preset`` naming the preset it started from."""
        data: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "name":
                data["preset"] = value
            elif isinstance(value, HuxiTable):
                data[f.name] = value.to_json()
            elif isinstance(value, FanCombine):
                data[f.name] = value.value
            elif f.name == "mingtang":
                data[f.name] = [mingtang_json(m) for m in value]
            else:
                data[f.name] = value
        return data

    @classmethod
    def from_json(cls, data: Any) -> RuleSet:
        """Read :meth:`to_json`; raises :class:`RuleSetError` (a ValueError) naming the field
        at fault: unknown, of the wrong type or outside its range. Fields it leaves out keep
        the values of the preset it names (so a rule set written before a field existed reads
        as it played); a preset that is not known here needs every field."""
        if not isinstance(data, dict):
            raise RuleSetError(None, "a rule set is a JSON object")
        preset = data.get("preset", HUNAN.name)
        if not isinstance(preset, str):
            raise RuleSetError("preset", f"must be a string, not {_shown(preset)}")
        base = PRESETS.get(preset)
        kinds = {f.name: f for f in fields(cls) if f.name != "name"}
        if base is None:
            _check_name("preset", preset)
            missing = sorted(set(kinds) - set(data))
            if missing:
                raise RuleSetError(
                    "preset",
                    f"unknown preset {preset!r} and no value for {', '.join(missing)}",
                )
            base = HUNAN
        changes: dict[str, Any] = {"name": preset}
        for key, value in data.items():
            if key == "preset":
                continue
            if key not in kinds:
                raise RuleSetError(_key(key), f"unknown rule {_shown(key)}")
            current = getattr(base, key)
            if key == "huxi":
                changes[key] = HuxiTable.from_json(value)
            elif key == "mingtang":
                changes[key] = _mingtang_from_json(value)
            elif key == "fan_combine":
                try:
                    changes[key] = FanCombine(value)
                except (ValueError, TypeError):
                    names = ", ".join(c.value for c in FanCombine)
                    raise RuleSetError(
                        key, f"fan_combine must be one of {names}, not {_shown(value)}"
                    ) from None
            elif isinstance(current, bool):
                _check_bool(key, value)
                changes[key] = value
            elif not _is_int(value):
                raise RuleSetError(key, f"must be an integer, not {_shown(value)}")
            else:
                changes[key] = value
        return replace(base, **changes)


def _mingtang_from_json(value: Any) -> tuple[Mingtang, ...]:
    if not isinstance(value, list):
        raise RuleSetError("mingtang", "must be a list")
    if len(value) > MOST_MINGTANG:
        raise RuleSetError("mingtang", f"a table lists at most {MOST_MINGTANG} 名堂")
    table: list[Mingtang] = []
    for i, item in enumerate(value):
        try:
            table.append(mingtang_from_json(item))
        except MingtangError as error:
            where = f"mingtang[{i}]" + ("" if error.key is None else f".{_key(error.key)}")
            raise RuleSetError(where, str(error)) from None
    return tuple(table)


def _key(key: Any) -> str:
    """A client's key, as a field name in a message."""
    text = str(key)
    return text if re.fullmatch(r"[A-Za-z0-9_]{1,40}", text) else _shown(text)


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
"""The named rule sets; a rule set's ``name`` is the preset it started from."""
