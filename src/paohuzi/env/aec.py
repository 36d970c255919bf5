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
from paohuzi.env.encoding import observation_arrays, planes
from paohuzi.game import Game
from paohuzi.native_game import NativeGame, new_game
from paohuzi.position import ClaimWindow, Over
from paohuzi.rules import HUNAN, RuleSet


def agent_names(seats: int) -> tuple[str, ...]:
    """``player_0`` … one agent a seat."""
    return tuple(f"player_{s}" for s in range(seats))


AGENTS = agent_names(HUNAN.players)
"""The agents of a three-seat table."""


def env(**kwargs: Any) -> AECEnv:
    """The wrapped environment."""
    wrapped: AECEnv = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv):  # type: ignore[misc]
    """One hand: agent ``player_s`` is seat s (``player_0``…``player_2``, or …``player_3`` at a
    four-seat table, where the seat sitting the hand out is not among the hand's ``agents``,
    R12); rewards are the hand's R10 payments, given when it ends."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi"],
        "name": "paohuzi_v0",
        "is_parallelizable": False,
    }

    def __init__(self, render_mode: str | None = None, rules: RuleSet = HUNAN) -> None:
        super().__init__()
        self.rules = rules
        self.render_mode = render_mode
        names = agent_names(rules.players)
        self.possible_agents = list(names)
        self.agents = list(names)
        observation = spaces.Box(0.0, 4.0, (planes(rules.players), NUM_KINDS), dtype=np.float32)
        mask = spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": observation, "action_mask": mask}) for a in names
        }
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in names}
        self._rng = random.Random()
        self.game: Game | NativeGame = new_game(rules, seed=0)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        seats = self.rules.players
        self.game = new_game(
            self.rules, dealer=self._rng.randrange(seats), seed=self._rng.randrange(2**63)
        )
        names = self.possible_agents
        self.agents = [names[s] for s in sorted(self.game.seating.playing)]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._after_change()

    def _after_change(self) -> None:
        phase = self.game.phase
        if isinstance(phase, Over):
            for agent in self.agents:
                self.rewards[agent] = float(phase.result.payments[self._seat(agent)])
                self.terminations[agent] = True
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.possible_agents[phase.to_act]

    def _seat(self, agent: str) -> int:
        return self.possible_agents.index(agent)

    def observe(self, agent: str) -> dict[str, Any]:
        return observation_arrays(self.game, self._seat(agent))

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert action is not None
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
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


def describe(game: Game | NativeGame) -> str:
    """The referee's view as text (``render``)."""
    lines = [f"wall {game.wall}, dealer {game.dealer}, to act {game.to_act}"]
    for seat, state in enumerate(game.seats):
        tables = " ".join(str(g) for g in state.table)
        lines.append(f"seat {seat}: {format_cards(state.hand_cards())} | {tables}")
    phase = game.phase
    if isinstance(phase, ClaimWindow):
        lines.append(f"on offer: {KIND_NAMES[phase.card]} from seat {phase.owner}")
    if game.result is not None:
        lines.append(f"over: winner {game.result.winner}, payments {list(game.result.payments)}")
    return "\n".join(lines)
