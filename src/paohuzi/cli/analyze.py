"""``paohuzi analyze``: score a hand or list its waits (FORMATS F6)."""

from __future__ import annotations

import argparse
import io
import json
import sys
from typing import Any

from rich.console import Console
from rich.table import Table

from paohuzi.cli.render import out_console
from paohuzi.engine.analysis import Query, answer, batch_line, parse_query
from paohuzi.engine.cards import KIND_NAMES
from paohuzi.engine.evaluator import HuResult, best_win, waits
from paohuzi.engine.rules import PRESETS, RuleSet


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "analyze",
        help="score a hand on a winning card, or list its waits (听牌)",
        description="Score a hand on a winning card (R9.1, R10), or list its waits (听牌).",
    )
    parser.add_argument("--hand", help='cards in hand, e.g. "x1 x2 x3 d10" (F1)')
    parser.add_argument("--table", default="", help='table groups, e.g. "peng:x5 chi:x1x2x3" (F2)')
    parser.add_argument("--win", help="the winning card; without it, list the waits")
    parser.add_argument(
        "--self-drawn", action="store_true", help="the winner drew the winning card himself"
    )
    parser.add_argument("--json", action="store_true", help="print JSON (F6)")
    parser.add_argument(
        "--batch",
        action="store_true",
        help="read one JSON query a line on standard input, write one JSON answer a line",
    )
    parser.add_argument("--rules", choices=sorted(PRESETS), default="hunan", help="rule set")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    rules = PRESETS[args.rules]
    if args.batch:
        # UTF-8 whatever the locale, as the records are read; a byte that is not UTF-8 makes
        # its line a bad one, not the batch's end
        buffer = getattr(sys.stdin, "buffer", None)
        lines = sys.stdin if buffer is None else io.TextIOWrapper(buffer, "utf-8", "replace")
        for line in lines:
            if line.strip():
                print(json.dumps(batch_line(line, rules), ensure_ascii=False), flush=True)
        return 0
    if args.hand is None:
        print("paohuzi analyze: error: --hand is required (or --batch)", file=sys.stderr)
        return 2
    try:
        query = parse_query(args.hand, args.table, args.win, args.self_drawn)
    except ValueError as error:
        print(f"paohuzi analyze: error: {error}", file=sys.stderr)
        return 2
    data = answer(query, rules)
    if args.json:
        print(json.dumps(data, ensure_ascii=False))
    elif query.win is None:
        _print_waits(query, rules)
    else:
        _print_hu(query, rules)
    return 0


def _print_hu(query: Query, rules: RuleSet) -> None:
    assert query.win is not None
    console = out_console()
    how = "self-drawn" if query.self_drawn else "shown by another player"
    result = best_win(query.hand, query.table, query.win, self_drawn=query.self_drawn, rules=rules)
    if result is None:
        console.print(f"No win on {KIND_NAMES[query.win]} ({how}).")
        return
    console.print(f"胡 on {KIND_NAMES[query.win]} ({how})")
    _print_groups(console, result)


def _print_groups(console: Console, result: HuResult) -> None:
    table = Table("group", "胡息", box=None, padding=(0, 2))
    for group, huxi in zip(result.groups, result.group_huxi, strict=True):
        table.add_row(str(group), str(huxi))
    console.print(table)
    score = result.score
    names = ", ".join(f"{name} {fan}番" for name, fan in score.mingtang) or "平胡"
    bonus = " (incl. 自摸 +1)" if score.self_drawn else ""
    console.print(f"胡息 {score.huxi}   等 {score.deng}{bonus}   {names}   番 {score.fan}")
    console.print(f"底数 (score) {score.points}")


def _print_waits(query: Query, rules: RuleSet) -> None:
    console = out_console()
    found = waits(query.hand, query.table, rules)
    if not found:
        console.print("Not waiting (no card wins).")
        return
    table = Table("听牌 win on", "胡息", "score", box=None, padding=(0, 2))
    for wait in found:
        table.add_row(KIND_NAMES[wait.win], str(wait.huxi), str(wait.points))
    console.print(table)
