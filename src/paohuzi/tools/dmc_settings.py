"""The settings of a training run of the learned bot (:mod:`paohuzi.tools.dmc`), apart from the
trainer so that the command line knows them without NumPy."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from paohuzi.engine.core import Waits


@dataclass(frozen=True)
class Settings:
    """A training run's settings (the defaults made the shipped checkpoint)."""

    hands: int = 50_000
    """Hands to play in all."""
    round_hands: int = 500
    """Hands played between two fits."""
    warmup: int = 2
    """Rounds played by greedy bots only (the network learns their values first)."""
    steps: int = 150
    """Adam steps a round."""
    batch: int = 512
    lr: float = 1e-3
    epsilon: float = 0.05
    """How often a network seat takes a random legal action while training."""
    learner_share: float = 0.5
    """How likely each seat is played by the network (otherwise by the greedy bot)."""
    buffer: int = 300_000
    """Most recent rows kept to fit on."""
    hidden: tuple[int, ...] = (64, 64)
    seed: int = 0
    samples: int = 0
    """0: Deep Monte-Carlo (the target of an action taken is the hand's payment). N: every
    decision with a choice, whoever plays it, labels all its actions with their mean payment
    over N deals drawn from what the seat knows (the expert's values, D155), and the network
    is fitted to each action's label less its decision's mean."""
    label_waits: Waits = True
    """Who counts their waits in the labels' rollouts (``samples`` > 0): True every seat, as
    the greedy bot plays; ``"seat"`` the deciding seat only, the others playing the cheap
    rollout policy, as ``learned`` searches (D161)."""
    label_deals: Literal["drawn", "true"] = "drawn"
    """Where the labels' rollouts are played (``samples`` > 0): ``"drawn"``, on deals drawn
    from what the seat knows (D155); ``"true"``, on the hand's true deal with only the wall's
    order drawn again (D180)."""
    label_losses: float = 1.0
    """How many times a rollout's payment counts in a label when it is below zero (``samples``
    > 0): 1 as it is; more values the actions as if the others won more often than the
    rollouts' greedy players do (D190)."""
    eval_every: int = 8
    """Rounds between points of the learning curve (0: none). A point measures the network
    as ``learned`` plays it on duplicate deals (:func:`paohuzi.tools.dmc.evaluate`); it
    changes nothing of the run, so the curve's settings are not the run's options."""
    eval_deals: int = 200
    """Deals of a point against two greedy bots (the network alone and with the search)."""
    eval_expert_deals: int = 100
    """Deals of a point against two experts (0: none)."""
    eval_seed: int = 900
    """The seed of the curve's deals."""


EVAL_FIELDS = frozenset({"eval_every", "eval_deals", "eval_expert_deals", "eval_seed"})
"""The settings of the learning curve, which change nothing of the weights: a run may be
resumed with others."""
