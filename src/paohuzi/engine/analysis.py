"""Hand analysis as FORMATS F6 states it: a query (a holding, a table, perhaps a winning card)
and its answer (the best win, or the waits), and ``analyze --batch``'s lines. Engine-level: the
``analyze`` command and the server's analysis board both answer through it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from paohuzi.engine.cards import KIND_NAMES, Kind, parse_cards, parse_kind
from paohuzi.engine.evaluator import Wait, best_win, check_holding, waits
from paohuzi.engine.groups import Group, parse_groups
from paohuzi.engine.record import loads
from paohuzi.engine.rules import RuleSet

JSON = dict[str, Any]

__all__ = ["Query", "answer", "batch_line", "parse_query", "wait_json"]


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
        return {"waits": [wait_json(w) for w in waits(query.hand, query.table, rules)]}
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


def wait_json(wait: Wait) -> JSON:
    """One wait as F6 writes it."""
    return {"win": KIND_NAMES[wait.win], "huxi": wait.huxi, "score": wait.points}


BATCH_FIELDS = {"hand": str, "table": str, "win": str, "self_drawn": bool}


def batch_line(line: str, rules: RuleSet) -> JSON:
    """The F6 answer to one line of ``analyze --batch``: a query as a JSON object, or an
    ``{"error": …}`` naming what is wrong with it."""
    try:
        request = loads(line)
    except ValueError as error:  # bad JSON, nesting too deep, a number of 5,000 digits, NaN
        return {"error": f"bad JSON: {error}"}
    if not isinstance(request, dict):
        return {"error": "a query is a JSON object"}
    for key, value in request.items():
        expected = BATCH_FIELDS.get(key)
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
