"""R2 the deal, R5.1 the automatic 提, R6 whether the dealer discards."""

from __future__ import annotations

import random

import pytest

from paohuzi.engine.cards import full_deck
from paohuzi.engine.game import EventType, Game, stacked_deck
from tests.scenario import (
    deal,
    discarding,
    hand,
    play,
    quiet,
    table,
)


def held(game: Game, seat: int) -> list[int]:
    return sorted(game.hand_cards(seat) + [k for g in game.tables[seat] for k in g.cards])


def test_r2_deal_order() -> None:
    deck = full_deck()
    random.Random(3).shuffle(deck)
    game = Game(deck=deck, dealer=1)
    assert discarding(game) and game.to_act == 1  # this deck: no 天胡, one discard
    assert held(game, 1) == sorted(deck[0:20] + [deck[60]])
    assert held(game, 2) == sorted(deck[20:40])
    assert held(game, 0) == sorted(deck[40:60])
    assert game.liang == deck[60] and game.wall == 19
    quiet(game, 18)  # the first discard, then seat 2's draw
    draws = [e for e in game.log if e.type is EventType.DRAW]
    assert draws[0].seat == 2 and draws[0].card == deck[61]


def test_r2_stacked_deck_places_hands_by_seat() -> None:
    deck = stacked_deck({2: "x1 x1 x1 x2"}, dealer=1, liang="d10", wall="d9 d8")
    assert sorted(deck[20:40])[:4] == [0, 0, 0, 1]  # seat 2 is dealer+1
    assert deck[60] == 19 and deck[61:63] == [18, 17]
    assert sorted(deck) == full_deck()
    with pytest.raises(ValueError, match="more than four x1"):
        stacked_deck({0: "x1 x1 x1", 1: "x1 x1"}, liang="d1")


def test_r5_1_dealt_four_of_a_kind_is_laid_down_as_ti() -> None:
    game = deal(
        {
            0: "x1 x2 x3 x4 x6 x7 x8 x9 x10 d1 d2 d3 d4 d5 d6 d7 d8 d9 d10 d10",
            2: "x5 x5 x5 x5 x1 x3 x6 x8 x9 d1 d3 d4 d6 d8 d9 x2 x7 d2 d7 d10",
        },
        liang="x10",
    )
    assert table(game, 2) == ["ti:x5x5x5x5"]
    assert "x5" not in hand(game, 2)
    ti = [e for e in game.log if e.type is EventType.TI]
    assert [(e.seat, e.card) for e in ti] == [(2, 4)]


def test_r5_1_liang_completes_the_dealers_ti() -> None:
    game = deal({0: "x9 x9 x9 x1 x2 x3 x4 x5 x6 x7 x8 x10 d1 d2 d3 d4 d5 d6 d7 d8"}, liang="x9")
    assert table(game, 0) == ["ti:x9x9x9x9"]
    assert discarding(game) and game.to_act == 0  # one 提: still discards (R6)


def test_r6_dealer_with_two_dealt_ti_does_not_discard() -> None:
    game = deal(
        {0: "x9 x9 x9 x9 d4 d4 d4 d4 x1 x2 x3 x5 x6 x7 x10 d1 d2 d3 d7 d10"},
        liang="d9",
        wall="x4",
    )
    assert table(game, 0) == ["ti:x9x9x9x9", "ti:d4d4d4d4"]
    assert not any(e.type is EventType.DISCARD for e in game.log)
    assert [e.seat for e in game.log if e.type is EventType.DRAW] == [1]
    assert game.holding(0) == 21  # 20 + max(0, k − 1) with k = 2


def test_r6_liang_making_a_second_ti_spares_the_first_discard() -> None:
    game = deal(
        {0: "x9 x9 x9 x9 d4 d4 d4 x1 x2 x3 x5 x6 x7 x10 d1 d2 d3 d7 d10 d9"},
        liang="d4",
        wall="x4",
    )
    assert len(game.tables[0]) == 2
    assert not any(e.type is EventType.DISCARD for e in game.log)


def test_r6_non_dealer_with_two_dealt_ti_skips_the_discard_after_his_first_take() -> None:
    game = deal(
        {
            0: "x1 x2 x3 x4 x6 x7 x8 x9 x10 d1 d2 d3 d4 d5 d7 d8 d9 d10 x1 d10",
            1: "x5 x5 x5 x5 d6 d6 d6 d6 x1 x1 x8 x8 d2 d3 d9 d9 x10 d1 d8 x3",
        },
        liang="d5",
        wall="d10 x2 x4 x6",
    )
    assert game.holding(1) == 20 and game.fours(1) == 2  # one short of 20 + max(0, 2 − 1)
    play(game, "0 discard x1")
    assert "1 peng" in [f"1 {a}" for a in game.legal_actions()]
    play(game, "1 peng")
    assert not discarding(game) or game.to_act != 1
    assert game.holding(1) == 21 and not game.must_discard(1)
    assert next(e.seat for e in game.log if e.type is EventType.DRAW) == 2
