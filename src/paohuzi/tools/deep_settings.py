"""The deep trainer's settings (``paohuzi.tools.deep_train``, D126): plain data, so the
command line can show and check them without importing JAX."""

from __future__ import annotations

import math
from dataclasses import dataclass

FREE_FIELDS = frozenset({"hands", "eval_every", "eval_deals", "eval_seed"})
"""Settings a resume may change: where the run stops and its learning curve's, which change no
weight (a round depends on the seed, its number and the weights before it)."""


@dataclass(frozen=True)
class Settings:
    hands: int = 2_000_000
    round_hands: int = 1_000
    envs: int = 100
    """Hands played at once (one forward pass answers all their pending decisions)."""
    lr: float = 5e-4
    batch: int = 128
    """Decisions a minibatch step (each with all its actions)."""
    passes: float = 2.0
    """Minibatch steps a round: passes × the round's decisions / batch. A round's decisions
    are used in that round only (no replay buffer), so a resumed run is exactly the run it
    continues."""
    epsilon: float = 0.05
    greedy_share: float = 0.5
    """Chance that a seat of a hand is the greedy bot (at least one seat is the network)."""
    state_hidden: tuple[int, ...] = (256, 256)
    action_hidden: int = 64
    head_hidden: tuple[int, ...] = (256, 128)
    rollout_waits: bool = True
    """The label's players: the greedy bot as it plays (counting waits, True) or the faster
    rollout policy the expert searches with (False). Labels of the rollout policy taught the
    network choices that pay only against players who ignore their waits (D126)."""
    samples: int = 0
    """How an action is labelled: 0, by one rollout from the true deal (what the seat cannot
    know is noise in the label); N, by the mean of its rollouts over N deals drawn from what
    the seat knows, weighted by the others' play as the expert draws them (D155: the expert's
    search values, distilled)."""
    value_weight: float = 0.1
    """Weight of the decisions' mean value in the loss (the rest: each action against it)."""
    seed: int = 0
    eval_every: int = 10
    """Rounds between points of the learning curve (0: none)."""
    eval_deals: int = 200
    eval_seed: int = 900
    """Deals of the curve's evaluation (duplicate, against two greedy bots)."""

    def problem(self) -> str | None:
        """What is wrong with these settings, if anything (one line for the command line)."""
        counts = {
            "--hands": self.hands,
            "--round-hands": self.round_hands,
            "--envs": self.envs,
            "--batch": self.batch,
            "--eval-deals": self.eval_deals,
        }
        for flag, value in counts.items():
            if value < 1:
                return f"{flag} must be at least 1"
        if self.eval_every < 0:
            return "--eval-every must be 0 or more"
        if not 0 <= self.samples <= 1000:
            return "--samples must be between 0 and 1000"
        limits: tuple[tuple[str, float, float], ...] = (
            ("--lr", self.lr, 1.0),
            ("--passes", self.passes, 100.0),
            ("--epsilon", self.epsilon, 1.0),
            ("--greedy-share", self.greedy_share, 1.0),
        )
        for flag, bound, top in limits:
            if not (math.isfinite(bound) and 0 <= bound <= top):
                return f"{flag} must be between 0 and {top:g}"
        if self.lr == 0 or self.passes == 0:
            return "--lr and --passes must be above 0"
        if self.greedy_share == 1:
            return "--greedy-share must be below 1 (a hand needs a network seat)"
        return None
