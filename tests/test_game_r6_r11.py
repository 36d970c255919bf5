"""R6 the discard rule in play (重跑, R6.3), R11 the match: dealer rotation and totals."""

from __future__ import annotations

from paohuzi.actions import discard
from paohuzi.cards import parse_kind
from paohuzi.game import EventType, Game, GameResult, Phase
from paohuzi.match import Match
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
