"""Expert decision latency, rollouts/s and decisions/s at each level (issues 6 and 14).

Run: ``python benchmarks/expert.py [--hands 5] [--seed 0] [--levels expert@0.2s,expert,...]``:
each level plays seat 0 against two greedy bots on the same deals; every decision is timed
and every rollout (one candidate played out on one sample) counted. ``--workers 2`` spreads
each search over two processes (rollouts are then not counted).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

from paohuzi.bots import GreedyBot, expert, expert_v1, make_bot, play_hand
from paohuzi.bots.expert_v1 import ExpertV1Bot
from paohuzi.engine.actions import Action
from paohuzi.engine.game import Game
from paohuzi.engine.observation import Observation
from paohuzi.engine.rules import HUNAN

LEVELS = "expert@0.2s,expert,expert@1s,expert-v1"
"""The new expert's levels (quick, default, strong) and the first expert at its default."""


class Timed:
    name = "expert"

    def __init__(self, bot: ExpertV1Bot) -> None:
        self.bot = bot
        self.seconds: list[float] = []

    def act(self, observation: Observation) -> Action:
        start = time.perf_counter()
        action = self.bot.act(observation)
        self.seconds.append(time.perf_counter() - start)
        return action


ROLLOUTS = [0]


def counting(real: Callable[..., list[int]], at: int) -> Callable[..., list[int]]:
    """``real``, counting one rollout per candidate (its positional argument ``at``)."""

    def counted(*args: Any, **kw: Any) -> list[int]:
        ROLLOUTS[0] += len(args[at])
        return real(*args, **kw)

    return counted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--levels", default=LEVELS, help=f"bot names (default {LEVELS})")
    args = parser.parse_args()
    # The new expert's samples: drawn and played in one call (D159), by the observation.
    expert.sampled_rollout = counting(expert.sampled_rollout, 3)  # type: ignore[attr-defined]
    expert_v1.rollout_payments = counting(expert_v1.rollout_payments, 1)  # type: ignore[attr-defined]
    for level in args.levels.split(","):
        bot = make_bot(level, args.seed)
        assert isinstance(bot, ExpertV1Bot)
        bot.workers = args.workers
        timed = Timed(bot)
        ROLLOUTS[0] = 0
        for i in range(args.hands):
            play_hand(
                Game(seed=args.seed * 1000 + i, dealer=i % HUNAN.players),
                [timed, GreedyBot(), GreedyBot()],
            )
        bot.close()
        times = sorted(timed.seconds)
        searched = [t for t in times if t > 0.01]
        rate = f"{ROLLOUTS[0] / sum(searched):.0f}" if searched and ROLLOUTS[0] else "-"
        print(
            f"{level}: {len(times)} decisions ({len(searched)} searched), "
            f"{len(times) / sum(times):.1f} decisions/s; "
            f"median {statistics.median(times):.3f} s, "
            f"p99 {times[int(0.99 * (len(times) - 1))]:.3f} s, max {times[-1]:.3f} s; "
            f"searched median {statistics.median(searched) if searched else 0:.3f} s; "
            f"{rate} rollouts/s while searching"
        )


if __name__ == "__main__":
    main()
