"""A policy on the encoded observation as a bot: (observation planes, action mask) → action id.

``PolicyBot(policy)`` plays wherever a bot does — ``play_hand``, ``SingleSeatEnv`` opponents,
a self-play pool — and, made by a module-level factory (``mypackage.bots:make``), in
``paohuzi tournament`` and ``paohuzi ladder`` with ``--workers`` and on Ray. A policy that is
a module-level function or a picklable object pickles with the bot.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from paohuzi.engine.action_ids import id_to_action
from paohuzi.engine.actions import Action
from paohuzi.engine.game import IllegalAction
from paohuzi.engine.observation import Observation
from paohuzi.env.encoding import action_mask, encode

Policy = Callable[[NDArray[np.float32], NDArray[np.int8]], int]
"""(observation planes, action mask) → action id, as the environments give them."""


class PolicyBot:
    """A bot that asks ``policy`` for the id of its action."""

    def __init__(self, policy: Policy, name: str = "policy") -> None:
        self.policy = policy
        self.name = name

    def act(self, observation: Observation) -> Action:
        mask = action_mask(observation)
        chosen = id_to_action(int(self.policy(encode(observation), mask)))
        if chosen not in observation.legal:
            raise IllegalAction(f"policy {self.name} chose {chosen}, which is not legal now")
        return chosen


def first_legal(planes: NDArray[np.float32], mask: NDArray[np.int8]) -> int:
    """The policy that plays the legal action of smallest id (an example; deterministic)."""
    return int(np.flatnonzero(mask)[0])


def first_legal_bot(seed: int | None = None) -> PolicyBot:
    """``paohuzi.env.policy:first_legal_bot``: :func:`first_legal` as a bot."""
    return PolicyBot(first_legal, name="first-legal")
