"""The PettingZoo AEC environment of a Paohuzi hand (docs/env.md).

``env()`` is wrapped as the PettingZoo classic environments are; ``raw_env()`` is bare. Both
raise ``IllegalAction`` for an illegal action unless made with ``illegal="penalty"``: then the
hand ends and the seat that made it pays each other seat a penalty no smaller than the largest
payment of a hand (zero-sum, docs/env.md).
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from paohuzi.engine.action_ids import NUM_ACTIONS, id_to_action
from paohuzi.engine.actions import Action
from paohuzi.engine.cards import KIND_NAMES, NUM_KINDS, format_cards
from paohuzi.engine.game import CoreName, Game
from paohuzi.engine.observation import observe
from paohuzi.engine.position import ClaimWindow, Over
from paohuzi.engine.rules import HUNAN, RuleSet
from paohuzi.env.encoding import (
    HISTORY_WIDTH,
    action_mask,
    encode,
    encode_history,
    observation_arrays,
    planes,
)
from paohuzi.env.hand import (
    action_id,
    check_seed,
    deal,
    full_state,
    history_length,
    penalty_payments,
    state_planes,
)
from paohuzi.env.hand import illegal_penalty as penalty_of


def agent_names(seats: int) -> tuple[str, ...]:
    """``player_0`` … one agent a seat."""
    return tuple(f"player_{s}" for s in range(seats))


AGENTS = agent_names(HUNAN.players)
"""The agents of a three-seat table."""


def env(**kwargs: Any) -> AECEnv:
    """The wrapped environment."""
    wrapped: AECEnv = raw_env(**kwargs)
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

    def __init__(
        self,
        render_mode: str | None = None,
        rules: RuleSet = HUNAN,
        *,
        illegal: str = "raise",
        illegal_penalty: float | None = None,
        history: int = 0,
        core: CoreName = "auto",
    ) -> None:
        super().__init__()
        self.rules = rules
        self.illegal = illegal
        self.penalty = penalty_of(rules, illegal, illegal_penalty)
        self.history = history_length(history)
        self.render_mode = render_mode
        names = agent_names(rules.players)
        self.possible_agents = list(names)
        self.agents = list(names)
        observation = spaces.Box(0.0, 4.0, (planes(rules.players), NUM_KINDS), dtype=np.float32)
        mask = spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8)
        fields: dict[str, spaces.Space[Any]] = {"observation": observation, "action_mask": mask}
        if history:
            fields["history"] = spaces.Box(0.0, 1.0, (history, HISTORY_WIDTH), dtype=np.float32)
        self.observation_spaces = {a: spaces.Dict(fields) for a in names}
        self.state_space = spaces.Box(
            0.0, 4.0, (state_planes(rules.players), NUM_KINDS), dtype=np.float32
        )
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in names}
        self._rng = random.Random()
        self.core: CoreName = core
        """The core of every hand dealt (``Game(core=…)``)."""
        self.game = Game(rules, seed=0, core=core)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new hand; ``options`` may give its ``deck``, ``dealer`` and ``rules``."""
        check_seed(seed)
        if seed is not None:
            self._rng = random.Random(seed)
        self.game = deal(self.rules, self._rng, options, self.core)
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
        seat = self._seat(agent)
        if not self.history:
            return observation_arrays(self.game, seat)
        obs = observe(self.game, seat, events=True)
        out = {"observation": encode(obs), "action_mask": action_mask(obs)}
        out["history"] = encode_history(obs, self.history)
        return out

    def state(self) -> NDArray[np.float32]:
        """Privileged: the full state (every hand and the wall, :func:`full_state`), for a
        centralised critic in training; a policy that plays must use ``observe``."""
        return full_state(self.game)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        chosen = id_to_action(action_id(action))  # before any change: a refused step is none
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        if self.illegal == "penalty" and chosen not in self.game.legal_actions():
            self._penalise(agent, chosen)
        else:
            self.game.apply(chosen)
            self._after_change()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _penalise(self, agent: str, chosen: Action) -> None:
        """End the hand: the offender pays the penalty to each other seat of the hand."""
        playing = [self._seat(a) for a in self.agents]
        paid = penalty_payments(self._seat(agent), playing, self.penalty)
        for a in self.agents:
            self.rewards[a] = paid[self._seat(a)]
            self.terminations[a] = True
        self.infos[agent] = {"illegal": str(chosen)}

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
    for seat, state in enumerate(game.seats):
        tables = " ".join(str(g) for g in state.table)
        lines.append(f"seat {seat}: {format_cards(state.hand_cards())} | {tables}")
    phase = game.phase
    if isinstance(phase, ClaimWindow):
        lines.append(f"on offer: {KIND_NAMES[phase.card]} from seat {phase.owner}")
    if game.result is not None:
        lines.append(f"over: winner {game.result.winner}, payments {list(game.result.payments)}")
    return "\n".join(lines)
