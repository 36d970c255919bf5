"""Decisions a second of the learned bots beside the greedy bot's, on the same positions.

Run: ``python benchmarks/learned.py [--hands 100] [--copies N]``. It collects every decision
with a choice of ``--hands`` seeded hands played by greedy bots, then times each bot deciding
all of them (one core; each bot's first decision is played once untimed first), and prints the
mean milliseconds a decision and the slowest decision (issue 26: at most 5 ms). ``learned@0``
reruns the greedy bot's scoring inside its features; ``learned`` adds its search, which stops
about 4 ms after the question (D156: a sample begun runs to its end, so the slowest decision
takes a little longer), and for it the samples its searches played are printed too (the mean and
the median over the decisions it searched: what its time buys, D159);
``learned-deep`` computes the evaluator's waits of each action and a 0.33 M-weight network.

``--copies N`` times ``learned`` alone in N processes at once instead (children of this one, so
one scheduling group, as a tournament's ``--workers`` are): what a busy machine costs its
search, whose 4 ms are counted on the wall clock. Each copy prints its own line.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import time
from typing import Any

from paohuzi.bots import Bot, GreedyBot, learned, make_bot
from paohuzi.engine.game import Game
from paohuzi.engine.observation import Observation, observe
from paohuzi.engine.position import Over
from paohuzi.tools.tournament import deal_deck


def positions(hands: int) -> list[Observation]:
    found = []
    greedy = GreedyBot()
    for hand in range(hands):
        game = Game(dealer=hand % 3, deck=deal_deck(1, hand))
        while not isinstance(phase := game.phase, Over):
            obs = observe(game, phase.to_act, events=False)
            if len(obs.legal) > 1:
                found.append(obs)
            game.apply(greedy.act(obs))
    return found


def rate(bot: Bot, observations: list[Observation]) -> tuple[float, float]:
    """Decisions a second, and the slowest decision in seconds."""
    slowest = 0.0
    start = time.perf_counter()
    for obs in observations:
        before = time.perf_counter()
        bot.act(obs)
        slowest = max(slowest, time.perf_counter() - before)
    return len(observations) / (time.perf_counter() - start), slowest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=100)
    parser.add_argument("--copies", type=int, default=0, help="time learned in N processes at once")
    args = parser.parse_args()
    if args.copies < 0 or args.hands < 1:
        parser.error("--hands must be at least 1 and --copies at least 0")
    observations = positions(args.hands)
    print(f"{len(observations)} decisions with a choice from {args.hands} hands")
    POSITIONS[:] = observations  # copies are forked: each has them, nothing is sent
    if args.copies:
        # (fork: Linux and macOS only, as the measure is of this machine's scheduler)
        with multiprocessing.get_context("fork").Pool(args.copies) as pool:
            lines = pool.map(timed, [("learned",)] * args.copies)
        for copy, found in enumerate(lines, 1):
            print(f"copy {copy}/{args.copies}: {found[0]}")
        return
    for line in timed(("greedy", "learned@0", "learned", "learned-deep")):
        print(line)


POSITIONS: list[Observation] = []
"""The decisions timed (set before the copies are forked)."""


def timed(names: tuple[str, ...]) -> list[str]:
    """A line for each bot named: its decisions of :data:`POSITIONS` timed (one core)."""
    observations = POSITIONS
    lines = []
    samples: list[int] = []
    race = learned.race  # type: ignore[attr-defined]

    def counted(*race_args: Any, **kw: Any) -> list[list[float]]:
        rows = race(*race_args, **kw)
        samples.append(max(len(row) for row in rows))
        return rows

    learned.race = counted  # type: ignore[attr-defined]
    try:
        for name in names:
            bot = make_bot(name, seed=1)
            bot.act(observations[0])  # warmed up (a first call's setup is not timed)
            samples.clear()
            per_second, slowest = rate(bot, observations)
            searched = (
                f"  {len(samples)} searched: {statistics.mean(samples):.1f} samples on average,"
                f" median {statistics.median(samples):g}"
                if samples
                else ""
            )
            lines.append(
                f"{name:12} {per_second:9.0f} decisions/s  {1000 / per_second:6.3f} ms a decision"
                f"  slowest {1000 * slowest:6.3f} ms{searched}"
            )
    finally:
        learned.race = race  # type: ignore[attr-defined]
    return lines


if __name__ == "__main__":
    main()
