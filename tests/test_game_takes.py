"""R4.1 forced 提/偎/臭偎 on one's own draw, R7 吃 and 比, R7.1 臭 and own discards, R6."""

from __future__ import annotations

from paohuzi.engine.actions import PASS, chi
from paohuzi.engine.cards import to_counts
from paohuzi.engine.chi import chi_options
from paohuzi.engine.game import EventType
from tests.helpers import C
from tests.scenario import (
    claiming,
    deal,
    discarding,
    hand,
    legal,
    on_offer,
    passed,
    play,
    quiet,
    table,
    window,
)

DEALER = "x6 x6 x10 x10 x2 x2 x8 x8 d3 d3 d5 d5 d6 d6 x1 x3 x9 d4 d7 d9"


def chi_texts(hand_text: str, card: str, *, must_discard: bool = False) -> set[str]:
    return {
        str(a) for a in chi_options(to_counts(C(hand_text)), C(card)[0], must_discard=must_discard)
    }


def test_r7_worked_example_one_every_full_combination() -> None:
    assert chi_texts("x1 x2 x2 x3 x3 x4 d2 d2", "x2") == {
        "chi x2d2d2 x1x2x3 x2x3x4",  # 吃 (x2 d2 d2) + 比 (x1 x2 x3) + 比 (x2 x3 x4)
        "chi x1x2x3 x2x2d2",  # 吃 (x1 x2 x3) + 比 (x2 x2 d2)
        "chi x1x2x3 x2x3x4 x2d2d2",  # 吃 (x1 x2 x3) + 比 (x2 d2 d2) + 比 (x2 x3 x4)
        # … and every other combination that empties the hand of x2:
        "chi x2x3x4 x1x2x3 x2d2d2",
        "chi x2x3x4 x2x2d2",
        "chi x2x2d2 x1x2x3",
        "chi x2x2d2 x2x3x4",
    }


def test_r7_worked_example_two_a_copy_that_cannot_be_laid_down_forbids_the_chi() -> None:
    # 一 二 三 and one more 一 that forms nothing with the rest: no 吃 of 一 at all.
    assert chi_texts("x1 x2 x3 x6 d4 d9", "x1") == set()
    # Without the extra 一 the 吃 is fine.
    assert chi_texts("x2 x3 x6 d4 d9", "x1") == {"chi x1x2x3"}


def test_r7_two_seven_ten_and_jiao() -> None:
    assert chi_texts("x2 x10 d7 d7 x5", "x7") == {"chi x2x7x10", "chi x7d7d7"}


def test_r3_kan_cards_never_take_part_in_a_chi() -> None:
    assert chi_texts("x2 x2 x2 x3 d9", "x1") == set()


def test_r6_2_a_chi_that_leaves_nothing_to_discard_is_illegal() -> None:
    assert chi_texts("x2 x3", "x1", must_discard=True) == set()
    assert chi_texts("x2 x3 d5 d5 d5", "x1", must_discard=True) == set()  # only a 坎 left
    assert chi_texts("x2 x3 d9", "x1", must_discard=True) == {"chi x1x2x3"}


def test_f3_chi_action_is_canonical() -> None:
    action = chi((2, 0, 1), ((1, 2, 3), (1, 1, 11)))
    assert str(action) == "chi x1x2x3 x2x2d2 x2x3x4"


def test_r7_chi_with_bi_in_a_game() -> None:
    # Seat 1 holds the worked example's cards (with nothing else that goes with x2); the
    # dealer discards x2.
    dealer = "x6 x6 x10 x10 x7 x7 x8 x8 d3 d3 d5 d5 d6 d6 x2 x5 x9 d4 d7 d9"
    seat1 = "x1 x2 x2 x3 x3 x4 d2 d2 d5 d5 d6 d6 d8 d9 x9 x9 d10 d10 x6 d4"
    game = deal({0: dealer, 1: seat1}, liang="d1", seed=1)
    play(game, "0 discard x2")
    assert legal(game) == sorted(
        [f"1 {c}" for c in chi_texts("x1 x2 x2 x3 x3 x4 d2 d2", "x2")] + ["1 pass", "1 peng"]
    )
    play(game, "1 chi x2d2d2 x1x2x3 x2x3x4")
    while claiming(game):
        game.apply(PASS)
    assert table(game, 1) == ["chi:x2d2d2", "chi:x1x2x3", "chi:x2x3x4"]
    assert "x2" not in hand(game, 1).split() and game.to_act == 1


def test_r4_1_drawn_card_on_a_kan_is_a_concealed_forced_ti() -> None:
    game = deal({0: DEALER, 1: "d8 d8 d8"}, liang="x4", wall="d8", seed=1)
    play(game, "0 discard x1")
    quiet(game, 18)
    assert table(game, 1) == ["ti:d8d8d8d8"]
    assert [e.type for e in game.log[-2:]] == [EventType.DRAW, EventType.TI]
    assert discarding(game) and game.to_act == 1  # first 提: discard (R6)


def test_r4_1_drawn_card_on_a_pair_is_a_wei_and_on_a_wei_a_ti() -> None:
    game = deal({0: DEALER, 1: "d8 d8 x4 x4"}, liang="x9", wall="d8 x5 x5 d8", seed=2)
    play(game, "0 discard x1")
    quiet(game, 18)
    assert table(game, 1) == ["wei:d8d8d8"] and game.to_act == 1
    assert window(game) is None  # never shown: nobody may act on it (R4.1)
    quiet(game, 15)
    assert table(game, 1)[0] == "ti:d8d8d8d8"


def test_r7_1_a_pass_makes_chou_and_a_later_draw_on_the_pair_is_a_chouwei() -> None:
    game = deal(
        {0: DEALER.replace("d3 d3", "d8 x4"), 1: "d8 d8 x5 x7"}, liang="x9", wall="d8", seed=3
    )
    play(game, "0 discard d8")
    assert "1 peng" in legal(game)
    play(game, "1 pass")
    assert 17 in game.seats[1].chou  # R7.1: 忍碰
    quiet(game, 18)  # seat 1 draws the last d8
    assert table(game, 1) == ["chouwei:d8d8d8"]
    assert game.log[-1].type is EventType.CHOUWEI and game.log[-1].card == 17


def test_r7_1_no_chi_or_peng_of_a_kind_one_has_discarded() -> None:
    dealer = "x6 x6 x10 x10 x2 x2 x8 x8 d3 d3 d5 d5 d6 d6 x4 x5 x9 d4 d7 d9"
    game = deal({0: dealer, 1: "x5 x5"}, liang="d1", wall="d1 x5", seed=4)
    play(game, "0 discard x5")
    quiet(game, 17)  # seat 1 draws d1, seat 2 draws x5
    assert (w := window(game)) is not None and w.card == 4 and w.owner == 2
    assert 0 not in passed(game)[1]  # x4 x6 would 吃 it, but he discarded x5 (R7.1)
    assert 4 in game.seats[0].discarded


def test_r7_1_chi_of_the_same_kind_is_allowed_for_a_player_who_did_not_discard_it() -> None:
    dealer = "x6 x6 x10 x10 x2 x2 x8 x8 d3 d3 d5 d5 d6 d6 x4 x1 x9 d4 d7 d9"
    game = deal({0: dealer, 1: "x5 x5"}, liang="d1", wall="d1 x5", seed=4)
    play(game, "0 discard x1")
    quiet(game, 17)
    assert on_offer(game) == 4
    assert "chi x4x5x6" in passed(game)[1][0]
