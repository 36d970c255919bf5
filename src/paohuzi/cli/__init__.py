"""The ``paohuzi`` command."""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Sequence
from typing import NoReturn

from paohuzi import __version__, native
from paohuzi.cli import (
    analyze,
    ladder,
    learn,
    lesson,
    play,
    prompt,
    puzzles,
    replay,
    review,
    serve,
    simulate,
    tournament,
    train,
    verify,
)


class _Parser(argparse.ArgumentParser):
    """Usage errors exit 2 with one line, like every other bad input."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="paohuzi", description="跑胡子 (Paohuzi), Hunan rules.")
    parser.add_argument(
        "--version", action="version", version=f"paohuzi {__version__}; {native.describe()}"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    serve.add_parser(commands)
    play.add_parser(commands)
    learn.add_parser(commands)
    lesson.add_parser(commands)
    puzzles.add_parser(commands)
    analyze.add_parser(commands)
    replay.add_parser(commands)
    simulate.add_parser(commands)
    tournament.add_parser(commands)
    ladder.add_parser(commands)
    train.add_parser(commands)
    review.add_parser(commands)
    verify.add_parser(commands)
    return parser


def escape_what_cannot_be_encoded() -> None:
    """Print Chinese on a stdout or stderr that cannot encode it (``PYTHONIOENCODING=ascii``,
    a C locale) as backslash escapes rather than fail: ``\\u80e1`` in JSON is the same
    string, and elsewhere it is at least readable."""
    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None) or "ascii"
        try:
            "胡".encode(encoding)
        except (UnicodeEncodeError, LookupError):
            if isinstance(stream, io.TextIOWrapper):
                stream.reconfigure(errors="backslashreplace")


def main(argv: Sequence[str] | None = None) -> int:
    escape_what_cannot_be_encoded()
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        with prompt.ctrl_c_between_prints():
            result: int = args.run(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # Output piped into a command that stopped reading (head, less): not an error.
        sys.stderr.close()
        return 0
    return result


if __name__ == "__main__":
    sys.exit(main())
