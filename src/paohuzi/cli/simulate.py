"""``paohuzi simulate``: many hands between random legal players."""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from paohuzi.distributed import BACKENDS
from paohuzi.rules import PRESETS, SEAT_COUNTS, RuleSet
from paohuzi.simulation import simulate


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
    wins = [0] * rules.players
    totals = [0] * rules.players
    console = Console(stderr=True)
    progress = Progress(
        TextColumn("simulating"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[speed]}"),
        TimeRemainingColumn(),
        console=console,
        disable=not console.is_terminal,
    )
    start = time.perf_counter()
    try:
        with progress:
            task = progress.add_task("hands", total=args.games, speed="")
            for hand in simulate(
                args.games,
                args.seed,
                rules=rules,
                keep_records=save is not None,
                backend=args.backend,
                workers=args.workers,
                address=args.address,
            ):
                if hand.winner is not None:
                    wins[hand.winner] += 1
                for seat, paid in enumerate(hand.payments):
                    totals[seat] += paid
                if save is not None:
                    path = save / f"hand-{hand.index:06d}.phz.json"
                    path.write_text(json.dumps(hand.record, ensure_ascii=False) + "\n")
                if hand.index % 50 == 49:
                    rate = (hand.index + 1) / (time.perf_counter() - start)
                    progress.update(task, completed=hand.index + 1, speed=f"{rate:,.0f} hands/s")
            progress.update(task, completed=args.games)
    except ValueError as error:
        print(f"paohuzi simulate: error: {error}", file=sys.stderr)
        return 2
    elapsed = time.perf_counter() - start
    won = sum(wins) / args.games
    figures = {
        "hands": args.games,
        "seconds": round(elapsed, 3),
        "hands_per_second": round(args.games / elapsed, 1),
        "win_rate": round(won, 4),
        "huangzhuang_rate": round(1 - won, 4),
        "wins": wins,
        "mean_score": [round(t / args.games, 4) for t in totals],
    }
    if args.json:
        print(json.dumps(figures))
        return 0
    out = Console(highlight=False)
    out.print(f"{args.games} hands in {elapsed:.1f} s: {figures['hands_per_second']:,} hands/s")
    out.print(f"win rate {won:.1%}, 荒庄 rate {1 - won:.1%}")
    for seat in range(rules.players):
        mean = totals[seat] / args.games
        out.print(f"seat {seat}: {wins[seat]} wins, mean score {mean:+.3f}/hand")
    return 0
