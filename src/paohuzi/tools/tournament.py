"""Fair comparison of bots by duplicate deals.

Every deal (a seeded deck and dealer) is played once for each distinct way of seating the
bots, so each bot meets the same cards from every seat and the luck of the deal cancels. A
bot's score for a deal is its mean payment (R10.5) over the hands it sat in; the tournament
reports the mean of those per-deal scores with a 95% confidence interval, deals being the
independent samples. At a four-seat table (R12) a bot sitting a hand out is not counted in it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import permutations

from paohuzi.bots import play_hand
from paohuzi.bots.loader import close_bot, load_bot
from paohuzi.engine.cards import full_deck
from paohuzi.engine.game import CoreName, Game
from paohuzi.engine.record import JSON, record_of
from paohuzi.engine.rules import HUNAN, RuleSet
from paohuzi.tools.distributed import batches, run_jobs


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


@dataclass(frozen=True)
class BotStats:
    name: str
    mean: float
    ci95: tuple[float, float]
    win_rate: float
    hands: int


def seatings(names: Sequence[str]) -> list[tuple[str, ...]]:
    """Every distinct seating of the bots, in a fixed order."""
    return sorted(set(permutations(names)))


def deal_deck(seed: int, deal: int) -> list[int]:
    deck = full_deck()
    random.Random(seed * 1_000_003 + deal).shuffle(deck)
    return deck


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
    seating and the seat."""
    if len(names) != rules.players:
        raise ValueError(f"{rules.players} bots are needed, one a seat; {len(names)} were given")
    deck = deal_deck(seed, deal)
    outcomes = []
    for n, seating in enumerate(seatings(names)):
        game = Game(rules, dealer=deal % rules.players, deck=deck, core=core)
        bots = []
        try:
            for s, name in enumerate(seating):
                bots.append(load_bot(name, seed * 7919 + deal * 31 + n * 3 + s))
            result = play_hand(game, bots)
        finally:
            for bot in bots:
                close_bot(bot)
        record = record_of(game).to_json() if keep_records else None
        outcomes.append(
            HandOutcome(
                deal,
                seating,
                tuple(result.payments),
                result.winner,
                record,
                game.seating.sitting_out,
            )
        )
    return outcomes


def _play_batch(
    args: tuple[tuple[str, ...], int, range, RuleSet, bool],
) -> list[list[HandOutcome]]:
    names, seed, deals, rules, keep_records = args
    return [play_deal(names, seed, deal, rules, keep_records) for deal in deals]


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
) -> Iterator[list[HandOutcome]]:
    """Play deals 0 … deals − 1, yielding each deal's hands in deal order. Deals go out in
    batches (``batch`` deals a job) to the backend (:func:`paohuzi.tools.distributed.run_jobs`)."""
    size = batch or max(1, min(100, deals // (4 * max(1, workers))))
    jobs = [(tuple(names), seed, r, rules, keep_records) for r in batches(deals, size)]
    for done in run_jobs(_play_batch, jobs, backend=backend, workers=workers, address=address):
        yield from done


def summarize(outcomes: Iterable[list[HandOutcome]]) -> list[BotStats]:
    """Per distinct bot name: mean score per hand with its 95% CI, and win rate."""
    per_deal: dict[str, list[float]] = {}
    wins: dict[str, int] = {}
    hands: dict[str, int] = {}
    for deal in outcomes:
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
        values = per_deal[name]
        mean = sum(values) / len(values)
        var = sum((v - mean) ** 2 for v in values) / (len(values) - 1) if len(values) > 1 else 0.0
        half = 1.96 * math.sqrt(var / len(values))
        stats.append(
            BotStats(name, mean, (mean - half, mean + half), wins[name] / hands[name], hands[name])
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
) -> tuple[int, list[BotStats]]:
    """Run a duplicate tournament; returns the number of hands and each bot's figures.
    ``on_deal`` sees each deal's hands as it finishes (with their records if kept)."""
    played: list[list[HandOutcome]] = []
    for deal in run_deals(
        names,
        deals,
        seed,
        rules=rules,
        workers=workers,
        keep_records=keep_records,
        backend=backend,
        address=address,
    ):
        played.append(deal)
        if on_deal is not None:
            on_deal(deal)
    return sum(len(d) for d in played), summarize(played)
