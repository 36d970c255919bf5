"""R4 turn flow, R5.2 跑, R8 claim windows: who is asked, in what order, and who gets the card."""

from __future__ import annotations

import random

import pytest

from paohuzi.engine.actions import PASS
from paohuzi.engine.game import EventType, Game, IllegalAction
from paohuzi.engine.observation import observe
from paohuzi.engine.position import ClaimWindow, Discarding
from tests.scenario import (
    claiming,
    deal,
    discarding,
    legal,
    on_offer,
    passed,
    play,
    quiet,
    setup,
    table,
)


def test_r8_peng_beats_an_earlier_chi_and_the_loser_is_not_chou() -> None:
    game = deal({0: "x5 x5 x4 x4 x6 x6", 1: "x4 x6 x1 x9", 2: "x5 x5 x1 x9"}, liang="d10", seed=1)
    play(game, "0 discard x5")
    assert "1 chi x4x5x6" in legal(game)
    play(game, "1 chi x4x5x6")
    assert legal(game) == ["2 pass", "2 peng"]
    play(game, "2 peng")
    assert table(game, 2) == ["peng:x5x5x5"] and table(game, 1) == []
    assert 4 not in game.seats[1].chou  # R7.1: wanted to 吃 but lost to a 碰
    assert discarding(game) and game.to_act == 2
    assert [e.type for e in game.log[-2:]] == [EventType.DISCARD, EventType.PENG]


def test_r8_a_pass_on_a_chi_makes_the_card_chou() -> None:
    game = deal({0: "x5 x5 x4 x4 x6 x6", 1: "x4 x6 x1 x9", 2: "x5 x5 x1 x9"}, liang="d10", seed=1)
    play(game, "0 discard x5", "1 pass", "2 pass")
    assert 4 in game.seats[1].chou and 4 in game.seats[2].chou  # both could take x5 and passed
    assert list(game.seats[0].row) == [
        4
    ]  # nobody took it: it stays in front of the discarder (R4.2)


def test_r8_drawers_chi_beats_the_next_players_who_is_then_not_asked() -> None:
    game = deal(
        {0: "d1 d1", 1: "x8 x9 d5 d5", 2: "x5 x6 d3 d3"},
        liang="d10",
        wall="x7 d2 d2 d2 x7 x7 x7",
        seed=2,
    )
    quiet(game, 18)  # the dealer's first discard; seat 1 draws x7
    assert game.log[-1].type is EventType.SHOW and game.log[-1].card == 6
    assert "1 chi x7x8x9" in legal(game) and legal(game)[-1] == "1 pass"
    play(game, "1 chi x7x8x9")
    assert game.to_act == 1 and discarding(game)  # seat 2 was skipped
    assert "chi:x7x8x9" in table(game, 1) and 6 not in game.seats[2].chou


def test_r8_next_player_chis_when_the_drawer_passes() -> None:
    game = deal(
        {0: "d1 d1", 1: "x8 x9 d5 d5", 2: "x5 x6 d3 d3"},
        liang="d10",
        wall="x7 d2 d2 d2 x7 x7 x7",
        seed=2,
    )
    quiet(game, 18)
    play(game, "1 pass")
    assert 6 in game.seats[1].chou
    assert "2 chi x5x6x7" in legal(game)
    play(game, "2 chi x5x6x7")
    assert "chi:x5x6x7" in table(game, 2) and game.to_act == 2


def test_r5_2_1_kan_runs_on_a_card_drawn_by_another() -> None:
    game = deal({0: "d1 d1", 1: "d2 d2", 2: "x3 x3 x3"}, liang="d10", wall="x3", seed=3)
    quiet(game, 18)
    events = [e.type for e in game.log]
    assert EventType.PAO in events and table(game, 2)[-1] == "pao:x3x3x3x3"
    assert game.to_act == 2 and discarding(game)  # first 跑: still discards (R6)


def test_r4_2_kan_runs_on_a_discard() -> None:
    game = deal({0: "x3 d1 d1", 1: "x3 x3 x3"}, liang="d10", seed=3)
    play(game, "0 discard x3")
    assert table(game, 1) == ["pao:x3x3x3x3"] and game.to_act == 1
    assert list(game.seats[0].row) == []  # the card was taken


DEALER = "x6 x6 x10 x10 x2 x2 x8 x8 d3 d3 d5 d5 d6 d6 x1 x3 x9 d4 d7 d9"


def test_r4_2_only_the_next_player_may_chi_a_discard() -> None:
    game = deal({0: "x5 x5 x4 x4 x6 x6", 1: "x1 x9", 2: "x4 x6 x1 x9"}, liang="d10", seed=1)
    play(game, "0 discard x5")
    _, options = passed(game)
    assert all(not a.startswith("chi") for a in options.get(2, []))
    assert any(a.startswith("chi") for a in options.get(1, [])) or 1 not in options


def test_r4_2_a_table_peng_does_not_run_on_a_discard() -> None:
    dealer = "x3 x3 d7 d8 x6 x6 x10 x10 x2 x2 x8 x8 d3 d3 d5 d5 d6 d6 x1 d4"
    game = deal({0: dealer, 1: "d9 d9", 2: "x3 x3 d9 x5 x7"}, liang="d1", seed=5)
    play(game, "0 discard x3")
    while game.to_act != 2:
        game.apply(PASS)
    play(game, "2 peng", "2 discard d9")
    while game.to_act != 0:
        game.apply(PASS)
    play(game, "0 chi d7d8d9")
    while claiming(game):
        game.apply(PASS)
    play(game, "0 discard x3")
    while claiming(game) and on_offer(game) == 2:
        game.apply(PASS)
    assert table(game, 2) == ["peng:x3x3x3"]  # no 跑
    assert list(game.seats[0].row)[-1] == 2 and not any(e.type is EventType.PAO for e in game.log)


def test_r5_2_3_a_wei_runs_on_a_card_another_player_draws() -> None:
    game = deal({0: DEALER, 1: "x4 x4"}, liang="d1", wall="x4 x4", seed=6)
    play(game, "0 discard x1")
    quiet(game, 18)
    assert table(game, 1) == ["wei:x4x4x4"]
    quiet(game, 17)  # seat 1 discards; seat 2 draws the last x4
    assert table(game, 1) == ["pao:x4x4x4x4"]
    assert game.log[-1].type is EventType.PAO and game.log[-2].type is EventType.SHOW


def test_r8_answers_are_hidden_from_the_other_players() -> None:

    chi_game = deal(
        {0: "x5 x5 x4 x4 x6 x6", 1: "x4 x6 x1 x9", 2: "x5 x5 x1 x9"}, liang="d10", seed=1
    )
    pass_game = deal(
        {0: "x5 x5 x4 x4 x6 x6", 1: "x4 x6 x1 x9", 2: "x5 x5 x1 x9"}, liang="d10", seed=1
    )
    play(chi_game, "0 discard x5", "1 chi x4x5x6")
    play(pass_game, "0 discard x5", "1 pass")
    assert chi_game.to_act == pass_game.to_act == 2
    assert observe(chi_game, 0) == observe(pass_game, 0)
    assert observe(chi_game, 2).legal == observe(pass_game, 2).legal  # 碰 outranks either way


def test_r5_2_a_forced_pao_on_the_last_card_is_carried_out_before_huangzhuang() -> None:
    # Seat 2 holds a 坎 of d10; seat 1 draws the last d10, the last card of the wall. Nobody
    # wins on it, so the hand is 荒庄 — but the 跑 is never optional (R5.2): it is made first,
    # and counts in seat 2's hu-xi at the end (R10.6).
    seat2 = "d10 d10 d10 x1 x2 x3 x4 x5 x6 x7 x8 x9 d1 d2 d3 d4 d5 d6 d7 d8"
    game = setup({2: (seat2, "")}, Discarding(0), wall="d10", rows=True)
    assert game.wall == 1
    play(game, f"0 {game.legal_actions()[0]}")
    while not game.is_over:
        game.apply(PASS)
    assert [(e.type, e.seat) for e in game.log[-4:]] == [
        (EventType.DRAW, 1),
        (EventType.SHOW, 1),
        (EventType.PAO, 2),
        (EventType.HUANGZHUANG, 0),
    ]
    assert table(game, 2) == ["pao:d10d10d10d10"]
    result = game.result
    assert result is not None and result.winner is None and result.payments == (0, 0, 0)
    # R3: the 跑 of a big kind 9, x1x2x3 3, d1d2d3 6 (x4–x9 and d4–d8 sequences of 0).
    assert result.other_huxi[2] == game.huxi(2) == 9 + 3 + 6


def test_r8_a_pausing_game_stops_at_every_card_on_offer_before_anyone_is_asked() -> None:
    # A server speaks at that moment (D101): every seat sees the card, nobody is asked yet, so
    # what it sends then tells nothing of who will be asked (R8). The default core here (the
    # native one where it is built), against the reference that does not pause.
    for seed in range(30):
        told: list[int] = []
        game = Game(dealer=seed % 3, seed=seed, pause_at_offers=True)
        plain = Game(dealer=seed % 3, seed=seed, core="python")
        rng = random.Random(seed)
        while not game.is_over:
            if game.paused:
                phase = game.phase
                assert isinstance(phase, ClaimWindow) and phase.asking == ()
                assert game.to_act is None and game.legal_actions() == []
                views = [observe(game, s) for s in (*game.seating.playing, None)]
                assert all(v.legal == () and v.offer == phase.card for v in views)
                with pytest.raises(IllegalAction, match="nobody is asked yet"):
                    game.apply(PASS)
                copy = game.clone()
                assert copy.paused and copy.position() == game.position()
                told.append(phase.card)
                game.resume()
                copy.resume_all()
                assert copy.position() == game.position() or game.paused
                continue
            with pytest.raises(IllegalAction, match="not stopped at a card on offer"):
                game.resume()
            assert game.position() == plain.position()
            action = rng.choice(game.legal_actions())
            game.apply(action)
            plain.apply(action)
        assert game.log == plain.log and game.result == plain.result
        assert game.event_count == len(plain.log)
        assert game.events_since(3) == plain.log[3:]
        offered = [e.card for e in game.log if e.type in (EventType.SHOW, EventType.DISCARD)]
        result = game.result
        assert result is not None
        forced = result.hu is not None and result.win is None  # 必需天胡: no 亮张 offer
        assert told == ([] if forced else [game.liang]) + offered
