"""Gymnasium single-agent environments: one seat learns, bots play the others.

:class:`SingleSeatEnv` has fixed opponents; :class:`SelfPlayEnv` draws them each hand from a
pool to which a learner adds snapshots of itself (self-play).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded
from numpy.typing import NDArray

from paohuzi.bots import Bot
from paohuzi.bots.base import bot_choice, tell
from paohuzi.bots.loader import close_bot, load_bot, spec_kind
from paohuzi.engine.action_ids import NUM_ACTIONS, id_to_action
from paohuzi.engine.cards import NUM_KINDS
from paohuzi.engine.game import CoreName, Game
from paohuzi.engine.observation import observe
from paohuzi.engine.position import Over
from paohuzi.engine.rules import HUNAN, RuleSet
from paohuzi.env.aec import describe
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
    deal,
    history_length,
    illegal_penalty,
    penalty_payments,
)
from paohuzi.env.policy import Policy, PolicyBot

Opponent = str | Bot
"""A bot spec (``random``, ``expert@20``, ``module:factory``, ``cmd:…``) or a bot object."""


class SingleSeatEnv(gym.Env[dict[str, Any], int]):
    """Seat ``seat`` is the agent; ``opponents`` (bot specs or bot objects, in seat order, the
    agent's seat skipped; random bots by default) play the other seats. An episode is one hand
    the agent plays in (at a four-seat table, a deal that sits it out is dealt again); the
    reward is the agent's R10 payment when it ends. Observations are ``{"observation",
    "action_mask"}`` as in the AEC environment (and ``"history"`` with ``history`` > 0). An
    illegal action raises ``IllegalAction``, or with ``illegal="penalty"`` ends the hand with
    the agent paying the penalty to each other seat (docs/env.md). Stepping needs a hand in
    play: before the first ``reset``, and after a hand ends, ``step`` raises ``ResetNeeded``."""

    # render_fps: Gymnasium's checker asks every render mode for one (its text envs say 4).
    metadata = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012 - gymnasium's form

    def __init__(
        self,
        seat: int = 0,
        opponents: Sequence[Opponent] | None = None,
        rules: RuleSet = HUNAN,
        render_mode: str | None = None,
        *,
        illegal: str = "raise",
        illegal_penalty: float | None = None,
        history: int = 0,
        core: CoreName = "auto",
    ) -> None:
        if opponents is None:
            opponents = ("random",) * (rules.players - 1)
        if len(opponents) != rules.players - 1:
            raise ValueError(f"{rules.players - 1} opponents are needed, not {len(opponents)}")
        if not (isinstance(seat, int) and 0 <= seat < rules.players):
            raise ValueError(f"seat is one of 0…{rules.players - 1}, not {seat!r}")
        self.seat = seat
        self.rules = rules
        self.illegal = illegal
        self.penalty = _penalty(rules, illegal, illegal_penalty)
        self.history = history_length(history)
        self.render_mode = render_mode
        fields: dict[str, spaces.Space[Any]] = {
            "observation": spaces.Box(
                0.0, 4.0, (planes(rules.players), NUM_KINDS), dtype=np.float32
            ),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
        }
        if history:
            fields["history"] = spaces.Box(0.0, 1.0, (history, HISTORY_WIDTH), dtype=np.float32)
        self.observation_space = spaces.Dict(fields)
        self.action_space: spaces.Space[Any] = spaces.Discrete(NUM_ACTIONS)
        self._rng = random.Random()
        self.core: CoreName = core
        """The core of every hand dealt (``Game(core=…)``)."""
        self.game = Game(rules, seed=0, core=core)
        self._in_play = False
        """A hand was dealt and has not ended (by its end, or by an illegal action's penalty)."""
        self._opened: list[Bot] = []
        self.opponents = [self._keep(o) for o in opponents]
        self._bots: list[Bot | None] = [None] * rules.players

    def _keep(self, opponent: Opponent) -> Opponent:
        """A program (``cmd:``) is started once, for every hand; other specs are made afresh
        each hand with a seed of the env's."""
        if isinstance(opponent, str) and spec_kind(opponent) == "cmd":
            bot = load_bot(opponent)
            self._opened.append(bot)
            return bot
        return opponent

    def _bot(self, opponent: Opponent) -> Bot:
        if isinstance(opponent, str):
            return load_bot(opponent, self._rng.randrange(2**32))
        return opponent

    def _choose_opponents(self) -> Sequence[Opponent]:
        return self.opponents

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """A new hand; ``options`` may give its ``deck``, ``dealer`` and ``rules``
        (docs/env.md). A hand that sits the agent out, or ends before its first decision, is
        dealt again — with a given deck, that is an error, and so is a given dealer whose
        hand sits the agent out (R12: every deal with that dealer would)."""
        super().reset(seed=seed)
        self._in_play = False
        if seed is not None:
            self._rng = random.Random(seed)
        while True:
            self.game = deal(self.rules, self._rng, options, self.core)
            chosen = iter(self._choose_opponents())
            self._bots = [
                None if s == self.seat else self._bot(next(chosen))
                for s in range(self.rules.players)
            ]
            tell(self._bots, self.game, "begin")  # a program's start, for this deal
            if options and "dealer" in options and self.seat == self.game.seating.sitting_out:
                raise ValueError(
                    f"with dealer {self.game.dealer} seat {self.seat} sits the hand out (R12)"
                )
            if self.seat != self.game.seating.sitting_out:
                self._play_others()
                if not self.game.is_over:
                    self._in_play = True
                    return self._observation(), {}
            if options and "deck" in options:
                raise ValueError("with this deck and dealer the agent never decides")

    def _play_others(self) -> None:
        game = self.game
        while not isinstance(phase := game.phase, Over) and phase.to_act != self.seat:
            bot = self._bots[phase.to_act]
            assert bot is not None  # every seat but the agent's has one
            game.apply(bot_choice(bot, game, phase.to_act))

    def _observation(self) -> dict[str, Any]:
        if not self.history:
            out = observation_arrays(self.game, self.seat)
        else:
            obs = observe(self.game, self.seat, events=True)
            out = {"observation": encode(obs), "action_mask": action_mask(obs)}
            out["history"] = encode_history(obs, self.history)
        if not self._in_play:
            # A hand ended by the penalty is unfinished in the engine, but nothing is legal.
            out["action_mask"] = np.zeros(NUM_ACTIONS, dtype=np.int8)
        return out

    def action_masks(self) -> NDArray[np.bool_]:
        """The legal actions now, as sb3-contrib's ``MaskablePPO`` asks for them (none while
        no hand is in play)."""
        if not self._in_play:
            return np.zeros(NUM_ACTIONS, dtype=np.bool_)
        return action_mask(observe(self.game, self.seat, events=False)).astype(bool)

    def step(self, action: int) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        if not self._in_play:
            raise ResetNeeded("no hand is in play: call reset() first")
        chosen = id_to_action(action_id(action))
        if self.illegal == "penalty" and chosen not in self.game.legal_actions():
            self._in_play = False
            paid = penalty_payments(self.seat, self.game.seating.playing, self.penalty)
            info = {"illegal": str(chosen), "payments": paid}
            return self._observation(), paid[self.seat], True, False, info
        self.game.apply(chosen)  # raises IllegalAction for an illegal one
        self._play_others()
        result = self.game.result
        if result is not None:
            self._in_play = False
            tell(self._bots, self.game, "end")
            return self._observation(), float(result.payments[self.seat]), True, False, {}
        return self._observation(), 0.0, False, False, {}

    def render(self) -> str | None:
        return describe(self.game)

    def close(self) -> None:
        for bot in self._opened:
            close_bot(bot)
        self._opened = []


class SelfPlayEnv(SingleSeatEnv):
    """Self-play: each hand's opponents are drawn (with replacement) from ``pool`` — bot specs,
    bot objects, or policies on the encoded observation (:data:`~paohuzi.env.policy.Policy`)
    — and :meth:`add` puts a snapshot of the learner in the pool as training goes."""

    def __init__(
        self,
        pool: Sequence[Opponent | Policy] = ("random",),
        seat: int = 0,
        rules: RuleSet = HUNAN,
        render_mode: str | None = None,
        **kwargs: Any,
    ) -> None:
        if not pool:
            raise ValueError("the opponent pool is empty")
        super().__init__(seat, ("random",) * (rules.players - 1), rules, render_mode, **kwargs)
        self.pool: list[Opponent] = []
        for entry in pool:
            self.add(entry)

    def add(self, entry: Opponent | Policy, name: str | None = None) -> None:
        """Add a bot spec, a bot, or a policy (made a :class:`PolicyBot` named ``name``)."""
        if isinstance(entry, str) or hasattr(entry, "act"):
            self.pool.append(self._keep(entry))  # type: ignore[arg-type]
        else:
            self.pool.append(PolicyBot(entry, name or f"snapshot-{len(self.pool)}"))

    def _choose_opponents(self) -> Sequence[Opponent]:
        return [self._rng.choice(self.pool) for _ in range(self.rules.players - 1)]


def _penalty(rules: RuleSet, illegal: str, penalty: float | None) -> float:
    return illegal_penalty(rules, illegal, penalty)
