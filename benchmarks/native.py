"""The native core vs Python, from one run (issue 14): the evaluator, whole hands, the AEC
environment and the expert's rollouts.

Run: ``python benchmarks/native.py [--holdings 20000] [--seed 1] [--repeat 3] [--rules hunan]
[--hands 300] [--budget 0.5] [--decisions 12]``. One core. Every figure is the best of
``--repeat`` passes (memo tables warm).

Evaluator, four figures for ``best_win`` and ``waits``:

* ``python``: the public API (``paohuzi.best_win``, ``paohuzi.waits``) in pure Python;
* ``native, through Python``: the same public API served by the native core: every call
  converts the hand in, and gets the Python objects (``HuResult``, ``Wait``) back;
* ``native, batch from Python``: one call from Python over all the holdings
  (``Evaluator.best_win_batch``, ``waits_batch``): each holding converted from its Python
  objects in the call, the answer's figures (hu-xi, 底数) back as ints, no ``HuResult``;
* ``native, inside Rust``: one call that loops over the same holdings inside Rust (converted
  once beforehand), making no Python object: what a caller in Rust gets.

Hands: random hands (uniform legal choices) per second, by the Python engine in pure Python,
by the Python engine with the native evaluator (the engine before the native game), by the
native core driven from Python (``Game(core="native")``, choices drawn in Python, as ``simulate``
played before issue 23), inside Rust (deals and choices drawn there, no log), and the same
hands as driven from Python played inside Rust (``Game.simulate_hands``, what ``simulate``
plays now, D92), with the ratio of the two (issue 23 asks >= 60%, D93; the face's costs, D105
and D112), in wall-clock seconds and in CPU seconds with the two loops taking turns. The same
deals, not the same choices: the driven loop draws every choice from one
``random.Random(seed)``, ``simulate_hands`` from one generator a hand (D92). The AEC
environment's steps per second (random legal actions from the mask, the observation encoded at
every step) with Python games and with native games. The expert's rollouts per second (one
rollout: a candidate played to the end on one sample) at the same time budget per decision,
with Python and native rollouts, on the same decisions.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from paohuzi import native
from paohuzi.bots.expert_v1 import rollout_values
from paohuzi.bots.greedy import GreedyBot
from paohuzi.engine.evaluator import best_win, waits
from paohuzi.engine.game import CoreName, Game, PythonCore
from paohuzi.engine.holdings import random_holding
from paohuzi.engine.observation import Observation, observe
from paohuzi.engine.rules import PRESETS, RuleSet
from paohuzi.env import raw_env


def best_of(repeat: int, run: Callable[[], object]) -> float:
    """The fastest of some timed runs, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--holdings", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rules", choices=sorted(PRESETS), default="hunan")
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--budget", type=float, default=0.5)
    parser.add_argument("--decisions", type=int, default=12)
    args = parser.parse_args()
    if native.evaluators is None:
        raise SystemExit(f"the native core is not built: {native.describe()}")
    rules = PRESETS[args.rules]
    rng = random.Random(args.seed)
    holdings = [random_holding(rng) for _ in range(args.holdings)]
    n = len(holdings)

    def all_best_win(native: bool = True) -> None:
        for h in holdings:
            best_win(h.hand, h.table, h.win, self_drawn=h.self_drawn, rules=rules, native=native)

    def all_waits(native: bool = True) -> None:
        for h in holdings:
            waits(h.hand, h.table, rules, native=native)

    all_best_win(False)  # fill the Python evaluator's memo tables
    python = (
        best_of(args.repeat, lambda: all_best_win(False)),
        best_of(args.repeat, lambda: all_waits(False)),
    )
    through = best_of(args.repeat, all_best_win), best_of(args.repeat, all_waits)
    core: Any = native.evaluators  # the extension's Core, beyond the NativeEvaluators protocol
    evaluator = core.evaluator_for(rules)
    inside = evaluator.bench(
        [(h.hand, h.table, h.win, h.self_drawn) for h in holdings], args.repeat
    )
    rust = min(inside[0]), min(inside[1])
    wins = [(h.hand, h.table, h.win, h.self_drawn) for h in holdings]
    held = [(h.hand, h.table) for h in holdings]
    batch = (
        best_of(args.repeat, lambda: evaluator.best_win_batch(wins)),
        best_of(args.repeat, lambda: evaluator.waits_batch(held)),
    )

    print(
        f"{n:,} holdings (seed {args.seed}, {rules.name}), best of {args.repeat} passes, one core"
    )
    print(f"{'':24} {'best_win/s':>12} {'waits/s':>12}")
    rows = [
        ("python", python),
        ("native, through Python", through),
        ("native, batch from Python", batch),
        ("native, inside Rust", rust),
    ]
    for label, (best, wait) in rows:
        print(f"{label:26} {n / best:>12,.0f} {n / wait:>12,.0f}")
    for label, (best, wait) in rows[1:]:
        print(f"{label} / python: best_win {python[0] / best:.0f}x, waits {python[1] / wait:.0f}x")
    print()
    hands(rules, args.hands, args.seed, args.repeat)
    print()
    environment(rules, max(20, args.hands // 3), args.seed, args.repeat)
    print()
    rollouts(rules, args.decisions, args.budget, args.seed)


def random_hands(make: Callable[[int], Game], count: int, seed: int) -> None:
    rng = random.Random(seed)
    for i in range(count):
        game = make(i)
        while not game.is_over:
            game.apply(rng.choice(game.legal_actions()))


def hands(rules: RuleSet, count: int, seed: int, repeat: int) -> None:
    """Random hands per second, each engine."""

    def python_game(i: int) -> Game:
        return Game(rules, dealer=i % rules.players, seed=seed * 1_000_003 + i, core="python")

    def hybrid_game(i: int) -> Game:
        # The Python core on the native evaluator (what the server played on before D101).
        core = PythonCore(
            rules, dealer=i % rules.players, seed=seed * 1_000_003 + i, native_evaluator=True
        )
        return Game.of_core(core)

    def native_game(i: int) -> Game:
        return Game(rules, dealer=i % rules.players, seed=seed * 1_000_003 + i, core="native")

    pure = best_of(repeat, lambda: random_hands(python_game, count, seed))
    today = best_of(repeat, lambda: random_hands(hybrid_game, count, seed))
    driven = best_of(repeat, lambda: random_hands(native_game, count * 10, seed))
    core: Any = native.evaluators
    evaluator = core.evaluator_for(rules)
    inside_count = count * 100
    inside = min(
        native.extension().Game.bench_random(
            evaluator,
            rules.players,
            rules.hu_on_discard,
            rules.take_needs_discard,
            rules.break_kan_when_stuck,
            inside_count,
            seed + r,
        )[0]
        for r in range(repeat)
    )
    values = (rules.players, rules.hu_on_discard, rules.take_needs_discard)
    flags = (*values, rules.break_kan_when_stuck)
    simulate_hands = native.extension().Game.simulate_hands
    # The very hands `random_hands(native_game, …)` plays (D92), inside the core.
    same = best_of(repeat, lambda: simulate_hands(evaluator, *flags, seed, 0, count * 10))
    rates = [
        ("python engine, pure Python", count / pure),
        ("python engine, native evaluator", count / today),
        ("native game, driven from Python", count * 10 / driven),
        ("native game, inside Rust", inside_count / inside),
        ("the same hands inside Rust", count * 10 / same),
    ]
    print(f"random hands ({rules.name}), one core")
    for label, rate in rates:
        print(f"{label:34} {rate:>10,.0f} hands/s")
    for label, rate in rates[2:]:
        print(
            f"{label} / pure Python: {rate / rates[0][1]:.0f}x; "
            f"/ native evaluator: {rate / rates[1][1]:.0f}x"
        )
    print(f"driven from Python / the same hands inside Rust: {rates[2][1] / rates[4][1]:.0%}")
    # The same ratio in CPU seconds, the two loops taking turns (a loaded machine moves
    # wall-clock figures between two runs taken one after the other).
    driven_cpu = same_cpu = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        random_hands(native_game, count * 10, seed)
        driven_cpu = min(driven_cpu, time.process_time() - start)
        start = time.process_time()
        simulate_hands(evaluator, *flags, seed, 0, count * 10)
        same_cpu = min(same_cpu, time.process_time() - start)
    print(f"the same, CPU time, taking turns: {same_cpu / driven_cpu:.0%}")


def aec_steps(rules: RuleSet, count: int, seed: int, core: CoreName) -> int:
    rng = random.Random(seed)
    env = raw_env(rules=rules, core=core)
    env.reset(seed=seed)
    steps = 0
    for _ in range(count):
        env.reset()
        for _ in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            env.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
            steps += 1
    return steps


def environment(rules: RuleSet, count: int, seed: int, repeat: int) -> None:
    """AEC environment steps per second, Python games against native ones."""
    figures = []
    cores: tuple[tuple[str, CoreName], ...] = (
        ("python games", "python"),
        ("native games", "native"),
    )
    for label, core in cores:
        steps = aec_steps(rules, count, seed, core)
        seconds = best_of(repeat, lambda: aec_steps(rules, count, seed, core))  # noqa: B023
        figures.append((label, steps / seconds))
    print(f"AEC environment ({rules.name}, {count} hands, random legal actions), one core")
    for label, rate in figures:
        print(f"{label:34} {rate:>10,.0f} steps/s")
    print(f"native games / python games: {figures[1][1] / figures[0][1]:.1f}x")


def decisions(rules: RuleSet, count: int, seed: int) -> list[Observation]:
    """Observations of seats with a choice to make, from greedy hands."""
    found: list[Observation] = []
    bot = GreedyBot(count_waits=False)
    i = 0
    while len(found) < count:
        game = Game(rules, dealer=i % rules.players, seed=seed * 7 + i)
        while not game.is_over and len(found) < count:
            seat = game.to_act
            assert seat is not None
            obs = observe(game, seat)
            if len(obs.legal) >= 2 and len(game.history) % 5 == 0:
                found.append(obs)
            game.apply(bot.act(obs))
        i += 1
    return found


def rollouts(rules: RuleSet, count: int, budget: float, seed: int) -> None:
    """The expert's rollouts per second at the same budget a decision."""
    chosen = decisions(rules, count, seed)
    figures = []
    cores: tuple[tuple[str, CoreName], ...] = (
        ("python rollouts", "python"),
        ("native rollouts", "native"),
    )
    for label, core in cores:
        done = 0
        spent = 0.0
        for n, obs in enumerate(chosen):
            candidates = list(obs.legal[:3])
            start = time.perf_counter()
            deadline = time.monotonic() + budget
            values = rollout_values(obs, candidates, 10**9, n, deadline, core)
            spent += time.perf_counter() - start
            done += sum(len(row) for row in values)
        figures.append((label, done / spent))
    print(
        f"expert rollouts ({rules.name}, {count} decisions, {budget} s a decision, "
        "up to 3 candidates), one core"
    )
    for label, rate in figures:
        print(f"{label:34} {rate:>10,.0f} rollouts/s")
    print(f"native / python: {figures[1][1] / figures[0][1]:.0f}x")


if __name__ == "__main__":
    main()
