"""Issue 6: sampling the hidden cards, the expert's search, ``paohuzi review``."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from paohuzi.bots import ExpertBot, GreedyBot, make_bot, play_hand
from paohuzi.bots.sampler import is_consistent, sample
from paohuzi.cli import main
from paohuzi.engine.actions import HU
from paohuzi.engine.cards import NUM_KINDS
from paohuzi.engine.game import Game
from paohuzi.engine.observation import observe
from tests.scenario import (
    deal,
    discarding,
    on_offer,
    play,
    quiet,
    random_decisions,
    window,
)
from tests.test_game_invariants import check_step
from tests.test_game_win import DEALER, SEAT2, WAITING, pass_until

GOLDEN = Path(__file__).parent / "golden"


def all_cards(game: Game) -> list[int]:
    position = game.position()
    counts = [0] * NUM_KINDS
    for state in position.seats:
        for k in range(NUM_KINDS):
            counts[k] += state.hand[k]
        for group in state.table:
            for k in group.cards:
                counts[k] += 1
        for k in state.row:
            counts[k] += 1
    for k in position.wall:
        counts[k] += 1
    if (offered := window(game)) is not None:
        counts[offered.card] += 1
    return counts


def test_samples_are_consistent_legal_positions() -> None:
    rng = random.Random(1)
    checked = 0
    for game, seat, driver in random_decisions(range(60)):
        if driver.random() >= 0.4:
            continue
        obs = observe(game, seat)
        position = sample(obs, rng)
        assert is_consistent(position, obs)
        assert all_cards(position) == [4] * NUM_KINDS  # no card seen elsewhere is reused
        assert position.hands[seat] == obs.hand
        check_step(position)
        finish = position.clone()  # and it plays on to an end like any game
        while not finish.is_over:
            finish.apply(rng.choice(finish.legal_actions()))
        checked += 1
    assert checked > 300


def test_unseen_cards_are_spread_uniformly_where_nothing_else_is_known() -> None:
    game = Game(seed=12, dealer=0)
    assert discarding(game) and game.to_act == 0
    obs = observe(game, 0)
    unseen = obs.unseen()
    rng = random.Random(3)
    n = 3000
    in_seat1 = [0] * NUM_KINDS
    in_wall = [0] * NUM_KINDS
    for _ in range(n):
        position = sample(obs, rng)
        for k in range(NUM_KINDS):
            in_seat1[k] += position.hands[1][k]
        for k in position.position().wall:
            in_wall[k] += 1
    slots = obs.hand_sizes[1] + obs.hand_sizes[2] + obs.wall
    for k in range(NUM_KINDS):
        if unseen[k] == 0:
            continue
        expected_hand = unseen[k] * obs.hand_sizes[1] / slots
        expected_wall = unseen[k] * obs.wall / slots
        assert in_seat1[k] / n == pytest.approx(expected_hand, rel=0.08, abs=0.05)
        assert in_wall[k] / n == pytest.approx(expected_wall, rel=0.08, abs=0.05)


def test_a_card_shown_from_ones_own_draw_caps_that_kind_in_hand() -> None:
    rng = random.Random(5)
    checked = 0
    for game, seat, _ in random_decisions(range(30)):
        obs = observe(game, seat)
        shown = {(e.seat, e.card) for e in obs.events if e.type.value == "show" and e.seat != seat}
        if shown:
            position = sample(obs, rng)
            for other, kind in shown:
                assert kind is not None and position.hands[other][kind] <= 1
                checked += 1
    assert checked > 1000  # cards shown, each checked in a sample


def test_expert_returns_a_legal_choice_and_wins_when_it_can() -> None:
    game = deal({0: DEALER, 1: WAITING, 2: SEAT2}, liang="x4", wall="x4 d10", seed=1)
    play(game, "0 discard x1")
    quiet(game, 18)
    expert = ExpertBot(1, samples=2)
    decided = 0
    while on_offer(game) == 3:
        seat = game.to_act
        assert seat is not None
        action = expert.act(observe(game, seat))
        assert action in game.legal_actions()
        game.apply(action)
        decided += 1
    # Seats 1 and 2 were offered x4 (吃, and for seat 2 碰 too) and passed it by: the d10 that
    # seat 1 waits on comes next.
    assert decided == 2 and not game.is_over
    pass_until(game, 1)
    assert expert.act(observe(game, 1)) == HU


def test_expert_estimates_every_candidate_with_a_sample_budget() -> None:
    game = Game(seed=4)
    seat = game.to_act
    assert seat is not None
    obs = observe(game, seat)
    expert = ExpertBot(7, samples=3, candidates=3)
    estimates = expert.evaluate(obs)
    assert len(estimates) == 3 and all(e.samples == 3 for e in estimates)
    assert estimates[0].action == GreedyBot().act(obs)  # the greedy favourite is always in
    again = ExpertBot(7, samples=3, candidates=3).evaluate(obs)
    assert [e.mean for e in again] == [e.mean for e in estimates]  # reproducible


def test_expert_levels_by_name() -> None:
    assert isinstance(make_bot("expert"), ExpertBot)
    bot = make_bot("expert@16")
    assert isinstance(bot, ExpertBot) and bot.samples == 16
    timed = make_bot("expert@0.2s")
    assert isinstance(timed, ExpertBot) and timed.budget == 0.2 and timed.samples is None
    with pytest.raises(ValueError, match="bad expert setting"):
        make_bot("expert@lots")


def test_expert_plays_whole_hands() -> None:
    for seed in range(2):
        game = Game(seed=seed)
        play_hand(game, [ExpertBot(seed, samples=1, candidates=2), GreedyBot(), GreedyBot()])
        assert game.is_over


def test_review_cli(capsys: pytest.CaptureFixture[str]) -> None:
    record = str(GOLDEN / "random-win-1.phz.json")
    seat = json.loads((GOLDEN / "random-win-1.phz.json").read_text())["actions"][0][0]
    code = main(["review", record, "--seat", seat, "--samples", "1", "--json"])
    out = capsys.readouterr().out
    assert code == 0
    data = json.loads(out)
    assert data["seat"] == int(seat) and data["decisions"]
    for decision in data["decisions"]:
        assert (
            decision["played"] in decision["estimates"]
            and decision["best"] in decision["estimates"]
        )
        assert decision["loss"] >= 0
        # One sample measures no spread: no standard error, and nothing called a mistake.
        assert decision["samples"] == 1 and decision["loss_se"] is None
        assert decision["mistake"] is False
    assert data["mistakes"] == []
    assert main(["review", "/nonexistent.json", "--seat", "0"]) == 2
