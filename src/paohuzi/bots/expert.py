"""The strongest level: determinized search (perfect-information Monte Carlo) over samples of
the hidden cards.

For a decision, the bot draws positions consistent with what its seat knows
(:mod:`paohuzi.bots.sampler`), plays every candidate choice on each of them to the end of the
hand with fast greedy players for all three seats, and scores it by the real points of R10
(the seat's payment). The same sample serves every candidate, so their comparison is not
blurred by the luck of the sample. Candidates are the greedy bot's best few choices (always
including its favourite). It searches until its time budget is spent (about 1 s by default)
or, for reproducible play, for a fixed number of samples; ``workers`` > 1 spreads the samples
over that many processes.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass

from paohuzi.actions import HU, Action
from paohuzi.bots.base import play_hand
from paohuzi.bots.greedy import GreedyBot
from paohuzi.bots.sampler import sample
from paohuzi.observation import Observation

DEFAULT_BUDGET = 1.0
"""Seconds of search per decision."""
CANDIDATES = 4


@dataclass(frozen=True)
class Estimate:
    """A choice's estimated points for the deciding seat: mean payment over ``samples``."""

    action: Action
    mean: float
    samples: int


def rollout_values(
    obs: Observation, candidates: Sequence[Action], samples: int, seed: int, deadline: float | None
) -> tuple[list[float], int]:
    """Total payment of each candidate over up to ``samples`` sampled positions (stopping at
    ``deadline``, after at least one); returns the totals and the samples played."""
    assert obs.seat is not None
    rng = random.Random(seed)
    policy = GreedyBot(waits=False)
    players = [policy, policy, policy]
    totals = [0.0] * len(candidates)
    done = 0
    started = time.monotonic()
    while done < samples:
        # Stop when another sample would likely end after the deadline.
        now = time.monotonic()
        if deadline is not None and done and now + (now - started) / done > deadline:
            break
        position = sample(obs, rng)
        for i, action in enumerate(candidates):
            game = position.clone()
            game.apply(action)
            play_hand(game, players)
            assert game.result is not None
            totals[i] += game.result.payments[obs.seat]
        done += 1
    return totals, done


def _rollout_job(
    args: tuple[Observation, tuple[Action, ...], int, int, float | None],
) -> tuple[list[float], int]:
    return rollout_values(*args)


class ExpertBot:
    """Search over sampled hidden cards, scored by points. See the module docstring."""

    name = "expert"

    def __init__(
        self,
        seed: int | None = None,
        *,
        budget: float = DEFAULT_BUDGET,
        samples: int | None = None,
        candidates: int = CANDIDATES,
        workers: int = 1,
    ) -> None:
        self._rng = random.Random(seed)
        self.budget = budget
        self.samples = samples
        self.candidates = candidates
        self.workers = workers
        self._greedy = GreedyBot()
        self._pool: Executor | None = None

    def act(self, observation: Observation) -> Action:
        legal = observation.legal
        if len(legal) == 1:
            return legal[0]
        if HU in legal:
            return HU
        best = max(self.evaluate(observation), key=lambda e: e.mean)
        return best.action

    def shortlist(self, observation: Observation) -> list[Action]:
        """The greedy bot's best few choices, its favourite first."""
        scores = self._greedy.scores(observation)
        favourite = self._greedy.act(observation)
        ranked = sorted(observation.legal, key=lambda a: -scores[a])
        return [favourite, *(a for a in ranked if a != favourite)][: self.candidates]

    def evaluate(
        self, observation: Observation, candidates: Sequence[Action] | None = None
    ) -> list[Estimate]:
        """Estimated points of each candidate (by default the shortlist)."""
        chosen = tuple(candidates if candidates is not None else self.shortlist(observation))
        deadline = None if self.samples is not None else time.monotonic() + self.budget
        wanted = self.samples if self.samples is not None else 1_000_000
        if self.workers <= 1:
            totals, done = rollout_values(
                observation, chosen, wanted, self._rng.randrange(2**32), deadline
            )
        else:
            if self._pool is None:
                import multiprocessing

                self._pool = ProcessPoolExecutor(
                    self.workers, mp_context=multiprocessing.get_context("spawn")
                )
            share = -(-wanted // self.workers)
            jobs = [
                (observation, chosen, share, self._rng.randrange(2**32), deadline)
                for _ in range(self.workers)
            ]
            totals, done = [0.0] * len(chosen), 0
            for part, n in self._pool.map(_rollout_job, jobs):
                totals = [a + b for a, b in zip(totals, part, strict=True)]
                done += n
        return [Estimate(a, t / done, done) for a, t in zip(chosen, totals, strict=True)]

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
