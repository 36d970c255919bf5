"""Decisions a second of the learned bots beside the greedy bot's, on the same positions.

Run: ``python benchmarks/learned.py [--hands 100]``. It collects every decision with a choice of
``--hands`` seeded hands played by greedy bots, then times each bot deciding all of them (one
core), and prints the mean milliseconds a decision too (issue 26: at most 5 ms). ``learned``
reruns the greedy bot's scoring inside its features; ``learned-deep`` computes the evaluator's
waits of each action and a 0.33 M-weight network.
"""

from __future__ import annotations

import argparse
import time

from paohuzi.bots import Bot, GreedyBot, make_bot
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


def rate(bot: Bot, observations: list[Observation]) -> float:
    start = time.perf_counter()
    for obs in observations:
        bot.act(obs)
    return len(observations) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=100)
    args = parser.parse_args()
    observations = positions(args.hands)
    print(f"{len(observations)} decisions with a choice from {args.hands} hands")
    for name in ("greedy", "learned", "learned-deep"):
        per_second = rate(make_bot(name), observations)
        print(f"{name:12} {per_second:9.0f} decisions/s  {1000 / per_second:6.3f} ms a decision")


if __name__ == "__main__":
    main()
