"""Expert decision latency at its default budget (issue 6).

Run: ``python benchmarks/expert.py [--hands 5] [--seed 0]``: the expert plays seat 0 against
two greedy bots; every decision it searches is timed.
"""

from __future__ import annotations

import argparse
import statistics
import time

from paohuzi.actions import Action
from paohuzi.bots import ExpertBot, GreedyBot, play_hand
from paohuzi.game import Game
from paohuzi.observation import Observation
from paohuzi.rules import HUNAN


class Timed:
    name = "expert"

    def __init__(self, bot: ExpertBot) -> None:
        self.bot = bot
        self.seconds: list[float] = []

    def act(self, observation: Observation) -> Action:
        start = time.perf_counter()
        action = self.bot.act(observation)
        self.seconds.append(time.perf_counter() - start)
        return action


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    expert = ExpertBot(args.seed, workers=args.workers)
    timed = Timed(expert)
    for i in range(args.hands):
        play_hand(
            Game(seed=args.seed * 1000 + i, dealer=i % HUNAN.players),
            [timed, GreedyBot(), GreedyBot()],
        )
    expert.close()
    times = sorted(timed.seconds)
    searched = [t for t in times if t > 0.01]
    print(
        f"{len(times)} decisions ({len(searched)} searched): "
        f"median {statistics.median(times):.3f} s, "
        f"p99 {times[int(0.99 * (len(times) - 1))]:.3f} s, max {times[-1]:.3f} s; "
        f"searched median {statistics.median(searched) if searched else 0:.3f} s"
    )


if __name__ == "__main__":
    main()
