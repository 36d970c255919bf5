"""R10 scoring: 等, 自摸, 名堂 and 番, 底数, settlement."""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest

from paohuzi.engine.evaluator import best_win
from paohuzi.engine.groups import Group, GroupType
from paohuzi.engine.mingtang import WinContext
from paohuzi.engine.rules import HUNAN, LUZHOU, FanCombine
from paohuzi.engine.scoring import payments, score
from tests.helpers import C, K, T


@pytest.mark.parametrize("huxi, deng", [(15, 1), (17, 1), (18, 2), (20, 2), (21, 3), (30, 6)])
def test_r10_1_deng(huxi: int, deng: int) -> None:
    assert HUNAN.deng(huxi) == deng


@pytest.mark.parametrize("huxi, deng", [(9, 2), (15, 6), (17, 7), (27, 14)])
def test_r10_1_tianhu_counts_hu_xi_double(huxi: int, deng: int) -> None:
    assert HUNAN.deng(huxi, tianhu=True) == deng  # (2h − 12) // 3


@pytest.mark.parametrize("huxi, deng", [(10, 1), (12, 1), (13, 2), (16, 3)])
def test_r12_luzhou_deng_from_ten(huxi: int, deng: int) -> None:
    assert LUZHOU.deng(huxi) == deng


def facts(
    red: int = 5,
    big: int = 10,
    small: int = 11,
    triplets: bool = False,
    self_drawn: bool = False,
    tianhu: bool = False,
    haidi: bool = False,
) -> WinContext:
    """A win with these card counts. The cards are made up, three to a group (a 碰, or a 吃
    first unless ``triplets``): the 名堂 here look only at the counts and the group types."""
    red_big = min(red, big, 12)
    pools = {
        (True, True): [11, 16, 19] * 4,
        (True, False): [1, 6, 9] * 4,
        (False, True): [10, 12, 13, 14, 15, 17, 18] * 4,
        (False, False): [0, 2, 3, 4, 5, 7, 8] * 4,
    }
    wanted = {
        (True, True): red_big,
        (True, False): red - red_big,
        (False, True): big - red_big,
        (False, False): small - (red - red_big),
    }
    cards = sorted(k for key, n in wanted.items() for k in sorted(pools[key][:n]))
    groups = [
        Group(GroupType.PENG if triplets or i else GroupType.CHI, tuple(cards[i : i + 3]))
        for i in range(0, len(cards), 3)
    ]
    win = WinContext(tuple(groups), cards[0], self_drawn=self_drawn, tianhu=tianhu, haidi=haidi)
    assert (win.red, win.big, win.small, win.all_triplets) == (red, big, small, triplets)
    return win


def test_r10_2_self_drawn_adds_one_deng_and_pinghu_is_one_fan() -> None:
    plain = score(18, facts(), HUNAN)
    drawn = score(18, facts(self_drawn=True), HUNAN)
    assert (plain.deng, plain.fan, plain.points, plain.mingtang) == (2, 1, 2, ())
    assert (drawn.deng, drawn.fan, drawn.points) == (3, 1, 3)


def test_r9_5_3_tianhu_counts_as_self_drawn() -> None:
    result = score(15, facts(tianhu=True), HUNAN)
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
    assert list(score(15, facts(red=red), HUNAN).mingtang) == expected


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
    assert list(score(15, facts(big=big, small=small), HUNAN).mingtang) == expected


def test_r10_1_duiduihu() -> None:
    result = score(15, facts(triplets=True), HUNAN)
    assert list(result.mingtang) == [("对对胡", 4)] and result.fan == 4


def test_r10_3_fan_is_the_sum_of_mingtang() -> None:
    # 乌胡 5 + 对对胡 4 + 小字胡 8 + 1 (17 small cards)
    result = score(21, facts(red=0, big=4, small=17, triplets=True), HUNAN)
    assert result.fan == 5 + 4 + 9
    assert result.points == 3 * 18  # R10.4: 底数 = 等 × 番


def test_r10_haidi_adds_one_fan_and_is_not_a_mingtang() -> None:
    plain = score(15, facts(self_drawn=True, haidi=True), HUNAN)
    assert plain.mingtang == () and plain.fan == 2 and plain.haidi
    red = score(15, facts(red=10, self_drawn=True, haidi=True), HUNAN)
    assert red.fan == 3


def test_r10_1_hand_facts_count_all_cards_and_group_kinds() -> None:
    f = WinContext(tuple(T("peng:x2 pao:d7 kan:x5 pair:d1")), None)
    assert (f.red, f.big, f.small, f.all_triplets) == (7, 6, 6, True)
    assert not WinContext(tuple(T("chi:x1x2x3")), None).all_triplets
    assert not WinContext(tuple(T("jiao:x2x2d2")), None).all_triplets


@pytest.mark.parametrize("winner", [0, 1, 2])
def test_r10_5_payments_zero_sum(winner: int) -> None:
    paid = payments(winner, 8, HUNAN.seating(0))
    assert sum(paid) == 0 and paid[winner] == 16
    assert sorted(paid) == [-8, -8, 16]


def test_r10_5_huangzhuang_pays_nothing() -> None:
    assert payments(None, 0, HUNAN.seating(0)) == [0, 0, 0]


@pytest.mark.parametrize(
    "how, fan", [(FanCombine.SUM, 5 + 4 + 9), (FanCombine.PRODUCT, 5 * 4 * 9), (FanCombine.MAX, 9)]
)
def test_r10_3_how_fan_combine_is_a_rule_value(how: FanCombine, fan: int) -> None:
    rules = replace(HUNAN, fan_combine=how)
    win = facts(red=0, big=4, small=17, triplets=True)  # 乌胡 5, 对对胡 4, 小字胡 9
    assert score(21, win, rules).fan == fan
    assert score(21, facts(), rules).fan == 1  # 平胡 whatever the rule


@dataclass(frozen=True)
class SelfDrawnOnAPair:
    """A made-up regional 名堂: won by one's own draw of a card that made a 偎 or 提 — it
    needs the groups, the winning card and how the hand was won."""

    name: str = "偎胡"

    def fan(self, win: WinContext) -> int:
        same = (GroupType.WEI, GroupType.TI)
        made = any(g.type in same and g.cards[0] == win.win for g in win.groups)
        return 3 if win.self_drawn and made else 0


def test_r10_1_a_mingtang_sees_the_groups_the_winning_card_and_how_it_was_won() -> None:
    rules = replace(HUNAN, mingtang=(*HUNAN.mingtang, SelfDrawnOnAPair()))
    hand = C("d1 d1 d1 d2 d7 d10 x1 x2 x3 x5 x5 x5 d4 d5 d6 d8 d9 d10 x7 x7")
    drawn = best_win(hand, [], K("x7"), self_drawn=True, rules=rules)
    shown = best_win(
        C("d1 d1 d1 d2 d7 d10 x1 x2 x3 x5 x5 x5 d4 d5 d6 x7 x8 x9 d8 d9"),
        [],
        K("d10"),
        self_drawn=False,
        rules=rules,
    )
    assert drawn is not None and ("偎胡", 3) in drawn.score.mingtang
    assert shown is not None and all(name != "偎胡" for name, _ in shown.score.mingtang)
