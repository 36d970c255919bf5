"""Rule sets checked at the door (issue 22): every value of a `RuleSet` has a range (R3, R9.1,
R10, R12), a rule set outside it is refused naming the field, and every rule set inside it
plays hands to the end in both engines.

The fuzz draws rule-set JSON objects by mutating the presets' JSON (out-of-range, huge,
negative integers, floats, strings, nulls, booleans for integers, nested garbage, keys left
out or added). ``PAOHUZI_RULE_FUZZ`` sets how many objects (10,000 by default) and how many
random hands each accepted one plays in each engine (2 by default; the issue's 50 with
``PAOHUZI_RULE_FUZZ=10000:50``, a slower run for before a release).
"""

from __future__ import annotations

import json
import os
import random
import re
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paohuzi import native
from paohuzi.engine.game import Game
from paohuzi.engine.mingtang import RedCount, SizeCount
from paohuzi.engine.rules import (
    HUNAN,
    LUZHOU,
    MOST_FAN,
    PRESETS,
    RANGES,
    FanCombine,
    HuxiTable,
    Points,
    RuleSet,
    RuleSetError,
    fan_bound,
)
from paohuzi.native.core import serves
from paohuzi.server.roomrules import room_rules

EXAMPLES, HANDS = (int(n) for n in os.environ.get("PAOHUZI_RULE_FUZZ", "10000:2").split(":"))

PRESET_JSON = [
    HUNAN.to_json(),
    LUZHOU.to_json(),
    replace(HUNAN, players=4).to_json(),
    replace(LUZHOU, fan_combine=FanCombine.PRODUCT, min_huxi=0, deng_step=1).to_json(),
]

HUXI_ROWS = ("run123", "run2710", "peng", "wei", "kan", "pao", "ti")
EDGES = [0, 1, 2, 3, 9, 15, 18, 27, 999, 1000, 1001, 9999, 10_000, 10_001, 2**31, 2**63, 2**64]

garbage = st.recursive(
    st.none() | st.booleans() | st.floats() | st.text(max_size=4) | st.integers(),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)
numbers = (
    st.integers(-3, 40)
    | st.sampled_from(EDGES)
    | st.sampled_from(EDGES).map(lambda n: -n)
    | st.integers(-(2**80), 2**80)
    | st.integers(0, 10).map(float)
)
fitting = st.integers(0, 30) | st.sampled_from([0, 1, 1000, 10_000])
"""Values inside most ranges: with :func:`_like`, about 3 objects in 10 are accepted and play."""
values = fitting | fitting | fitting | numbers | st.booleans() | st.none() | garbage


def _like(draw: st.DrawFn, old: Any) -> Any:
    """A new value for ``old``: of its own type two times in three, anything otherwise."""
    if draw(st.integers(0, 2)) == 0:
        return draw(values | st.sampled_from(["hunan", "luzhou", "sum", "product", "max"]))
    if isinstance(old, bool):
        return draw(st.booleans())
    if isinstance(old, int):
        return draw(fitting)
    if isinstance(old, str):
        return draw(st.sampled_from(["hunan", "luzhou", "sum", "product", "max", "红"]))
    if isinstance(old, list) and all(isinstance(v, int) for v in old):
        return draw(st.lists(fitting, min_size=2, max_size=4))
    return draw(values)


@st.composite
def rule_set_json(draw: st.DrawFn) -> dict[str, Any]:
    """A preset's JSON with a few values changed, left out or added."""
    data: dict[str, Any] = json.loads(json.dumps(draw(st.sampled_from(PRESET_JSON))))
    for _ in range(draw(st.integers(1, 4))):
        where = draw(st.sampled_from(["top", "top", "huxi", "huxi", "mingtang", "drop", "extra"]))
        if where == "top" and data:
            key = draw(st.sampled_from(sorted(data)))
            data[key] = _like(draw, data[key])
        elif where == "huxi" and isinstance(data.get("huxi"), dict) and data["huxi"]:
            huxi = data["huxi"]
            row = draw(st.sampled_from(sorted(huxi)))
            if isinstance(huxi[row], list) and huxi[row] and draw(st.booleans()):
                huxi[row][draw(st.integers(0, len(huxi[row]) - 1))] = _like(draw, 0)
            else:
                huxi[row] = _like(draw, huxi[row])
        elif where == "mingtang" and isinstance(data.get("mingtang"), list) and data["mingtang"]:
            table = data["mingtang"]
            i = draw(st.integers(0, len(table) - 1))
            action = draw(st.sampled_from(["field", "field", "field", "drop", "copy", "garbage"]))
            if action == "field" and isinstance(table[i], dict) and table[i]:
                key = draw(st.sampled_from(sorted(table[i])))
                table[i][key] = _like(draw, table[i][key])
            elif action == "drop":
                del table[i]
            elif action == "copy":
                table.extend([table[i]] * draw(st.integers(1, 30)))
            else:
                table[i] = draw(values)
        elif where == "drop" and data:
            del data[draw(st.sampled_from(sorted(data)))]
        elif where == "extra":
            data[draw(st.text(max_size=8))] = draw(values)
    return data


def _choose(rng: random.Random, legal: list[Any]) -> Any:
    """Uniform half the time; else anything but pass, so hands reach wins."""
    if rng.random() < 0.5:
        taking = [a for a in legal if str(a) != "pass"]
        if taking:
            return rng.choice(taking)
    return rng.choice(legal)


def play_both(rules: RuleSet, seed: int) -> None:
    """One random hand to the end in the Python engine and, with the same choices, in the
    native one when it serves the rule set: the same actions offered, the same result."""
    dealer = seed % rules.players
    slow = Game(rules, dealer=dealer, seed=seed, core="python")
    fast = Game(rules, dealer=dealer, seed=seed, core="native") if serves(rules) else None
    rng = random.Random(seed)
    while not slow.is_over:
        legal = slow.legal_actions()
        assert fast is None or fast.legal_actions() == legal
        action = _choose(rng, legal)
        slow.apply(action)
        if fast is not None:
            fast.apply(action)
        assert len(slow.history) < 500  # a hand has at most 80 draws and their claims
    result = slow.result
    assert result is not None and sum(result.payments) == 0
    assert fast is None or (fast.is_over and fast.result == result)


def _top(field: str) -> str:
    return re.split(r"[.\[]", field, maxsplit=1)[0]


@pytest.mark.sweep
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(rule_set_json(), st.integers(0, 2**32))
def test_a_rule_set_is_refused_naming_a_field_or_plays_to_the_end(
    data: dict[str, Any], seed: int
) -> None:
    try:
        text, rules = room_rules(data)
    except ValueError as error:
        cause = error.__cause__ or error.__context__
        assert isinstance(cause, RuleSetError), repr(error)
        assert cause.field and str(error) == f"rules: {cause}"[:300]
        # The field is one of the object's keys, or an unknown key quoted (it may be anything).
        assert _top(cause.field) in {*data, "preset"} or cause.field[0] in "'\""
        return
    assert RuleSet.from_json(rules.to_json()) == rules
    stored = RuleSet.from_json(json.loads(text)) if text.startswith("{") else PRESETS[text]
    assert stored == rules  # what the room stores reads back as the same rule set
    if native.available:
        assert serves(rules)  # every rule set accepted is one the native core plays
    for hand in range(HANDS):
        play_both(rules, seed + hand)


@pytest.mark.parametrize(
    "data, field",
    [
        ({"deng_step": 0}, "deng_step"),
        ({"deng_base": 0}, "deng_base"),
        ({"deng_step": -3}, "deng_step"),
        ({"min_huxi": 10_001}, "min_huxi"),
        ({"min_huxi": 1.0}, "min_huxi"),
        ({"min_huxi": True}, "min_huxi"),
        ({"haidi_fan": None}, "haidi_fan"),
        ({"self_draw_bonus": 2**70}, "self_draw_bonus"),
        ({"players": 3.0}, "players"),
        ({"players": True}, "players"),
        ({"tianhu_double": 1}, "tianhu_double"),
        ({"huxi": {"peng": [1, -1]}}, "huxi.peng"),
        ({"huxi": {"ti": [9, 12, 15, 2**40]}}, "huxi.ti"),
        ({"huxi": {"cap": -1}}, "huxi.cap"),
        ({"huxi": {"kan": "3/6"}}, "huxi.kan"),
        ({"huxi": {"pao": [6, 9, 12]}}, "huxi.pao"),
        ({"huxi": []}, "huxi"),
        ({"mingtang": {}}, "mingtang"),
        ({"mingtang": [{"type": ["red_count"]}]}, "mingtang[0].type"),
        ({"mingtang": [None]}, "mingtang[0]"),
        ({"mingtang": [dict(HUNAN.to_json()["mingtang"][0], value=1001)]}, "mingtang[0].value"),
        ({"mingtang": [dict(HUNAN.to_json()["mingtang"][0], low=13)]}, "mingtang[0].low"),
        ({"mingtang": [dict(HUNAN.to_json()["mingtang"][0], name="")]}, "mingtang[0].name"),
        ({"mingtang": [dict(HUNAN.to_json()["mingtang"][0], extra=1)]}, "mingtang[0].extra"),
        ({"mingtang": HUNAN.to_json()["mingtang"] * 5}, "mingtang"),
        ({"fan_combine": ["sum"]}, "fan_combine"),
        ({"preset": 3}, "preset"),
        ({"preset": "sichuan"}, "preset"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_each_field_out_of_its_range_is_named(data: dict[str, Any], field: str) -> None:
    with pytest.raises(RuleSetError) as refused:
        RuleSet.from_json({"preset": "hunan", **data})
    assert refused.value.field == field and str(refused.value).startswith(f"{field}: ")


def test_a_rule_set_made_directly_is_checked_too() -> None:
    with pytest.raises(RuleSetError, match=r"^deng_step: "):
        replace(HUNAN, deng_step=0)
    with pytest.raises(RuleSetError, match=r"^huxi.peng: "):
        HuxiTable(peng=Points(1, 1001))
    with pytest.raises(RuleSetError, match=r"^huxi.wei: .*both sizes"):
        HuxiTable(wei=Points(3, 6, 9))
    with pytest.raises(RuleSetError, match=r"^mingtang\[0\]\.value: "):
        replace(HUNAN, mingtang=(RedCount("红", 1, 2, -1),))
    with pytest.raises(RuleSetError, match=r"^mingtang: "):
        replace(HUNAN, mingtang=list(HUNAN.mingtang))  # type: ignore[arg-type]
    with pytest.raises(RuleSetError, match=r"^players: "):
        replace(HUNAN, players=5)


def test_the_largest_values_accepted_play_in_both_engines() -> None:
    size = SizeCount("大", big=True, threshold=0, value=1000, per_extra=1000)
    top = Points(1000, 1000, 1000, 1000)
    widest = [
        RuleSet.from_json(
            {
                "preset": "hunan",
                "huxi": {row: [1000] * 4 for row in HUXI_ROWS} | {"cap": 1000},
                **{key: allowed.stop - 1 for key, allowed in RANGES.items()},
            }
        ),
        RuleSet.from_json({"preset": "hunan", **{k: a.start for k, a in RANGES.items()}}),
        replace(
            HUNAN,
            huxi=HuxiTable(top, top, top, top, top, top, top),
            min_huxi=0,
            deng_base=1,
            deng_step=1,
            self_draw_bonus=1000,
            haidi_fan=1000,
            mingtang=(size, SizeCount("小", big=False, threshold=0, value=1000, per_extra=0)),
            fan_combine=FanCombine.PRODUCT,
        ),
        replace(HUNAN, huxi=HuxiTable(cap=0)),
    ]
    bound = fan_bound(widest[2].mingtang, widest[2].fan_combine)
    assert bound is not None and bound <= MOST_FAN
    for rules in widest:
        assert not native.available or serves(rules)
        for seed in range(20):
            play_both(rules, seed)
