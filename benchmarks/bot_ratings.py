"""The computers' reference ratings (D120): measure the levels against each other with the
tournament (duplicate deals, every seating), then turn each pair's per-hand lead into the
openskill mu gap that predicts how often the stronger finishes a match ahead.

    python benchmarks/bot_ratings.py --bots expert,learned,greedy --deals 120
    python benchmarks/bot_ratings.py --bots learned,greedy,random --deals 300

For two bots at one table, ``d`` is the mean per-hand payment of A less B's and ``s`` the
standard deviation of that difference; over a match of ``L`` hands A finishes ahead with
probability about Φ(√L·d/s), and the model's own pairwise prediction is
Φ(Δmu / √(2β² + 2σ²)) (``PlackettLuce.predict_win``): so Δmu = √(2β² + 2σ²)·√L·d/s.
"""

from __future__ import annotations

import argparse
import json
import math
from itertools import combinations

from paohuzi.engine.rules import PRESETS
from paohuzi.tools.tournament import run_deals, summarize


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", default="learned,greedy,random")
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--rules", default="hunan", choices=sorted(PRESETS))
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--length", type=int, default=8, help="hands in the reference match")
    args = parser.parse_args()
    from paohuzi.server.ratings import BETA, BOT_SIGMA

    names = args.bots.split(",")
    deals = list(
        run_deals(names, args.deals, args.seed, rules=PRESETS[args.rules], workers=args.workers)
    )
    stats = summarize(deals)
    gaps: dict[str, dict[str, float]] = {}
    scale = math.sqrt(2 * BETA**2 + 2 * BOT_SIGMA**2) * math.sqrt(args.length)
    for a, b in combinations(sorted(names), 2):
        diffs = [
            hand.payments[hand.seating.index(a)] - hand.payments[hand.seating.index(b)]
            for deal in deals
            for hand in deal
        ]
        mean = sum(diffs) / len(diffs)
        sd = math.sqrt(sum((x - mean) ** 2 for x in diffs) / (len(diffs) - 1))
        gaps[f"{a}-{b}"] = {"d": round(mean, 3), "s": round(sd, 3), "mu_gap": scale * mean / sd}
    print(
        json.dumps(
            {
                "deals": args.deals,
                "bots": [
                    {
                        "name": s.name,
                        "mean": round(s.mean, 3),
                        "ci95": [round(c, 3) for c in s.ci95],
                    }
                    for s in stats
                ],
                "pairs": {k: {**v, "mu_gap": round(v["mu_gap"], 2)} for k, v in gaps.items()},
                "length": args.length,
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
