"""``paohuzi verify RECORD``: check that a finished hand was dealt from the deck committed to,
and that the record is the whole hand: every action replayed from that deck, the replay ending
with the last one, and the record's result (winner, payments, everything F5 shows) the
replay's; with the second deal scheme, its hand number, dealer and rule set the ones committed
to at the deal (docs/security.md). The first difference found is named; exit 1."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import Any

from paohuzi.cli.replay import read_json
from paohuzi.engine.fairdeal import verify
from paohuzi.engine.record import Record, RecordError, replay, result_json, same_result_field


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "verify",
        help="check a finished hand's fair-deal commitment (record from the server)",
        description="Check that a finished hand's record opens the commitment to its deck "
        "(and, for paohuzi-deal/2, to its hand number, dealer and rule set) shown at the deal "
        "(docs/security.md), that every action replays legally from that deck and the hand "
        "ends with the last one, and that the record's result and payments are the replay's.",
    )
    parser.add_argument("file", help="the record (.phz.json from the server), or - for stdin")
    parser.add_argument(
        "--commitment",
        metavar="HEX",
        help="the commitment your table showed at the deal: it must be the record's",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        data = read_json(args.file)
        record = Record.from_json(data)
    except RecordError as error:
        print(f"paohuzi verify: error: {error}", file=sys.stderr)
        return 2
    verdict = verify(data, args.commitment)
    problem = None if verdict.ok else verdict.message
    problem = problem or check_replay(record)
    if problem:
        print(f"not verified: {problem}")
        return 1
    print(verdict.message)
    return 0


def check_replay(record: Record) -> str | None:
    """What is wrong with a finished hand's record as its replay shows, or None: an action
    that does not replay, actions left after the end, a hand that does not end with the last
    action, a result that is not the replay's (each field of it named)."""
    outcome = replay(replace(record, result=None))  # the result is compared here, whole
    game = outcome.game
    if outcome.error is not None:
        index, action = outcome.error["index"], outcome.error["action"]
        if game.is_over:
            return (
                f"actions: action {index} ({action}) comes after the end of the hand "
                f"(it ended with action {index - 1})"
            )
        return f"action {index} ({action}): {outcome.error['message']}"
    if not game.is_over:
        return (
            f"actions: the hand does not end with the record's last action (action "
            f"{len(record.actions) - 1}): an action is missing"
        )
    if record.result is None:
        return "result: the record of a finished hand has no result"
    actual = result_json(game.result) or {}
    for key in sorted(set(actual) | set(record.result)):
        if key not in record.result:
            return f"result.{key}: missing from the record (the replay gives {actual[key]!r})"
        if key not in actual or not same_result_field(key, record.result[key], actual[key]):
            return (
                f"result.{key}: the record says {record.result[key]!r}, the replay gives "
                f"{actual.get(key)!r}"
            )
    return None
