"""Bots see observations only; greedy beats random over duplicate deals; tournaments."""

from __future__ import annotations

import json
import random

import pytest

from paohuzi.bots import GreedyBot, RandomBot, make_bot, play_hand
from paohuzi.cli import main
from paohuzi.engine.actions import HU, PASS
from paohuzi.engine.game import Game
from paohuzi.engine.observation import observe
from paohuzi.tools.tournament import run_deals, seatings, summarize, tournament
from tests.scenario import (
    deal,
    on_offer,
    play,
    quiet,
    random_decisions,
)
from tests.test_game_invariants import hidden_reshuffle
from tests.test_game_win import DEALER, SEAT2, WAITING, pass_until


def test_bots_decide_the_same_when_hidden_cards_are_reshuffled() -> None:
    rng = random.Random(11)
    checked = 0
    for game, seat, _ in random_decisions(range(20)):
        other = hidden_reshuffle(game, seat, rng)
        assert GreedyBot().act(observe(game, seat)) == GreedyBot().act(observe(other, seat))
        assert RandomBot(5).act(observe(game, seat)) == RandomBot(5).act(observe(other, seat))
        checked += 1
    assert checked > 300


def test_greedy_always_wins_when_it_can() -> None:
    game = deal({0: DEALER, 1: WAITING, 2: SEAT2}, liang="x4", wall="x4 d10", seed=1)
    play(game, "0 discard x1")
    quiet(game, 18)
    while on_offer(game) == 3:
        game.apply(PASS)
    pass_until(game, 1)
    assert GreedyBot().act(observe(game, 1)) == HU


def test_make_bot_rejects_unknown_names() -> None:
    assert make_bot("greedy").name == "greedy"
    with pytest.raises(ValueError, match="unknown bot 'smart'"):
        make_bot("smart")


def test_play_hand_finishes_every_hand() -> None:
    for seed in range(20):
        game = Game(seed=seed)
        play_hand(game, [GreedyBot(), RandomBot(seed), GreedyBot()])
        assert game.is_over and sum(game.result.payments if game.result else (1,)) == 0


def test_duplicate_seatings() -> None:
    assert len(seatings(["greedy", "random", "random"])) == 3
    assert len(seatings(["a", "b", "c"])) == 6
    assert seatings(["greedy", "greedy", "greedy"]) == [("greedy",) * 3]


def test_greedy_beats_random_over_duplicate_deals() -> None:
    hands, stats = tournament(["greedy", "random", "random"], 60, seed=2)
    assert hands == 180
    greedy = next(s for s in stats if s.name == "greedy")
    rand = next(s for s in stats if s.name == "random")
    assert greedy.ci95[0] > 0 > rand.ci95[1]
    assert greedy.win_rate > rand.win_rate
    assert greedy.mean * 1 + rand.mean * 2 == pytest.approx(0)  # zero-sum per hand


def test_workers_give_the_same_figures() -> None:
    one = summarize(run_deals(["greedy", "random", "random"], 6, seed=9))
    two = summarize(run_deals(["greedy", "random", "random"], 6, seed=9, workers=2))
    assert one == two


def test_tournament_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["tournament", "--bots", "greedy,random,random", "--deals", "5", "--seed", "1", "--json"]
    )
    out = capsys.readouterr().out
    assert code == 0
    data = json.loads(out)
    assert data["deals"] == 5 and data["hands"] == 15
    assert [b["name"] for b in data["bots"]] == ["greedy", "random"]
    for bot in data["bots"]:
        assert set(bot) == {"name", "mean", "ci95", "win_rate", "errors"}
        assert bot["ci95"][0] <= bot["mean"] <= bot["ci95"][1]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--bots", "greedy,random"], "three bots"),
        (["--bots", "greedy,random,smart"], "unknown bot 'smart'"),
        (["--deals", "0"], "at least 1"),
    ],
)
def test_tournament_cli_bad_input(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tournament", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
