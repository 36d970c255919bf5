"""The strongest level: determinized search over samples of the hidden cards, with the samples
raced between the candidates (issue 14), drawn in proportion to what the others' play says
about their hands (issue 26).

Like the first expert (:mod:`paohuzi.bots.expert_v1`, kept as ``expert-v1``), the bot draws
positions consistent with what its seat knows (:mod:`paohuzi.bots.sampler`), plays candidate
choices on each to the end of the hand with fast greedy players for every seat
(:func:`paohuzi.bots.rollout.rollout_payments`) and scores them by the real points of R10.
What it does differently is how it spends its rollouts:

* it considers more of the greedy bot's choices (:data:`CANDIDATES`, the favourite first);
* it races them: after every sample (from :data:`RACE_FROM` samples on) a candidate whose
  paired loss to the current leader is more than :data:`DROP_Z` standard errors above zero
  is dropped, so the rollouts go to the choices still in doubt; the search ends when one is
  left, the samples are done or the time is up;
* the same sample serves every candidate still in the race (common random numbers), and the
  bot leaves the greedy favourite, as before, only for a choice whose paired gain over it is
  more than one standard error above zero (or when the favourite was dropped).

The ``expert`` (:class:`ExpertBot`) draws its samples weighted by the others' play
(:mod:`paohuzi.bots.beliefs`: a deal in which a seat discarded a card of a pair it held, or let a
card it held a pair of go by, is drawn less often), and its rollouts' players count their
waits as the greedy bot does in play (D154: the search's figures are then of play like the
others'; the cheaper rollouts ignoring waits favoured choices that pay only against players
who ignore them). The raced search before it, uniform samples and cheap rollouts, stays as
``expert-v2`` (:class:`ExpertV2Bot`) to compare with.

Levels are time budgets per decision (:data:`LEVELS`); ``expert@N`` searches until the
choices still in the race have N samples each (reproducible), whatever the time.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence

from paohuzi.bots.beliefs import CHOICES, Beliefs
from paohuzi.bots.expert_v1 import CLEAR_MARGIN, Estimate, ExpertV1Bot
from paohuzi.bots.rollout import sampled_rollout
from paohuzi.engine.actions import HU, Action
from paohuzi.engine.core import Waits
from paohuzi.engine.observation import Observation

DEFAULT_BUDGET = 0.5
"""Seconds of search per decision (the ``expert`` level)."""
LEVELS = {"expert@0.2s": 0.2, "expert": DEFAULT_BUDGET, "expert@1s": 1.0}
"""Documented levels by time budget: quick, default, strong (any ``expert@Xs`` works)."""
CANDIDATES = 6
"""The greedy bot's best choices searched (those within :data:`CLEAR_MARGIN` of its favourite)."""
RACE_FROM = 6
"""Samples every candidate gets before any is dropped."""
DROP_Z = 2.0
"""Standard errors of paired loss to the leader beyond which a candidate is dropped."""


def paired(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """Mean and standard error of ``a - b`` over the samples both have."""
    n = min(len(a), len(b))
    diffs = [x - y for x, y in zip(a[:n], b[:n], strict=True)]
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.0
    return mean, math.sqrt(var / n)


def race(
    obs: Observation,
    candidates: Sequence[Action],
    samples: int,
    seed: int,
    deadline: float | None,
    beliefs: Beliefs | None = None,
    *,
    waits: Waits = False,
) -> list[list[float]]:
    """Payments of each candidate (rows) on the samples it took part in (columns, the same
    samples in the same order for every row, a dropped candidate's row stopping early).
    Stops when one candidate is left, the survivors have ``samples`` samples, or another
    sample would likely end after ``deadline`` (after one sample at least). The samples are
    uniform among the deals the rules allow, or with ``beliefs`` weighted by them; ``waits``:
    which of the rollouts' players count their waits (:data:`paohuzi.engine.core.Waits`)."""
    assert obs.seat is not None
    rng = random.Random(seed)
    rows: list[list[float]] = [[] for _ in candidates]
    live = list(range(len(candidates)))
    tally = Tally(len(candidates))
    done = rollouts = 0
    started = time.monotonic()
    while done < samples and len(live) > 1:
        # Stop when another sample (a rollout of each candidate left) would likely end late.
        now = time.monotonic()
        if (
            deadline is not None
            and rollouts
            and now + len(live) * (now - started) / rollouts > deadline
        ):
            break
        paid = sampled_rollout(obs, beliefs, rng, [candidates[i] for i in live], waits)
        for i, payment in zip(live, paid, strict=True):
            rows[i].append(payment)
        tally.add(live, paid)
        done += 1
        rollouts += len(live)
        if done >= RACE_FROM:
            live = tally.survivors(live)
    return rows


class Tally:
    """Running sums of the payments of the candidates in a race, and of their products by
    pairs, so that a paired comparison costs the same after ten samples or ten thousand."""

    def __init__(self, size: int) -> None:
        self.n = 0
        self.sums = [0.0] * size
        self.products = [[0.0] * size for _ in range(size)]

    def add(self, live: Sequence[int], paid: Sequence[float]) -> None:
        """One more sample: the payments ``paid`` of the candidates ``live``."""
        self.n += 1
        for i, x in zip(live, paid, strict=True):
            self.sums[i] += x
            row = self.products[i]
            for j, y in zip(live, paid, strict=True):
                row[j] += x * y

    def loss(self, leader: int, i: int) -> tuple[float, float]:
        """Mean and standard error of the leader's payment minus candidate ``i``'s."""
        n = self.n
        total = self.sums[leader] - self.sums[i]
        p = self.products
        squares = p[leader][leader] + p[i][i] - 2 * p[leader][i]
        var = (squares - total * total / n) / (n - 1) if n > 1 else 0.0
        return total / n, math.sqrt(max(var, 0.0) / n)

    def survivors(self, live: list[int]) -> list[int]:
        """The candidates still in the race (every one of them has every sample): the leader
        (best mean), and those whose paired loss to it is not clearly (:data:`DROP_Z`
        standard errors) above zero."""
        leader = max(live, key=lambda i: self.sums[i])
        kept = []
        for i in live:
            loss, error = self.loss(leader, i)
            if i == leader or loss <= DROP_Z * error or loss <= 0:
                kept.append(i)
        return kept


def survivors(rows: list[list[float]], live: list[int]) -> list[int]:
    """:meth:`Tally.survivors` of candidates ``live`` with these payments (rows of equal
    length)."""
    tally = Tally(len(rows))
    for column in zip(*(rows[i] for i in live), strict=True):
        tally.add(live, column)
    return tally.survivors(live)


def choose(rows: list[list[float]]) -> int:
    """The row (candidate) to play after a race: among those that ran to the end, the best
    paired gain over the favourite (row 0) if it is more than one standard error above zero,
    else the favourite; if the favourite was dropped, the best mean of those left."""
    done = max(len(r) for r in rows)
    left = [i for i, r in enumerate(rows) if len(r) == done]
    if 0 not in left:
        return max(left, key=lambda i: sum(rows[i]) / done)
    best, best_gain = 0, 0.0
    for i in left[1:]:
        gain, error = paired(rows[i], rows[0])
        if gain > 0 and gain > error and gain > best_gain:
            best, best_gain = i, gain
    return best


class ExpertV2Bot(ExpertV1Bot):
    """Raced search over uniformly sampled hidden cards, scored by points (``expert-v2``, the
    ``expert`` of issue 14). See the module docstring. ``evaluate`` and ``shortlist`` (what
    ``review`` uses) work as in the first expert: every candidate on every uniform sample."""

    name = "expert-v2"
    weighs = False
    """Whether the samples are weighted by the others' play (:mod:`paohuzi.bots.beliefs`)."""
    waits = False
    """Whether the rollouts' players count their waits, as the greedy bot does in play (D154)."""
    choices = CHOICES
    """Deals drawn for each sample when ``weighs`` (one kept by weight)."""

    def __init__(
        self,
        seed: int | None = None,
        *,
        budget: float = DEFAULT_BUDGET,
        samples: int | None = None,
        candidates: int = CANDIDATES,
        workers: int = 1,
    ) -> None:
        super().__init__(
            seed, budget=budget, samples=samples, candidates=candidates, workers=workers
        )

    def act(self, observation: Observation) -> Action:
        legal = observation.legal
        if len(legal) == 1:
            return legal[0]
        if HU in legal:
            return HU
        shortlist = self.shortlist(observation, margin=CLEAR_MARGIN)
        if len(shortlist) == 1:
            return shortlist[0]
        seed = self._rng.randrange(2**32)
        if self.workers > 1:  # every candidate on every sample, spread over processes
            found = self.evaluate(observation, shortlist, seed=seed)
            better = [e for e in found[1:] if e.gain > 0 and e.gain > e.gain_error]
            return max(better, key=lambda e: e.gain).action if better else found[0].action
        rows = race(
            observation,
            shortlist,
            *self._bounds(),
            seed,
            self._deadline(),
            self._beliefs(observation),
            waits=self.waits,
        )
        return shortlist[choose(rows)]

    def race_estimates(
        self, observation: Observation, candidates: Sequence[Action], seed: int
    ) -> list[Estimate]:
        """Each candidate's figures after a race (for tests and benchmarks): mean payment
        over the samples it took part in, and paired gain over the favourite on those."""
        rows = race(
            observation,
            candidates,
            *self._bounds(),
            seed,
            self._deadline(),
            self._beliefs(observation),
            waits=self.waits,
        )
        found = []
        for action, row in zip(candidates, rows, strict=True):
            gain, error = paired(row, rows[0])
            found.append(Estimate(action, sum(row) / len(row), len(row), gain, error))
        return found

    def _beliefs(self, observation: Observation) -> Beliefs | None:
        return Beliefs(observation, choices=self.choices) if self.weighs else None

    def _bounds(self) -> tuple[int]:
        return (self.samples if self.samples is not None else 1_000_000,)

    def _deadline(self) -> float | None:
        now = time.monotonic()
        deadline = None if self.samples is not None else now + self.budget
        if self.time_limit is not None:
            limit = now + self.time_limit
            deadline = limit if deadline is None else min(deadline, limit)
        return deadline


class ExpertBot(ExpertV2Bot):
    """The raced search of ``expert-v2`` over samples drawn in proportion to what the others'
    play says about their hands (:mod:`paohuzi.bots.beliefs`, D135), with rollouts whose
    players count their waits (D154). With ``workers`` > 1, and in ``evaluate``, the samples
    are uniform and the rollouts the cheap ones, as before."""

    name = "expert"
    weighs = True
    waits = True
