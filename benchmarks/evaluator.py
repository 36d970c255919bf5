"""Evaluator speed: best-arrangement evaluations/s and full wait computations/s (issue 2).

Run: ``python benchmarks/evaluator.py [--holdings 4000] [--seed 1] [--repeat 3]``.
One core, pure Python (``native=False``, whether the native core is built or not:
benchmarks/native.py compares the two). The first pass starts with empty memo tables (cold);
later passes reuse them, as a long-running game or simulation does.
"""

from __future__ import annotations

import argparse
import random
import time

from paohuzi.engine import evaluator as ev
from paohuzi.engine.holdings import random_holding
from paohuzi.engine.rules import HUNAN


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--holdings", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    holdings = [random_holding(rng) for _ in range(args.holdings)]
    wins = sum(
        ev.best_win(h.hand, h.table, h.win, self_drawn=h.self_drawn, native=False) is not None
        for h in holdings
    )
    ev.clear_memo()
    print(f"{len(holdings)} holdings (seed {args.seed}), {wins / len(holdings):.0%} winning")
    for rep in range(args.repeat):
        label = "cold memo tables" if rep == 0 else "warm"
        start = time.perf_counter()
        for h in holdings:
            ev.best_win(h.hand, h.table, h.win, self_drawn=h.self_drawn, rules=HUNAN, native=False)
        best = time.perf_counter() - start
        start = time.perf_counter()
        for h in holdings:
            ev.waits(h.hand, h.table, HUNAN, native=False)
        wait = time.perf_counter() - start
        print(
            f"pass {rep + 1} ({label}): best_win {len(holdings) / best:,.0f}/s, "
            f"waits {len(holdings) / wait:,.0f}/s"
        )


if __name__ == "__main__":
    main()
