"""Cards (字牌, R1) and their notation (F1).

A *kind* is a small int: 0–9 are the small kinds ``x1``…``x10`` (小字), 10–19 the big kinds
``d1``…``d10`` (大字). The int order is the canonical order of F1. A hand is usually held as a
*count array*: a list of 20 ints, the number of copies of each kind.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

Kind = int
"""One of the 20 kinds, 0–19 (``x1`` is 0, ``x10`` is 9, ``d1`` is 10, ``d10`` is 19)."""

Counts = list[int]
"""A count array: ``counts[k]`` copies of kind ``k``."""

NUM_KINDS = 20
COPIES = 4
DECK_SIZE = NUM_KINDS * COPIES

KIND_NAMES: tuple[str, ...] = tuple(f"x{r}" for r in range(1, 11)) + tuple(
    f"d{r}" for r in range(1, 11)
)
GLYPHS = "一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾"
"""The Chinese glyph of each kind, in kind order."""

# Traditional forms of the big glyphs are accepted on input as well.
_GLYPH_TO_KIND: dict[str, Kind] = {g: k for k, g in enumerate(GLYPHS)}
_GLYPH_TO_KIND.update({"貳": 11, "參": 12, "陸": 15})

RED_RANKS = frozenset({2, 7, 10})
RED_KINDS: frozenset[Kind] = frozenset(k for k in range(NUM_KINDS) if k % 10 + 1 in RED_RANKS)
"""红字: 二 七 十 贰 柒 拾 (R1)."""


class NotationError(ValueError):
    """Text that is not valid card or group notation (F1, F2)."""


def rank(kind: Kind) -> int:
    """牌点: 1–10, ignoring size (R1)."""
    return kind % 10 + 1


def is_big(kind: Kind) -> bool:
    """Whether the kind is a big card (大字)."""
    return kind >= 10


def make_kind(card_rank: int, big: bool) -> Kind:
    """The kind of the given rank (1–10) and size."""
    if not 1 <= card_rank <= 10:
        raise ValueError(f"rank must be 1-10, not {card_rank}")
    return card_rank - 1 + (10 if big else 0)


def kind_name(kind: Kind) -> str:
    """The F1 name of a kind: ``x1``…``d10``."""
    return KIND_NAMES[kind]


_TOKEN = re.compile(r"([xXdD])(10|[1-9])(?![0-9])")
_SEPARATORS = " \t\r\n,，、"


def _bad_token(text: str, pos: int) -> NotationError:
    end = pos
    while end < len(text) and not _is_separator(text[end]) and end - pos <= _SHOWN:
        end += 1
    shown = text[pos:end] if end - pos <= _SHOWN else text[pos : pos + _SHOWN] + "…"
    return NotationError(f"unknown card {shown!r}")


_SHOWN = 20
"""The most characters of an unknown card an error message repeats."""


def _is_separator(char: str) -> bool:
    """Between cards (F1): spaces — any Unicode white space, the ideographic space of a
    Chinese text included — and commas, Chinese ones included."""
    return char in _SEPARATORS or char.isspace()


def parse_cards(text: str) -> list[Kind]:
    """Parse F1 card text (``"x1 x2,d10"``, ``"x1x2x3"``, ``"一二三"``) into kinds, in order."""
    kinds: list[Kind] = []
    pos = 0
    while pos < len(text):
        char = text[pos]
        if _is_separator(char):
            pos += 1
            continue
        glyph = _GLYPH_TO_KIND.get(char)
        if glyph is not None:
            kinds.append(glyph)
            pos += 1
            continue
        match = _TOKEN.match(text, pos)
        if match is None:
            raise _bad_token(text, pos)
        size, digits = match.groups()
        kinds.append(make_kind(int(digits), size in "dD"))
        pos = match.end()
    return kinds


def parse_kind(text: str) -> Kind:
    """Parse exactly one kind."""
    kinds = parse_cards(text)
    if len(kinds) != 1:
        raise NotationError(f"expected one card, got {text!r}")
    return kinds[0]


def format_cards(kinds: Iterable[Kind], *, sort: bool = True) -> str:
    """Cards as F1 text, space-separated, in canonical order unless ``sort`` is false."""
    ordered = sorted(kinds) if sort else kinds
    return " ".join(KIND_NAMES[k] for k in ordered)


def to_counts(kinds: Iterable[Kind]) -> Counts:
    """The count array of some cards."""
    counts = [0] * NUM_KINDS
    for k in kinds:
        counts[k] += 1
    return counts


def from_counts(counts: Sequence[int]) -> list[Kind]:
    """The cards of a count array, in canonical order."""
    return [k for k in range(NUM_KINDS) for _ in range(counts[k])]


def full_deck() -> list[Kind]:
    """The 80 cards in canonical order (R1)."""
    return [k for k in range(NUM_KINDS) for _ in range(COPIES)]
