"""The hand evaluator: R3 (kan locked), R6.1 (seven groups, the pair), R9.1 placements, waits,
R10.6 current hu-xi, R9.5.1 forced 天胡."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paohuzi.cli import main
from paohuzi.engine.evaluator import (
    InvalidHolding,
    best_complete,
    best_win,
    check_holding,
    current_huxi,
    forced_tianhu,
    waits,
)
from paohuzi.engine.holdings import random_holding
from paohuzi.engine.rules import HUNAN, LUZHOU
from tests.helpers import C, K, T, names

# Six groups worth 18 hu-xi: kan d1 (6), d2d7d10 (6), x1x2x3 (3), kan x5 (3), d4d5d6, x7x8x9.
BASE = "d1 d1 d1 d2 d7 d10 x1 x2 x3 x5 x5 x5 d4 d5 d6"
SIX = BASE + " x7 x8 x9"


def test_r9_1_plain_win_from_another_players_draw() -> None:
    result = best_win(C(SIX + " d8 d9"), [], K("d10"), self_drawn=False)
    assert result is not None
    assert names(result.groups) == [
        "kan:d1d1d1",
        "kan:x5x5x5",
        "run:d2d7d10",
        "run:d4d5d6",
        "run:d8d9d10",
        "run:x1x2x3",
        "run:x7x8x9",
    ]
    assert (result.huxi, result.score.deng, result.score.fan, result.points) == (18, 2, 1, 2)
    assert sorted(result.group_huxi) == [0, 0, 0, 3, 3, 6, 6]


def test_r10_2_self_drawn_win_adds_one_deng() -> None:
    result = best_win(C(SIX + " d8 d9"), [], K("d10"), self_drawn=True)
    assert result is not None and (result.huxi, result.score.deng, result.points) == (18, 3, 3)


def test_r9_1_min_huxi() -> None:
    # The same shape with the kan d1 replaced by a plain sequence: 12 hu-xi, below 15.
    hand = C("d3 d4 d5 d2 d7 d10 x1 x2 x3 x5 x5 x5 d4 d5 d6 x7 x8 x9 d8 d9")
    assert best_win(hand, [], K("d10"), self_drawn=False) is None
    assert best_win(hand, [], K("d10"), self_drawn=False, rules=LUZHOU) is not None


def test_r3_kan_is_locked() -> None:
    # Splitting the kan x2 would give x1x2x3 x2x3x4 x2x7x10 (18 hu-xi in all); a kan never splits.
    hand = C("x1 x2 x2 x2 x3 x3 x4 x7 x10 d1 d2 d3 d2 d7 d10 d4 d5 d6 d8 d9")
    assert best_win(hand, [], K("d10"), self_drawn=False) is None


def test_r6_1_pair_required_with_a_ti() -> None:
    hand = C(BASE + " d8")
    result = best_win(hand, T("ti:x9"), K("d8"), self_drawn=False)
    assert result is not None
    assert "pair:d8d8" in names(result.groups) and "ti:x9x9x9x9" in names(result.groups)
    assert (result.huxi, result.score.deng) == (27, 5)
    assert best_win(hand, T("ti:x9"), K("d9"), self_drawn=False) is None


def test_r6_1_two_fours_and_one_pair_make_seven_groups() -> None:
    hand = C("d1 d1 d1 x1 x2 x3 x5 x5 x5 d4 d5 d6 d8")
    result = best_win(hand, T("ti:x9 pao:d3"), K("d8"), self_drawn=False)
    assert result is not None and len(result.groups) == 7 and result.huxi == 9 + 9 + 6 + 3 + 3


def test_r6_1_no_pair_without_ti_or_pao() -> None:
    # 21 cards: seven threes. Two pairs can never complete the hand.
    hand = C(BASE + " x7 x7 x8")
    assert best_win(hand, [], K("x8"), self_drawn=False) is None


# A hand pair x9 x9 and six groups: the winning x9 joins the pair.
PAIR_HAND = BASE + " x6 x7 x8 x9 x9"


def test_r9_1_win_joins_hand_pair_as_peng_from_another_player() -> None:
    result = best_win(C(PAIR_HAND), [], K("x9"), self_drawn=False)
    assert result is not None and "peng:x9x9x9" in names(result.groups)
    assert (result.huxi, result.score.deng, result.points) == (19, 2, 2)


def test_r9_1_win_joins_hand_pair_as_wei_when_self_drawn() -> None:
    result = best_win(C(PAIR_HAND), [], K("x9"), self_drawn=True)
    assert result is not None and "wei:x9x9x9" in names(result.groups)
    assert (result.huxi, result.score.deng, result.points) == (21, 4, 4)


KAN_HAND = BASE + " d8 d8 x9 x9 x9"


def test_r9_1_win_joins_hand_kan_as_pao_from_another_player() -> None:
    result = best_win(C(KAN_HAND), [], K("x9"), self_drawn=False)
    assert result is not None and "pao:x9x9x9x9" in names(result.groups)
    assert "pair:d8d8" in names(result.groups)
    assert (result.huxi, result.score.deng) == (24, 4)


def test_r9_1_win_joins_hand_kan_as_ti_when_self_drawn() -> None:
    result = best_win(C(KAN_HAND), [], K("x9"), self_drawn=True)
    assert result is not None and "ti:x9x9x9x9" in names(result.groups)
    assert (result.huxi, result.score.deng) == (27, 6)


TABLE_HAND = BASE + " d8 d8"


def test_r9_1_win_joins_table_peng_as_pao() -> None:
    for self_drawn in (False, True):  # R5.2.2: a 碰 runs on a card drawn by anyone
        result = best_win(C(TABLE_HAND), T("peng:x9"), K("x9"), self_drawn=self_drawn)
        assert result is not None and "pao:x9x9x9x9" in names(result.groups)
        assert "peng:x9x9x9" not in names(result.groups)
        assert result.huxi == 24 and result.score.deng == 4 + self_drawn


def test_r4_2_table_peng_takes_no_discard_to_pao() -> None:
    assert (
        best_win(C(TABLE_HAND), T("peng:x9"), K("x9"), self_drawn=False, from_discard=True) is None
    )


def test_r9_1_win_joins_table_wei_as_pao_or_ti() -> None:
    other = best_win(C(TABLE_HAND), T("wei:x9"), K("x9"), self_drawn=False)
    own = best_win(C(TABLE_HAND), T("chouwei:x9"), K("x9"), self_drawn=True)
    assert other is not None and "pao:x9x9x9x9" in names(other.groups) and other.huxi == 24
    assert own is not None and "ti:x9x9x9x9" in names(own.groups) and own.huxi == 27


# A kan x5 and x4 x6: the winning x5 makes x4x5x6 and the kan stays.
PO_PAO = "x5 x5 x5 x4 x6 d1 d1 d1 d2 d7 d10 x1 x2 x3 d4 d5 d6 d8 d9 d10"


def test_r9_2_popaohu_win_on_the_card_that_would_make_a_pao() -> None:
    result = best_win(C(PO_PAO), [], K("x5"), self_drawn=False)
    assert result is not None
    assert "kan:x5x5x5" in names(result.groups) and "run:x4x5x6" in names(result.groups)
    assert result.huxi == 18


def test_r4_1_self_drawn_card_on_a_kan_is_a_forced_ti() -> None:
    # Drawn by the player himself the x5 must make a 提; x4 x6 are then left over.
    assert best_win(C(PO_PAO), [], K("x5"), self_drawn=True) is None


def test_r9_1_win_on_table_peng_card_may_go_into_the_hand() -> None:
    hand = C("x4 x6 d1 d1 d1 d2 d7 d10 x1 x2 x3 d4 d5 d6 d8 d9 d10")
    for self_drawn in (False, True):
        result = best_win(hand, T("peng:x5"), K("x5"), self_drawn=self_drawn)
        assert result is not None and "peng:x5x5x5" in names(result.groups)
        assert "run:x4x5x6" in names(result.groups)


def test_r9_1_best_complete_after_a_forced_wei() -> None:
    hand = C(BASE + " x7 x8 x9")
    result = best_complete(hand, T("wei:x6"), win=K("x6"))
    assert result is not None and result.win == K("x6") and result.huxi == 21
    assert result.score.self_drawn and result.score.deng == 4


def test_waits() -> None:
    found = waits(C(SIX + " d8 d9"), [])
    assert [(w.win, w.huxi, w.points) for w in found] == [(K("d7"), 18, 2), (K("d10"), 18, 2)]
    assert waits(C("x1 x1 x4 x4 x7 x7 x10 x10 d1 d1 d4 d4 d7 d7 d10 d10 x2 x5 x8 d3"), []) == []


def test_r10_6_current_huxi() -> None:
    assert current_huxi(C("x1 x2 x3 x2 x7 x10 d5 d5 d5 x4"), T("peng:d9")) == 3 + 3 + 6 + 3
    assert current_huxi(C("x1 x2 x3 x7 x10 d1 d2 d3 d7 d10"), []) == 3 + 6
    assert current_huxi(C("x4 x9 d5"), T("ti:x3 chi:d1d2d3 chi:x2x2d2")) == 9 + 6


def test_r9_5_1_forced_tianhu_three_ti() -> None:
    cards = C("x1 x1 x1 x1 x2 x2 x2 x2 d5 d5 d5 d5 x7 x8 x9 d1 d1 x3 x10 d10")
    result = forced_tianhu(cards)
    assert result is not None and result.win is None
    assert result.huxi == 9 + 9 + 12
    assert result.score.tianhu and result.score.self_drawn
    assert result.score.deng == (60 - 12) // 3 + 1
    assert sorted(result.leftover) == sorted(C("x7 x8 x9 d1 d1 x3 x10 d10"))


def test_r9_5_1_forced_tianhu_five_kan_and_ti() -> None:
    cards = C("x3 x3 x3 x4 x4 x4 d5 d5 d5 d6 d6 d6 x9 x9 x9 x9 x1 x2 d7 d10")
    result = forced_tianhu(cards)
    assert result is not None and result.huxi == 3 + 3 + 6 + 6 + 9
    # Leftover cards still score their best partial groups: here x1 x2 have no x3 to use.
    assert forced_tianhu(C("x3 x3 x3 x4 x4 x4 d5 d5 d5 d6 d6 x9 x9 x9 x9 x1 x2 x3 d7 d10")) is None


def test_r9_5_1_a_kan_does_not_count_as_a_ti() -> None:
    cards = C("x1 x1 x1 x1 x2 x2 x2 x2 d5 d5 d5 x7 x8 x9 d1 d1 x3 x10 d10 d9")
    assert forced_tianhu(cards) is None  # two 提 and one 坎


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32), st.randoms(use_true_random=False))
def test_result_does_not_depend_on_card_order(seed: int, shuffler: random.Random) -> None:
    h = random_holding(random.Random(seed))
    hand, table = list(h.hand), list(h.table)
    shuffler.shuffle(hand)
    shuffler.shuffle(table)
    first = best_win(h.hand, h.table, h.win, self_drawn=h.self_drawn)
    again = best_win(hand, table, h.win, self_drawn=h.self_drawn)
    assert (first is None) == (again is None)
    if first is not None and again is not None:
        assert first.score == again.score
        assert names(first.groups) == names(again.groups)
    assert waits(h.hand, h.table, HUNAN) == waits(hand, table, HUNAN)
    assert current_huxi(h.hand, h.table) == current_huxi(hand, table)


def test_r6_a_non_dealer_dealt_two_ti_holds_one_card_short() -> None:
    # Dealt 提 x5 and 提 d6 (laid down at once, R5.1) and twelve more cards: 20 cards where
    # 20 + max(0, 2 − 1) = 21 would be held after a take. R6: he is one short until his takes
    # catch up; analyze takes such a holding (F6), and it waits on nothing (it cannot be
    # complete with one more card).
    hand = "x1 x2 x3 x7 x8 x9 d1 d2 d3 d7 d8 d9"
    check_holding(C(hand), T("ti:x5 ti:d6"))
    assert waits(C(hand), T("ti:x5 ti:d6")) == []
    assert main(["analyze", "--hand", hand, "--table", "ti:x5 ti:d6", "--json"]) == 0
    with pytest.raises(InvalidHolding, match="hold 19 cards"):
        check_holding(C(hand)[1:], T("ti:x5 ti:d6"))  # two short: no player holds that
    with pytest.raises(InvalidHolding, match="hold 19 cards"):
        check_holding(C(hand), T("ti:x5 chi:d4d5d6"))  # one short with one 提: never
