"""``paohuzi tournament``: compare bots fairly over duplicate deals."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rich.table import Table

from paohuzi.bots.loader import check_spec, describe_specs, spec_notes
from paohuzi.cli.render import out_console
from paohuzi.cli.runs import Reporter, add_run_arguments, open_log
from paohuzi.cli.simulate import add_backend_arguments, add_players_argument, rules_of
from paohuzi.engine.rules import PRESETS
from paohuzi.tools.tournament import (
    HandOutcome,
    ci_json,
    ci_text,
    paired,
    seatings,
    summarize,
)
from paohuzi.tools.tournament import run as run_deals


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
    add_run_arguments(parser, "write each finished deal as a JSON line into FILE (new)")
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
    header = {
        "command": "tournament",
        "bots": names,
        "seed": args.seed,
        "rules": args.rules,
        "players": rules.players,
    }
    try:
        log = open_log(args, args.out, header)
    except ValueError as error:
        return _fail(str(error))
    done = log.done if log is not None else []
    for note in spec_notes(names):  # D188
        print(f"paohuzi tournament: {note}", file=sys.stderr)
    if len(done) > args.deals:
        done = done[: args.deals]
    per_deal = len(seatings(names))

    def on_deal(hands: list[HandOutcome]) -> None:
        reporter.deal(hands)
        if log is not None:
            log.write(hands)
        if save is None:
            return
        for n, hand in enumerate(hands):
            path = save / f"deal-{hand.deal:06d}-{n}.phz.json"
            path.write_text(json.dumps(hand.record, ensure_ascii=False) + "\n", encoding="utf-8")

    try:
        with Reporter(args.deals, len(done)) as reporter:
            played = run_deals(
                names,
                args.deals,
                args.seed,
                rules=rules,
                workers=args.workers,
                keep_records=save is not None,
                backend=args.backend,
                address=args.address,
                on_deal=on_deal,
                done=done,
                minutes=args.minutes,
            )
    except ValueError as error:
        return _fail(str(error))
    finally:
        if log is not None:
            log.close()
    hands = sum(len(d) for d in played)
    stats = summarize(played)
    diffs = paired(played)
    if args.json:
        print(
            json.dumps(
                {
                    "deals": len(played),
                    "hands": hands,
                    "bots": [
                        {
                            "name": s.name,
                            "mean": round(s.mean, 4),
                            "ci95": ci_json(s.ci95, len(played)),
                            "win_rate": round(s.win_rate, 4),
                            "errors": s.errors,
                        }
                        for s in stats
                    ],
                    "paired": [
                        {
                            "bot": d.a,
                            "minus": d.b,
                            "mean": round(d.mean, 4),
                            "ci95": ci_json(d.ci95, d.deals),
                        }
                        for d in diffs
                    ],
                }
            )
        )
        return 0
    out = out_console()
    out.print(f"{len(played)} deals × {per_deal} seatings = {hands} hands (seed {args.seed})")
    table = Table(
        "bot", "mean score / hand", "95% CI", "win rate", "errors", box=None, padding=(0, 2)
    )
    for s in stats:
        table.add_row(
            s.name,
            f"{s.mean:+.3f}",
            ci_text(s.ci95, len(played)),
            f"{s.win_rate:.1%}",
            str(s.errors),
        )
    out.print(table)
    for d in diffs:
        out.print(
            f"paired, {d.a} − {d.b} on the same deals: {d.mean:+.3f} a hand",
            ci_text(d.ci95, d.deals),
        )
    return 0
