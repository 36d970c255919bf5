"""The computers' reference ratings (D120): measure the levels against each other with the
tournament (duplicate deals, every seating), then turn how often each one finishes a match
ahead of another into the openskill mu gap that predicts it.

    python benchmarks/bot_ratings.py --bots learned,greedy,random --deals 320
    python benchmarks/bot_ratings.py --bots expert,learned,greedy --deals 72

A "match" is ``--length`` consecutive deals under one seating: for two bots A and B, ``p`` is
the share of matches whose total A ends ahead of B's (ties count half, and ``p`` is kept a
half-match from 0 and 1), and the model's own pairwise prediction is
Φ(Δmu / √(2β² + 2σ²)) (``PlackettLuce.predict_win``), so Δmu = √(2β² + 2σ²)·Φ⁻¹(p). The
normal approximation from the per-hand lead ``d`` and its spread ``s``, Φ(√L·d/s), is shown
beside it: payments are far from normal (most hands pay A and B alike, a weak bot almost never
wins), so it is not used.
"""

from __future__ import annotations

import argparse
import json
import math
from itertools import combinations
from statistics import NormalDist

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
    if args.length < 1 or args.deals < args.length:
        parser.error(f"--deals ({args.deals}) must hold at least one match of --length hands")
    from paohuzi.server.ratings import BETA, BOT_SIGMA

    names = args.bots.split(",")
    deals = list(
        run_deals(names, args.deals, args.seed, rules=PRESETS[args.rules], workers=args.workers)
    )
    stats = summarize(deals)
    gaps: dict[str, dict[str, float]] = {}
    scale = math.sqrt(2 * BETA**2 + 2 * BOT_SIGMA**2)
    length = args.length
    for a, b in combinations(sorted(names), 2):
        diffs = [
            hand.payments[hand.seating.index(a)] - hand.payments[hand.seating.index(b)]
            for deal in deals
            for hand in deal
        ]
        mean = sum(diffs) / len(diffs)
        sd = math.sqrt(sum((x - mean) ** 2 for x in diffs) / (len(diffs) - 1))
        ahead = blocks = 0.0
        for k in range(len(deals[0])):
            for start in range(0, len(deals) - length + 1, length):
                lead = sum(
                    hand.payments[hand.seating.index(a)] - hand.payments[hand.seating.index(b)]
                    for deal in deals[start : start + length]
                    for hand in [deal[k]]
                )
                ahead += 1.0 if lead > 0 else 0.5 if lead == 0 else 0.0
                blocks += 1
        p = min(max(ahead / blocks, 0.5 / blocks), 1 - 0.5 / blocks)
        gaps[f"{a}-{b}"] = {
            "d": mean,
            "s": sd,
            "normal_mu_gap": scale * math.sqrt(length) * mean / sd,
            "matches": blocks,
            "p_ahead": p,
            "mu_gap": scale * NormalDist().inv_cdf(p),
        }
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
                "pairs": {k: {n: round(x, 3) for n, x in v.items()} for k, v in gaps.items()},
                "length": args.length,
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
