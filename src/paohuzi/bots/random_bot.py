"""A bot that picks uniformly among the legal actions."""

from __future__ import annotations

import random

from paohuzi.actions import Action
from paohuzi.native_game import NativeGame
from paohuzi.observation import Observation


class RandomBot:
    """Uniformly random legal choices, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def act(self, observation: Observation) -> Action:
        return self._rng.choice(observation.legal)

    def native_act(self, game: NativeGame) -> Action:
        """:meth:`act` for the seat to act in a native game: the same choice from the same
        legal actions (:func:`paohuzi.bots.base.play_hand`)."""
        return self._rng.choice(game.legal_actions())
