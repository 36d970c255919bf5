"""``paohuzi replay FILE``: replay a record (F4), as JSON (F5) or move by move."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rich.markup import escape

from paohuzi.cli.render import (
    Lang,
    describe,
    describe_zh,
    out_console,
    print_settlement,
    reason,
    words,
)
from paohuzi.engine.actions import parse_seat_action
from paohuzi.engine.cards import KIND_NAMES, NotationError, format_cards
from paohuzi.engine.game import IllegalAction
from paohuzi.engine.record import Record, RecordError, loads, replay
from paohuzi.engine.rules import HAND_SIZE


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "replay",
        help="replay a game record (.phz.json)",
        description="Replay a game record (F4): check every action, print the game or F5 JSON.",
    )
    parser.add_argument("file", help="the record, or - for standard input")
    parser.add_argument("--json", action="store_true", help="print one F5 JSON object")
    parser.add_argument(
        "--lang",
        choices=("both", "zh", "en"),
        default="both",
        help="the language of the moves' words (default both, Chinese first; not --json)",
    )
    parser.set_defaults(run=run)


def read_record(name: str) -> Record:
    """Read a record file; raises RecordError with a one-line reason."""
    return Record.from_json(read_json(name))


def read_json(name: str) -> Any:
    """Read a JSON file (``-``: standard input), as UTF-8 either way, strictly
    (:func:`paohuzi.engine.record.loads`); raises RecordError with a one-line reason."""
    if not name:
        raise RecordError("no file named (give a path, or - for standard input)")
    try:
        if name != "-":
            text = Path(name).read_bytes().decode("utf-8")
        elif (buffer := getattr(sys.stdin, "buffer", None)) is not None:
            text = buffer.read().decode("utf-8")
        else:  # standard input replaced by text (an embedding program, a test)
            text = sys.stdin.read()
    except OSError as error:
        raise RecordError(f"cannot read {name}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise RecordError(f"{name} is not UTF-8 text") from None
    try:
        return loads(text)
    except ValueError as error:
        raise RecordError(f"{name}: bad JSON: {error}") from None


def run(args: argparse.Namespace) -> int:
    try:
        record = read_record(args.file)
    except RecordError as error:
        print(f"paohuzi replay: error: {error}", file=sys.stderr)
        return 2
    outcome = replay(record)
    if args.json:
        print(json.dumps(outcome.to_json(), ensure_ascii=False))
    else:
        _print_moves(record, args.lang, outcome.error)
    return 1 if outcome.error is not None else 0


def _print_moves(record: Record, lang: Lang = "both", error: dict[str, Any] | None = None) -> None:
    """The record move by move; ``error`` the replay's (F5), whose message is printed when
    every action was legal but the record's result is not the replay's."""
    console = out_console()
    game = record.new_game()
    rules = record.rule_set
    seating = rules.seating(record.dealer)

    def w(zh: str, en: str) -> str:
        return words(lang, zh, en)

    name = escape(rules.name)  # the record's: text, not markup
    console.print(
        w(f"规则 {name}，{record.dealer}号位坐庄", f"rules {name}, dealer seat {record.dealer}")
    )
    for i, seat in enumerate(seating.playing):
        dealt = format_cards(record.deck[HAND_SIZE * i : HAND_SIZE * (i + 1)])
        console.print(w(f"{seat}号位的牌：{dealt}", f"seat {seat} dealt: {dealt}"))
    if seating.sitting_out is not None:
        out = seating.sitting_out
        console.print(w(f"{out}号位这一局不打", f"seat {out} sits this hand out"))
    liang = KIND_NAMES[game.liang]
    console.print(w(f"亮张 {liang}", f"shown card {liang}"))
    shown = 0

    def flush() -> None:
        nonlocal shown
        for event in game.log[shown:]:
            console.print("  " + w(describe_zh(event), describe(event)))
        shown = len(game.log)

    for index, text in enumerate(record.actions):
        flush()
        try:
            seat, action = parse_seat_action(text)
            game.apply_text(text)
        except (IllegalAction, NotationError) as error:
            # numbered from 0 as F5's error.index
            illegal = w(f"{index}号动作 {text!r} 不合规则", f"action {index} {text!r} is illegal")
            console.print(f"[red]{escape(illegal)}: {escape(reason(lang, str(error)))}[/red]")
            return
        console.print(f"> {w(f'{seat}号位', f'seat {seat}')}: {action}")
    flush()
    if game.result is not None:
        print_settlement(console, game.result, lang=lang)
    if error is not None:  # every action legal: the record's result is not the replay's (F4)
        console.print(f"[red]{escape(reason(lang, error['message']))}[/red]")
    elif game.result is None:
        to_act = game.to_act
        console.print(
            w(
                f"（记录到这里为止，轮到{to_act}号位）",
                f"(the record stops here; seat {to_act} is to act)",
            )
        )
