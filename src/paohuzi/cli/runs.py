"""What ``tournament`` and ``ladder`` share: the deal log, the time limit and progress (D124)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from paohuzi.cli.argtypes import finite
from paohuzi.tools.runlog import RunLog
from paohuzi.tools.tournament import HandOutcome, instead

PERIOD = 10.0
"""Seconds between progress lines when stderr is not a terminal."""
ERROR_LINES = 10
"""A bot's errors printed one a line; the rest are only counted (a broken bot made hundreds)."""


minutes = finite("minutes", zero=True)
"""``--minutes``: a finite number, 0 or more (0: one deal)."""


def add_run_arguments(parser: argparse.ArgumentParser, out_help: str) -> None:
    parser.add_argument("--out", metavar="FILE.jsonl", help=out_help)
    parser.add_argument(
        "--resume",
        metavar="FILE.jsonl",
        help="go on with the run in FILE (same bots, seed and rules): its deals are not played "
        "again and count in the figures; new deals are added to it",
    )
    parser.add_argument(
        "--minutes",
        type=minutes,
        help="after M minutes begin no more deals: those in progress (one; with --workers or "
        "Ray, up to two a worker) are finished and written, then the figures are printed",
    )


def open_log(args: argparse.Namespace, out: str | None, header: dict[str, Any]) -> RunLog | None:
    """The run's deal log: ``--resume``'s, else ``out`` (new), else none (ValueError when it
    cannot be used, or when ``--out`` or ``--resume`` is empty or they name two logs)."""
    for option, value in (("--out", args.out), ("--resume", args.resume)):
        if value == "":
            raise ValueError(f"{option} is empty: name a file")
    if args.resume and out is not None and Path(out).resolve() != Path(args.resume).resolve():
        raise ValueError(
            f"--resume continues the log it names ({args.resume}), not --out {out}: "
            "give one of them"
        )
    if args.resume:
        path, resume = Path(args.resume), True
    elif out:
        path, resume = Path(out), False
    else:
        return None
    try:
        return RunLog(path, header, resume)
    except OSError as error:
        raise ValueError(f"cannot use {path}: {error.strerror}") from None


class Reporter:
    """Progress on stderr: rich's bar on a terminal, else a line now and then."""

    def __init__(self, total: int, done: int = 0):
        self.console = Console(stderr=True)
        self.total = total
        self.count = done
        self.errors = 0
        self.shown: dict[str, int] = {}
        """Errors seen per bot, of which the first :data:`ERROR_LINES` were printed."""
        self.start = time.monotonic()
        self.last: float | None = None
        self.bar = Progress(
            TextColumn("deals"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=self.console,
            disable=not self.console.is_terminal,
        )
        self.task = self.bar.add_task("deals", total=total, completed=done)

    def __enter__(self) -> Reporter:
        self.bar.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.__exit__(None, None, None)
        if not self.console.is_terminal and self.last is not None:
            self._line()

    def deal(self, hands: list[HandOutcome]) -> None:
        self.count += 1
        for hand in hands:
            for error in hand.errors:
                self.errors += 1
                shown = self.shown.get(error.bot, 0)
                self.shown[error.bot] = shown + 1
                if shown > ERROR_LINES:
                    continue
                if shown == ERROR_LINES:
                    line = f"{error.bot}: more errors not shown (counted at the end)"
                else:
                    where = f"seat {error.seat}" if error.seat >= 0 else "end"
                    line = (
                        f"{error.bot} deal {error.deal} {where}: {error.error} "
                        f"({instead(error.bot)} instead)"
                    )
                print(f"bot error: {line}", file=sys.stderr)
        self.bar.advance(self.task)
        now = time.monotonic()
        if not self.console.is_terminal and (self.last is None or now - self.last >= PERIOD):
            self._line()

    def _line(self) -> None:
        self.last = time.monotonic()
        print(
            f"deals {self.count}/{self.total}, {self.last - self.start:.0f} s, "
            f"bot errors {self.errors}",
            file=sys.stderr,
            flush=True,
        )
