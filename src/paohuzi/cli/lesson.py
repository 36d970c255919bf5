"""``paohuzi lesson check FILE``: validate lessons against the engine (docs/lessons.md)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from paohuzi.lessons import LessonError, check_lesson, load_lesson


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "lesson",
        help="check lesson files against the engine",
        description="Tools for lesson files (paohuzi-lesson/1, docs/lessons.md).",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = actions.add_parser(
        "check",
        help="validate lessons against the engine",
        description=(
            "Play each lesson against the engine: its scripted and taught moves must be legal "
            "and every number its texts state must be the engine's. Exit 0 when all pass, "
            "2 when one does not (one line each)."
        ),
    )
    check.add_argument("files", nargs="+", metavar="FILE", help="a lesson file (.json)")
    check.set_defaults(run=run_check)


def run_check(args: argparse.Namespace) -> int:
    failed = False
    for name in args.files:
        try:
            lesson = load_lesson(name)
            check_lesson(lesson)
        except LessonError as error:
            print(f"paohuzi lesson check: {name}: {error}", file=sys.stderr)
            failed = True
            continue
        print(f"{name}: ok ({lesson.id}, {len(lesson.steps)} steps)")
    return 2 if failed else 0
