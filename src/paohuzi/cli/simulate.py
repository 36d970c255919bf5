"""``paohuzi simulate``: many hands between random legal players."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from paohuzi import native
from paohuzi.cli.render import out_console
from paohuzi.cli.runs import PERIOD
from paohuzi.engine.rules import PRESETS, SEAT_COUNTS, RuleSet
from paohuzi.native import core as native_core
from paohuzi.tools.distributed import BACKENDS
from paohuzi.tools.simulation import SimulatedHand, simulate

CHUNK = 500
"""Hands per call into the core (the progress bar moves between calls)."""


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "simulate",
        help="play many hands between random legal players",
        description="Play N independent hands between random legal players (hand i dealt by "
        "seat i modulo the seats) and report speed, win and 荒庄 rates and the mean score per "
        "seat.",
    )
    parser.add_argument("--games", type=int, default=1000, help="hands to play (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of decks and choices")
    parser.add_argument("--rules", choices=sorted(PRESETS), default="hunan")
    add_players_argument(parser)
    parser.add_argument("--save", metavar="DIR", help="write each hand's record (F4) into DIR")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--loop",
        choices=("auto", "core", "python"),
        default="auto",
        help="where the hands are played: inside the native core (the same hands, D92), "
        "from Python hand by hand (needed for --save, --workers, Ray), or auto (default: "
        "the core when it serves the rules and nothing needs Python)",
    )
    add_backend_arguments(parser)
    parser.set_defaults(run=run)


def add_players_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--players",
        type=int,
        choices=SEAT_COUNTS,
        help="seats at the table (default: the rules'; with 4 one sits each hand out, R12)",
    )


def rules_of(args: argparse.Namespace) -> RuleSet:
    """The rule set the --rules and --players options ask for."""
    rules = PRESETS[args.rules]
    return rules if args.players is None else replace(rules, players=args.players)


def add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workers", type=int, default=1, help="local processes (default 1)")
    parser.add_argument(
        "--backend", choices=BACKENDS, default="local", help="local processes or a Ray cluster"
    )
    parser.add_argument("--address", help="Ray cluster address (default: start a local Ray)")


def core_loop(args: argparse.Namespace, rules: RuleSet) -> tuple[Any, str | None]:
    """The native core's hand loop for this run (``Game.simulate_hands`` and the rule set's
    evaluator), or None and why not."""
    if args.save or args.workers != 1 or args.backend != "local":
        return None, "--save, --workers and --backend need the hands played from Python"
    if native.evaluators is None or not native_core.serves(rules):
        return None, f"the native core does not serve these rules ({native.describe()})"
    if not -(2**63) <= args.seed < 2**63:
        return None, "the core takes a 64-bit seed"
    core: Any = native.evaluators
    return (native.extension().Game.simulate_hands, core.evaluator_for(rules)), None


def play_in_core(
    loop: tuple[Any, Any], games: int, seed: int, rules: RuleSet
) -> Iterator[tuple[int, list[int], list[int]]]:
    """Hands 0 … games − 1 played inside the core, :data:`CHUNK` a call: after each call the
    hands done so far, and that call's wins and payments per seat."""
    play, ev = loop
    for done in range(0, games, CHUNK):
        count = min(CHUNK, games - done)
        _, wins, paid = play(
            ev,
            rules.players,
            rules.hu_on_discard,
            rules.take_needs_discard,
            rules.break_kan_when_stuck,
            seed,
            done,
            count,
        )
        yield done + count, wins, paid


class Tally:
    """The hands done so far and their wins and payments per seat, replaced in one assignment
    so that a Ctrl-C finds the figures of whole hands."""

    def __init__(self, players: int) -> None:
        self.figures: tuple[int, tuple[int, ...], tuple[int, ...]] = (
            0,
            (0,) * players,
            (0,) * players,
        )

    def add(self, count: int, wins: Iterable[int], paid: Iterable[int]) -> None:
        done, won, totals = self.figures
        self.figures = (
            done + count,
            tuple(a + b for a, b in zip(won, wins, strict=True)),
            tuple(a + b for a, b in zip(totals, paid, strict=True)),
        )


class Lines:
    """Progress on stderr: rich's bar on a terminal, else a line every
    :data:`~paohuzi.cli.runs.PERIOD` seconds and one at the end."""

    def __init__(self, total: int) -> None:
        self.console = Console(stderr=True)
        self.total = total
        self.done = 0
        self.start = time.monotonic()
        self.last: float | None = None
        self.shown = 0
        """The hands the last line gave."""
        self.bar = Progress(
            TextColumn("simulating"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[speed]}"),
            TimeRemainingColumn(),
            console=self.console,
            disable=not self.console.is_terminal,
        )
        self.task = self.bar.add_task("hands", total=total, speed="")

    def __enter__(self) -> Lines:
        self.bar.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.__exit__(None, None, None)
        if not self.console.is_terminal and self.last is not None and self.shown != self.done:
            self._line()

    def update(self, done: int) -> None:
        self.done = done
        rate = done / max(time.monotonic() - self.start, 1e-9)
        self.bar.update(self.task, completed=done, speed=f"{rate:,.0f} hands/s")
        now = time.monotonic()
        if not self.console.is_terminal and (self.last is None or now - self.last >= PERIOD):
            self._line()

    def _line(self) -> None:
        self.last = time.monotonic()
        self.shown = self.done
        print(
            f"hands {self.done}/{self.total}, {self.last - self.start:.0f} s",
            file=sys.stderr,
            flush=True,
        )


def run(args: argparse.Namespace) -> int:
    if args.games < 1 or args.workers < 1:
        print("paohuzi simulate: error: --games and --workers must be at least 1", file=sys.stderr)
        return 2
    save = Path(args.save) if args.save else None
    if save is not None:
        try:
            save.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            print(
                f"paohuzi simulate: error: cannot create {save}: {error.strerror}", file=sys.stderr
            )
            return 2
    rules = rules_of(args)
    loop = None
    if args.loop != "python":
        loop, why = core_loop(args, rules)
        if loop is None and args.loop == "core":
            print(f"paohuzi simulate: error: --loop core: {why}", file=sys.stderr)
            return 2
    tally = Tally(rules.players)
    interrupted = False
    start = time.perf_counter()
    try:
        with Lines(args.games) as lines:
            if loop is not None:
                for done, chunk_wins, chunk_paid in play_in_core(
                    loop, args.games, args.seed, rules
                ):
                    tally.add(done - tally.figures[0], chunk_wins, chunk_paid)
                    lines.update(done)
            hands: Iterable[SimulatedHand] = ()
            if loop is None:
                hands = simulate(
                    args.games,
                    args.seed,
                    rules=rules,
                    keep_records=save is not None,
                    backend=args.backend,
                    workers=args.workers,
                    address=args.address,
                )
            for hand in hands:
                if save is not None:
                    path = save / f"hand-{hand.index:06d}.phz.json"
                    path.write_text(json.dumps(hand.record, ensure_ascii=False) + "\n")
                one = [int(hand.winner == seat) for seat in range(rules.players)]
                tally.add(1, one, hand.payments)
                if hand.index % 50 == 49:
                    lines.update(hand.index + 1)
            lines.update(tally.figures[0])
    except ValueError as error:
        print(f"paohuzi simulate: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        interrupted = True
    elapsed = time.perf_counter() - start
    count, wins, totals = tally.figures
    if interrupted:
        print(
            f"paohuzi simulate: interrupted after {count} hands (the figures are of those)",
            file=sys.stderr,
        )
    won = sum(wins) / count if count else None
    figures: dict[str, Any] = {
        "hands": count,
        "seconds": round(elapsed, 3),
        "hands_per_second": round(count / elapsed, 1),
        "win_rate": None if won is None else round(won, 4),
        "huangzhuang_rate": None if won is None else round(1 - won, 4),
        "wins": list(wins),
        "mean_score": [round(t / count, 4) if count else None for t in totals],
    }
    status = 130 if interrupted else 0
    if interrupted:
        figures["interrupted"] = True
    if args.json:
        print(json.dumps(figures))
        return status
    if won is None:
        return status
    out = out_console()
    out.print(f"{count} hands in {elapsed:.1f} s: {figures['hands_per_second']:,} hands/s")
    out.print(f"win rate {won:.1%}, 荒庄 rate {1 - won:.1%}")
    for seat in range(rules.players):
        mean = totals[seat] / count
        out.print(f"seat {seat}: {wins[seat]} wins, mean score {mean:+.3f}/hand")
    return status
