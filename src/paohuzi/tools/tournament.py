"""Fair comparison of bots by duplicate deals.

Every deal (a seeded deck and dealer) is played once for each distinct way of seating the
bots, so each bot meets the same cards from every seat and the luck of the deal cancels. A
bot's score for a deal is its mean payment (R10.5) over the hands it sat in; the tournament
reports the mean of those per-deal scores with a 95% confidence interval, deals being the
independent samples. At a four-seat table (R12) a bot sitting a hand out is not counted in it.

A bot that raises while choosing is recorded (:class:`BotError`) and greedy chooses for it that
once (D124): one broken decision costs the bot a move, not the run. A protocol program
(``cmd:``) is started once a process and plays every hand it is dealt (:data:`PROGRAMS`,
D130); its failures are recorded the same way.
"""

from __future__ import annotations

import atexit
import math
import random
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations, islice, permutations
from typing import Any

from paohuzi.bots import make_bot, play_hand
from paohuzi.bots.base import Bot, bot_choice
from paohuzi.bots.loader import CMD, Programs
from paohuzi.engine.cards import full_deck
from paohuzi.engine.game import CoreName, Game
from paohuzi.engine.observation import Observation
from paohuzi.engine.record import JSON, record_of
from paohuzi.engine.rules import HUNAN, RuleSet
from paohuzi.tools.distributed import run_jobs

PROGRAMS = Programs()
"""This process's running protocol programs: a run's hands, and a worker's jobs, share them."""
atexit.register(PROGRAMS.close)


@dataclass(frozen=True)
class BotError:
    """A bot raised (or answered an illegal action) at one decision; greedy chose instead
    (:func:`instead`: a protocol program's failures are covered by the protocol's default)."""

    bot: str
    deal: int
    seat: int
    error: str
    """The error's type and first line."""


def instead(bot: str) -> str:
    """What was played for a decision that ``bot`` failed: greedy's choice (D124), or for a
    protocol program the protocol's default (docs/protocol.md)."""
    return "pass or the first legal action played" if bot.startswith(CMD) else "greedy chose"


@dataclass(frozen=True)
class HandOutcome:
    """One hand of a deal: who sat where, and what they were paid."""

    deal: int
    seating: tuple[str, ...]
    payments: tuple[int, ...]
    winner: int | None
    record: JSON | None = None
    sitting_out: int | None = None
    """The seat that sat the hand out (R12), if any."""
    errors: tuple[BotError, ...] = ()


@dataclass(frozen=True)
class BotStats:
    name: str
    mean: float
    ci95: tuple[float, float]
    win_rate: float
    hands: int
    errors: int = 0
    """Decisions at which the bot raised and greedy chose for it."""


@dataclass(frozen=True)
class PairDiff:
    """Bot ``a``'s score minus bot ``b``'s, deal by deal on the same deals: mean and 95% CI."""

    a: str
    b: str
    mean: float
    ci95: tuple[float, float]
    deals: int


def mean_ci(values: Sequence[float]) -> tuple[float, tuple[float, float]]:
    """The mean and its 95% confidence interval (1.96 standard errors)."""
    mean = sum(values) / len(values)
    var = sum((v - mean) ** 2 for v in values) / (len(values) - 1) if len(values) > 1 else 0.0
    half = 1.96 * math.sqrt(var / len(values))
    return mean, (mean - half, mean + half)


def ci_text(ci: tuple[float, float], samples: int) -> str:
    """A 95% CI as the tables print it, ``[-0.120, +0.340]``; ``n/a`` from fewer than two
    samples, which have no spread to measure (:func:`mean_ci` gives the mean twice)."""
    return f"[{ci[0]:+.3f}, {ci[1]:+.3f}]" if samples >= 2 else "n/a"


def ci_json(ci: tuple[float, float], samples: int) -> list[float] | None:
    """A 95% CI as JSON prints it: two numbers, or null from fewer than two samples."""
    return [round(ci[0], 4), round(ci[1], 4)] if samples >= 2 else None


def one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return (f"{type(error).__name__}: {text[0]}" if text else type(error).__name__)[:300]


class Guarded:
    """A bot whose failures are recorded and covered by greedy's choice (D124)."""

    def __init__(self, bot: Bot, spec: str, deal: int, seed: int, errors: list[BotError]):
        self.name = spec
        self._bot = bot
        self._deal = deal
        self._seed = seed
        self._errors = errors
        self._fallback: Bot | None = None

    def game_act(self, game: Game) -> Any:
        seat = game.to_act
        assert seat is not None
        # A protocol bot does not raise: it lists what went wrong and plays the protocol's
        # default, which its program is told of (docs/protocol.md).
        failures = getattr(self._bot, "errors", None)
        known = len(failures) if isinstance(failures, list) else 0
        try:
            action = bot_choice(self._bot, game, seat)
            if action not in game.legal_actions():
                raise ValueError(f"illegal action {action!r}")
            if isinstance(failures, list):
                for failure in failures[known:]:
                    self._errors.append(BotError(self.name, self._deal, seat, failure[:300]))
            return action
        except Exception as error:
            self._errors.append(BotError(self.name, self._deal, seat, one_line(error)))
            if self._fallback is None:
                self._fallback = make_bot("greedy", self._seed)
            return bot_choice(self._fallback, game, seat)

    def act(self, observation: Observation) -> Any:  # pragma: no cover - game_act is used
        return self._bot.act(observation)

    def begin(self, observation: Observation) -> None:
        self._tell("begin", observation)

    def end(self, observation: Observation) -> None:
        self._tell("end", observation)

    def _tell(self, hook: str, observation: Observation) -> None:
        """Call the bot's ``begin`` or ``end`` if it has one, its failures recorded (the seat
        -1: no decision)."""
        call = getattr(self._bot, hook, None)
        if call is None:
            return
        failures = getattr(self._bot, "errors", None)
        known = len(failures) if isinstance(failures, list) else 0
        try:
            call(observation)
        except Exception as error:
            self._errors.append(BotError(self.name, self._deal, -1, one_line(error)))
        if isinstance(failures, list):
            for failure in failures[known:]:
                self._errors.append(BotError(self.name, self._deal, -1, failure[:300]))


def seatings(names: Sequence[str]) -> list[tuple[str, ...]]:
    """Every distinct seating of the bots, in a fixed order."""
    return sorted(set(permutations(names)))


def deal_deck(seed: int, deal: int) -> list[int]:
    deck = full_deck()
    random.Random(seed * 1_000_003 + deal).shuffle(deck)
    return deck


def seat_payments(
    seed: int, deal: int, bots_for: Callable[[int], Sequence[Bot]], rules: RuleSet = HUNAN
) -> list[int]:
    """Deal ``deal`` of ``seed``, dealt as a tournament deals it (:func:`deal_deck`, dealer
    ``deal`` mod the seats), played once for each seat *s* by the bots ``bots_for(s)`` (one a
    seat): each time, seat *s*'s payment. How the trainers measure a network at each seat of
    a duplicate deal."""
    deck = deal_deck(seed, deal)
    paid = []
    for seat in range(rules.players):
        game = Game(rules, dealer=deal % rules.players, deck=deck)
        paid.append(play_hand(game, bots_for(seat)).payments[seat])
    return paid


def play_deal(
    names: Sequence[str],
    seed: int,
    deal: int,
    rules: RuleSet = HUNAN,
    keep_records: bool = False,
    core: CoreName = "auto",
) -> list[HandOutcome]:
    """Play one deal once per seating, each hand a game on ``core``. ``names`` are bot specs
    (:mod:`paohuzi.bots.loader`): each hand gets fresh bots, seeded by the seed, the deal, the
    seating and the seat; a protocol program is this process's running one (:data:`PROGRAMS`),
    told that seed."""
    if len(names) != rules.players:
        raise ValueError(f"{rules.players} bots are needed, one a seat; {len(names)} were given")
    deck = deal_deck(seed, deal)
    outcomes = []
    for n, seating in enumerate(seatings(names)):
        game = Game(rules, dealer=deal % rules.players, deck=deck, core=core)
        bots: list[Bot] = []
        errors: list[BotError] = []
        try:
            for s, name in enumerate(seating):
                bots.append(PROGRAMS.bot(name, seed * 7919 + deal * 31 + n * 3 + s))
            guarded = [
                Guarded(bot, name, deal, seed * 7919 + deal * 31 + n * 3 + s, errors)
                for s, (bot, name) in enumerate(zip(bots, seating, strict=True))
            ]
            result = play_hand(game, guarded)
        finally:
            for bot in bots:
                PROGRAMS.release(bot)
        record = record_of(game).to_json() if keep_records else None
        outcomes.append(
            HandOutcome(
                deal,
                seating,
                tuple(result.payments),
                result.winner,
                record,
                game.seating.sitting_out,
                tuple(errors),
            )
        )
    return outcomes


def _play_batch(
    args: tuple[tuple[tuple[str, ...], ...], int, Sequence[int], RuleSet, bool],
) -> tuple[list[list[HandOutcome]], float]:
    """The hands of each of a job's deals, and the seconds the job took where it was played."""
    tables, seed, deals, rules, keep_records = args
    start = time.perf_counter()
    played = [
        [hand for table in tables for hand in play_deal(table, seed, deal, rules, keep_records)]
        for deal in deals
    ]
    return played, time.perf_counter() - start


JOB_SECONDS = 2.0
"""About how long a job of deals lasts where it is played, once a deal's time is seen
(:class:`JobSizes`)."""


@dataclass
class JobSizes:
    """How many deals each job of a parallel run holds: one until a job has come back, then
    as many as are played in about :data:`JOB_SECONDS` at the time a deal has taken so far
    (measured where they were played, so whatever the backend and its number of workers), at
    most ``cap``. Fast bots' deals go out in batches (fewer round trips); slow bots' go out one
    a job, so that each deal is written as soon as it is played and a run killed loses little
    of its work."""

    cap: int
    deals: int = 0
    seconds: float = 0.0

    def next(self) -> int:
        """The size of the next job."""
        if not self.deals:
            return 1
        each = max(self.seconds / self.deals, 1e-6)
        return max(1, min(self.cap, int(JOB_SECONDS / each)))

    def record(self, deals: int, seconds: float) -> None:
        """A job of ``deals`` deals came back, played in ``seconds``."""
        self.deals += deals
        self.seconds += seconds


def run_deals(
    names: Sequence[str],
    deals: int,
    seed: int,
    *,
    rules: RuleSet = HUNAN,
    workers: int = 1,
    keep_records: bool = False,
    backend: str = "local",
    address: str | None = None,
    batch: int | None = None,
    skip: Collection[int] = (),
    tables: Sequence[Sequence[str]] | None = None,
    stop: Callable[[], bool] | None = None,
) -> Iterator[list[HandOutcome]]:
    """Play deals 0 … deals − 1 but those in ``skip``, yielding each deal's hands in deal
    order: the hands of every table in ``tables`` (default: the one table ``names``). Deals go
    out in jobs to the backend (:func:`paohuzi.tools.distributed.run_jobs`), which hands out
    no more once ``stop`` answers True and finishes those under way: ``batch`` deals a job if
    given; else one deal a job in this process or with a ``stop`` (a run stops after the
    deals in progress), and in parallel as many as are played in about :data:`JOB_SECONDS`
    at the time a deal has taken so far (:class:`JobSizes`), at most 100 and a quarter of a
    worker's share."""
    skip = set(skip)
    count = deals - sum(1 for d in skip if 0 <= d < deals)
    parallel = backend != "local" or workers > 1
    sizes = None
    if batch is None and parallel and stop is None:
        workers = max(1, min(workers, count))  # no more processes than deals
        sizes = JobSizes(max(1, min(100, count // (4 * workers))))
    else:
        batch = batch or 1
        workers = max(1, min(workers, -(-count // batch)))  # no more processes than jobs
    every = tuple(tuple(t) for t in (tables if tables is not None else [names]))
    todo = (d for d in range(deals) if d not in skip)  # made as they go out (a long run)
    jobs = (
        (every, seed, chunk, rules, keep_records)
        for chunk in iter(lambda: list(islice(todo, sizes.next() if sizes else batch)), [])
    )
    for done, seconds in run_jobs(
        _play_batch, jobs, backend=backend, workers=workers, address=address, stop=stop
    ):
        if sizes is not None:
            sizes.record(len(done), seconds)
        yield from done


def stop_after(minutes: float | None) -> Callable[[], bool] | None:
    """A ``stop`` for :func:`run_deals` that answers True once ``minutes`` have passed."""
    if minutes is None:
        return None
    deadline = time.monotonic() + 60 * minutes
    return lambda: time.monotonic() >= deadline


def deal_scores(outcomes: Iterable[list[HandOutcome]]) -> dict[str, list[float]]:
    """Per distinct bot name, its score (mean payment a hand) on each deal, in order."""
    per_deal: dict[str, list[float]] = {}
    for deal in outcomes:
        paid: dict[str, list[int]] = {}
        for hand in deal:
            for seat, name in enumerate(hand.seating):
                if seat != hand.sitting_out:
                    paid.setdefault(name, []).append(hand.payments[seat])
        for name, payments in paid.items():
            per_deal.setdefault(name, []).append(sum(payments) / len(payments))
    return per_deal


def paired(outcomes: Sequence[list[HandOutcome]]) -> list[PairDiff]:
    """For each pair of distinct bots, the per-deal difference of their scores (A − B)."""
    scores = deal_scores(outcomes)
    diffs = []
    for a, b in combinations(sorted(scores), 2):
        values = [x - y for x, y in zip(scores[a], scores[b], strict=True)]
        mean, ci = mean_ci(values)
        diffs.append(PairDiff(a, b, mean, ci, len(values)))
    return diffs


def errors_of(outcomes: Iterable[list[HandOutcome]]) -> list[BotError]:
    return [error for deal in outcomes for hand in deal for error in hand.errors]


def summarize(outcomes: Iterable[list[HandOutcome]]) -> list[BotStats]:
    """Per distinct bot name: mean score per hand with its 95% CI, win rate and errors."""
    per_deal: dict[str, list[float]] = {}
    wins: dict[str, int] = {}
    hands: dict[str, int] = {}
    errors: dict[str, int] = {}
    for deal in outcomes:
        for hand in deal:
            for error in hand.errors:
                errors[error.bot] = errors.get(error.bot, 0) + 1
        paid: dict[str, list[int]] = {}
        for hand in deal:
            for seat, name in enumerate(hand.seating):
                if seat == hand.sitting_out:
                    continue
                paid.setdefault(name, []).append(hand.payments[seat])
                hands[name] = hands.get(name, 0) + 1
                wins[name] = wins.get(name, 0) + (hand.winner == seat)
        for name, payments in paid.items():
            per_deal.setdefault(name, []).append(sum(payments) / len(payments))
    stats = []
    for name in sorted(per_deal):
        mean, ci = mean_ci(per_deal[name])
        stats.append(
            BotStats(name, mean, ci, wins[name] / hands[name], hands[name], errors.get(name, 0))
        )
    return stats


def tournament(
    names: Sequence[str],
    deals: int,
    seed: int,
    *,
    rules: RuleSet = HUNAN,
    workers: int = 1,
    keep_records: bool = False,
    backend: str = "local",
    address: str | None = None,
    on_deal: Callable[[list[HandOutcome]], None] | None = None,
    done: Sequence[list[HandOutcome]] = (),
    minutes: float | None = None,
) -> tuple[int, list[BotStats]]:
    """Run a duplicate tournament; returns the number of hands and each bot's figures.
    ``on_deal`` sees each deal's hands as it finishes (with their records if kept). ``done``
    are deals already played (a resumed run): they are not played again and count in the
    figures. After ``minutes`` no more deals are begun; those in progress are finished."""
    played = run(
        names,
        deals,
        seed,
        rules=rules,
        workers=workers,
        keep_records=keep_records,
        backend=backend,
        address=address,
        on_deal=on_deal,
        done=done,
        minutes=minutes,
    )
    return sum(len(d) for d in played), summarize(played)


def run(
    names: Sequence[str],
    deals: int,
    seed: int,
    *,
    rules: RuleSet = HUNAN,
    workers: int = 1,
    keep_records: bool = False,
    backend: str = "local",
    address: str | None = None,
    on_deal: Callable[[list[HandOutcome]], None] | None = None,
    done: Sequence[list[HandOutcome]] = (),
    minutes: float | None = None,
    tables: Sequence[Sequence[str]] | None = None,
) -> list[list[HandOutcome]]:
    """The deals of a run (``done`` and those played now), in deal order (see
    :func:`tournament`)."""
    skip = {deal[0].deal for deal in done}
    fresh = []
    try:
        for deal in run_deals(
            names,
            deals,
            seed,
            rules=rules,
            workers=workers,
            keep_records=keep_records,
            backend=backend,
            address=address,
            skip=skip,
            tables=tables,
            stop=stop_after(minutes),
        ):
            fresh.append(deal)
            if on_deal is not None:
                on_deal(deal)
    finally:
        PROGRAMS.close()  # the programs of hands played in this process
    return sorted([*done, *fresh], key=lambda deal: deal[0].deal)
