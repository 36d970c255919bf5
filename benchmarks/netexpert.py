"""The expert's search with `learned`'s network naming its favourite and more candidates: the
bot of D189, kept so that its runs can be run again from their commands (not a shipped level).

Run from this directory, as a ``module:factory`` bot (the loader finds modules in the
current directory): ``cd benchmarks && paohuzi tournament --bots netexpert:make,expert,greedy
--deals 1000 --seed 8702 --workers 2``.

It is ``expert`` (:class:`paohuzi.bots.expert.ExpertBot`: 0.5 s a decision, samples weighted
by the others' play, every rollout's seat counting its waits) but for its candidates and its
favourite: the network's best choices (at most :data:`TOP`, within :data:`MARGIN` points of its
best) come first, its best the favourite, then the greedy bot's shortlist as the expert has
it; the race and the rule for leaving the favourite (a paired gain more than one standard
error above zero, :func:`paohuzi.bots.expert.choose`) are the expert's. ``netexpert:settled``
chooses as `learned` does instead (:class:`SettlingBot`).
"""

from __future__ import annotations

import numpy as np

from paohuzi.bots.beliefs import Beliefs
from paohuzi.bots.expert import ExpertBot, choose, race
from paohuzi.bots.expert_v1 import CLEAR_MARGIN
from paohuzi.bots.learned import SCALE, QNet, action_features, settle, shipped
from paohuzi.engine.actions import HU, Action
from paohuzi.engine.observation import Observation

TOP = 4
"""The network's best choices searched at most (as `learned`'s search)."""
MARGIN = 3.0
"""Points below the network's best within which a choice of the network is searched."""
PRIOR = 40.0
"""Samples the network's estimate counts for in :class:`SettlingBot` (as `learned`'s)."""


class NetExpertBot(ExpertBot):
    """See the module docstring."""

    name = "netexpert"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.net: QNet = shipped()

    def act(self, observation: Observation) -> Action:
        legal = observation.legal
        if len(legal) == 1:
            return legal[0]
        if HU in legal:
            return HU
        values = SCALE * self.net(action_features(observation, legal)).astype(np.float64)
        order = [int(i) for i in np.argsort(-values, kind="stable")]
        picks = [i for i in order[:TOP] if values[i] >= values[order[0]] - MARGIN]
        for action in self.shortlist(observation, margin=CLEAR_MARGIN):
            if legal.index(action) not in picks:
                picks.append(legal.index(action))
        if len(picks) == 1:
            return legal[picks[0]]
        candidates = [legal[i] for i in picks]
        seed = self._rng.randrange(2**32)
        deadline = self._deadline()  # taken before the beliefs are read, as the expert takes it
        rows = race(
            observation,
            candidates,
            *self._bounds(),
            seed,
            deadline,
            Beliefs(observation),
            waits=True,
        )
        return candidates[self.pick(rows, [float(values[i]) for i in picks])]

    def pick(self, rows: list[list[float]], estimates: list[float]) -> int:
        """The candidate played after the race (``estimates``: the network's, in points)."""
        return choose(rows)


class SettlingBot(NetExpertBot):
    """The same search, the choice made as `learned` makes it: the best mean of the payments
    with the network's estimate counting as :data:`PRIOR` samples
    (:func:`paohuzi.bots.learned.settle`)."""

    name = "netexpert-settle"

    def pick(self, rows: list[list[float]], estimates: list[float]) -> int:
        return settle(rows, estimates, PRIOR)


def make(seed: int | None = None) -> NetExpertBot:
    """The bot, for ``--bots netexpert:make``."""
    return NetExpertBot(seed)


def settled(seed: int | None = None) -> SettlingBot:
    """The settling variant, for ``--bots netexpert:settled``."""
    return SettlingBot(seed)
