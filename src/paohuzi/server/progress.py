"""The course's and the puzzles' progress kept with the hall's player (issue 27 point 1, D153).

A lesson's progress is the step reached and whether it was finished once; a puzzle's is whether
its first answer was right. Only the ids of shipped lessons and puzzles are kept (anything else
is refused before the database is touched), so a player has at most one row a shipped item.
Writes only go further: a step reached is the larger of the kept and the sent, finished stays
finished, a puzzle's first answer is the one kept. So a page may send what its browser kept
before the player existed, and the further of the two wins.

The functions taking a :class:`~paohuzi.server.store.Store` run in the database's hall
threads (:meth:`~paohuzi.server.database.Database.call`), never in the event loop.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from paohuzi import lessons, puzzles
from paohuzi.server.store import Store

LESSON, PUZZLE = "lesson", "puzzle"
KINDS = (LESSON, PUZZLE)
ITEMS = 64
"""Items one request may record (a first visit sends what its browser kept, in batches)."""


@functools.cache
def lesson_steps() -> dict[str, int]:
    """Each shipped lesson's id and its number of steps."""
    return {lesson.id: len(lesson.steps) for lesson in lessons.shipped()}


@functools.cache
def puzzle_ids() -> frozenset[str]:
    return frozenset(p.id for p in puzzles.shipped())


def most_rows() -> int:
    """The rows a player can have: one a shipped lesson and puzzle."""
    return len(lesson_steps()) + len(puzzle_ids())


@dataclass(frozen=True)
class Item:
    kind: str
    id: str
    step: int = 0
    done: bool = False
    right: bool = False

    def json(self) -> dict[str, Any]:
        if self.kind == LESSON:
            return {"step": self.step, "done": self.done}
        return {"right": self.right}


def check(kind: str, item: str, step: int, done: bool, right: bool) -> Item:
    """An item to record, if its id is a shipped one and its step one of the lesson's; else
    ValueError saying what is wrong (zh · en, one line)."""
    if kind == LESSON:
        steps = lesson_steps().get(item)
        if steps is None:
            raise ValueError("没有这一课 · no such lesson")
        if not 0 <= step < steps:
            raise ValueError("这一课没有这一步 · the lesson has no such step")
        return Item(LESSON, item, step, done, False)
    if kind == PUZZLE:
        if item not in puzzle_ids():
            raise ValueError("没有这道题 · no such puzzle")
        return Item(PUZZLE, item, 0, True, right)
    raise ValueError("只记课程和题目 · only lessons and puzzles are kept")


# ---------------------------------------------------------------------- store (hall threads)


def read(store: Store, player: str) -> dict[str, dict[str, Any]]:
    """A player's progress: ``{"lessons": {id: {step, done}}, "puzzles": {id: {right}}}``."""
    found: dict[str, dict[str, Any]] = {"lessons": {}, "puzzles": {}}
    with store._transaction():
        rows = store._execute(
            "SELECT kind, item, step, done, right_answer FROM progress WHERE player = ?",
            (player,),
        ).fetchall()
    for kind, item, step, done, right in rows:
        if kind == LESSON and item in lesson_steps():
            found["lessons"][item] = Item(LESSON, item, int(step), bool(done)).json()
        elif kind == PUZZLE and item in puzzle_ids():
            found["puzzles"][item] = Item(PUZZLE, item, right=bool(right)).json()
    return found


def record(store: Store, player: str, items: list[Item], now: float) -> None:
    """Keep ``items`` for ``player``, only ever further (see the module's text)."""
    with store._transaction():
        for item in items:
            row = store._execute(
                "SELECT step, done FROM progress WHERE player = ? AND kind = ? AND item = ?",
                (player, item.kind, item.id),
            ).fetchone()
            if row is None:
                store._execute(
                    "INSERT INTO progress (player, kind, item, step, done, right_answer, updated)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    (player, item.kind, item.id, item.step, int(item.done), int(item.right), now),
                )
            elif item.kind == LESSON:
                step, done = max(int(row[0]), item.step), int(bool(row[1]) or item.done)
                if (step, done) != (int(row[0]), int(row[1])):
                    store._execute(
                        "UPDATE progress SET step = ?, done = ?, updated = ?"
                        " WHERE player = ? AND kind = ? AND item = ?",
                        (step, done, now, player, item.kind, item.id),
                    )
            # A puzzle's first answer is the one kept.
