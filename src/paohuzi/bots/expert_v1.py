"""The first expert (``expert-v1``), kept unchanged for comparison: determinized search
(perfect-information Monte Carlo) over samples of the hidden cards. The ``expert`` level is
now :mod:`paohuzi.bots.expert`, which builds on this one.

For a decision, the bot draws positions consistent with what its seat knows
(:mod:`paohuzi.bots.sampler`), plays every candidate choice on each of them to the end of the
hand with fast greedy players for every seat, and scores it by the real points of R10
(the seat's payment). The same sample serves every candidate, so their comparison is not
blurred by the luck of the sample. Candidates are the greedy bot's best few choices, its
favourite first; the bot leaves the favourite only for a candidate whose paired gain over it
is more than one standard error above zero, and does not search at all when the greedy
scores leave no doubt. It searches until its time budget is spent (about 1 s by default) or,
for reproducible play, for a fixed number of samples; ``workers`` > 1 spreads the samples
over that many processes.
"""

from __future__ import annotations

import math
import os
import random
import time
from collections.abc import Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass

from paohuzi.bots.greedy import GreedyBot
from paohuzi.bots.rollout import rollout_payments
from paohuzi.bots.sampler import sample
from paohuzi.engine.actions import HU, Action
from paohuzi.engine.game import CoreName
from paohuzi.engine.observation import Observation
from paohuzi.tools.workers import start_worker

DEFAULT_BUDGET = 0.95
"""Seconds of search per decision."""
CANDIDATES = 4


CLEAR_MARGIN = 3.0
"""Greedy score lead above which the favourite is played without search."""


@dataclass(frozen=True)
class Estimate:
    """A choice's estimated points for the deciding seat: mean payment over ``samples``, and
    the mean and standard error of its gain over the first candidate on the same samples."""

    action: Action
    mean: float
    samples: int
    gain: float = 0.0
    gain_error: float = 0.0


def rollout_values(
    obs: Observation,
    candidates: Sequence[Action],
    samples: int,
    seed: int,
    deadline: float | None,
    core: CoreName = "auto",
) -> list[list[float]]:
    """Payment of each candidate (rows) on each of up to ``samples`` sampled positions
    (columns, games on ``core``), stopping at ``deadline`` after at least one sample."""
    assert obs.seat is not None
    rng = random.Random(seed)
    values: list[list[float]] = [[] for _ in candidates]
    done = 0
    started = time.monotonic()
    while done < samples:
        # Stop when another sample would likely end after the deadline.
        now = time.monotonic()
        if deadline is not None and done and now + (now - started) / done > deadline:
            break
        position = sample(obs, rng, core=core)
        for row, payment in zip(
            values, rollout_payments(position, candidates, obs.seat), strict=True
        ):
            row.append(payment)
        done += 1
    return values


def _rollout_job(
    args: tuple[Observation, tuple[Action, ...], int, int, float | None],
) -> list[list[float]]:
    return rollout_values(*args)


def estimates(candidates: Sequence[Action], values: list[list[float]]) -> list[Estimate]:
    """Means, and paired gains over the first candidate, from per-sample payments."""
    n = len(values[0])
    found = []
    for action, row in zip(candidates, values, strict=True):
        diffs = [a - b for a, b in zip(row, values[0], strict=True)]
        gain = sum(diffs) / n
        var = sum((d - gain) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.0
        found.append(Estimate(action, sum(row) / n, n, gain, math.sqrt(var / n)))
    return found


class ExpertV1Bot:
    """Search over sampled hidden cards, scored by points. See the module docstring."""

    name = "expert-v1"

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
        self.time_limit: float | None = None
        """If set, seconds after which a search stops whatever its budget or sample count
        (after one sample at least): a server's hard bound on a decision."""

    def act(self, observation: Observation) -> Action:
        legal = observation.legal
        if len(legal) == 1:
            return legal[0]
        if HU in legal:
            return HU
        shortlist = self.shortlist(observation, margin=CLEAR_MARGIN)
        if len(shortlist) == 1:
            return shortlist[0]
        found = self.evaluate(observation, shortlist)
        better = [e for e in found[1:] if e.gain > 0 and e.gain > e.gain_error]
        return max(better, key=lambda e: e.gain).action if better else found[0].action

    def shortlist(self, observation: Observation, margin: float | None = None) -> list[Action]:
        """The greedy bot's best few choices, its favourite first; with ``margin``, only those
        scored within that much of the favourite."""
        scores = self._greedy.scores(observation)
        favourite = self._greedy.act(observation)
        ranked = sorted(observation.legal, key=lambda a: -scores[a])
        found = [favourite, *(a for a in ranked if a != favourite)][: self.candidates]
        if margin is not None:
            found = [a for a in found if scores[favourite] - scores[a] <= margin or a == favourite]
        return found

    def evaluate(
        self,
        observation: Observation,
        candidates: Sequence[Action] | None = None,
        *,
        seed: int | None = None,
    ) -> list[Estimate]:
        """Estimated points of each candidate (by default the shortlist); ``seed`` the samples'
        (by default the next of the bot's own generator)."""
        chosen = tuple(candidates if candidates is not None else self.shortlist(observation))
        return estimates(chosen, self.payments(observation, chosen, seed=seed))

    def payments(
        self, observation: Observation, candidates: Sequence[Action], *, seed: int | None = None
    ) -> list[list[float]]:
        """What :meth:`evaluate` estimates from: the payment of each candidate (rows) on each
        sample (columns, the same samples in the same order for every row)."""
        chosen = tuple(candidates)
        now = time.monotonic()
        deadline = None if self.samples is not None else now + self.budget
        if self.time_limit is not None:
            deadline = min(deadline or math.inf, now + self.time_limit)
        wanted = self.samples if self.samples is not None else 1_000_000
        if seed is None:
            seed = self._rng.randrange(2**32)
        values: list[list[float]]
        if self.workers <= 1:
            values = rollout_values(observation, chosen, wanted, seed, deadline)
        else:
            if self._pool is None:
                import multiprocessing

                self._pool = ProcessPoolExecutor(
                    self.workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=start_worker,  # they end with this process, even killed
                    initargs=(os.getpid(),),
                )
            share = -(-wanted // self.workers)
            jobs = [(observation, chosen, share, seed + i, deadline) for i in range(self.workers)]
            values = [[] for _ in chosen]
            part: list[list[float]]
            for part in self._pool.map(_rollout_job, jobs):
                for row, more in zip(values, part, strict=True):
                    row.extend(more)
        return values

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
