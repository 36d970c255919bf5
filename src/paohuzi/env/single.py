"""A Gymnasium single-agent environment: one seat learns, bots play the others."""

from __future__ import annotations

import random
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from paohuzi.action_ids import NUM_ACTIONS, id_to_action
from paohuzi.bots import Bot, make_bot
from paohuzi.bots.base import bot_choice
from paohuzi.cards import NUM_KINDS
from paohuzi.env.aec import describe
from paohuzi.env.encoding import observation_arrays, planes
from paohuzi.game import Game
from paohuzi.native_game import NativeGame, new_game
from paohuzi.position import Over
from paohuzi.rules import HUNAN, RuleSet

ILLEGAL_PENALTY = -1.0


class SingleSeatEnv(gym.Env[dict[str, Any], int]):
    """Seat ``seat`` is the agent; ``opponents`` name the bots of the other seats, in seat
    order. An episode is one hand the agent plays in (at a four-seat table, a deal that sits it
    out is dealt again); the reward is the agent's R10 payment when it ends. Observations are
    ``{"observation", "action_mask"}`` as in the AEC environment; an illegal action ends the
    hand with a reward of −1."""

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012 - gymnasium declares it so

    def __init__(
        self,
        seat: int = 0,
        opponents: tuple[str, ...] = ("greedy", "greedy"),
        rules: RuleSet = HUNAN,
        render_mode: str | None = None,
    ) -> None:
        if len(opponents) != rules.players - 1:
            raise ValueError(f"{rules.players - 1} opponents are needed, not {len(opponents)}")
        self.seat = seat
        self.rules = rules
        self.opponent_names = opponents
        self.render_mode = render_mode
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    0.0, 4.0, (planes(rules.players), NUM_KINDS), dtype=np.float32
                ),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
            }
        )
        self.action_space: spaces.Space[Any] = spaces.Discrete(NUM_ACTIONS)
        self._rng = random.Random()
        self.game: Game | NativeGame = new_game(rules, seed=0)
        self._bots: list[Bot | None] = [None] * rules.players

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._rng = random.Random(seed)
        seats = self.rules.players
        while True:
            self.game = new_game(
                self.rules, dealer=self._rng.randrange(seats), seed=self._rng.randrange(2**63)
            )
            names = iter(self.opponent_names)
            self._bots = [
                None if s == self.seat else make_bot(next(names), self._rng.randrange(2**32))
                for s in range(seats)
            ]
            if self.seat == self.game.seating.sitting_out:
                continue
            self._play_others()
            if not self.game.is_over:  # a hand won before the agent's first decision: deal again
                return self._observation(), {}

    def _play_others(self) -> None:
        game = self.game
        while not isinstance(phase := game.phase, Over) and phase.to_act != self.seat:
            bot = self._bots[phase.to_act]
            assert bot is not None  # every seat but the agent's has one
            game.apply(bot_choice(bot, game, phase.to_act))

    def _observation(self) -> dict[str, Any]:
        return observation_arrays(self.game, self.seat)

    def step(self, action: int) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        chosen = id_to_action(int(action))
        if chosen not in self.game.legal_actions():
            return self._observation(), ILLEGAL_PENALTY, True, False, {"illegal": str(chosen)}
        self.game.apply(chosen)
        self._play_others()
        result = self.game.result
        if result is not None:
            return self._observation(), float(result.payments[self.seat]), True, False, {}
        return self._observation(), 0.0, False, False, {}

    def render(self) -> str | None:
        return describe(self.game)
