"""The PettingZoo AEC environment of a Paohuzi hand (docs/env.md).

``env()`` is wrapped as the PettingZoo classic environments are (an illegal action ends the
hand with a penalty of −1 for the seat that made it); ``raw_env()`` is bare.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from paohuzi.action_ids import NUM_ACTIONS, id_to_action
from paohuzi.cards import KIND_NAMES, NUM_KINDS, format_cards
from paohuzi.env.encoding import PLANES, action_mask, encode
from paohuzi.game import Game
from paohuzi.observation import observe
from paohuzi.rules import HUNAN, RuleSet

AGENTS = ("player_0", "player_1", "player_2")


def env(**kwargs: Any) -> AECEnv:
    """The wrapped environment."""
    wrapped: AECEnv = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv):  # type: ignore[misc]
    """One hand: agents ``player_0``…``player_2`` are seats 0–2; rewards are the hand's R10
    payments, given when it ends."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi"],
        "name": "paohuzi_v0",
        "is_parallelizable": False,
    }

    def __init__(self, render_mode: str | None = None, rules: RuleSet = HUNAN) -> None:
        super().__init__()
        self.rules = rules
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        observation = spaces.Box(0.0, 4.0, (PLANES, NUM_KINDS), dtype=np.float32)
        mask = spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": observation, "action_mask": mask}) for a in AGENTS
        }
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in AGENTS}
        self._rng = random.Random()
        self.game: Game = Game(rules, seed=0)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        self.game = Game(self.rules, dealer=self._rng.randrange(3), seed=self._rng.randrange(2**63))
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        self._after_change()

    def _after_change(self) -> None:
        game = self.game
        if game.is_over:
            assert game.result is not None
            for seat, agent in enumerate(AGENTS):
                self.rewards[agent] = float(game.result.payments[seat])
                self.terminations[agent] = True
            self.agent_selection = self.agents[0]
        else:
            assert game.to_act is not None
            self.agent_selection = AGENTS[game.to_act]

    def observe(self, agent: str) -> dict[str, Any]:
        obs = observe(self.game, AGENTS.index(agent), events=False)
        return {"observation": encode(obs), "action_mask": action_mask(obs)}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert action is not None
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in AGENTS}
        self.game.apply(id_to_action(int(action)))
        self._after_change()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        text = describe(self.game)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def describe(game: Game) -> str:
    """The referee's view as text (``render``)."""
    lines = [f"wall {game.wall}, dealer {game.dealer}, to act {game.to_act}"]
    for seat in range(3):
        tables = " ".join(str(g) for g in game.tables[seat])
        lines.append(f"seat {seat}: {format_cards(game.hand_cards(seat))} | {tables}")
    if game.window is not None:
        lines.append(f"on offer: {KIND_NAMES[game.window.card]} from seat {game.window.owner}")
    if game.result is not None:
        lines.append(f"over: winner {game.result.winner}, payments {list(game.result.payments)}")
    return "\n".join(lines)
