"""``paohuzi puzzles``: harvest, check and list the puzzles from real play (docs/puzzles.md)."""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from paohuzi.cli.argtypes import whole
from paohuzi.puzzles import (
    PuzzleError,
    check_puzzle,
    daily,
    load_puzzles,
    shipped,
    themes,
)


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "puzzles",
        help="puzzles from real play: harvest, check, the daily puzzle",
        description="Puzzles (paohuzi-puzzle/1, docs/puzzles.md): positions of self-played "
        "hands where one move is clearly best.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    harvest = actions.add_parser(
        "harvest",
        help="play hands and keep the clear decisions as puzzles (resumable)",
        description="Self-play hands (expert players on even hands, greedy on odd ones) and "
        "keep each decision whose best move beats every other by several standard errors on "
        "a screen and again on a fresh re-check. Appends to OUT as it finds them; run again "
        "with the same arguments to resume.",
    )
    harvest.add_argument("out", type=Path, help="the JSON-lines file to append to")
    harvest.add_argument("--seed", type=int, default=1)
    harvest.add_argument("--hands", type=whole(0), default=100, help="hands 0 … N-1 of the seed")
    harvest.add_argument("--first", type=whole(0), default=0, help="the first hand")
    harvest.add_argument("--limit", type=whole(0), help="stop once OUT holds this many puzzles")
    harvest.add_argument("--theme-limit", type=whole(0), help="puzzles a theme takes at most")
    # a standard error needs two samples at least
    harvest.add_argument(
        "--screen", type=whole(2), default=300, help="samples of the screen (2 or more)"
    )
    harvest.add_argument(
        "--check", type=whole(2), default=2000, help="samples of the re-check (2 or more)"
    )
    harvest.set_defaults(run=run_harvest)
    check = actions.add_parser(
        "check",
        help="replay puzzles against the engine",
        description="Replay each puzzle: its record legal, its seat to act, its moves legal. "
        "Exit 0 when all pass, 2 otherwise (one line each).",
    )
    check.add_argument("files", nargs="*", type=Path, help="JSON-lines files (default: shipped)")
    check.set_defaults(run=run_check)
    today = actions.add_parser(
        "daily",
        help="the puzzle of a date (default today, UTC)",
        description="The daily puzzle of a date, as JSON (view and solution).",
    )
    today.add_argument("date", nargs="?", type=datetime.date.fromisoformat)
    today.set_defaults(run=run_daily)
    words = actions.add_parser(
        "explain",
        help="rewrite the explanations of a puzzle file from its numbers",
        description="Rewrite each puzzle's explanation (zh, en) from its stored numbers and "
        "its position, without measuring again: for new wording.",
    )
    words.add_argument("file", type=Path, help="a JSON-lines puzzle file, rewritten in place")
    words.set_defaults(run=run_explain)
    listing = actions.add_parser("themes", help="the themes and their counts, as JSON")
    listing.set_defaults(run=run_themes)


def _reason(error: OSError) -> str:
    return error.strerror or str(error)


def _harvest_problem(out: Path) -> str | None:
    """Why ``out`` (and its progress file) cannot take a harvest, if it cannot: checked before
    the first hand is played, so that nothing is played for nothing and nothing is overwritten."""
    from paohuzi.tools.puzzles import done_hands

    if not out.parent.is_dir():
        return f"{out}: the directory {out.parent} does not exist"
    if out.is_dir():
        return f"{out} is a directory, not a puzzles file"
    try:
        if out.exists():
            load_puzzles(out)
    except OSError as error:
        return f"{out}: {_reason(error)}"
    except PuzzleError as error:
        return f"{error} (a harvest appends to a puzzles file)"
    progress = Path(f"{out}.done")
    try:
        done_hands(progress)
    except OSError as error:
        return f"{progress}: {_reason(error)}"
    except ValueError:  # not UTF-8, or a line that is not SEED/HAND
        return f"{progress} is not the progress file of a harvest"
    return None


def run_harvest(args: argparse.Namespace) -> int:
    from paohuzi.tools.puzzles import harvest  # the bots: only a harvest needs them

    problem = _harvest_problem(args.out)
    if problem is not None:
        print(f"paohuzi puzzles harvest: error: {problem}", file=sys.stderr)
        return 2
    started = time.monotonic()
    found = 0
    hands = range(args.first, args.first + args.hands)
    puzzles = harvest(
        args.out,
        args.seed,
        hands,
        limit=args.limit,
        theme_limit=args.theme_limit,
        screen=args.screen,
        check=args.check,
    )
    try:
        for puzzle in puzzles:
            found += 1
            elapsed = time.monotonic() - started
            print(
                f"{puzzle.id} {puzzle.theme} {puzzle.best!r} "
                f"+{puzzle.margin:.2f}±{puzzle.margin_se:.2f} ({found} new, {elapsed:.0f} s)",
                flush=True,
            )
    except OSError as error:  # a full disk, a file made read-only meanwhile
        print(f"paohuzi puzzles harvest: error: {args.out}: {_reason(error)}", file=sys.stderr)
        return 2
    print(f"{found} new puzzles in {time.monotonic() - started:.0f} s")
    return 0


def run_check(args: argparse.Namespace) -> int:
    failed = False
    sources = [(str(f), f) for f in args.files] or [("shipped", None)]
    for name, path in sources:
        try:
            puzzles = load_puzzles(path) if path is not None else list(shipped())
        except OSError as error:
            print(f"paohuzi puzzles check: {name}: {_reason(error)}", file=sys.stderr)
            failed = True
            continue
        except PuzzleError as error:  # it names the file and the line
            print(f"paohuzi puzzles check: {error}", file=sys.stderr)
            failed = True
            continue
        bad = 0
        for puzzle in puzzles:
            try:
                check_puzzle(puzzle)
            except PuzzleError as error:
                print(f"paohuzi puzzles check: {name}: {error}", file=sys.stderr)
                bad += 1
        failed = failed or bad > 0
        print(f"{name}: {len(puzzles) - bad} of {len(puzzles)} puzzles replay")
    return 2 if failed else 0


def run_explain(args: argparse.Namespace) -> int:
    from paohuzi.tools.puzzles import explain

    try:
        puzzles = load_puzzles(args.file)
    except OSError as error:
        print(f"paohuzi puzzles explain: {args.file}: {_reason(error)}", file=sys.stderr)
        return 2
    except PuzzleError as error:
        print(f"paohuzi puzzles explain: {error}", file=sys.stderr)
        return 2
    lines = [
        json.dumps(replace(p, explanation=explain(p)).to_json(), ensure_ascii=False)
        for p in puzzles
    ]
    temporary = args.file.with_name(args.file.name + ".tmp")
    try:
        temporary.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
        temporary.replace(args.file)
    except OSError as error:  # the file itself is untouched until the replace
        print(f"paohuzi puzzles explain: {temporary}: {_reason(error)}", file=sys.stderr)
        return 2
    print(f"{args.file}: {len(lines)} explanations written")
    return 0


def run_daily(args: argparse.Namespace) -> int:
    date = args.date or datetime.datetime.now(datetime.UTC).date()
    puzzle = daily(date)
    data = {"date": date.isoformat(), **puzzle.view_json(), "solution": puzzle.solution_json()}
    print(json.dumps(data, ensure_ascii=False, indent=2))
    return 0


def run_themes(args: argparse.Namespace) -> int:
    del args
    print(json.dumps(themes(), ensure_ascii=False, indent=2))
    return 0
