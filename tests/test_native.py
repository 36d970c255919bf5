"""The native core agrees with the Python evaluator (issue 14): R3, R6.1, R9, R10, R10.6.

Differential: the same holdings through both, with every ``HuResult`` compared whole (groups,
each group's hu-xi, the ``Score`` with its 名堂), waits with their hu-xi and 底数, current
hu-xi and forced 天胡, for Hunan, Luzhou and a house rule that multiplies 番 (R10.3).
100,000 seeded random holdings in 20 shards, a smaller sample with 番 combined by ``max`` at
four seats, hands given as counts, then Hypothesis over holdings of any shape. Skipped when the native core is not
built, unless ``PAOHUZI_NATIVE=1`` (CI), which makes ``import paohuzi`` fail without it.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paohuzi import native
from paohuzi.engine.cards import COPIES, NUM_KINDS, Kind
from paohuzi.engine.evaluator import Prepared, PreparedHand, forced_tianhu, prepare, prepare_counts
from paohuzi.engine.groups import Group, GroupType
from paohuzi.engine.holdings import Holding, random_holding
from paohuzi.engine.mingtang import HUNAN_MINGTANG, SizeCount, WinContext
from paohuzi.engine.rules import (
    HUNAN,
    LUZHOU,
    MOST_FAN,
    FanCombine,
    RuleSet,
    RuleSetError,
    fan_bound,
)
from tests.helpers import C, K, T

pytestmark = pytest.mark.skipif(not native.available, reason="the native core is not built")

HOUSE = replace(HUNAN, min_huxi=10, hu_on_discard=True, fan_combine=FanCombine.PRODUCT)
RULE_SETS = {"hunan": HUNAN, "luzhou": LUZHOU, "house": HOUSE}
FOUR_MAX = replace(LUZHOU, players=4, fan_combine=FanCombine.MAX)
"""Four seats (the evaluator does not see them) and only the greatest 名堂 counting."""

SHARDS = 20
PER_SHARD = 5_000
"""100,000 holdings in all, each evaluated under every rule set."""


def _both(hand: Any, table: Any, rules: RuleSet) -> tuple[Prepared, PreparedHand]:
    fast = prepare(hand, table, rules)
    slow = PreparedHand(hand, table, rules)
    assert type(fast) is not PreparedHand and type(slow) is PreparedHand
    assert type(prepare(hand, table, rules, native=False)) is PreparedHand
    return fast, slow


def _check_holding(h: Holding, rules: RuleSet, rng: random.Random) -> bool:
    """Every evaluator answer on one holding agrees; whether it wins."""
    fast, slow = _both(h.hand, h.table, rules)
    flags = {
        "self_drawn": h.self_drawn,
        "from_discard": not h.self_drawn and rng.random() < 0.3,
        "tianhu": rng.random() < 0.05,
        "haidi": rng.random() < 0.1,
    }
    won = fast.win(h.win, **flags)
    assert won == slow.win(h.win, **flags), (h, rules.name, flags)
    assert fast.current_huxi() == slow.current_huxi(), h
    assert fast.waits() == slow.waits(), (h, rules.name)
    # The hand with the card in it, complete as it is (R4.1 step 3).
    whole = [*h.hand, h.win]
    fast, slow = _both(whole, h.table, rules)
    assert fast.complete(self_drawn=h.self_drawn, win=h.win, haidi=flags["haidi"]) == slow.complete(
        self_drawn=h.self_drawn, win=h.win, haidi=flags["haidi"]
    ), (h, rules.name)
    return won is not None


@pytest.mark.sweep
@pytest.mark.parametrize("shard", range(SHARDS))
def test_native_agrees_on_random_holdings(shard: int) -> None:
    rng = random.Random(14_000 + shard)
    wins = dict.fromkeys(RULE_SETS, 0)
    for _ in range(PER_SHARD):
        h = random_holding(rng)
        for name, rules in RULE_SETS.items():
            wins[name] += _check_holding(h, rules, rng)
    # The sample mixes winning and losing holdings under each rule set.
    for name in RULE_SETS:
        assert PER_SHARD // 5 < wins[name] < PER_SHARD * 4 // 5, (name, wins)


def test_r10_3_native_agrees_when_only_the_greatest_mingtang_counts() -> None:
    rng = random.Random(10_3)
    wins = 0
    for _ in range(3_000):
        wins += _check_holding(random_holding(rng), FOUR_MAX, rng)
    assert 300 < wins < 2_700


def test_native_agrees_on_hands_given_as_counts() -> None:
    rng = random.Random(11)
    for _ in range(2_000):
        h = random_holding(rng)
        counts = [0] * NUM_KINDS
        for k in h.hand:
            counts[k] += 1
        for rules in (HUNAN, HOUSE):
            fast = prepare_counts(counts, h.table, rules)
            slow = PreparedHand.from_counts(counts, h.table, rules)
            assert type(fast) is not PreparedHand and type(slow) is PreparedHand
            assert fast.win(h.win, self_drawn=h.self_drawn) == slow.win(
                h.win, self_drawn=h.self_drawn
            )
            assert fast.waits() == slow.waits() and fast.current_huxi() == slow.current_huxi()
    with pytest.raises(ValueError, match="20 counts"):
        prepare_counts([1] * 19, [], HUNAN)
    with pytest.raises(ValueError, match="more than four"):
        prepare_counts([5] + [0] * 19, [], HUNAN)


def test_a_rule_set_read_from_json_is_served_natively() -> None:
    again = RuleSet.from_json(HOUSE.to_json())
    assert again == HOUSE and again is not HOUSE
    assert native.evaluators is not None and native.evaluators.serves(again)
    hand = C("d1 d1 d1 d2 d7 d10 x1 x2 x3 x5 x5 x5 d4 d5 d6 x7 x8 x9 d8 d9")
    fast, slow = _both(hand, [], again)
    assert fast.waits() == slow.waits()


def test_a_product_of_fan_beyond_the_rule_sets_bound_is_refused_and_the_largest_is_native() -> None:
    big = SizeCount("大", big=True, threshold=0, value=1000, per_extra=0)
    with pytest.raises(RuleSetError, match=r"^mingtang: .* 番"):
        replace(HUNAN, mingtang=(big, big, big, big), fan_combine=FanCombine.PRODUCT)
    three = replace(HUNAN, mingtang=(big, big, big), fan_combine=FanCombine.PRODUCT)
    assert fan_bound(three.mingtang, three.fan_combine) == 10**9 <= MOST_FAN
    assert native.evaluators is not None and native.evaluators.serves(three)


def _dealt(rng: random.Random, size: int) -> list[Kind]:
    """Dealt cards rich in fours and threes, to meet forced 天胡 (R9.5.1) often."""
    left = [COPIES] * NUM_KINDS
    cards: list[Kind] = []
    while len(cards) < size:
        k = rng.randrange(NUM_KINDS)
        n = min(rng.choice((1, 3, 4)), left[k], size - len(cards))
        left[k] -= n
        cards += [k] * n
    rng.shuffle(cards)
    return cards


def test_r9_5_1_native_forced_tianhu_agrees() -> None:
    rng = random.Random(95)
    forced = 0
    for i in range(4_000):
        cards = _dealt(rng, 20 + i % 2)
        for rules in (
            *RULE_SETS.values(),
            FOUR_MAX,
            replace(HUNAN, tianhu_partial_huxi=False),
        ):
            fast = forced_tianhu(cards, rules)
            slow = forced_tianhu(cards, rules, native=False)
            assert fast == slow, (cards, rules.name)
            forced += fast is not None
    assert forced > 1_000


def test_native_serves_the_public_api() -> None:
    hand = C("d1 d1 d1 x5 x5 x5 x3 x3 x3 x8")
    table = T("ti:x9 peng:d4 wei:d6")
    prepared = prepare(hand, table, HUNAN)
    assert type(prepared).__module__ == "paohuzi._native"
    result = prepared.win(K("x8"), self_drawn=True)
    assert result is not None and (result.huxi, result.points) == (30, 63)
    # Table groups come back as the very objects passed in.
    assert result.groups[0] is table[0]


def test_a_rule_set_with_an_unknown_mingtang_is_served_by_python() -> None:
    class Everything:
        name = "一切"

        def fan(self, win: WinContext) -> int:
            return 1

    rules = replace(HUNAN, mingtang=(*HUNAN_MINGTANG, Everything()))
    assert native.evaluators is not None and not native.evaluators.serves(rules)
    assert type(prepare([], [], rules)) is PreparedHand
    assert native.evaluators.serves(HUNAN)


def test_a_score_that_disagrees_with_python_raises() -> None:
    from paohuzi import _native  # type: ignore[attr-defined]

    args = native.evaluator_args(HUNAN, native.group_table())
    assert args is not None
    right = args["score"]
    args["score"] = lambda huxi, *rest: right(huxi + 3, *rest)
    evaluator = _native.Evaluator(**args)
    hand = C("d1 d1 d1 d2 d7 d10 x1 x2 x3 x5 x5 x5 d4 d5 d6 x7 x8 x9 d8 d9")
    with pytest.raises(RuntimeError, match=r"paohuzi\.engine\.scoring"):
        evaluator.prepare(hand, []).win(K("d10"), False)


def test_native_rejects_cards_no_player_holds() -> None:
    with pytest.raises(ValueError, match="more than four"):
        prepare([0] * 5, [], HUNAN)
    with pytest.raises(ValueError, match="not a kind"):
        prepare([20], [], HUNAN)


def _python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != native.ENV} | env
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environ, check=False
    )


def test_paohuzi_native_0_runs_pure_python() -> None:
    done = _python(
        "import paohuzi; from paohuzi.engine.evaluator import prepare;"
        "print(paohuzi.native.available, type(prepare([], [], paohuzi.HUNAN)).__name__,"
        " paohuzi.native.describe())",
        PAOHUZI_NATIVE="0",
    )
    assert done.stdout.split(maxsplit=2) == [
        "False",
        "PreparedHand",
        "evaluator: pure Python (PAOHUZI_NATIVE=0)\n",
    ]


def test_without_the_extension_paohuzi_runs_pure_python_unless_native_is_required() -> None:
    # sys.modules[name] = None makes importing that module fail, as when it was never built.
    code = "import sys; sys.modules['paohuzi._native'] = None; import paohuzi;"
    done = _python(
        code + "print(paohuzi.native.available, paohuzi.best_win([], [], 0, self_drawn=True))"
    )
    assert done.returncode == 0 and done.stdout == "False None\n", done.stderr
    required = _python(code, PAOHUZI_NATIVE="1")
    assert required.returncode == 1 and "PAOHUZI_NATIVE=1" in required.stderr


# Hypothesis: holdings of any shape the evaluator accepts, R6 card counts or not.

_THREES: tuple[tuple[Kind, ...], ...] = (
    tuple((base + r, base + r + 1, base + r + 2) for base in (0, 10) for r in range(8))
    + ((1, 6, 9), (11, 16, 19))
    + tuple(cards for r in range(10) for cards in ((r, r, r + 10), (r, r + 10, r + 10)))
)
_SAME = (GroupType.PENG, GroupType.WEI, GroupType.CHOUWEI, GroupType.PAO, GroupType.TI)


@st.composite
def holdings(draw: st.DrawFn) -> tuple[list[Kind], list[Group], Kind]:
    left = [COPIES] * NUM_KINDS
    table: list[Group] = []
    for _ in range(draw(st.integers(0, 4))):
        if draw(st.booleans()):
            cards = draw(st.sampled_from(_THREES))
            gtype = GroupType.CHI
        else:
            gtype = draw(st.sampled_from(_SAME))
            cards = (draw(st.integers(0, NUM_KINDS - 1)),) * (
                4 if gtype in (GroupType.PAO, GroupType.TI) else 3
            )
        if all(left[k] >= cards.count(k) for k in cards):
            for k in cards:
                left[k] -= 1
            table.append(Group(gtype, cards))
    hand: list[Kind] = []
    for k in draw(st.lists(st.integers(0, NUM_KINDS - 1), max_size=24)):
        if left[k]:
            left[k] -= 1
            hand.append(k)
    win = draw(st.integers(0, NUM_KINDS - 1))
    return hand, table, win


@settings(max_examples=400, deadline=None)
@given(
    holding=holdings(),
    rules=st.sampled_from([*RULE_SETS.values(), FOUR_MAX]),
    flags=st.fixed_dictionaries(
        {
            "self_drawn": st.booleans(),
            "from_discard": st.booleans(),
            "tianhu": st.booleans(),
            "haidi": st.booleans(),
        }
    ),
)
def test_native_agrees_on_any_holding(
    holding: tuple[list[Kind], list[Group], Kind], rules: RuleSet, flags: dict[str, bool]
) -> None:
    hand, table, win = holding
    fast, slow = _both(hand, table, rules)
    assert fast.win(win, **flags) == slow.win(win, **flags)
    assert fast.complete(self_drawn=flags["self_drawn"], haidi=flags["haidi"]) == slow.complete(
        self_drawn=flags["self_drawn"], haidi=flags["haidi"]
    )
    assert fast.waits() == slow.waits()
    assert fast.current_huxi() == slow.current_huxi()
    assert forced_tianhu(hand, rules) == forced_tianhu(hand, rules, native=False)
