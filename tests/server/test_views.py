"""A state's events, built once each (:mod:`paohuzi.server.views`), are what the seat's own
observation says, at every step of a hand, for every seat and the spectators, game after game."""

from __future__ import annotations

import json
import random

from paohuzi.bots.protocol import event_json
from paohuzi.engine.game import Game
from paohuzi.engine.observation import observe
from paohuzi.engine.rules import HUNAN
from paohuzi.server.views import SeatEvents, events_text


def test_the_kept_events_are_each_seats_observation_at_every_step() -> None:
    kept = SeatEvents()
    seats: list[int | None] = [0, 1, 2, None]
    hidden = 0
    for seed in range(3):  # a new game starts afresh
        game = Game(HUNAN, dealer=0, seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            for seat in seats:
                expected = [event_json(e) for e in observe(game, seat).events]
                assert json.loads(kept.text(game, seat)) == expected
                assert json.loads(events_text(game, seat)) == expected
                hidden += sum(1 for e in expected if e["card"] is None)
            game.apply(rng.choice(game.legal_actions()))
    assert hidden  # the others' private cards were hidden somewhere
