"""``paohuzi analyze``: score a hand or list its waits (FORMATS F6)."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.table import Table

from paohuzi.cards import KIND_NAMES, Kind, parse_cards, parse_kind
from paohuzi.evaluator import HuResult, Wait, best_win, check_holding, waits
from paohuzi.groups import Group, parse_groups
from paohuzi.rules import PRESETS, RuleSet

JSON = dict[str, Any]


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


@dataclass(frozen=True)
class Query:
    """One analysis request: a holding and, optionally, a winning card."""

    hand: list[Kind]
    table: list[Group]
    win: Kind | None
    self_drawn: bool


def parse_query(hand: str, table: str, win: str | None, self_drawn: bool) -> Query:
    """Parse and check a query; raises ValueError with a message naming the problem."""
    cards = parse_cards(hand)
    groups = parse_groups(table)
    kind = parse_kind(win) if win is not None else None
    check_holding(cards, groups, kind)
    return Query(cards, groups, kind, self_drawn)


def answer(query: Query, rules: RuleSet) -> JSON:
    """The F6 answer to a query."""
    if query.win is None:
        return {"waits": [_wait_json(w) for w in waits(query.hand, query.table, rules)]}
    result = best_win(query.hand, query.table, query.win, self_drawn=query.self_drawn, rules=rules)
    if result is None:
        return {"hu": False}
    return {
        "hu": True,
        "groups": [str(g) for g in result.groups],
        "huxi": result.huxi,
        "deng": result.score.deng,
        "mingtang": [{"name": name, "fan": fan} for name, fan in result.score.mingtang],
        "fan": result.score.fan,
        "score": result.points,
    }


def _wait_json(wait: Wait) -> JSON:
    return {"win": KIND_NAMES[wait.win], "huxi": wait.huxi, "score": wait.points}


_BATCH_FIELDS = {"hand": str, "table": str, "win": str, "self_drawn": bool}


def _batch_line(line: str, rules: RuleSet) -> JSON:
    try:
        request = json.loads(line)
    except json.JSONDecodeError as error:
        return {"error": f"bad JSON: {error.msg} at column {error.colno}"}
    if not isinstance(request, dict):
        return {"error": "a query is a JSON object"}
    for key, value in request.items():
        expected = _BATCH_FIELDS.get(key)
        if expected is None:
            return {"error": f"unknown field {key!r} (hand, table, win, self_drawn)"}
        if value is not None and not isinstance(value, expected):
            return {
                "error": f"field {key!r} must be a {'boolean' if expected is bool else 'string'}"
            }
    if not isinstance(request.get("hand"), str):
        return {"error": "field 'hand' is required"}
    try:
        query = parse_query(
            request["hand"],
            request.get("table") or "",
            request.get("win"),
            bool(request.get("self_drawn")),
        )
    except ValueError as error:
        return {"error": str(error)}
    return answer(query, rules)


def run(args: argparse.Namespace) -> int:
    rules = PRESETS[args.rules]
    if args.batch:
        for line in sys.stdin:
            if line.strip():
                print(json.dumps(_batch_line(line, rules), ensure_ascii=False), flush=True)
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
    console = Console(highlight=False)
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
    console = Console(highlight=False)
    found = waits(query.hand, query.table, rules)
    if not found:
        console.print("Not waiting (no card wins).")
        return
    table = Table("听牌 win on", "胡息", "score", box=None, padding=(0, 2))
    for wait in found:
        table.add_row(KIND_NAMES[wait.win], str(wait.huxi), str(wait.points))
    console.print(table)
