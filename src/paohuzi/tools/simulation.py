"""Independent random-vs-random hands, for speed figures and rule statistics.

Hand ``i`` of a run with seed ``s`` is dealt by seat ``i`` modulo the number of seats from a
deck and with choices that depend on (s, i) only, so a run gives the same hands on every
backend.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from paohuzi.engine.game import CoreName, Game
from paohuzi.engine.record import JSON, record_of
from paohuzi.engine.rules import HUNAN, RuleSet
from paohuzi.tools.distributed import batches, run_jobs


@dataclass(frozen=True)
class SimulatedHand:
    index: int
    winner: int | None
    payments: tuple[int, ...]
    record: JSON | None = None


def simulate_hand(
    seed: int,
    index: int,
    rules: RuleSet = HUNAN,
    keep_record: bool = False,
    core: CoreName = "auto",
) -> SimulatedHand:
    """Hand ``index`` of a run: uniformly random legal choices to the end, on ``core`` (the
    native core where it serves the rule set by default: the same hand, D37, D84)."""
    game = Game(rules, dealer=index % rules.players, seed=seed * 1_000_003 + index, core=core)
    choices = random.Random(seed * 7_919 + index + 1)
    while not game.is_over:
        game.apply(choices.choice(game.legal_actions()))
    result = game.result
    assert result is not None  # played to the end
    record = record_of(game).to_json() if keep_record else None
    return SimulatedHand(index, result.winner, tuple(result.payments), record)


def _batch(args: tuple[int, range, RuleSet, bool]) -> list[SimulatedHand]:
    seed, indices, rules, keep = args
    return [simulate_hand(seed, i, rules, keep) for i in indices]


def simulate(
    hands: int,
    seed: int,
    *,
    rules: RuleSet = HUNAN,
    keep_records: bool = False,
    backend: str = "local",
    workers: int = 1,
    address: str | None = None,
    batch: int = 200,
) -> Iterator[SimulatedHand]:
    """Hands 0 … hands − 1 in order, ``batch`` hands a job on the backend."""
    jobs = [(seed, r, rules, keep_records) for r in batches(hands, batch)]
    for done in run_jobs(_batch, jobs, backend=backend, workers=workers, address=address):
        yield from done
