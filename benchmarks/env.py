"""RL environment speed: env steps/s and hands/s through the PettingZoo AEC environment, with
the observation encoded at every step, against the raw engine (issue 7).

Run: ``python benchmarks/env.py [--hands 1000] [--seed 0]``. Both loops pick uniformly random
legal actions, one core.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from paohuzi.env import raw_env
from paohuzi.game import Game
from paohuzi.rules import HUNAN


def engine(hands: int, seed: int) -> tuple[float, int]:
    rng = random.Random(seed)
    steps = 0
    start = time.perf_counter()
    for i in range(hands):
        game = Game(dealer=i % HUNAN.players, seed=seed * 1_000_003 + i)
        while not game.is_over:
            game.apply(rng.choice(game.legal_actions()))
            steps += 1
    return time.perf_counter() - start, steps


def aec(hands: int, seed: int) -> tuple[float, int]:
    rng = random.Random(seed)
    env = raw_env()
    steps = 0
    start = time.perf_counter()
    env.reset(seed=seed)
    for _ in range(hands):
        env.reset()
        for _ in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"]).tolist()
            env.step(rng.choice(legal))
            steps += 1
    return time.perf_counter() - start, steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    raw_time, raw_steps = engine(args.hands, args.seed)
    env_time, env_steps = aec(args.hands, args.seed)
    raw_rate, env_rate = args.hands / raw_time, args.hands / env_time
    print(f"raw engine: {raw_rate:,.0f} hands/s, {raw_steps / raw_time:,.0f} decisions/s")
    print(f"AEC env:    {env_rate:,.0f} hands/s, {env_steps / env_time:,.0f} steps/s")
    print(f"the env keeps {env_rate / raw_rate:.0%} of the raw engine's hands/s")


if __name__ == "__main__":
    main()
