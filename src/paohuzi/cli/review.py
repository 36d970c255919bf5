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
from paohuzi.cli.argtypes import finite, whole
from paohuzi.cli.render import out_console
from paohuzi.cli.replay import read_record
from paohuzi.engine.record import RecordError
from paohuzi.tools.review import (
    MISTAKE_SAMPLES,
    MISTAKE_Z,
    decisions,
    judge,
    mistakes,
    rule,
    seeds,
)


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "review",
        help="the expert's review of one seat's decisions in a record",
        description="For each decision of a seat, the expert's preferred action and the "
        "estimated points lost by the one played (like a chess engine's game review).",
    )
    parser.add_argument("file", help="a game record (F4)")
    parser.add_argument("--seat", type=int, required=True, help="the seat to review")
    parser.add_argument("--budget", type=seconds, default=DEFAULT_BUDGET, help="seconds a decision")
    parser.add_argument(
        "--samples",
        type=whole(1, MAX_SAMPLES),
        help=f"samples a decision instead of a time budget (1–{MAX_SAMPLES})",
    )
    parser.add_argument("--top", type=whole(0, 1000), default=5, help="how many mistakes to list")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    parser.set_defaults(run=run)


MAX_SAMPLES = 100_000
"""The most samples a decision ``--samples`` may ask for."""


seconds = finite("seconds", zero=False)
"""``--budget``: a finite number of seconds above 0."""


def review(
    record_name: str,
    seat: int,
    expert: ExpertBot,
    seed: int = 0,
    progress: Progress | None = None,
) -> list[dict[str, Any]]:
    """Every decision of ``seat`` with more than one choice: what was played, what the expert
    prefers, and the estimated loss in points (samples drawn from ``seed``)."""
    record = read_record(record_name)
    playing = record.rule_set.seating(record.dealer).playing
    if seat not in playing:
        raise RecordError(
            f"seat {seat} does not play this hand (seats {', '.join(map(str, playing))})"
        )
    found = list(decisions(record, seat))
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
        print(json.dumps({"seat": args.seat, "decisions": judged, "mistakes": worst} | rule()))
        return 0
    out = out_console()
    table = Table("#", "played", "expert", "loss ± s.e. (points)", "", box=None, padding=(0, 2))
    for d in judged:
        table.add_row(str(d["index"]), d["played"], d["best"], lost(d), verdict(d))
    out.print(table)
    if worst:
        out.print(f"[bold]最大的失误[/bold]（少得超过 {MISTAKE_Z:g} 个标准误）")
        out.print(f"[bold]biggest mistakes[/bold] (a loss over {MISTAKE_Z:g} standard errors)")
        for d in (by_index[i] for i in worst):
            out.print(
                f"  第{d['index']}步：选了 {d['played']}，高手会 {d['best']}，估计少得 {lost(d)} 分"
            )
            out.print(
                f"  action {d['index']}: played {d['played']}, better {d['best']} "
                f"(+{lost(d)} points)"
            )
    else:
        out.print(
            f"没有发现失误：少得都在抽样误差之内（不到 {MISTAKE_Z:g} 个标准误，"
            f"或不到 {MISTAKE_SAMPLES} 个样本）"
        )
        out.print(
            f"no mistakes found: every loss is within the noise of the samples (under "
            f"{MISTAKE_Z:g} standard errors, or fewer than {MISTAKE_SAMPLES} samples)"
        )
    return 0


def lost(d: dict[str, Any]) -> str:
    """A decision's estimated loss with its standard error (unknown from one sample)."""
    error = "?" if d["loss_se"] is None else f"{d['loss_se']:.2f}"
    return f"{d['loss']:.2f} ± {error}"


def verdict(d: dict[str, Any]) -> str:
    """Whether a decision that is not the expert's choice is a mistake or within the noise."""
    if d["played"] == d["best"]:
        return ""
    return "失误 mistake" if d["mistake"] else "误差内 noise"
