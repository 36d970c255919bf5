"""R9 winning in a game: which cards, who first, 臭胡, both kinds of 天胡, 海底胡; R10 settlement."""

from __future__ import annotations

from paohuzi.engine.actions import PASS
from paohuzi.engine.cards import DECK_SIZE
from paohuzi.engine.game import EventType, Game
from paohuzi.engine.groups import parse_group
from paohuzi.engine.position import SelfHu, Source
from paohuzi.engine.record import position_json
from paohuzi.engine.rules import LUZHOU
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
    window,
)

# Seat 1 waits on d7 and d10 (18 hu-xi): kan d1, d2d7d10, x1x2x3, kan x5, d4d5d6, x7x8x9, d8 d9.
WAITING = "d1 d1 d1 d2 d7 d10 x1 x2 x3 x5 x5 x5 d4 d5 d6 x7 x8 x9 d8 d9"
# The dealer: no d10.
DEALER = "x6 x6 x10 x10 x2 x2 x8 x8 d3 d3 d5 d5 d6 d6 x1 x3 x9 d4 d7 d9"
# Seat 2: no d10, and no pair of a kind these tests draw.
SEAT2 = "x1 x3 x4 x4 x6 x7 x9 x10 d2 d2 d3 d4 d5 d6 d7 d8 d8 d9 x5 x8"
# Seat 2 waiting on d10 too (15 hu-xi): kans x4 x7 d2, x1x2x3, x8x9x10, d3d4d5, d8 d9.
ALSO_WAITING = "x4 x4 x4 x7 x7 x7 d2 d2 d2 x1 x2 x3 x8 x9 x10 d3 d4 d5 d8 d9"


def pass_until(game: Game, seat: int) -> None:
    """Pass every offer until ``seat`` is asked about a card it may win on."""
    while not (game.to_act == seat and claiming(game) and "hu" in map(str, game.legal_actions())):
        assert not discarding(game), "a discard came first"
        game.apply(PASS)


def test_r9_2_win_on_a_card_another_player_draws() -> None:
    game = deal({0: DEALER, 1: WAITING, 2: SEAT2}, liang="x4", wall="x4 d10", seed=1)
    play(game, "0 discard x1")
    quiet(game, 18)  # seat 1 draws x4
    while on_offer(game) == 3:
        game.apply(PASS)
    pass_until(game, 1)
    assert (w := window(game)) is not None and w.owner == 2 and w.card == 19
    play(game, "1 hu")
    result = game.result
    assert result is not None and result.winner == 1 and result.win == 19
    assert result.hu is not None
    score = result.hu.score
    assert (score.huxi, score.deng, score.fan, score.points) == (18, 2, 1, 2)
    assert not score.self_drawn and not score.tianhu and not score.haidi
    assert result.payments == (-2, 4, -2)  # R10.5
    # R10.6: neither holds a 坎, a 1-2-3 or a 2-7-10 (seat 0 discarded his x1; no x7, d2 or d10).
    assert result.other_huxi == {0: 0, 2: 0}
    assert game.log[-1].type is EventType.HU


def test_r9_2_no_win_on_a_discard_by_default() -> None:
    game = deal({0: DEALER.replace("d9", "d10"), 1: WAITING, 2: SEAT2}, liang="x4", seed=1)
    play(game, "0 discard d10")
    assert "1 hu" not in legal(game)


def test_r12_hu_on_discard_option_allows_it() -> None:
    game = deal(
        {0: DEALER.replace("d9", "d10"), 1: WAITING, 2: SEAT2}, liang="x4", rules=LUZHOU, seed=1
    )
    play(game, "0 discard d10")
    assert "1 hu" in legal(game)
    play(game, "1 hu")
    assert game.result is not None and game.result.winner == 1
    assert game.result.hu is not None and not game.result.hu.score.self_drawn


def test_r9_5_2_optional_tianhu_on_the_liang_in_seat_order() -> None:
    game = deal({0: DEALER, 1: WAITING, 2: ALSO_WAITING}, liang="d10", seed=1)
    assert claiming(game) and legal(game) == ["1 hu", "1 pass"]  # dealer+1 first
    play(game, "1 hu")
    result = game.result
    assert result is not None and result.winner == 1 and result.hu is not None
    score = result.hu.score
    assert score.tianhu and score.self_drawn  # R9.5.3: counts as 自摸
    assert score.deng == (2 * 18 - 12) // 3 + 1  # R10.1: 天胡 hu-xi counts double
    assert result.payments == (-score.points, 2 * score.points, -score.points)


def test_r9_4_next_claimant_wins_when_the_first_passes_and_r9_3_marks_him() -> None:
    game = deal({0: DEALER, 1: WAITING, 2: ALSO_WAITING}, liang="d10", seed=1)
    play(game, "1 pass")
    assert dict(game.seats[1].chou_hu) == {19: 18}  # declined a win on d10 at hu-xi 18 (R9.3)
    assert legal(game) == ["2 hu", "2 pass"]
    play(game, "2 hu")
    assert game.result is not None and game.result.winner == 2
    assert game.result.hu is not None and game.result.hu.huxi == 15
    assert game.result.hu.score.deng == (2 * 15 - 12) // 3 + 1


def test_r9_3_chou_hu_blocks_the_same_kind_until_the_huxi_changes() -> None:
    game = deal({0: DEALER, 1: WAITING, 2: SEAT2}, liang="d10", wall="x4 d10", seed=1)
    play(game, "1 pass")  # 臭胡 on d10 at 18 hu-xi
    play(game, "0 discard x1")
    quiet(game, 18)  # seat 1 draws x4 and passes; seat 2 draws d10
    while not game.is_over and on_offer(game) not in (None, 19):
        game.apply(PASS)
    assert on_offer(game) == 19
    while claiming(game) and on_offer(game) == 19:
        assert game.to_act != 1 or "1 hu" not in legal(game)
        game.apply(PASS)


def test_r9_3_a_changed_huxi_lifts_chou_hu() -> None:
    game = deal({0: DEALER, 1: WAITING, 2: SEAT2}, liang="d10", wall="x4 d10", seed=1)
    play(game, "1 pass", "0 discard x1")
    quiet(game, 18)
    assert game.to_act == 1 and "1 chi x2x3x4" in legal(game)
    play(game, "1 chi x2x3x4")
    while claiming(game):  # seat 2 could 碰 x4: he passes
        game.apply(PASS)
    play(game, "1 discard x1")  # x1x2x3 (3) is gone: 15 hu-xi now
    pass_until(game, 1)
    assert on_offer(game) == 19
    play(game, "1 hu")
    assert game.result is not None and game.result.hu is not None
    assert game.result.hu.huxi == 15


def test_r9_5_1_forced_tianhu_wins_at_once_and_outranks_the_liang() -> None:
    game = deal(
        {
            0: "x1 x1 x1 x1 x2 x2 x2 x2 x3 x3 x3 x3 d5 d6 d7 x5 x6 x7 d9 d10",
            1: WAITING.replace("x1 x2 x3", "d3 d3 d3"),
        },
        liang="d10",
        seed=1,
    )
    result = game.result
    assert game.is_over and result is not None and result.winner == 0 and result.win is None
    assert result.hu is not None and result.hu.score.tianhu and result.hu.score.self_drawn
    assert result.hu.huxi == 9 + 9 + 9  # three 提; nothing else scores
    assert game.history == []  # nobody was asked anything


def test_r9_5_1_several_forced_tianhu_dealer_first_then_in_order() -> None:
    five_kans = "d1 d1 d1 d2 d2 d2 d3 d3 d3 d4 d4 d4 d5 d5 d5 x10 x9 x8 d9 d9"
    other = "x1 x1 x1 x2 x2 x2 x3 x3 x3 x4 x4 x4 x5 x5 x5 d10 d8 d7 d6 x7"
    game = deal({1: other, 2: five_kans}, dealer=1, liang="x6", seed=2)
    assert game.result is not None and game.result.winner == 1  # the dealer
    game = deal({2: other, 0: five_kans}, dealer=1, liang="x6", seed=2)
    assert game.result is not None and game.result.winner == 2  # dealer+1 before dealer+2


def test_r9_2_self_win_right_after_a_forced_wei() -> None:
    # Seat 1 holds a pair x7 and waits to make it a 偎 (hu-xi 18 + 3).
    hand = "d1 d1 d1 d2 d7 d10 x1 x2 x3 x5 x5 x5 d4 d5 d6 d8 d9 d10 x7 x7"
    game = deal({0: DEALER.replace("x1 x3", "x4 x1"), 1: hand}, liang="x4", wall="x7", seed=1)
    play(game, "0 discard x1")
    quiet(game, 18)
    assert isinstance(game.phase, SelfHu) and legal(game) == ["1 hu", "1 pass"]
    assert game.log[-1].type is EventType.WEI and window(game) is None  # never shown
    play(game, "1 hu")
    result = game.result
    assert result is not None and result.winner == 1 and result.hu is not None
    assert result.hu.score.self_drawn and result.hu.huxi == 21
    assert "wei:x7x7x7" in [str(g) for g in result.hu.groups]


# Seat 1 waits on d10 (and d7) without holding one (15 hu-xi).
WAITING_NO_D10 = "d1 d1 d1 x2 x7 x10 x1 x2 x3 x5 x5 x5 d4 d5 d6 x7 x8 x9 d8 d9"


def popaohu_game() -> Game:
    """Seat 2 holds a kan of d10; seat 1 waits on d10; seat 0 draws d10."""
    return deal(
        {0: DEALER, 1: WAITING_NO_D10, 2: "d10 d10 d10 x4 x4"},
        liang="x4",
        wall="d2 d2 d10",
        seed=3,
    )


def test_r9_2_popaohu_a_win_beats_the_pao() -> None:
    game = popaohu_game()
    play(game, "0 discard x1")
    quiet(game, 16)
    after, _ = passed(game)
    assert on_offer(game) == 19 and after.log[len(game.log)].type is EventType.PAO
    assert after.log[len(game.log)].seat == 2  # a 跑 is pending for seat 2
    assert legal(game) == ["1 hu", "1 pass"]  # only 胡 is offered while a 跑 is pending (R8)
    play(game, "1 hu")
    assert game.result is not None and game.result.winner == 1
    assert not any(e.type is EventType.PAO for e in game.log)


def test_r8_forced_pao_after_the_win_is_declined() -> None:
    game = popaohu_game()
    play(game, "0 discard x1")
    quiet(game, 16)
    play(game, "1 pass")
    assert game.log[-1].type is EventType.PAO and game.log[-1].seat == 2
    assert 19 in dict(game.seats[1].chou_hu)


HAIDI_SEAT2 = "x1 x3 x4 x6 x7 x9 x10 d10 d10 d3 d4 d5 d6 d7 d7 d8 d8 d9 x5 x8"
# Draws go seat 1, 2, 0, 1 …: nobody draws a kind he holds a pair of, and the 19th card, d10,
# comes to seat 1.
HAIDI_WALL = "x2 x4 x1 x6 x4 x3 x10 x7 x4 d3 d2 x7 d8 d2 x9 d9 d2 d4 d10"


def test_r10_haidi_self_drawn_win_on_the_last_card() -> None:
    game = deal({0: DEALER, 1: WAITING, 2: HAIDI_SEAT2}, liang="d1", wall=HAIDI_WALL)
    play(game, "0 discard x1")
    while not (game.to_act == 1 and game.wall == 0):
        assert claiming(game) and "hu" not in map(str, game.legal_actions())
        game.apply(PASS)
    assert (w := window(game)) is not None and w.source is Source.DRAWN and game.wall == 0
    assert legal(game) == ["1 hu", "1 pass"]
    play(game, "1 hu")
    result = game.result
    assert result is not None and result.hu is not None
    score = result.hu.score
    assert score.haidi and score.self_drawn and score.mingtang == ()
    assert (score.huxi, score.deng, score.fan, score.points) == (18, 3, 2, 6)


def test_r4_1_the_last_card_not_won_on_is_huangzhuang() -> None:
    game = deal({0: DEALER, 1: WAITING, 2: HAIDI_SEAT2}, liang="d1", wall=HAIDI_WALL)
    play(game, "0 discard x1")
    while not game.is_over:
        game.apply(PASS)
    result = game.result
    assert result is not None and result.winner is None and result.payments == (0, 0, 0)
    assert game.log[-1].type is EventType.HUANGZHUANG
    assert set(result.other_huxi) == {0, 1, 2}


def test_r2_r9_5_1_a_forced_tianhu_by_another_seat_leaves_the_liang_with_the_dealer() -> None:
    # Seat 1 is dealt three 提 and wins at once; the 亮张 x3 is the dealer's 21st card (R2),
    # so it is in his hand when the hand ends: in his current hu-xi (x1 x2 x3, R10.6) and in
    # the referee's position (all 80 cards, F5).
    dealer = "x1 x2 x5 x6 x8 x9 x10 d1 d2 d3 d4 d5 d6 d7 d8 d1 d2 d3 d4 d5"
    forced = "x4 x4 x4 x4 d9 d9 d9 d9 d10 d10 d10 d10 x1 x2 x5 x6 x7 x8 x9 x10"
    game = deal({0: dealer, 1: forced}, liang="x3", seed=1)
    result = game.result
    assert result is not None and result.winner == 1 and result.win is None
    assert "x3" in hand(game, 0).split() and sum(game.hands[0]) == 21
    assert result.other_huxi[0] == 3 + 6 + 6  # x1x2x3 and d1d2d3 twice (R3)
    position = position_json(game)
    cards = sum(len(h.split()) for h in position["hands"]) + position["wall"]
    cards += sum(len(d.split()) for d in position["discards"])
    cards += sum(len(parse_group(g).cards) for t in position["tables"] for g in t)
    assert cards == DECK_SIZE
