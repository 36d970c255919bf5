"""Engine speed: complete random-vs-random hands per second on one core (issue 3).

Run: ``python benchmarks/engine.py [--hands 2000] [--seed 0]``. Each hand is dealt from a
seeded deck and played to its end by uniformly random legal choices (as ``paohuzi simulate``
does), so the figure includes dealing, every claim window, the evaluator and settlement.
"""

from __future__ import annotations

import argparse
import random
import time

from paohuzi.engine.game import Game
from paohuzi.engine.rules import HUNAN


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    decisions = wins = 0
    start = time.perf_counter()
    for i in range(args.hands):
        game = Game(dealer=i % HUNAN.players, seed=args.seed * 1_000_003 + i)
        while not game.is_over:
            game.apply(rng.choice(game.legal_actions()))
            decisions += 1
        wins += game.result is not None and game.result.winner is not None
    elapsed = time.perf_counter() - start
    print(
        f"{args.hands} hands in {elapsed:.2f} s: {args.hands / elapsed:,.0f} hands/s, "
        f"{decisions / elapsed:,.0f} decisions/s ({decisions / args.hands:.1f} a hand), "
        f"{wins / args.hands:.1%} won"
    )


if __name__ == "__main__":
    main()
