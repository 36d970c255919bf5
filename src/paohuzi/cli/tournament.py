"""``paohuzi tournament``: compare bots fairly over duplicate deals."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from paohuzi.bots.loader import check_spec, describe_specs
from paohuzi.cli.simulate import add_backend_arguments, add_players_argument, rules_of
from paohuzi.engine.rules import PRESETS
from paohuzi.tools.tournament import HandOutcome, seatings, tournament


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "tournament",
        help="compare bots over duplicate deals",
        description="Play every deal once per seating of the bots (duplicate deals) and report "
        "each bot's mean score per hand with a 95% confidence interval and its win rate.",
    )
    parser.add_argument(
        "--bots",
        default="greedy,random,random",
        help=f"one a seat, of: {describe_specs()}",
    )
    parser.add_argument("--deals", type=int, default=200, help="deals to play (default 200)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rules", choices=sorted(PRESETS), default="hunan")
    add_players_argument(parser)
    add_backend_arguments(parser)
    parser.add_argument("--save", metavar="DIR", help="write every hand's record (F4) into DIR")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.set_defaults(run=run)


_WORDS = ("no", "one", "two", "three", "four")


def _fail(message: str) -> int:
    print(f"paohuzi tournament: error: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    rules = rules_of(args)
    names = [n.strip() for n in args.bots.split(",")]
    if len(names) != rules.players:
        return _fail(f"--bots takes {_WORDS[rules.players]} bots, one a seat, not {len(names)}")
    try:
        for name in names:
            check_spec(name)
    except ValueError as error:
        return _fail(str(error))
    if args.deals < 1 or args.workers < 1:
        return _fail("--deals and --workers must be at least 1")
    save = Path(args.save) if args.save else None
    if save is not None:
        try:
            save.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            return _fail(f"cannot create {save}: {error.strerror}")
    console = Console(stderr=True)
    progress = Progress(
        TextColumn("deals"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=console,
        disable=not console.is_terminal,
    )
    per_deal = len(seatings(names))

    def on_deal(hands: list[HandOutcome]) -> None:
        progress.advance(task)
        if save is None:
            return
        for n, hand in enumerate(hands):
            path = save / f"deal-{hand.deal:06d}-{n}.phz.json"
            path.write_text(json.dumps(hand.record, ensure_ascii=False) + "\n", encoding="utf-8")

    try:
        with progress:
            task = progress.add_task("deals", total=args.deals)
            hands, stats = tournament(
                names,
                args.deals,
                args.seed,
                rules=rules,
                workers=args.workers,
                keep_records=save is not None,
                backend=args.backend,
                address=args.address,
                on_deal=on_deal,
            )
    except ValueError as error:
        return _fail(str(error))
    if args.json:
        print(
            json.dumps(
                {
                    "deals": args.deals,
                    "hands": hands,
                    "bots": [
                        {
                            "name": s.name,
                            "mean": round(s.mean, 4),
                            "ci95": [round(s.ci95[0], 4), round(s.ci95[1], 4)],
                            "win_rate": round(s.win_rate, 4),
                        }
                        for s in stats
                    ],
                }
            )
        )
        return 0
    out = Console(highlight=False)
    out.print(f"{args.deals} deals × {per_deal} seatings = {hands} hands (seed {args.seed})")
    table = Table("bot", "mean score / hand", "95% CI", "win rate", box=None, padding=(0, 2))
    for s in stats:
        table.add_row(
            s.name, f"{s.mean:+.3f}", f"[{s.ci95[0]:+.3f}, {s.ci95[1]:+.3f}]", f"{s.win_rate:.1%}"
        )
    out.print(table)
    return 0
