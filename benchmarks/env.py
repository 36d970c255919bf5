"""RL environment speed, one run, one core: agent steps/s with the observation encoded at every
step through PettingZoo's ``leduc_holdem_v4`` raw env, the PettingZoo AEC environment of
Paohuzi (issue 7), and the vector environment ``paohuzi.env.vector`` at N hands per call
(issue 23), with their ratios; and hands/s of the raw engine.

Run: ``python benchmarks/env.py [--hands 1000] [--num-envs 256] [--calls 400] [--seed 0]``.
Every loop picks uniformly random legal actions from the masks the environment gives; the
vector env's are drawn for all N hands at once with NumPy, and its figure counts that time too
(``env only`` leaves it out). Leduc needs PettingZoo's classic games (``pip install -e
'.[bench]'``); without them its line says so. The machine may be shared: beside each wall-clock
rate, the rate per second of this process's CPU time.
"""

from __future__ import annotations

import argparse
import os
import random
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# One core: NumPy's BLAS threads (which none of this uses) would otherwise spin beside it.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
from numpy.typing import NDArray

from paohuzi.engine.game import Game
from paohuzi.engine.rules import HUNAN
from paohuzi.env import raw_env
from paohuzi.env.vector import SelfPlayVectorEnv, VectorEnv


@dataclass
class Rate:
    steps: int
    wall: float
    cpu: float

    @property
    def per_second(self) -> float:
        return self.steps / self.wall

    def __str__(self) -> str:
        return f"{self.per_second:>11,.0f} steps/s ({self.steps / self.cpu:,.0f} per CPU-second)"


def timed(run: Callable[[], int]) -> Rate:
    wall, cpu = time.perf_counter(), time.process_time()
    steps = run()
    return Rate(steps, time.perf_counter() - wall, time.process_time() - cpu)


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


def aec_loop(env: Any, hands: int, seed: int) -> int:
    """Agent steps of ``hands`` hands through a PettingZoo AEC env, random legal actions."""
    rng = random.Random(seed)
    steps = 0
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
    return steps


def leduc_env() -> Any | None:
    with warnings.catch_warnings():
        # Importing a classic game by its module warns that a registry is to replace it.
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            from pettingzoo.classic import leduc_holdem_v4
        except ImportError:  # PettingZoo's classic games are not installed (the bench extra)
            return None
    return leduc_holdem_v4.raw_env()


def random_legal(rng: np.random.Generator, masks: NDArray[np.int8]) -> NDArray[np.int64]:
    """A uniformly random legal action id for every row of ``masks`` (each has one): the
    legal entries found in one pass over the flat masks."""
    width = masks.shape[1]
    legal = np.flatnonzero(masks.view(np.bool_).ravel())
    counts = np.bincount(legal // width, minlength=len(masks))
    starts = np.cumsum(counts) - counts
    picks = legal[starts + (rng.random(len(masks)) * counts).astype(np.int64)]
    chosen: NDArray[np.int64] = picks - np.arange(len(masks)) * width
    return chosen


def vector_loop(env: VectorEnv | SelfPlayVectorEnv, calls: int, seed: int) -> tuple[int, float]:
    """Agent steps of ``calls`` steps of a vector env, and the seconds spent in ``step``."""
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    inside = 0.0
    for _ in range(calls):
        actions = random_legal(rng, info["action_mask"])
        start = time.perf_counter()
        _, _, _, _, info = env.step(actions)
        inside += time.perf_counter() - start
    return calls * env.num_envs, inside


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1000, help="hands of the AEC envs")
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--calls", type=int, default=400, help="steps of the vector envs")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    raw_time, raw_steps = engine(args.hands, args.seed)
    hands_rate, decisions_rate = args.hands / raw_time, raw_steps / raw_time
    print(f"raw engine:  {hands_rate:,.0f} hands/s, {decisions_rate:,.0f} decisions/s")
    leduc = leduc_env()
    leduc_rate = None
    if leduc is None:
        print("leduc_holdem_v4 raw env: not installed (pip install -e '.[bench]')")
    else:
        leduc_rate = timed(lambda: aec_loop(leduc, args.hands * 10, args.seed))
        print(f"leduc_holdem_v4 raw env: {leduc_rate}")
    aec = timed(lambda: aec_loop(raw_env(), args.hands, args.seed))
    print(f"paohuzi AEC env:         {aec}")
    n = args.num_envs
    inside: list[float] = []

    def self_play() -> int:
        steps, seconds = vector_loop(SelfPlayVectorEnv(n, copy=False), args.calls, args.seed)
        inside.append(seconds)
        return steps

    def single() -> int:
        steps, seconds = vector_loop(VectorEnv(n, copy=False), args.calls, args.seed)
        inside.append(seconds)
        return steps

    vector = timed(self_play)
    core = SelfPlayVectorEnv(1).core
    print(f"vector env ({core} core), self-play, N={n}: {vector}")
    print(f"    env only (the policy's time left out): {vector.steps / inside[0]:,.0f} steps/s")
    learner = timed(single)
    print(f"vector env, one seat learns (random opponents in the core), N={n}: {learner}")
    print(f"    the learner's steps only; env only {learner.steps / inside[1]:,.0f} steps/s")
    copied = timed(lambda: vector_loop(SelfPlayVectorEnv(n, copy=True), args.calls, args.seed)[0])
    print(f"vector env, self-play, N={n}, copy=True: {copied}")
    print(f"vector self-play / AEC env: {vector.per_second / aec.per_second:.1f}x")
    if leduc_rate is not None:
        print(f"vector self-play / leduc:   {vector.per_second / leduc_rate.per_second:.1f}x")
        print(f"AEC env / leduc:            {aec.per_second / leduc_rate.per_second:.2f}x")


if __name__ == "__main__":
    main()
