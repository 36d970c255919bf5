"""Issue 26 point 1: a sampler that cannot fail when a consistent deal exists."""

from __future__ import annotations

import random

import pytest

from paohuzi.bots import GreedyBot, RandomBot
from paohuzi.bots.base import bot_choice
from paohuzi.bots.sampler import is_consistent, limits, sample
from paohuzi.engine.game import CoreName, Game
from paohuzi.engine.observation import Observation, observe
from paohuzi.native.core import serves
from paohuzi.engine.rules import HUNAN

CORES: list[CoreName] = ["python", "native"] if serves(HUNAN) else ["python"]


def decisions(game: Game, bots: list[GreedyBot | RandomBot]) -> list[tuple[int, Observation]]:
    """Every decision of ``game`` played to its end by ``bots``: the seat and its observation."""
    seen = []
    while (seat := game.to_act) is not None:
        seen.append((seat, observe(game, seat)))
        game.apply(bot_choice(bots[seat], game, seat))
    return seen


def saved_case() -> Observation:
    """Seat 0's 8th decision of seed 9021 played by greedy bots (the game's 30th): its own draw, a
    9, offered to it for 胡 alone, which seat 2 will 跑 on with the face-down 偎 of 9s he holds
    once it passes — the old ``limits`` took the card's show as proof he held none."""
    mine = [obs for seat, obs in decisions(Game(seed=9021), [GreedyBot()] * 3) if seat == 0]
    return mine[7]


@pytest.mark.parametrize("core", CORES)
def test_the_saved_case_samples(core: CoreName) -> None:
    obs = saved_case()
    assert obs.offer == 9 and 9 not in limits(obs)[1][2]
    rng = random.Random(1)
    for _ in range(20):
        assert is_consistent(sample(obs, rng, core=core), obs)
