"""Puzzles from real play (issue 27 point 2): "找出最好的一步", find the best move.

A puzzle is a moment of a self-played hand where one move is clearly best: its estimated
gain in points over the second best is several standard errors, re-checked on at least
:data:`MIN_SAMPLES` fresh samples of the hidden cards (D148). It is data
(``paohuzi-puzzle/1``, docs/puzzles.md): the hand as an F4 record cut at the decision (a deck,
a dealer and the actions that led there), the seat to find the move, the best move (F3) with
its margin, standard error and sample count, the other candidates' figures, a theme
(:data:`THEMES`) and an explanation in Chinese and English built from those numbers.

The shipped puzzles are ``puzzles.jsonl`` beside this file, one puzzle a line, as the
harvester (:mod:`paohuzi.tools.puzzles`, ``paohuzi puzzles harvest``) appends them.
:func:`shipped` reads them, :func:`daily` picks the puzzle of a date, :func:`check_puzzle`
replays one against the engine; :meth:`Puzzle.view_json` is what a page may show before the
solution (the seat's view only, never the deck). The engine never imports this package.
"""

from __future__ import annotations

import datetime
import functools
import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from paohuzi.bots.protocol import observation_json
from paohuzi.engine.actions import parse_action
from paohuzi.engine.cards import NotationError
from paohuzi.engine.game import Game, IllegalAction
from paohuzi.engine.observation import Observation, observe
from paohuzi.engine.record import Record, RecordError, loads
from paohuzi.lessons import Text

FORMAT = "paohuzi-puzzle/1"
"""The ``format`` field of every puzzle."""

MIN_SAMPLES = 2000
"""Samples of the re-check behind every shipped margin (issue 27 acceptance)."""

THEMES: dict[str, Text] = {
    "discard": Text("打哪张", "Which card to discard"),
    "chi": Text("吃不吃、怎么吃", "Whether to 吃 (chi), and how"),
    "peng": Text("碰不碰", "Whether to 碰 (peng)"),
    "hu": Text("现在胡还是等", "Whether to 胡 (win) now or wait"),
}
"""The themes, in the order a list shows them (D148)."""

DAILY_EPOCH = datetime.date(2026, 1, 1)
"""Day 0 of :func:`daily`'s cycle."""

JSON = dict[str, Any]


class PuzzleError(ValueError):
    """A puzzle that cannot be read, or that does not replay to its position: one line."""


@dataclass(frozen=True)
class Puzzle:
    """One puzzle (see the module docstring and docs/puzzles.md)."""

    id: str
    theme: str
    record: Record
    """The hand so far: its ``actions`` lead to the decision (the last one is not played)."""
    seat: int
    best: str
    """The best move, F3 without the seat (``discard x5``)."""
    accept: tuple[str, ...]
    """Other moves that leave the seat's hand and table as ``best`` does (the same 吃 and 比
    groups in another order): as right as ``best``."""
    second: str
    """The second best move (its representative)."""
    margin: float
    """Mean points ``best`` gains over ``second`` on the re-check's samples."""
    margin_se: float
    """The standard error of ``margin`` (paired: the same samples for both)."""
    samples: int
    seed: int
    """The re-check's sample seed: :func:`paohuzi.tools.puzzles.measure` with it gives the same
    figures."""
    estimates: dict[str, float]
    """Mean points of each candidate (one move per distinct outcome) on the re-check."""
    greedy: str
    """What the greedy bot plays here: a puzzle it gets wrong is a hard one."""
    explanation: Text

    @property
    def hard(self) -> bool:
        """Whether the simple greedy bot misses it."""
        return self.greedy not in self.solutions

    @property
    def solutions(self) -> tuple[str, ...]:
        return (self.best, *self.accept)

    def solves(self, move: str) -> bool:
        """Whether ``move`` (F3, with or without the seat) is a right answer."""
        text = move.strip()
        seat, _, rest = text.partition(" ")
        if seat == str(self.seat):
            text = rest
        try:
            action = parse_action(text)
        except NotationError:
            return False
        return str(action) in self.solutions

    def game(self) -> Game:
        """The game at the puzzle's position; PuzzleError if the record does not get there."""
        game = self.record.new_game()
        for index, text in enumerate(self.record.actions):
            try:
                game.apply_text(text)
            except (IllegalAction, NotationError) as error:
                raise PuzzleError(f"{self.id}: action {index} {text!r}: {error}") from None
        return game

    def observation(self) -> Observation:
        """What the seat sees at the puzzle."""
        return observe(self.game(), self.seat)

    def view_json(self) -> JSON:
        """What a page shows before the solution: the seat's view (as a bot is sent it,
        :func:`paohuzi.bots.protocol.observation_json`), the theme and the id. The deck and
        the other hands stay out."""
        return {
            "id": self.id,
            "theme": self.theme,
            "seat": self.seat,
            "rules": self.record.rule_set.name,
            "view": observation_json(self.observation()),
        }

    def solution_json(self) -> JSON:
        """What a page shows once the move is made: the answer and its numbers."""
        return {
            "best": self.best,
            "accept": list(self.accept),
            "second": self.second,
            "margin": self.margin,
            "margin_se": self.margin_se,
            "samples": self.samples,
            "estimates": dict(self.estimates),
            "greedy": self.greedy,
            "explanation": {"zh": self.explanation.zh, "en": self.explanation.en},
        }

    def to_json(self) -> JSON:
        record = self.record.to_json()
        del record["ruleset"]  # a preset's puzzle: the name is enough, the line stays short
        return {
            "format": FORMAT,
            "id": self.id,
            "theme": self.theme,
            "seat": self.seat,
            "record": record,
            "best": self.best,
            "accept": list(self.accept),
            "second": self.second,
            "margin": self.margin,
            "margin_se": self.margin_se,
            "samples": self.samples,
            "seed": self.seed,
            "estimates": dict(self.estimates),
            "greedy": self.greedy,
            "explanation": {"zh": self.explanation.zh, "en": self.explanation.en},
        }

    @classmethod
    def from_json(cls, data: Any) -> Puzzle:
        """Read a puzzle; PuzzleError naming what is wrong."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise PuzzleError(f"not a {FORMAT} puzzle")
        try:
            record = Record.from_json(data["record"])
            explanation = Text(str(data["explanation"]["zh"]), str(data["explanation"]["en"]))
            puzzle = cls(
                id=str(data["id"]),
                theme=str(data["theme"]),
                record=record,
                seat=int(data["seat"]),
                best=str(data["best"]),
                accept=tuple(str(a) for a in data["accept"]),
                second=str(data["second"]),
                margin=float(data["margin"]),
                margin_se=float(data["margin_se"]),
                samples=int(data["samples"]),
                seed=int(data["seed"]),
                estimates={str(k): float(v) for k, v in data["estimates"].items()},
                greedy=str(data["greedy"]),
                explanation=explanation,
            )
        except RecordError as error:
            raise PuzzleError(f"{data.get('id')}: record: {error}") from None
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise PuzzleError(f"{data.get('id')}: bad or missing field: {error}") from None
        if puzzle.theme not in THEMES:
            raise PuzzleError(f"{puzzle.id}: unknown theme {puzzle.theme!r}")
        return puzzle


def check_puzzle(puzzle: Puzzle) -> None:
    """Replay a puzzle against the engine: every action of its record legal, the hand not
    over, its seat to act with more than one choice, its best, accepted and second moves
    legal there and the best one of its estimates. Raises PuzzleError."""
    game = puzzle.game()
    if game.is_over or game.to_act != puzzle.seat:
        raise PuzzleError(f"{puzzle.id}: seat {puzzle.seat} is not to act at the position")
    legal = {str(a) for a in game.legal_actions()}
    if len(legal) < 2:
        raise PuzzleError(f"{puzzle.id}: only one legal move")
    for move in (*puzzle.solutions, puzzle.second):
        if move not in legal:
            raise PuzzleError(f"{puzzle.id}: {move!r} is not legal at the position")
    if puzzle.best not in puzzle.estimates or puzzle.second not in puzzle.estimates:
        raise PuzzleError(f"{puzzle.id}: the best and second moves need their estimates")
    if max(puzzle.estimates, key=lambda m: puzzle.estimates[m]) != puzzle.best:
        raise PuzzleError(f"{puzzle.id}: {puzzle.best!r} is not the best of its estimates")


def read_puzzles(lines: Iterable[str], name: str = "puzzles") -> Iterator[Puzzle]:
    """Puzzles from JSON lines (blank lines skipped)."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = loads(line)
        except ValueError as error:  # not JSON, nested too deep, a number of 5,000 digits…
            raise PuzzleError(f"{name}:{number}: not JSON: {error}") from None
        try:
            yield Puzzle.from_json(data)
        except PuzzleError as error:
            raise PuzzleError(f"{name}:{number}: {error}") from None


def load_puzzles(path: str | Path) -> list[Puzzle]:
    """The puzzles of a JSON-lines file; PuzzleError naming the file (and the line) for one
    that is not such a file, OSError for one that cannot be read."""
    with open(path, encoding="utf-8") as file:
        try:
            return list(read_puzzles(file, str(path)))
        except UnicodeDecodeError:
            raise PuzzleError(f"{path}: not UTF-8 text") from None


@functools.cache
def shipped() -> tuple[Puzzle, ...]:
    """Every puzzle shipped with the package, in the file's order."""
    text = resources.files(__name__).joinpath("puzzles.jsonl").read_text(encoding="utf-8")
    return tuple(read_puzzles(text.splitlines(), "puzzles.jsonl"))


def by_id(puzzle_id: str) -> Puzzle | None:
    return next((p for p in shipped() if p.id == puzzle_id), None)


def by_theme(theme: str) -> list[Puzzle]:
    """The shipped puzzles of a theme, the clearest (largest margin in standard errors)
    first."""
    found = [p for p in shipped() if p.theme == theme]
    return sorted(found, key=lambda p: -p.margin / max(p.margin_se, 1e-9))


def themes() -> list[JSON]:
    """The themes for a list page: key, names and how many puzzles each has."""
    counts = {key: 0 for key in THEMES}
    for puzzle in shipped():
        counts[puzzle.theme] += 1
    return [
        {"theme": key, "zh": text.zh, "en": text.en, "count": counts[key]}
        for key, text in THEMES.items()
    ]


def daily_order(puzzles: Iterable[Puzzle]) -> list[Puzzle]:
    """The puzzles in the order the days take them: by the SHA-256 of their id (a fixed
    shuffle that mixes the themes and hands)."""
    return sorted(puzzles, key=lambda p: hashlib.sha256(p.id.encode()).hexdigest())


def daily(date: datetime.date, puzzles: Iterable[Puzzle] | None = None) -> Puzzle:
    """The puzzle of a date: day ``n`` after :data:`DAILY_EPOCH` takes puzzle ``n`` modulo
    their number in :func:`daily_order`, so every puzzle comes once before any comes again
    (D149). The same date gives the same puzzle for the same set of puzzles."""
    ordered = daily_order(shipped() if puzzles is None else puzzles)
    if not ordered:
        raise PuzzleError("no puzzles")
    return ordered[(date - DAILY_EPOCH).days % len(ordered)]
