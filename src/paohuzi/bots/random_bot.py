"""A bot that picks uniformly among the legal actions."""

from __future__ import annotations

import random

from paohuzi.engine.actions import Action
from paohuzi.engine.game import Game
from paohuzi.engine.observation import Observation


class RandomBot:
    """Uniformly random legal choices, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def act(self, observation: Observation) -> Action:
        return self._rng.choice(observation.legal)

    def game_act(self, game: Game) -> Action:
        """:meth:`act` for the seat to act in ``game``: the same choice from the same legal
        actions, without building the observation (:func:`paohuzi.bots.base.bot_choice`)."""
        return self._rng.choice(game.legal_actions())
