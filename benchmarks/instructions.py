"""Instructions per decision inside the native core (issue 23), counted by callgrind.

Run: ``python benchmarks/instructions.py [--baseline SO] [--profile N] [--repeat 3]``.

A fixed set of seeded hands is played inside the core (``paohuzi._native.Game.play_hands``,
``native/src/engine/game.rs``'s ``play_hands``: the deal from a seed and every seat's choice made in
Rust, no log), each set under ``valgrind --tool=callgrind --collect-atstart=no
--toggle-collect=paohuzi_native::*game::play_hands``: only the instructions inside that
function are counted (the deal, the hands, the choices; not Python's start-up nor the call's
conversions). Printed per set: decisions (actions applied), instructions (Ir) per decision, the
share of them inside ``malloc``/``free``/``realloc``/``calloc`` (inclusive), and hands per
second inside the core (without valgrind, best of ``--repeat``; seconds move with the
machine's load, instruction counts do not).

``--baseline SO``: the same sets also run with another build of the extension (a copy of
``paohuzi/_native*.so`` from an earlier commit that has ``play_hands``), printed beside as
before/after, the hands per second of both taken in this one run. ``--profile N`` prints the
N functions with the most instructions of their own (``callgrind_annotate``) for each set.

Measured (D91), instructions per decision and the allocator's share, before issue 23's work
→ after: Hunan random 7,424 (32.3%) → 4,901 (6.2%); Hunan greedy 24,319 (13.5%) → 21,394
(4.4%); Luzhou random 8,418 (29.2%) → 5,804 (5.6%); four seats random 7,627 (32.4%) → 5,045
(6.2%). Then the bound of D103 (the evaluator not asked where no win can reach the hu-xi a win
needs) and 吃 sorted by precomputed ranks: Hunan random 4,279 (8.2%), Hunan greedy 20,909
(4.9%), Luzhou random 5,804 (7.2%), four seats random 4,634 (8.8%). Then D104 (a hand dealt
in the place of the last, tables made at build time, per-seat facts kept, a tighter bound, bit
masks of the counts, the chosen action applied without finding it again): Hunan random 2,896
(1.1%), the issue's aim of 3,000 met; Hunan greedy 19,442 (3.4%), Luzhou random 4,275 (1.0%),
four seats random 3,018 (1.2%). Then D112 (each playing seat's 下家 kept at the deal): Hunan
random 2,835 (1.2%), Hunan greedy 19,375 (3.4%), Luzhou random 4,212 (1.0%), four seats random
2,955 (1.2%), under 3,000 too. D157 added the set "hunan greedy waits" (the greedy bot
counting its waits, as the expert's and learned's rollouts play): 168,229 (2.8%) → 135,754
(0.5%) with the waits counted instead of scored.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

SETS: list[tuple[str, str, int | None, str, int, int]] = [
    # name, rules, players (None: the rules'), policy, hands, seed
    ("hunan random", "hunan", None, "random", 200, 1),
    ("hunan greedy", "hunan", None, "greedy", 100, 2),
    ("hunan greedy waits", "hunan", None, "greedy_waits", 50, 5),
    ("luzhou random", "luzhou", None, "random", 100, 3),
    ("hunan 4 seats random", "hunan", 4, "random", 100, 4),
]
ALLOCATOR = {"malloc", "free", "realloc", "calloc"}
TOGGLE = "paohuzi_native::*game::play_hands"
"""``play_hands`` where the crate has it: ``engine::game`` since D102, ``game`` before (a
baseline)."""


def load_extension(path: str | None) -> Any:
    """``paohuzi._native``, from ``path`` when given (before ``paohuzi`` loads its own)."""
    if path is not None:
        import importlib.util

        spec = importlib.util.spec_from_file_location("paohuzi._native", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules["paohuzi._native"] = module
    from paohuzi import native

    if native.evaluators is None:
        raise SystemExit(f"the native core is not built: {native.describe()}")
    return native


def child(extension: str | None, index: int, scale: int, repeat: int) -> None:
    """Plays one set (``scale`` times its hands), prints decisions and the best seconds."""
    from dataclasses import replace

    native = load_extension(extension)
    from paohuzi.engine.rules import PRESETS

    _, name, players, policy, hands, seed = SETS[index]
    rules = PRESETS[name] if players is None else replace(PRESETS[name], players=players)
    core: Any = native.evaluators
    ev = core.evaluator_for(rules)
    best = float("inf")
    decisions = 0
    for _ in range(repeat):
        seconds, decisions, _, _ = native.extension().Game.play_hands(
            ev,
            rules.players,
            rules.hu_on_discard,
            rules.take_needs_discard,
            rules.break_kan_when_stuck,
            hands * scale,
            seed,
            policy,
        )
        best = min(best, seconds)
    print(json.dumps({"decisions": decisions, "seconds": best}))


def run_child(
    extension: str | None, index: int, *, scale: int, repeat: int, prefix: list[str]
) -> Any:
    command = [*prefix, sys.executable, __file__, "--child", str(index)]
    command += ["--scale", str(scale), "--repeat", str(repeat)]
    if extension is not None:
        command += ["--extension", extension]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def count(extension: str | None, index: int, profile: int) -> dict[str, Any]:
    """One set under callgrind: decisions, instructions, allocator instructions."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        prefix = [
            "valgrind",
            "--tool=callgrind",
            "--collect-atstart=no",
            f"--toggle-collect={TOGGLE}",
            f"--callgrind-out-file={out}",
        ]
        played = run_child(extension, index, scale=1, repeat=1, prefix=prefix)
        text = out.read_text()
        found = re.search(r"^(?:totals|summary): (\d+)", text, re.M)
        assert found is not None, "callgrind wrote no totals"
        total = int(found.group(1))
        inclusive = subprocess.run(
            ["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(out)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        allocator = 0
        line = re.compile(r"^\s*([\d,]+) \([^)]*\)\s+\S*?:(\S+)(?: \[|$)")
        for row in inclusive.splitlines():
            m = line.match(row)
            if m and m.group(2) in ALLOCATOR:
                allocator += int(m.group(1).replace(",", ""))
        top: list[str] = []
        if profile:
            own = subprocess.run(
                ["callgrind_annotate", "--threshold=100", str(out)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            for row in own.splitlines():
                m = line.match(row)
                if m and len(top) < profile:
                    top.append(f"    {int(m.group(1).replace(',', '')):>12,}  {m.group(2)}")
    return {"decisions": played["decisions"], "ir": total, "alloc": allocator, "top": top}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", metavar="SO", help="an earlier build of the extension")
    parser.add_argument("--profile", type=int, default=0, metavar="N")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scale", type=int, default=20, help="hands ×scale for the timing")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--extension", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.extension, args.child, args.scale, args.repeat)
        return
    if shutil.which("valgrind") is None or shutil.which("callgrind_annotate") is None:
        raise SystemExit("valgrind (callgrind) is not installed")
    builds: list[tuple[str, str | None]] = [("now", None)]
    if args.baseline is not None:
        builds.insert(0, ("before", os.path.abspath(args.baseline)))
    load_extension(None)
    totals: dict[str, list[int]] = {label: [0, 0] for label, _ in builds}
    for index, (name, _, _, _, hands, _) in enumerate(SETS):
        print(f"{name}: {hands} hands")
        rates: dict[str, float] = {}
        for label, so in builds:
            counted = count(so, index, args.profile)
            timed = run_child(so, index, scale=args.scale, repeat=args.repeat, prefix=[])
            rates[label] = hands * args.scale / timed["seconds"]
            per = counted["ir"] / counted["decisions"]
            share = counted["alloc"] / counted["ir"]
            totals[label][0] += counted["ir"]
            totals[label][1] += counted["decisions"]
            print(
                f"  {label:6} {counted['decisions']:>7,} decisions  {per:>7,.0f} Ir/decision  "
                f"{share:6.1%} in the allocator  {rates[label]:>9,.0f} hands/s"
            )
            for row in counted["top"]:
                print(row)
        if len(builds) == 2:
            print(f"  now/before hands/s: {rates['now'] / rates['before']:.2f}")
    for label, (ir, decisions) in totals.items():
        print(f"all sets, {label}: {ir / decisions:,.0f} Ir/decision")


if __name__ == "__main__":
    main()
