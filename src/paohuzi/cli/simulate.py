"""``paohuzi simulate``: many hands between random legal players."""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from paohuzi.game import Game
from paohuzi.match import Match
from paohuzi.record import record_of
from paohuzi.rules import PRESETS


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "simulate",
        help="play many hands between random legal players",
        description="Play a match of N hands between random legal players (dealer rotation of "
        "R11) and report speed, win and 荒庄 rates and the mean score per seat.",
    )
    parser.add_argument("--games", type=int, default=1000, help="hands to play (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of decks and choices")
    parser.add_argument("--rules", choices=sorted(PRESETS), default="hunan")
    parser.add_argument("--save", metavar="DIR", help="write each hand's record (F4) into DIR")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.set_defaults(run=run)


def play_randomly(game: Game, rng: random.Random) -> None:
    """Finish a hand with uniformly random legal choices."""
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))


def run(args: argparse.Namespace) -> int:
    if args.games < 1:
        print("paohuzi simulate: error: --games must be at least 1", file=sys.stderr)
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
    match = Match(PRESETS[args.rules], seed=args.seed)
    choices = random.Random(args.seed + 1)
    wins = [0, 0, 0]
    console = Console(stderr=True)
    progress = Progress(
        TextColumn("simulating"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[speed]}"),
        TimeRemainingColumn(),
        console=console,
        disable=args.json and not console.is_terminal,
    )
    start = time.perf_counter()
    with progress:
        task = progress.add_task("hands", total=args.games, speed="")
        for i in range(args.games):
            game = match.new_game()
            play_randomly(game, choices)
            match.finish(game)
            assert game.result is not None
            if game.result.winner is not None:
                wins[game.result.winner] += 1
            if save is not None:
                path = save / f"hand-{i:06d}.phz.json"
                path.write_text(json.dumps(record_of(game).to_json(), ensure_ascii=False) + "\n")
            if i % 50 == 49:
                rate = (i + 1) / (time.perf_counter() - start)
                progress.update(task, advance=50, speed=f"{rate:,.0f} hands/s")
        progress.update(task, completed=args.games)
    elapsed = time.perf_counter() - start
    figures = {
        "hands": args.games,
        "seconds": round(elapsed, 3),
        "hands_per_second": round(args.games / elapsed, 1),
        "win_rate": round(sum(wins) / args.games, 4),
        "huangzhuang_rate": round(1 - sum(wins) / args.games, 4),
        "wins": wins,
        "mean_score": [round(t / args.games, 4) for t in match.totals],
    }
    if args.json:
        print(json.dumps(figures))
    else:
        out = Console(highlight=False)
        out.print(f"{args.games} hands in {elapsed:.1f} s: {figures['hands_per_second']:,} hands/s")
        out.print(
            f"win rate {figures['win_rate']:.1%}, 荒庄 rate {figures['huangzhuang_rate']:.1%}"
        )
        for seat in range(3):
            mean = figures["mean_score"][seat]
            out.print(f"seat {seat}: {wins[seat]} wins, mean score {mean:+.3f}/hand")
    return 0
