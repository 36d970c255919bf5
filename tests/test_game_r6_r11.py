"""R6 the discard rule in play (重跑, R6.3), R11 the match: dealer rotation and totals."""

from __future__ import annotations

from dataclasses import replace

from paohuzi.engine.actions import discard
from paohuzi.engine.cards import parse_kind
from paohuzi.engine.evaluator import forced_tianhu
from paohuzi.engine.game import EventType, Game
from paohuzi.engine.match import Match
from paohuzi.engine.position import Discarding, GameResult, Over
from paohuzi.engine.rules import HUNAN, RuleSet
from tests.helpers import C
from tests.scenario import deal, discarding, legal, play, setup, table

DEALER = "x6 x6 x10 x10 x2 x2 x8 x8 d3 d3 d5 d5 d6 d6 x1 x3 x9 d4 d7 d9"


def test_r6_chongpao_second_four_needs_no_discard() -> None:
    # Seat 1 was dealt a 提 and holds a kan of x3; the dealer's x3 makes him 跑 a second time.
    dealer = DEALER.replace("x1 x3", "x7 x3")
    game = deal({0: dealer, 1: "d1 d1 d1 d1 x3 x3 x3"}, liang="x4", seed=1)
    assert table(game, 1) == ["ti:d1d1d1d1"]
    play(game, "0 discard x3")
    assert table(game, 1) == ["ti:d1d1d1d1", "pao:x3x3x3x3"]
    assert game.holding(1) == 21 and game.fours(1) == 2
    # 八块: no discard; seat 2 draws next.
    assert game.log[-1].type in (EventType.SHOW, EventType.WEI, EventType.TI, EventType.CHOUWEI)
    assert game.log[-2].type is EventType.DRAW and game.log[-2].seat == 2


def test_r6_first_pao_still_discards() -> None:
    game = deal({0: DEALER.replace("x1 x3", "x7 x3"), 1: "x3 x3 x3"}, liang="x4", seed=1)
    play(game, "0 discard x3")
    assert discarding(game) and game.to_act == 1


# Seat 1's table in the R6.3 positions: 15 cards, no 提 or 跑.
CHIS = "chi:x1x2x3 chi:x5x6x7 chi:d1d2d3 chi:d4d5d6 chi:x8x9x10"


def test_r6_3_only_kan_cards_left_means_a_kan_is_broken() -> None:
    # A position reached after a forced take: every card left in hand belongs to a kan.
    game = setup({1: ("x4 x4 x4 d7 d7 d7", CHIS)}, Discarding(1))
    assert game.legal_actions() == [discard(parse_kind("d7")), discard(parse_kind("x4"))]
    game = setup({1: ("x4 x4 x4 d7 d7 d7 x9", CHIS)}, Discarding(1))
    assert legal(game) == ["1 discard x9"]  # R3: a kan is never discarded otherwise


def finished(winner: int | None, points: int = 2) -> Game:
    paid = (
        (0, 0, 0)
        if winner is None
        else tuple(2 * points if s == winner else -points for s in range(3))
    )
    position = Game(seed=0).position()
    over = Over(GameResult(winner, None, None, paid, {}))
    return Game.from_position(replace(position, phase=over))


def test_r11_winner_deals_next_and_totals_add_up() -> None:
    match = Match(seed=1, dealer=0)
    match.finish(finished(2, points=3))
    assert match.dealer == 2 and match.totals == [-3, -3, 6]
    match.finish(finished(2, points=1))
    assert match.dealer == 2 and match.totals == [-4, -4, 8] and sum(match.totals) == 0


def test_r11_huangzhuang_keeps_the_dealer_until_three_in_a_row() -> None:
    match = Match(seed=1, dealer=1)
    for _ in range(2):
        match.finish(finished(None))
        assert match.dealer == 1
    match.finish(finished(None))
    assert match.dealer == 2  # the dealer's 下家
    match.finish(finished(None))
    match.finish(finished(0))
    assert match.dealer == 0 and match.huangzhuang_streak == 0
    match.finish(finished(None))
    match.finish(finished(None))
    assert match.dealer == 0


def test_r2_first_dealer_is_random_but_seeded() -> None:
    dealers = {Match(seed=s).dealer for s in range(30)}
    assert dealers == {0, 1, 2}
    assert Match(seed=5).dealer == Match(seed=5).dealer
    first = Match(seed=5).new_game()
    assert first.deck == Match(seed=5).new_game().deck


def _stuck_before_a_peng(rules: RuleSet) -> Game:
    """Seat 1 holds only three 坎 and a pair of x5; seat 0 has just discarded an x5."""
    seat0 = "x5 x9 x9 x10 x10 d7 d7 d8 d8 d9 d9 d10 d10 x4 x4 x1 x2 x3 x6 x7 x8"
    seat1 = ("d1 d1 d1 d2 d2 d2 d3 d3 d3 x5 x5", "chi:x1x2x3 chi:x6x7x8 chi:d4d5d6")
    game = setup({0: (seat0, ""), 1: seat1}, Discarding(0), rules=rules)
    play(game, "0 discard x5")
    return game


def test_r6_2_option_a_take_that_leaves_nothing_to_discard() -> None:
    strict = _stuck_before_a_peng(HUNAN)  # default: the 碰 is illegal
    assert strict.to_act != 1 or "peng" not in [str(a) for a in strict.legal_actions()]
    lenient = _stuck_before_a_peng(replace(HUNAN, take_needs_discard=False))
    assert lenient.to_act == 1 and "peng" in [str(a) for a in lenient.legal_actions()]


def test_r6_3_option_no_kan_broken_means_no_discard() -> None:
    for breaks in (True, False):
        # Seat 1 holds two 坎 and a pair of d9, and draws the third d9: a forced 偎 (R4.1)
        # leaves only 坎 cards while R6 asks for a discard (6 + 15 cards > 20). Seat 0
        # discards an x10 nobody can take first.
        game = setup(
            {
                0: ("x10 x10 x8 x8 x9 x9 d8 d8 d10 d10 x1 x2 x3 x5 x6 x7 d1 d2 d3 d4 d5", ""),
                1: ("x4 x4 x4 d7 d7 d7 d9 d9", "chi:x1x2x3 chi:x5x6x7 chi:d1d2d3 chi:d4d5d6"),
            },
            Discarding(0),
            wall="d9 x10",
            rules=replace(HUNAN, break_kan_when_stuck=breaks),
        )
        play(game, "0 discard x10")
        assert game.log[-1].type is EventType.WEI and game.log[-1].seat == 1
        if not discarding(game) and game.to_act == 1:
            play(game, "1 pass")  # a win after the 偎, declined (R4.1 step 3)
        assert game.must_discard(1)
        assert (discarding(game) and game.to_act == 1) is breaks


def test_r9_5_1_option_tianhu_without_the_partial_decomposition() -> None:
    cards = C("x4 x4 x4 x4 x5 x5 x5 x5 d9 d9 d9 d9 x1 x2 x3 d2 d7 d10 x8 x8")
    partial = forced_tianhu(cards)
    plain = forced_tianhu(cards, replace(HUNAN, tianhu_partial_huxi=False))
    assert partial is not None and plain is not None
    assert partial.huxi == 9 + 9 + 12 + 3 + 6 and plain.huxi == 9 + 9 + 12
