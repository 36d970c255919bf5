"""``paohuzi ladder``: every bot against every other on duplicate deals, with ratings."""

from __future__ import annotations

import argparse
import json
import sys
from itertools import combinations
from pathlib import Path
from typing import Any

from rich.table import Table

from paohuzi.bots.loader import check_spec, describe_specs, spec_notes
from paohuzi.cli.render import out_console
from paohuzi.cli.runs import Reporter, add_run_arguments, open_log
from paohuzi.cli.simulate import add_backend_arguments, add_players_argument, rules_of
from paohuzi.engine.rules import PRESETS
from paohuzi.tools.ladder import ladder
from paohuzi.tools.tournament import HandOutcome, ci_text, instead

DEFAULT_BOTS = "random,greedy,expert@10"


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "ladder",
        help="rank bots: every one against every other on duplicate deals",
        description="Play every pair of bots on the same duplicate deals and seat rotations, "
        "then print and write a table of points per hand (95% CI) and an Elo-like rating "
        "(docs/leaderboard.md says how they are computed).",
    )
    parser.add_argument("--bots", default=DEFAULT_BOTS, help=f"two or more, of: {describe_specs()}")
    parser.add_argument("--deals", type=int, default=200, help="deals a match (default 200)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rules", choices=sorted(PRESETS), default="hunan")
    add_players_argument(parser)
    add_backend_arguments(parser)
    add_run_arguments(
        parser,
        "DIR: write ladder.json and ladder.md into DIR; FILE.jsonl: write each finished deal "
        "as a JSON line into FILE (new) (default: none)",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(run=run)


def _fail(message: str) -> int:
    print(f"paohuzi ladder: error: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    rules = rules_of(args)
    names = [n.strip() for n in args.bots.split(",")]
    try:
        for name in names:
            check_spec(name)
    except ValueError as error:
        return _fail(str(error))
    if len(names) < 2 or len(set(names)) != len(names):
        return _fail("--bots takes two or more different bots")
    if args.deals < 1 or args.workers < 1:
        return _fail("--deals and --workers must be at least 1")
    jsonl = args.out is not None and args.out.endswith(".jsonl")
    out_dir = Path(args.out) if args.out and not jsonl else None
    if out_dir is not None:
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            return _fail(f"cannot create {out_dir}: {error.strerror}")
    header = {
        "command": "ladder",
        "bots": names,
        "seed": args.seed,
        "rules": args.rules,
        "players": rules.players,
    }
    try:
        log = open_log(args, args.out if jsonl else None, header)
    except ValueError as error:
        return _fail(str(error))
    done = log.done[: args.deals] if log is not None else []
    for note in spec_notes(names):  # D188
        print(f"paohuzi ladder: {note}", file=sys.stderr)

    def on_deal(hands: list[HandOutcome]) -> None:
        reporter.deal(hands)
        if log is not None:
            log.write(hands)

    try:
        with Reporter(args.deals, len(done)) as reporter:
            result = ladder(
                names,
                args.deals,
                args.seed,
                rules=rules,
                workers=args.workers,
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
    if out_dir is not None:
        data = json.dumps(result.to_json(), ensure_ascii=False, indent=1) + "\n"
        (out_dir / "ladder.json").write_text(data, encoding="utf-8")
        (out_dir / "ladder.md").write_text(result.to_markdown(), encoding="utf-8")
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
        return 0
    out = out_console()
    out.print(f"{result.deals} duplicate deals a match (seed {result.seed}), {result.hands} hands")
    table = Table(
        "rank", "bot", "rating", "points / hand", "95% CI", "deals won", box=None, padding=(0, 2)
    )
    for column in table.columns:
        column.no_wrap = True
    for i, s in enumerate(result.standings):
        table.add_row(
            str(i + 1),
            s.name,
            f"{s.rating:.0f}",
            f"{s.mean:+.3f}",
            ci_text(s.ci95, result.deals),
            f"{s.deals_won:.1%}",
        )
    out.print(table)
    for a, b in combinations(result.bots, 2):
        ci = ci_text((result.pair_ci95 or {})[a, b], result.deals)
        out.print(
            f"paired, {a} against {b} on the same deals: {result.pairs[a, b]:+.3f} a hand {ci}"
        )
    for name, count in sorted((result.errors or {}).items()):
        out.print(f"{name}: {count} bot errors ({instead(name)} instead)")
    return 0
