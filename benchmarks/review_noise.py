"""How often the review's verdict is wrong (issue 24, point 5; D115): decisions judged as the
review judges them, checked against many more samples.

Run: ``python benchmarks/review_noise.py [--hands 600] [--truth 2000] [--random 0.2]``. Seat
0 plays greedy hands against two greedy bots, choosing at random on ``--random`` of its
decisions (so it makes mistakes, big and small). Each of its decisions with a choice is judged
as ``paohuzi review`` does (the expert's shortlist and the move played, every one on the same
samples, the best mean against the move played) on the first 2, 3, 5, 10 and 20 samples of one
draw, and the two moves compared again on ``--truth`` other samples. For each number of
samples and each threshold z it prints how many decisions a rule "a mistake when the loss is
over z paired standard errors" calls a mistake, how many of those the truth contradicts (the
move played at least as good as the "better" one) or does not support (within one of its
standard errors), how many it confirms, and how many 胡 it calls a mistake.
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass

from paohuzi.bots import GreedyBot, RandomBot
from paohuzi.bots.base import bot_choice
from paohuzi.bots.expert import ExpertBot, paired
from paohuzi.bots.sampler import SamplingError
from paohuzi.engine.actions import HU
from paohuzi.engine.game import Game
from paohuzi.engine.observation import observe

SAMPLES = (2, 3, 5, 10, 20)
"""The samples a decision is judged on: prefixes of one draw of the largest."""
THRESHOLDS = (0.0, 2.0, 2.5, 3.0)
"""z = 0 is the first review's rule: any loss above zero."""


@dataclass
class Verdict:
    """One decision judged on some samples, and the truth about its two moves."""

    hu: bool
    """The move played was a 胡."""
    loss: float
    error: float
    truth: float
    truth_error: float


def best_of(rows: list[list[float]], n: int) -> int:
    """The candidate with the best mean on the first ``n`` samples (the first of equals)."""
    return max(range(len(rows)), key=lambda i: sum(rows[i][:n]))


def judged(hands: int, truth: int, wild: float, seed: int) -> dict[int, list[Verdict]]:
    """Every decision of seat 0 judged on each of :data:`SAMPLES`."""
    rng = random.Random(seed)
    greedy, chance = GreedyBot(), RandomBot(seed)
    expert, checker = ExpertBot(samples=max(SAMPLES)), ExpertBot(samples=truth)
    found: dict[int, list[Verdict]] = {n: [] for n in SAMPLES}
    for hand in range(hands):
        game = Game(seed=seed + hand)
        while (seat := game.to_act) is not None:
            if seat != 0 or len(game.legal_actions()) == 1:
                game.apply(bot_choice(greedy, game, seat))
                continue
            obs = observe(game, 0)
            played = chance.act(obs) if rng.random() < wild else greedy.act(obs)
            candidates = expert.shortlist(obs)
            if played not in candidates:
                candidates.append(played)
            try:
                rows = expert.payments(obs, candidates, seed=rng.randrange(2**32))
            except SamplingError:  # a position the sampler cannot complete: not judged
                game.apply(played)
                continue
            bests = {n: best_of(rows, n) for n in SAMPLES}
            mine = candidates.index(played)
            asked = sorted(set(bests.values()) - {mine})
            again = checker.payments(
                obs, [played, *(candidates[i] for i in asked)], seed=rng.randrange(2**32)
            )
            for n, best in bests.items():
                loss, error = paired(rows[best][:n], rows[mine][:n])
                sure, sure_error = (
                    paired(again[1 + asked.index(best)], again[0]) if best in asked else (0.0, 0.0)
                )
                found[n].append(Verdict(played == HU, loss, error, sure, sure_error))
            game.apply(played)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=600)
    parser.add_argument("--truth", type=int, default=2000, help="samples of the check")
    parser.add_argument("--random", type=float, default=0.2, help="share of random choices")
    parser.add_argument("--seed", type=int, default=1000)
    args = parser.parse_args()
    found = judged(args.hands, args.truth, args.random, args.seed)
    every = found[max(SAMPLES)]
    worse = sum(v.truth > 2 * v.truth_error for v in every)
    hus = sum(v.hu for v in every)
    print(
        f"{args.hands} hands, {len(every)} decisions of seat 0 ({hus} of them a 胡), {worse} "
        f"clearly worse than the expert's choice at {max(SAMPLES)} samples (by over 2 standard "
        f"errors at {args.truth})"
    )
    print("samples   z   called  a hand  contradicted  unsupported  confirmed   胡 called (wrong)")
    for n in SAMPLES:
        for z in THRESHOLDS:
            called = [v for v in found[n] if v.loss > 0 and v.loss > z * v.error]
            wrong = sum(v.truth <= 0 for v in called)
            unsupported = sum(v.truth <= v.truth_error for v in called)
            confirmed = sum(v.truth > 2 * v.truth_error for v in called)
            called_hu = [v for v in called if v.hu]
            print(
                f"{n:>7} {z:>3g} {len(called):>8} {len(called) / args.hands:>7.2f} "
                f"{wrong:>7} ({wrong / max(1, len(called)):>4.0%}) {unsupported:>11} "
                f"{confirmed:>10} {len(called_hu):>8} ({sum(v.truth <= 0 for v in called_hu)})"
            )


if __name__ == "__main__":
    main()
