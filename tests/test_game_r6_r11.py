"""R6 the discard rule in play (重跑, R6.3), R11 the match: dealer rotation and totals."""

from __future__ import annotations

from dataclasses import replace

from paohuzi.actions import discard
from paohuzi.cards import parse_kind, to_counts
from paohuzi.evaluator import forced_tianhu
from paohuzi.game import EventType, Game, GameResult, Phase, Position, Source, game_from_position
from paohuzi.match import Match
from paohuzi.rules import HUNAN, RuleSet
from tests.helpers import C, T
from tests.scenario import deal, legal, play, table

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
    assert game.phase is Phase.DISCARD and game.to_act == 1


def test_r6_3_only_kan_cards_left_means_a_kan_is_broken() -> None:
    game = Game(seed=1)
    # A position reached after a forced take: every card left in hand belongs to a kan.
    game.hands[1] = [0] * 20
    for kind in ("x4", "d7"):
        game.hands[1][parse_kind(kind)] = 3
    game.phase, game.to_act, game.window, game._legal = Phase.DISCARD, 1, None, None
    assert game.legal_actions() == [discard(parse_kind("d7")), discard(parse_kind("x4"))]
    game.hands[1][parse_kind("x9")] = 1
    game._legal = None
    assert legal(game) == ["1 discard x9"]  # R3: a kan is never discarded otherwise


def finished(winner: int | None, points: int = 2) -> Game:
    game = Game(seed=0)
    paid = (
        (0, 0, 0)
        if winner is None
        else tuple(2 * points if s == winner else -points for s in range(3))
    )
    game.result = GameResult(winner, None, None, paid, {})
    return game


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
    hand = C("d1 d1 d1 d2 d2 d2 d3 d3 d3 x5 x5")
    table = T("chi:x1x2x3 chi:x6x7x8 chi:d4d5d6")
    left = [4] * 20
    for k in [*hand, *(k for g in table for k in g.cards), parse_kind("x5")]:
        left[k] -= 1
    rest = [k for k in range(20) for _ in range(left[k])]
    hands = [to_counts(rest[:20]), to_counts(hand), to_counts(rest[20:40])]
    position = Position(
        dealer=0,
        liang=rest[0],
        hands=hands,
        tables=[[], table, []],
        rows=[[], [], []],
        discarded=[{parse_kind("x5")}, set(), set()],
        chou=[set(), set(), set()],
        chou_hu=[{}, {}, {}],
        wall=rest[40:],
        to_act=1,
        offer=parse_kind("x5"),
        owner=0,
        source=Source.DISCARDED,
    )
    return game_from_position(position, rules)


def test_r6_2_option_a_take_that_leaves_nothing_to_discard() -> None:
    strict = _stuck_before_a_peng(HUNAN)  # default: the 碰 is illegal
    assert strict.to_act != 1 or "peng" not in [str(a) for a in strict.legal_actions()]
    lenient = _stuck_before_a_peng(replace(HUNAN, take_needs_discard=False))
    assert lenient.to_act == 1 and "peng" in [str(a) for a in lenient.legal_actions()]


def test_r6_3_option_no_kan_broken_means_no_discard() -> None:
    for breaks in (True, False):
        game = Game(replace(HUNAN, break_kan_when_stuck=breaks), seed=1)
        game.hands[1] = to_counts(C("x4 x4 x4 d7 d7 d7"))
        game.tables[1] = T("pao:x1 pao:x2 chi:x5x6x7 chi:d1d2d3 chi:d4d5d6")
        game._changed(1)
        assert game.must_discard(1)  # 6 + 17 cards > 20 + (2 − 1)
        game._after_take(1, last=False)
        assert (game.phase is Phase.DISCARD and game.to_act == 1) is breaks


def test_r9_5_1_option_tianhu_without_the_partial_decomposition() -> None:
    cards = C("x4 x4 x4 x4 x5 x5 x5 x5 d9 d9 d9 d9 x1 x2 x3 d2 d7 d10 x8 x8")
    partial = forced_tianhu(cards)
    plain = forced_tianhu(cards, replace(HUNAN, tianhu_partial_huxi=False))
    assert partial is not None and plain is not None
    assert partial.huxi == 9 + 9 + 12 + 3 + 6 and plain.huxi == 9 + 9 + 12
