"""``paohuzi review RECORD --seat S``: the expert's opinion of every decision of a seat."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from paohuzi.bots.expert import DEFAULT_BUDGET, ExpertBot
from paohuzi.cli.replay import read_record
from paohuzi.engine.record import RecordError
from paohuzi.tools.review import decisions, judge, mistakes, seeds


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "review",
        help="the expert's review of one seat's decisions in a record",
        description="For each decision of a seat, the expert's preferred action and the "
        "estimated points lost by the one played (like a chess engine's game review).",
    )
    parser.add_argument("file", help="a game record (F4)")
    parser.add_argument("--seat", type=int, required=True, help="the seat to review")
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET, help="seconds a decision")
    parser.add_argument("--samples", type=int, help="samples a decision instead of a time budget")
    parser.add_argument("--top", type=int, default=5, help="how many mistakes to list")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(run=run)


def review(
    record_name: str,
    seat: int,
    expert: ExpertBot,
    seed: int = 0,
    progress: Progress | None = None,
) -> list[dict[str, Any]]:
    """Every decision of ``seat`` with more than one choice: what was played, what the expert
    prefers, and the estimated loss in points (samples drawn from ``seed``)."""
    found = list(decisions(read_record(record_name), seat))
    task = progress.add_task("reviewing", total=len(found)) if progress else None
    judged = []
    for decision, drawn in zip(found, seeds(seed, len(found)), strict=True):
        judged.append(judge(decision, expert, drawn))
        if progress is not None and task is not None:
            progress.advance(task)
    return judged


def run(args: argparse.Namespace) -> int:
    expert = ExpertBot(args.seed, budget=args.budget, samples=args.samples)
    console = Console(stderr=True)
    try:
        with Progress(console=console, disable=args.json or not console.is_terminal) as progress:
            judged = review(args.file, args.seat, expert, args.seed, progress)
    except RecordError as error:
        print(f"paohuzi review: error: {error}", file=sys.stderr)
        return 2
    finally:
        expert.close()
    worst = mistakes(judged, args.top)
    by_index = {d["index"]: d for d in judged}
    if args.json:
        print(
            json.dumps(
                {
                    "seat": args.seat,
                    "decisions": judged,
                    "mistakes": worst,
                }
            )
        )
        return 0
    out = Console(highlight=False)
    table = Table("#", "played", "expert", "loss (points)", box=None, padding=(0, 2))
    for d in judged:
        table.add_row(str(d["index"]), d["played"], d["best"], f"{d['loss']:.2f}")
    out.print(table)
    if worst:
        out.print("[bold]biggest mistakes[/bold]")
        for d in (by_index[i] for i in worst):
            gain = f"+{d['loss']:.2f}"
            out.print(f"  action {d['index']}: played {d['played']}, better {d['best']} ({gain})")
    else:
        out.print("no mistakes found at this budget")
    return 0
