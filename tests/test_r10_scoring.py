"""R10 scoring: 等, 自摸, 名堂 and 番, 底数, settlement."""

from __future__ import annotations

import pytest

from paohuzi.mingtang import HandFacts
from paohuzi.rules import HUNAN, LUZHOU
from paohuzi.scoring import hand_facts, payments, score
from tests.helpers import C, T


@pytest.mark.parametrize("huxi, deng", [(15, 1), (17, 1), (18, 2), (20, 2), (21, 3), (30, 6)])
def test_r10_1_deng(huxi: int, deng: int) -> None:
    assert HUNAN.deng(huxi) == deng


@pytest.mark.parametrize("huxi, deng", [(9, 2), (15, 6), (17, 7), (27, 14)])
def test_r10_1_tianhu_counts_hu_xi_double(huxi: int, deng: int) -> None:
    assert HUNAN.deng(huxi, tianhu=True) == deng  # (2h − 12) // 3


@pytest.mark.parametrize("huxi, deng", [(10, 1), (12, 1), (13, 2), (16, 3)])
def test_r12_luzhou_deng_from_ten(huxi: int, deng: int) -> None:
    assert LUZHOU.deng(huxi) == deng


def facts(red: int = 5, big: int = 10, small: int = 11, triplets: bool = False) -> HandFacts:
    return HandFacts(red=red, big=big, small=small, all_triplets=triplets)


def test_r10_2_self_drawn_adds_one_deng_and_pinghu_is_one_fan() -> None:
    plain = score(18, facts(), HUNAN, self_drawn=False)
    drawn = score(18, facts(), HUNAN, self_drawn=True)
    assert (plain.deng, plain.fan, plain.points, plain.mingtang) == (2, 1, 2, ())
    assert (drawn.deng, drawn.fan, drawn.points) == (3, 1, 3)


def test_r9_5_3_tianhu_counts_as_self_drawn() -> None:
    result = score(15, facts(), HUNAN, self_drawn=False, tianhu=True)
    assert result.self_drawn and result.deng == 6 + 1


@pytest.mark.parametrize(
    "red, expected",
    [
        (0, [("乌胡", 5)]),
        (1, [("点胡", 3)]),
        (2, []),
        (9, []),
        (10, [("红胡", 2)]),
        (12, [("红胡", 2)]),
        (13, [("红乌", 4)]),
        (17, [("红乌", 4)]),
    ],
)
def test_r10_1_red_mingtang(red: int, expected: list[tuple[str, int]]) -> None:
    assert list(score(15, facts(red=red), HUNAN, self_drawn=False).mingtang) == expected


@pytest.mark.parametrize(
    "big, small, expected",
    [
        (17, 4, []),
        (18, 3, [("大字胡", 6)]),
        (20, 1, [("大字胡", 8)]),
        (5, 15, []),
        (5, 16, [("小字胡", 8)]),
        (3, 19, [("小字胡", 11)]),
    ],
)
def test_r10_1_size_mingtang_plus_one_per_card(
    big: int, small: int, expected: list[tuple[str, int]]
) -> None:
    assert (
        list(score(15, facts(big=big, small=small), HUNAN, self_drawn=False).mingtang) == expected
    )


def test_r10_1_duiduihu() -> None:
    result = score(15, facts(triplets=True), HUNAN, self_drawn=False)
    assert list(result.mingtang) == [("对对胡", 4)] and result.fan == 4


def test_r10_3_fan_is_the_sum_of_mingtang() -> None:
    # 乌胡 5 + 对对胡 4 + 小字胡 8 + 1 (17 small cards)
    result = score(21, facts(red=0, big=4, small=17, triplets=True), HUNAN, self_drawn=False)
    assert result.fan == 5 + 4 + 9
    assert result.points == 3 * 18  # R10.4: 底数 = 等 × 番


def test_r10_haidi_adds_one_fan_and_is_not_a_mingtang() -> None:
    plain = score(15, facts(), HUNAN, self_drawn=True, haidi=True)
    assert plain.mingtang == () and plain.fan == 2 and plain.haidi
    red = score(15, facts(red=10), HUNAN, self_drawn=True, haidi=True)
    assert red.fan == 3


def test_r10_1_hand_facts_count_all_cards_and_group_kinds() -> None:
    groups = T("peng:x2 pao:d7 kan:x5 pair:d1")
    cards = [k for g in groups for k in g.cards]
    f = hand_facts(cards, groups)
    assert (f.red, f.big, f.small, f.all_triplets) == (7, 6, 6, True)
    assert not hand_facts(C("x1 x2 x3"), T("chi:x1x2x3")).all_triplets
    assert not hand_facts(C("x2 x2 d2"), T("jiao:x2x2d2")).all_triplets


@pytest.mark.parametrize("winner", [0, 1, 2])
def test_r10_5_payments_zero_sum(winner: int) -> None:
    paid = payments(winner, 8)
    assert sum(paid) == 0 and paid[winner] == 16
    assert sorted(paid) == [-8, -8, 16]


def test_r10_5_huangzhuang_pays_nothing() -> None:
    assert payments(None, 0) == [0, 0, 0]
