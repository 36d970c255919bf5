"""Argument types of the commands: numbers checked when the command line is read, so that a bad
value is argparse's one-line usage error (exit 2) before any work."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def whole(low: int, high: int | None = None) -> Callable[[str], int]:
    """A whole number no less than ``low`` (and no more than ``high``, when given)."""

    def number(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if high is None and value < low:
            raise argparse.ArgumentTypeError(f"must be {low} or more, not {value}")
        if high is not None and not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is not from {low} to {high}")
        return value

    return number


def finite(unit: str, *, zero: bool) -> Callable[[str], float]:
    """A finite number of ``unit`` (minutes, seconds), above 0, or 0 or more with ``zero``."""

    def number(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number of {unit}: {text!r}") from None
        if not math.isfinite(value) or value < 0 or (value == 0 and not zero):
            least = ", 0 or more" if zero else " above 0"
            raise argparse.ArgumentTypeError(f"{unit} are a finite number{least}, not {text}")
        return value

    return number
