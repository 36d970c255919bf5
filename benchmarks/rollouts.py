"""The searches' rollouts on the native core (D157–D159): seconds and instructions a sample.

Run: ``python benchmarks/rollouts.py [--hands 40] [--draws 4] [--waits seat] [--repeat 3]
[--callgrind] [--baseline SO]``.

The jobs: every decision with a choice in the even hands of ``--hands`` seeded hands of greedy
play, ``--draws`` deals drawn for each from the deciding seat's observation, weighted by the
others' play as the searches draw them (:func:`paohuzi.bots.beliefs.draw`), and on each deal
its first three legal choices played out (``Game.rollout``, inside the core) with the seats
counting their waits as ``--waits`` says (``seat``: the deciding one, as ``learned`` searches;
``all``: every seat, as ``expert``; ``none``). Printed: the jobs, milliseconds a job (best of
``--repeat`` passes, one core) and the sum of the payments, the same for every build that plays
the same. ``--callgrind`` also counts the instructions inside ``Game::rollout`` in one pass
under valgrind, which do not move with the machine's load. ``--baseline SO``: the same with
another build of the extension (a copy of ``paohuzi/_native*.so``), printed before.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from instructions import load_extension

WAITS: dict[str, Any] = {"seat": "seat", "all": True, "none": False}
TOGGLE = "*Game>::rollout"
"""The core's ``Game::rollout`` (``native/src/policy/greedy.rs``), not the binding around it:
callgrind turns counting on at a matching function's entry and off at the next, so a pattern
that also matched the binding (``*Game*rollout*``, until stop 53) counted only the binding's
own conversions, about 3,400 instructions a job instead of about 1.1 million."""


def child(args: argparse.Namespace) -> None:
    """Build the jobs, play them, print what was played as one JSON line."""
    load_extension(args.extension)
    from paohuzi.bots import GreedyBot
    from paohuzi.bots.beliefs import Beliefs, draw
    from paohuzi.engine.actions import Action
    from paohuzi.engine.game import Game
    from paohuzi.engine.observation import observe
    from paohuzi.tools.tournament import deal_deck

    greedy, rng = GreedyBot(), random.Random(1)
    jobs: list[tuple[Game, list[Action], int]] = []
    for hand in range(args.hands):
        game = Game(dealer=hand % 3, deck=deal_deck(9, hand), core="native")
        while not game.is_over:
            obs = observe(game, game.to_act)
            if len(obs.legal) > 1 and hand % 2 == 0 and obs.seat is not None:
                beliefs = Beliefs(obs)
                for _ in range(args.draws):
                    jobs.append((draw(obs, beliefs, rng), list(obs.legal)[:3], obs.seat))
            game.apply(greedy.act(obs))
    waits, best, total = WAITS[args.waits], float("inf"), 0
    for _ in range(args.repeat):
        start, total = time.perf_counter(), 0
        for position, candidates, seat in jobs:
            paid = position.rollout(candidates, seat, waits=waits)
            assert paid is not None, "the native core plays the rollouts"
            total += sum(paid)
        best = min(best, time.perf_counter() - start)
    print(json.dumps({"jobs": len(jobs), "seconds": best, "checksum": total}))


def run(args: argparse.Namespace, extension: str | None, *, callgrind: bool) -> dict[str, Any]:
    """One child run (under callgrind: one pass, its instructions inside the rollouts)."""
    command = [sys.executable, __file__, "--child", "--hands", str(args.hands)]
    command += ["--draws", str(args.draws), "--waits", args.waits]
    command += ["--repeat", "1" if callgrind else str(args.repeat)]
    if extension is not None:
        command += ["--extension", extension]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        if callgrind:
            command = [
                "valgrind",
                "--tool=callgrind",
                "--collect-atstart=no",
                f"--toggle-collect={TOGGLE}",
                f"--callgrind-out-file={out}",
                *command,
            ]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        if callgrind:
            totals = re.search(r"^(?:totals|summary): (\d+)", out.read_text(), re.M)
            assert totals is not None, "callgrind wrote no totals"
            found["ir"] = int(totals.group(1))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=40)
    parser.add_argument("--draws", type=int, default=4)
    parser.add_argument("--waits", choices=sorted(WAITS), default="seat")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--callgrind", action="store_true")
    parser.add_argument("--baseline", metavar="SO", help="an earlier build of the extension")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--extension", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    if args.callgrind and shutil.which("valgrind") is None:
        raise SystemExit("valgrind (callgrind) is not installed")
    builds: list[tuple[str, str | None]] = [("now", None)]
    if args.baseline is not None:
        builds.insert(0, ("before", os.path.abspath(args.baseline)))
    for label, extension in builds:
        timed = run(args, extension, callgrind=False)
        line = (
            f"{label:6} {timed['jobs']:,} jobs (waits: {args.waits})  "
            f"{1000 * timed['seconds'] / timed['jobs']:.3f} ms a job  "
            f"checksum {timed['checksum']}"
        )
        if args.callgrind:
            counted = run(args, extension, callgrind=True)
            line += f"  {counted['ir'] / counted['jobs']:,.0f} Ir a job"
        print(line, flush=True)


if __name__ == "__main__":
    main()
