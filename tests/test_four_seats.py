"""R12 the four-seat table [decision]: the seat opposite the dealer sits each hand out (dealt
nothing, neither pays nor is paid), the other three play R2–R10 in their seat order, and the
deal goes round all four seats (R11) — in the engine, records, observations, bots, the
environments and the commands."""

from __future__ import annotations

import json
import random
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pexpect
import pytest
from pettingzoo.test import api_test

from paohuzi.bots import GreedyBot, RandomBot, play_hand
from paohuzi.bots.sampler import is_consistent, sample
from paohuzi.cli import main
from paohuzi.engine.cards import full_deck
from paohuzi.engine.game import EventType, Game
from paohuzi.engine.match import Match
from paohuzi.engine.observation import observe
from paohuzi.engine.position import GameResult, Over
from paohuzi.engine.record import Record, record_of, replay
from paohuzi.engine.rules import HUNAN
from paohuzi.env import SingleSeatEnv, encode, env, raw_env
from paohuzi.env.encoding import layout, planes
from tests.scenario import deal, quiet, random_decisions
from tests.test_game_invariants import check_step, hidden_reshuffle

FOUR = replace(HUNAN, players=4)
SRC = Path(__file__).parent.parent / "src"


def random_game(seed: int) -> Game:
    game = Game(FOUR, dealer=seed % 4, seed=seed)
    rng = random.Random(seed)
    while not game.is_over:
        check_step(game)
        game.apply(rng.choice(game.legal_actions()))
    check_step(game)
    return game


def held(game: Game, seat: int) -> list[int]:
    return sorted(game.hand_cards(seat) + [k for g in game.tables[seat] for k in g.cards])


@pytest.mark.parametrize("dealer", range(4))
def test_r12_r2_the_seat_opposite_the_dealer_is_dealt_nothing(dealer: int) -> None:
    deck = full_deck()
    random.Random(dealer).shuffle(deck)
    game = Game(FOUR, dealer=dealer, deck=deck)
    sitter = (dealer + 2) % 4
    assert game.seating.sitting_out == sitter
    assert game.seating.playing == (dealer, (dealer + 1) % 4, (dealer + 3) % 4)
    assert held(game, sitter) == [] and len(game.seats) == 4
    if game.result is None:  # no 天胡: every dealt card is in its place (R2)
        assert held(game, dealer) == sorted(deck[0:20] + [deck[60]])
        assert held(game, (dealer + 1) % 4) == sorted(deck[20:40])
        assert held(game, (dealer + 3) % 4) == sorted(deck[40:60])
        assert game.wall == 19


def test_r12_r2_play_goes_round_the_three_who_play_in_seat_order() -> None:
    # Dealer 3: seats 3, 0 and 2 play (in that order); seat 1 sits out.
    game = deal({3: "d1 d1", 0: "d2 d2", 2: "d3 d3"}, dealer=3, liang="d10", rules=FOUR, seed=2)
    quiet(game, 10)
    draws = [e.seat for e in game.log if e.type is EventType.DRAW]
    assert draws[:6] == [0, 2, 3, 0, 2, 3]
    assert all(e.seat != 1 for e in game.log)


def test_r12_r10_5_the_seat_that_sits_out_neither_pays_nor_is_paid() -> None:
    won = 0
    for seed in range(400):
        game = random_game(seed)
        result = game.result
        assert result is not None and len(result.payments) == 4 and sum(result.payments) == 0
        sitter = game.seating.sitting_out
        assert sitter is not None and result.payments[sitter] == 0
        assert sitter not in result.other_huxi and result.winner != sitter
        if result.winner is not None:
            won += 1
            assert result.hu is not None
            assert result.payments[result.winner] == 2 * result.hu.points  # two others pay
            assert set(result.other_huxi) == set(game.seating.playing) - {result.winner}
    assert won > 0


def finished(winner: int | None) -> Game:
    paid = (0, 0, 0, 0) if winner is None else tuple(2 if s == winner else 0 for s in range(4))
    position = Game(FOUR, seed=0).position()
    return Game.from_position(
        replace(position, phase=Over(GameResult(winner, None, None, paid, {}))), FOUR
    )


def test_r12_r11_the_deal_goes_round_all_four_seats() -> None:
    match = Match(FOUR, seed=1, dealer=3)
    assert len(match.totals) == 4
    for _ in range(3):
        match.finish(finished(None))
    assert match.dealer == 0  # three 荒庄: the next seat at the table deals
    match.finish(finished(0))
    assert match.dealer == 0
    for _ in range(3):
        match.finish(finished(None))
    assert match.dealer == 1  # a seat that sat a hand out deals in its turn
    assert {Match(FOUR, seed=s).dealer for s in range(40)} == {0, 1, 2, 3}
    game = match.new_game()
    assert game.seating.sitting_out == 3
    deck = list(reversed(full_deck()))
    assert match.new_game(deck=deck).deck == tuple(deck)


def test_r12_f4_f5_records_of_four_seats() -> None:
    game = random_game(11)
    data = record_of(game).to_json()
    assert data["ruleset"]["players"] == 4
    outcome = replay(Record.from_json(data))
    assert outcome.error is None and outcome.game.log == game.log
    position = outcome.to_json()["position"]
    sitter = game.seating.sitting_out
    assert sitter is not None and len(position["hands"]) == 4
    assert position["hands"][sitter] == "" and position["tables"][sitter] == []
    start = Record.from_json(dict(data, actions=[]))
    fresh = replay(start).to_json()
    assert fresh["status"] == "ongoing" and all(
        line.startswith(f"{fresh['to_act']} ") for line in fresh["legal"]
    )


def test_r12_f3_a_seat_that_sits_out_never_acts() -> None:
    game = Game(FOUR, dealer=0, seed=5)
    with pytest.raises(ValueError, match="turn"):
        game.apply_text(f"2 {game.legal_actions()[0]}")


def test_r12_observations_hide_what_they_hid_at_three_seats() -> None:
    rng = random.Random(3)
    checked = 0
    for game, _, _ in random_decisions(range(30), FOUR, rotate=True):
        for seat in game.seating.playing:
            seen = observe(game, seat)
            assert observe(hidden_reshuffle(game, seat, rng), seat) == seen
            assert np.array_equal(
                encode(observe(hidden_reshuffle(game, seat, rng), seat)), encode(seen)
            )
            checked += 1
        assert observe(game, game.seating.sitting_out).legal == ()
    assert checked > 1000


def test_r12_samples_of_four_seat_games_are_consistent() -> None:
    rng = random.Random(1)
    checked = 0
    for game, seat, driver in random_decisions(range(25), FOUR, rotate=True):
        if driver.random() >= 0.3:
            continue
        obs = observe(game, seat)
        position = sample(obs, rng)
        assert is_consistent(position, obs)
        check_step(position)
        checked += 1
    assert checked > 100


def test_r12_bots_play_four_seat_hands() -> None:
    for seed in range(10):
        game = Game(FOUR, dealer=seed % 4, seed=seed)
        play_hand(game, [GreedyBot(), RandomBot(seed), GreedyBot(), RandomBot(seed + 1)])
        assert game.is_over


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_r12_pettingzoo_api_test_passes_at_four_seats() -> None:
    api_test(env(rules=FOUR), num_cycles=300, verbose_progress=False)


def test_r12_the_aec_env_deals_the_sitting_seat_out() -> None:
    aec = raw_env(rules=FOUR)
    assert aec.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    for seed in range(8):
        aec.reset(seed=seed)
        sitter = aec.game.seating.sitting_out
        assert f"player_{sitter}" not in aec.agents and len(aec.agents) == 3
        rng = np.random.default_rng(seed)
        rewards = {a: 0.0 for a in aec.agents}
        for agent in aec.agent_iter():
            observation, reward, termination, truncation, _ = aec.last()
            assert observation["observation"].shape == (planes(4), 20)
            rewards[agent] += reward
            if termination or truncation:
                aec.step(None)
            else:
                aec.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        result = aec.game.result
        assert result is not None
        assert all(rewards[f"player_{s}"] == result.payments[s] for s in aec.game.seating.playing)


def test_r12_encoding_layout_of_four_seats() -> None:
    four = layout(4)
    assert (four.planes, four.last_row, four.unseen, four.offer, four.scalars) == (
        37,  # the 臭胡 plane last (issue 15, D50)
        22,
        26,
        32,
        33,
    )
    assert four.liang == four.scalars + 2  # 23 scalars take two planes
    assert four.chou_hu == four.liang + 1 == 36
    assert planes(3) == 29


def test_r12_single_seat_env_at_four_seats() -> None:
    single = SingleSeatEnv(seat=1, opponents=("greedy", "random", "random"), rules=FOUR)
    rng = np.random.default_rng(0)
    for episode in range(4):
        observation, _ = single.reset(seed=episode)
        assert single.game.seating.sitting_out != 1
        assert single.observation_space.contains(observation)
        done = False
        while not done:
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            observation, _, done, _, _ = single.step(action)
    with pytest.raises(ValueError, match="3 opponents"):
        SingleSeatEnv(opponents=("greedy", "greedy"), rules=FOUR)


def test_r12_simulate_and_tournament_commands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["simulate", "--games", "40", "--players", "4", "--json", "--save", str(tmp_path)])
        == 0
    )
    figures = json.loads(capsys.readouterr().out)
    assert len(figures["wins"]) == 4 and len(figures["mean_score"]) == 4
    record = sorted(tmp_path.glob("*.phz.json"))[2]  # hand 2: dealer 2, seat 0 sits out
    assert main(["replay", str(record)]) == 0
    assert "seat 0 sits this hand out" in capsys.readouterr().out
    bots = "greedy,random,random,random"
    assert main(["tournament", "--bots", bots, "--players", "4", "--deals", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["hands"] == 2 * 4  # four seatings of three randoms and a greedy
    assert main(["tournament", "--bots", "greedy,random,random", "--players", "4"]) == 2
    assert "four bots" in capsys.readouterr().err


def test_r12_play_a_hand_at_a_four_seat_table(tmp_path: Path) -> None:
    # Dealer 1: seat 3, opposite, sits the first hand out — the player's seat here: three bots
    # play it through to the settlement, with four seats in the match's score.
    args = ["-m", "paohuzi", "play", "--players", "4", "--dealer", "1", "--seat", "3"]
    child = pexpect.spawn(
        sys.executable,
        [*args, "--seed", "2", "--bots", "greedy,greedy,greedy", "--hands", "1"],
        cwd=str(tmp_path),
        encoding="utf-8",
        timeout=60,
        dimensions=(50, 160),
        env={"PATH": "/usr/bin:/bin", "TERM": "xterm", "PYTHONPATH": str(SRC)},
    )
    child.expect("you sit this hand out")
    child.expect("payments")
    child.expect("match total")
    # The four seats named from the player's (D164): seat 0 plays after seat 3, seat 2 before.
    child.expect(
        r"下家 / Right: [+-]\d+ +对家 / Across: [+-]\d+ +上家 / Left: [+-]\d+ +你 / you: \+0"
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert main(["play", "--players", "4", "--bots", "greedy,greedy", "--hands", "1"]) == 2
