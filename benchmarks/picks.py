"""How good each bot's choices are, decision by decision, against the expert's yardstick.

Run: ``python benchmarks/picks.py [--bots greedy,learned@0,learned,learned-deep,expert@32]
[--hands 100] [--samples 8] [--seed 777]`` (any bot name the tournament takes: ``learned:PATH``,
``module:factory`` …). It plays ``--hands`` seeded hands with greedy bots; at every
decision with a choice (胡 aside) it values each legal action by
:func:`paohuzi.bots.rollout.sampled_payments` (the mean payment over ``--samples`` deals drawn
from what the seat knows, the rollouts' players the greedy bot counting its waits: the labels
of D155), asks each bot what it would play, and prints, per bot, the value of its pick over
the decision's mean action, and over the first bot's pick (paired), each with its 95%
confidence interval. ``--by-kind`` prints the same per kind of decision too: a claim (a card
on offer that may be passed) by the claims it offers, a discard by how many cards it may be.

The values are drawn apart from the bots' own samples, so a bot's figure is an unbiased
estimate of how much its choices gain by the greedy players' yardstick, one step ahead: a
quick, precise comparison of policies (a few thousand decisions in a minute) before a
tournament's, which measures whole hands. It is not the tournament's figure: a choice's
worth is judged as if every seat played greedy after it.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from paohuzi.bots import GreedyBot
from paohuzi.bots.loader import load_bot
from paohuzi.bots.rollout import sampled_payments
from paohuzi.engine.actions import HU, Action, ActionType
from paohuzi.engine.game import Game
from paohuzi.engine.observation import observe
from paohuzi.engine.rules import HUNAN
from paohuzi.tools.tournament import deal_deck, mean_ci


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", default="greedy,learned@0,learned,learned-deep,expert@32")
    parser.add_argument("--hands", type=int, default=100)
    parser.add_argument("--samples", type=int, default=8)
    parser.add_argument("--seed", type=int, default=777)
    parser.add_argument("--by-kind", action="store_true", help="figures per kind of decision")
    args = parser.parse_args()
    names = args.bots.split(",")
    bots = [load_bot(name, seed=1) for name in names]
    gains: list[list[float]] = [[] for _ in names]
    kinds: list[str] = []  # each decision's kind, for --by-kind
    spent = [0.0] * len(names)
    greedy = GreedyBot()
    for hand in range(args.hands):
        game = Game(dealer=hand % HUNAN.players, deck=deal_deck(args.seed, hand))
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            obs = observe(game, seat)
            legal = tuple(obs.legal)
            if len(legal) > 1 and HU not in legal:
                rng = random.Random(f"{args.seed}/{hand}/{len(gains[0])}")
                values = sampled_payments(obs, legal, args.samples, rng)
                kinds.append(_kind(legal))
                mean = sum(values) / len(values)
                for i, bot in enumerate(bots):
                    start = time.perf_counter()
                    pick = bot.act(obs)
                    spent[i] += time.perf_counter() - start
                    gains[i].append(values[legal.index(pick)] - mean)
            game.apply(greedy.act(obs))
        if (hand + 1) % 10 == 0 or hand + 1 == args.hands:
            print(f"hands {hand + 1}/{args.hands}, decisions {len(gains[0])}", file=sys.stderr)
    n = len(gains[0])
    print(f"{n} decisions of {args.hands} hands (seed {args.seed}), {args.samples} samples each")
    print(f"{'bot':24} {'pick − mean':>24} {f'pick − {names[0]}':>26} {'ms/decision':>12}")
    for name, row, seconds in zip(names, gains, spent, strict=True):
        diffs = [a - b for a, b in zip(row, gains[0], strict=True)]
        print(f"{name:24} {_interval(row):>24} {_interval(diffs):>26} {1000 * seconds / n:>12.2f}")
    if args.by_kind:
        for kind in sorted(set(kinds)):
            where = [i for i, k in enumerate(kinds) if k == kind]
            print(f"\n{kind}: {len(where)} decisions")
            for name, row in zip(names, gains, strict=True):
                mine = [row[i] for i in where]
                diffs = [row[i] - gains[0][i] for i in where]
                print(f"{name:24} {_interval(mine):>24} {_interval(diffs):>26}")


def _kind(legal: tuple[Action, ...]) -> str:
    """A decision's kind for ``--by-kind``: a claim by what it offers, a discard by its width."""
    types = {a.type for a in legal}
    if ActionType.PASS in types:
        offered = [t.name.lower() for t in (ActionType.CHI, ActionType.PENG) if t in types]
        return "claim: " + "/".join(offered or ["pass only"]) + " or pass"
    if len(legal) < 6:
        return "discard of 2-5 cards"
    return "discard of 6-9 cards" if len(legal) < 10 else "discard of 10 cards or more"


def _interval(xs: list[float]) -> str:
    mean, (low, high) = mean_ci(xs)
    return f"{mean:+.3f} [{low:+.3f}, {high:+.3f}]"


if __name__ == "__main__":
    main()
