"""A bot that picks uniformly among the legal actions."""

from __future__ import annotations

import random

from paohuzi.actions import Action
from paohuzi.observation import Observation


class RandomBot:
    """Uniformly random legal choices, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def act(self, observation: Observation) -> Action:
        return self._rng.choice(observation.legal)
