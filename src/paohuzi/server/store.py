"""SQLite persistence: every room, every action as it happens, every finished hand's record.

A hand in progress is stored as its deck, dealer and actions, so a restarted server replays it
to exactly where it was (the engine is deterministic).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    rules TEXT NOT NULL,
    seed INTEGER NOT NULL,
    timer REAL NOT NULL,
    seats TEXT NOT NULL,
    dealer INTEGER NOT NULL,
    totals TEXT NOT NULL,
    hands INTEGER NOT NULL,
    streak INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS hands (
    room TEXT NOT NULL,
    n INTEGER NOT NULL,
    dealer INTEGER NOT NULL,
    deck TEXT NOT NULL,
    record TEXT,
    PRIMARY KEY (room, n)
);
CREATE TABLE IF NOT EXISTS actions (
    room TEXT NOT NULL,
    n INTEGER NOT NULL,
    i INTEGER NOT NULL,
    action TEXT NOT NULL,
    PRIMARY KEY (room, n, i)
);
"""


@dataclass
class StoredRoom:
    id: str
    created: float
    rules: str
    seed: int
    timer: float
    seats: list[dict[str, Any]]
    dealer: int
    totals: list[int]
    hands: int
    streak: int


@dataclass
class StoredHand:
    n: int
    dealer: int
    deck: str
    actions: list[str]
    record: dict[str, Any] | None


class Store:
    """The database of a server. One connection, used from the server's event loop."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        self._db.close()

    def save_room(self, room: StoredRoom) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO rooms VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                room.id,
                room.created,
                room.rules,
                room.seed,
                room.timer,
                json.dumps(room.seats),
                room.dealer,
                json.dumps(room.totals),
                room.hands,
                room.streak,
            ),
        )

    def start_hand(self, room: str, n: int, dealer: int, deck: str) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO hands VALUES (?, ?, ?, ?, NULL)", (room, n, dealer, deck)
        )

    def add_action(self, room: str, n: int, i: int, action: str) -> None:
        self._db.execute("INSERT INTO actions VALUES (?, ?, ?, ?)", (room, n, i, action))

    def finish_hand(self, room: str, n: int, record: dict[str, Any]) -> None:
        self._db.execute(
            "UPDATE hands SET record = ? WHERE room = ? AND n = ?",
            (json.dumps(record, ensure_ascii=False), room, n),
        )

    def rooms(self) -> list[StoredRoom]:
        rows = self._db.execute("SELECT * FROM rooms ORDER BY created").fetchall()
        return [
            StoredRoom(
                r[0], r[1], r[2], r[3], r[4], json.loads(r[5]), r[6], json.loads(r[7]), r[8], r[9]
            )
            for r in rows
        ]

    def hands(self, room: str) -> list[StoredHand]:
        found = []
        for n, dealer, deck, record in self._db.execute(
            "SELECT n, dealer, deck, record FROM hands WHERE room = ? ORDER BY n", (room,)
        ):
            actions = [
                a
                for (a,) in self._db.execute(
                    "SELECT action FROM actions WHERE room = ? AND n = ? ORDER BY i", (room, n)
                )
            ]
            found.append(
                StoredHand(n, dealer, deck, actions, json.loads(record) if record else None)
            )
        return found
