"""``paohuzi verify RECORD``: check that a hand was dealt from the deck committed to."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from paohuzi.cli.replay import read_json
from paohuzi.fairdeal import verify
from paohuzi.record import Record, RecordError, replay


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "verify",
        help="check a finished hand's fair-deal commitment (record from the server)",
        description="Check that a finished hand's record opens the commitment to its deck "
        "shown at the deal (docs/security.md), and that every action replays legally.",
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
    outcome = replay(record)
    if outcome.error is not None:
        print(f"not verified: action {outcome.error['index']}: {outcome.error['message']}")
        return 1
    print(verdict.message if verdict.ok else f"not verified: {verdict.message}")
    return 0 if verdict.ok else 1
