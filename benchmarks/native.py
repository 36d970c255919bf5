"""Evaluator speed, native core vs Python, from one run on the same holdings (issue 14).

Run: ``python benchmarks/native.py [--holdings 20000] [--seed 1] [--repeat 3] [--rules hunan]``.
One core. Three figures for ``best_win`` and ``waits``, each the best of ``--repeat`` passes
(memo tables warm):

* ``python``: the public API (``paohuzi.best_win``, ``paohuzi.waits``) in pure Python;
* ``native, through Python``: the same public API served by the native core: every call
  converts the hand in, and gets the Python objects (``HuResult``, ``Wait``) back;
* ``native, inside Rust``: one call that loops over the same holdings inside Rust (converted
  once beforehand), making no Python object: what a caller in Rust gets.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

from paohuzi import native
from paohuzi.evaluator import best_win, waits
from paohuzi.rules import PRESETS
from paohuzi.samples import random_holding


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
    args = parser.parse_args()
    if native.core is None:
        raise SystemExit(f"the native core is not built: {native.describe()}")
    rules = PRESETS[args.rules]
    rng = random.Random(args.seed)
    holdings = [random_holding(rng) for _ in range(args.holdings)]
    n = len(holdings)

    def all_best_win() -> None:
        for h in holdings:
            best_win(h.hand, h.table, h.win, self_drawn=h.self_drawn, rules=rules)

    def all_waits() -> None:
        for h in holdings:
            waits(h.hand, h.table, rules)

    with native.disabled():
        all_best_win()  # fill the Python evaluator's memo tables
        python = best_of(args.repeat, all_best_win), best_of(args.repeat, all_waits)
    through = best_of(args.repeat, all_best_win), best_of(args.repeat, all_waits)
    core: Any = native.core  # the extension's Core, beyond the NativeCore protocol
    evaluator = core.evaluator_for(rules)
    inside = evaluator.bench(
        [(h.hand, h.table, h.win, h.self_drawn) for h in holdings], args.repeat
    )
    rust = min(inside[0]), min(inside[1])

    print(
        f"{n:,} holdings (seed {args.seed}, {rules.name}), best of {args.repeat} passes, one core"
    )
    print(f"{'':24} {'best_win/s':>12} {'waits/s':>12}")
    rows = [
        ("python", python),
        ("native, through Python", through),
        ("native, inside Rust", rust),
    ]
    for label, (best, wait) in rows:
        print(f"{label:24} {n / best:>12,.0f} {n / wait:>12,.0f}")
    for label, (best, wait) in rows[1:]:
        print(f"{label} / python: best_win {python[0] / best:.0f}x, waits {python[1] / wait:.0f}x")


if __name__ == "__main__":
    main()
