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
from paohuzi.cards import NotationError
from paohuzi.cli.replay import read_record
from paohuzi.game import IllegalAction
from paohuzi.observation import observe
from paohuzi.record import RecordError


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
    record_name: str, seat: int, expert: ExpertBot, progress: Progress | None = None
) -> list[dict[str, Any]]:
    """Every decision of ``seat`` with more than one choice: what was played, what the expert
    prefers, and the estimated loss in points."""
    record = read_record(record_name)
    if seat not in record.rule_set.seating(record.dealer).playing:
        raise RecordError(f"seat {seat} does not play this hand")
    game = record.new_game()
    decisions: list[dict[str, Any]] = []
    task = progress.add_task("reviewing", total=len(record.actions)) if progress else None
    for index, text in enumerate(record.actions):
        if game.to_act == seat and len(game.legal_actions()) > 1:
            obs = observe(game, seat)
            chosen = next((a for a in obs.legal if f"{seat} {a}" == text), None)
            if chosen is None:
                raise RecordError(f"action {index} {text!r} is illegal")
            candidates = expert.shortlist(obs)
            if chosen not in candidates:
                candidates.append(chosen)
            estimates = {e.action: e for e in expert.evaluate(obs, candidates)}
            best = max(estimates.values(), key=lambda e: e.mean)
            decisions.append(
                {
                    "index": index,
                    "offer": obs.offer,
                    "played": str(chosen),
                    "best": str(best.action),
                    "loss": round(best.mean - estimates[chosen].mean, 3),
                    "estimates": {str(a): round(e.mean, 3) for a, e in estimates.items()},
                    "samples": best.samples,
                }
            )
        try:
            game.apply_text(text)
        except (IllegalAction, NotationError) as error:
            raise RecordError(f"action {index} {text!r}: {error}") from None
        if progress is not None and task is not None:
            progress.advance(task)
    return decisions


def run(args: argparse.Namespace) -> int:
    expert = ExpertBot(args.seed, budget=args.budget, samples=args.samples)
    console = Console(stderr=True)
    try:
        with Progress(console=console, disable=args.json or not console.is_terminal) as progress:
            decisions = review(args.file, args.seat, expert, progress)
    except RecordError as error:
        print(f"paohuzi review: error: {error}", file=sys.stderr)
        return 2
    finally:
        expert.close()
    mistakes = sorted((d for d in decisions if d["loss"] > 0), key=lambda d: -d["loss"])[: args.top]
    if args.json:
        print(
            json.dumps(
                {
                    "seat": args.seat,
                    "decisions": decisions,
                    "mistakes": [d["index"] for d in mistakes],
                }
            )
        )
        return 0
    out = Console(highlight=False)
    table = Table("#", "played", "expert", "loss (points)", box=None, padding=(0, 2))
    for d in decisions:
        table.add_row(str(d["index"]), d["played"], d["best"], f"{d['loss']:.2f}")
    out.print(table)
    if mistakes:
        out.print("[bold]biggest mistakes[/bold]")
        for d in mistakes:
            gain = f"+{d['loss']:.2f}"
            out.print(f"  action {d['index']}: played {d['played']}, better {d['best']} ({gain})")
    else:
        out.print("no mistakes found at this budget")
    return 0
