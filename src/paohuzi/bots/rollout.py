"""Rollouts: a complete (determinized) position played to the end by fast greedy players.

This is the reference the expert's search is built on (:mod:`paohuzi.bots.expert`), and the
seam a native core serves at compiled speed (issue 14): the same inputs must give the same
payments, whichever implementation runs them. A game on the native core plays every
candidate out inside it (``Game.rollout``, D38); a game on the Python core plays them here, the
one Python fallback (D85).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from paohuzi.bots.base import play_hand
from paohuzi.bots.beliefs import Beliefs, draw, draw_payments
from paohuzi.bots.greedy import GreedyBot
from paohuzi.bots.sampler import sample, sample_payments
from paohuzi.engine.actions import Action
from paohuzi.engine.core import Waits
from paohuzi.engine.game import Game
from paohuzi.engine.observation import Observation

ROLLOUT_POLICY = GreedyBot(count_waits=False)
"""Every seat's player in a rollout: the greedy bot without its (costly) count of waits."""
WAITS_POLICY = GreedyBot(count_waits=True)
"""Every seat's player in a rollout ``waits``: the greedy bot as it plays (about five times
the cost a rollout, and closer to how the others play, D154)."""


def rollout_payments(
    game: Game, candidates: Sequence[Action], seat: int, *, waits: Waits = False
) -> list[int]:
    """For each candidate (legal now in ``game``, which is not changed): ``seat``'s payment
    (R10) when the candidate is played and then every seat plays the rollout policy to the
    end of the hand; with ``waits`` True, :data:`WAITS_POLICY`; with ``"seat"``, ``seat``
    plays :data:`WAITS_POLICY` and the others the rollout policy (:data:`Waits`)."""
    inside = game.rollout(candidates, seat, waits=waits)
    if inside is not None:
        return inside
    players = [
        WAITS_POLICY if waits is True or (waits == "seat" and s == seat) else ROLLOUT_POLICY
        for s in range(game.rules.players)
    ]
    found = []
    for action in candidates:
        copy = game.clone()
        copy.apply(action)
        found.append(play_hand(copy, players).payments[seat])
    return found


def sampled_rollout(
    obs: Observation,
    beliefs: Beliefs | None,
    rng: random.Random,
    candidates: Sequence[Action],
    waits: Waits,
) -> list[int]:
    """``rollout_payments`` of the candidates on one game drawn for ``obs`` — uniformly
    (:func:`paohuzi.bots.sampler.sample`) or with ``beliefs`` weighted by the others' play
    (:func:`paohuzi.bots.beliefs.draw`) — in one call to the native core where it serves
    (D159), else drawn and played here: the same game and payments from the same ``rng``."""
    assert obs.seat is not None
    if beliefs is None:
        paid = sample_payments(obs, rng, candidates, waits)
    else:
        paid = draw_payments(obs, beliefs, rng, candidates, waits)
    if paid is not None:
        return paid
    game = sample(obs, rng) if beliefs is None else draw(obs, beliefs, rng)
    return rollout_payments(game, candidates, obs.seat, waits=waits)


def sampled_payments(
    obs: Observation,
    candidates: Sequence[Action],
    samples: int,
    rng: random.Random,
    *,
    waits: Waits = True,
    losses: float = 1.0,
) -> list[float]:
    """For each candidate (legal in ``obs``): the seat's mean payment over ``samples`` deals
    drawn from what it knows, weighted by the others' play as the expert draws them
    (:func:`paohuzi.bots.beliefs.draw`), each candidate played on the same deals and then
    every seat the rollout policy (with ``waits``, :data:`WAITS_POLICY`; ``"seat"``: the seat
    deciding alone). What the seat cannot see averages out: the values depend on ``obs`` and
    ``rng`` alone (the labels of D155, and the yardstick of ``benchmarks/picks.py``). A
    rollout's payment below zero counts ``losses`` times (:func:`weigh_losses`, D190)."""
    assert obs.seat is not None and samples >= 1
    beliefs = Beliefs(obs)
    total = [0.0] * len(candidates)
    for _ in range(samples):
        paid = weigh_losses(sampled_rollout(obs, beliefs, rng, candidates, waits), losses)
        total = [t + p for t, p in zip(total, paid, strict=True)]
    return [t / samples for t in total]


def weigh_losses(paid: Sequence[float], losses: float) -> list[float]:
    """The payments ``paid`` with each one below zero multiplied by ``losses``: 1 leaves
    them as they are; above 1 values a choice as if the others won more often than the
    rollouts' greedy players do (D190)."""
    return [p * losses if p < 0 else float(p) for p in paid]
