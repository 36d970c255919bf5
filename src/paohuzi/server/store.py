"""SQLite persistence: every room, every action before it is applied, every finished hand.

A hand in progress is stored as its deck, dealer and actions, so a restarted server replays it
to exactly where it was (the engine is deterministic). Every write is its own transaction,
committed before the server shows its effect to anyone; a failed write raises
:class:`StoreError` and leaves the database as it was.

The schema is versioned (``PRAGMA user_version``): :data:`MIGRATIONS` are numbered SQL steps,
applied in order at start, so a database of an older server is brought up to date in place.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MIGRATIONS: tuple[str, ...] = (
    # 1: the first server's schema.
    """
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
    """,
    # 2: fair deals (issue 10): seeded rooms only in development, the commitment and salt of
    # every deal, room state for expiry and quarantine.
    """
    ALTER TABLE rooms ADD COLUMN seeded INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE rooms ADD COLUMN active REAL NOT NULL DEFAULT 0;
    ALTER TABLE rooms ADD COLUMN state TEXT NOT NULL DEFAULT 'open';
    ALTER TABLE rooms ADD COLUMN note TEXT NOT NULL DEFAULT '';
    ALTER TABLE hands ADD COLUMN salt TEXT;
    ALTER TABLE hands ADD COLUMN commitment TEXT;
    UPDATE rooms SET active = created;
    CREATE INDEX IF NOT EXISTS rooms_state ON rooms (state, active);
    """,
    # 3: tables of friends (issue 13): a match's length, where the match in play started and
    # its number (a rematch starts a new one in the same room).
    """
    ALTER TABLE rooms ADD COLUMN length INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE rooms ADD COLUMN match_start INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE rooms ADD COLUMN match_no INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE rooms ADD COLUMN waits INTEGER NOT NULL DEFAULT 0;
    """,
)

log = logging.getLogger("paohuzi.server")

OPEN, CLOSED, QUARANTINED = "open", "closed", "quarantined"
"""Room states: playing; expired (history kept); not restorable (kept for the operator)."""


class StoreError(Exception):
    """A write that did not happen (disk full, I/O error, …): nothing of it was stored."""


@dataclass
class StoredRoom:
    id: str
    created: float
    rules: str
    seed: int | None
    """The seed of a development room's decks; None for decks from the CSPRNG."""
    timer: float
    seats: list[dict[str, Any]]
    dealer: int
    totals: list[int]
    hands: int
    streak: int
    active: float = 0.0
    state: str = OPEN
    length: int = 0
    """Hands in a match; 0: no end."""
    match_start: int = 0
    match_no: int = 1
    waits: bool = False
    """Created to wait for its people before the first deal: without a hand it is waiting,
    not broken."""


@dataclass
class StoredHand:
    n: int
    dealer: int
    deck: str
    actions: list[str]
    record: dict[str, Any] | None
    salt: str | None = None
    commitment: str | None = None


def _connect(path: str) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=5)
    db.execute("PRAGMA journal_mode=WAL")
    # A committed transaction survives the process being killed; after a power cut the last
    # ones may be lost (docs/security.md): FULL would fsync every action.
    db.execute("PRAGMA synchronous=NORMAL")
    return db


class Store:
    """The database of a server: one connection that writes (from the event loop) and one
    that reads history (from worker threads, one at a time)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._db = _connect(self.path)
        self._migrate()
        self._reader = _connect(self.path)
        self._read_lock = threading.Lock()

    def _migrate(self) -> None:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        if (
            version == 0
            and self._db.execute("SELECT 1 FROM sqlite_master WHERE name = 'rooms'").fetchone()
        ):
            version = 1  # a database of the first server, made before versions were kept
        for number, step in enumerate(MIGRATIONS[version:], start=version + 1):
            with self._transaction():
                for statement in filter(str.strip, step.split(";")):
                    self._db.execute(statement)
                self._db.execute(f"PRAGMA user_version = {number}")

    def close(self) -> None:
        self._db.close()
        self._reader.close()

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                # SQLite has rolled back already after some errors (a full disk, I/O): a
                # second ROLLBACK would fail and hide the cause.
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        except sqlite3.Error as error:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise StoreError(str(error)) from error

    # ------------------------------------------------------------------ writes

    def create_room(self, room: StoredRoom, hand: StoredHand | None) -> bool:
        """Insert a new room with its first hand (None: it waits for its people); False when
        the id is taken already."""
        try:
            with self._transaction():
                self._db.execute(
                    "INSERT INTO rooms (id, created, rules, seed, timer, seats, dealer, totals,"
                    " hands, streak, seeded, active, state, length, match_start, match_no, waits)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        *self._room_values(room),
                        room.seed is not None,
                        room.active,
                        OPEN,
                        room.length,
                        room.match_start,
                        room.match_no,
                        room.waits,
                    ),
                )
                if hand is not None:
                    self._insert_hand(room.id, hand)
        except StoreError as error:
            if isinstance(error.__cause__, sqlite3.IntegrityError):
                return False
            raise
        return True

    def _room_values(self, room: StoredRoom) -> tuple[Any, ...]:
        return (
            room.id,
            room.created,
            room.rules,
            room.seed or 0,
            room.timer,
            json.dumps(room.seats),
            room.dealer,
            json.dumps(room.totals),
            room.hands,
            room.streak,
        )

    def _insert_hand(self, room: str, hand: StoredHand) -> None:
        self._db.execute(
            "INSERT INTO hands (room, n, dealer, deck, record, salt, commitment)"
            " VALUES (?, ?, ?, ?, NULL, ?, ?)",
            (room, hand.n, hand.dealer, hand.deck, hand.salt, hand.commitment),
        )

    def start_hand(self, room: str, hand: StoredHand, match: StoredRoom | None = None) -> None:
        """A new deal; with ``match``, the first of a new match (its score and start)."""
        with self._transaction():
            self._insert_hand(room, hand)
            self._touch(room)
            if match is not None:
                self._db.execute(
                    "UPDATE rooms SET totals = ?, match_start = ?, match_no = ? WHERE id = ?",
                    (json.dumps(match.totals), match.match_start, match.match_no, room),
                )

    def set_seats(self, room: str, seats: list[dict[str, Any]]) -> None:
        """Who sits where: names, arrivals, bots that took empty seats."""
        with self._transaction():
            self._db.execute("UPDATE rooms SET seats = ? WHERE id = ?", (json.dumps(seats), room))
            self._touch(room)

    def add_action(self, room: str, n: int, i: int, action: str) -> None:
        """Store an action before it is applied; a second action at the same place fails."""
        with self._transaction():
            self._db.execute("INSERT INTO actions VALUES (?, ?, ?, ?)", (room, n, i, action))
            self._touch(room)

    def finish_hand(self, room: StoredRoom, n: int, record: dict[str, Any]) -> None:
        """The finished hand's record and the room's new score, together."""
        with self._transaction():
            self._db.execute(
                "UPDATE hands SET record = ? WHERE room = ? AND n = ?",
                (json.dumps(record, ensure_ascii=False), room.id, n),
            )
            self._db.execute(
                "UPDATE rooms SET dealer = ?, totals = ?, hands = ?, streak = ?, active = ?"
                " WHERE id = ?",
                (
                    room.dealer,
                    json.dumps(room.totals),
                    room.hands,
                    room.streak,
                    time.time(),
                    room.id,
                ),
            )

    def set_state(self, room: str, state: str, note: str = "") -> None:
        with self._transaction():
            self._db.execute(
                "UPDATE rooms SET state = ?, note = ? WHERE id = ?", (state, note, room)
            )

    def _touch(self, room: str) -> None:
        self._db.execute("UPDATE rooms SET active = ? WHERE id = ?", (time.time(), room))

    # ------------------------------------------------------------------ reads at start

    def open_rooms(self) -> list[StoredRoom]:
        """The open rooms; one whose row does not read is quarantined, not fatal to the rest."""
        rows = self._db.execute(
            "SELECT id, created, rules, seed, timer, seats, dealer, totals, hands, streak,"
            " seeded, active, state, length, match_start, match_no, waits FROM rooms"
            " WHERE state = ?"
            " ORDER BY active",
            (OPEN,),
        ).fetchall()
        found = []
        for row in rows:
            try:
                found.append(_stored_room(row))
            except (ValueError, TypeError) as error:
                note = f"its row does not read: {type(error).__name__}: {error}"[:500]
                log.error("room %s quarantined: %s", row[0], note)
                with suppress(StoreError):
                    self.set_state(row[0], QUARANTINED, note)
        return found

    def last_hand(self, room: str) -> StoredHand | None:
        row = self._db.execute(
            "SELECT n, dealer, deck, record, salt, commitment FROM hands WHERE room = ?"
            " ORDER BY n DESC LIMIT 1",
            (room,),
        ).fetchone()
        if row is None:
            return None
        n, dealer, deck, record, salt, commitment = row
        actions = [
            a
            for (a,) in self._db.execute(
                "SELECT action FROM actions WHERE room = ? AND n = ? ORDER BY i", (room, n)
            )
        ]
        return StoredHand(
            n, dealer, deck, actions, json.loads(record) if record else None, salt, commitment
        )

    def quarantined(self) -> list[tuple[str, str]]:
        return self._db.execute(
            "SELECT id, note FROM rooms WHERE state = ? ORDER BY id", (QUARANTINED,)
        ).fetchall()

    # ------------------------------------------------------------------ history (threads)

    def room_exists(self, room: str) -> bool:
        with self._read_lock:
            return bool(
                self._reader.execute("SELECT 1 FROM rooms WHERE id = ?", (room,)).fetchone()
            )

    def finished_hands(self, room: str, after: int, limit: int) -> list[dict[str, Any]]:
        """Finished hands numbered above ``after``, at most ``limit``: number, dealer and result."""
        with self._read_lock:
            rows = self._reader.execute(
                "SELECT n, dealer, record FROM hands WHERE room = ? AND n > ?"
                " AND record IS NOT NULL ORDER BY n LIMIT ?",
                (room, after, limit),
            ).fetchall()
        found = []
        for n, dealer, record in rows:
            result = json.loads(record).get("result") or {}
            found.append(
                {
                    "n": n,
                    "dealer": dealer,
                    "winner": result.get("winner"),
                    "huxi": result.get("huxi"),
                    "score": result.get("score"),
                    "payments": result.get("payments"),
                }
            )
        return found

    def record(self, room: str, n: int) -> dict[str, Any] | None:
        with self._read_lock:
            row = self._reader.execute(
                "SELECT record FROM hands WHERE room = ? AND n = ? AND record IS NOT NULL",
                (room, n),
            ).fetchone()
        found: dict[str, Any] | None = json.loads(row[0]) if row else None
        return found


def _stored_room(row: tuple[Any, ...]) -> StoredRoom:
    (
        id_,
        created,
        rules,
        seed,
        timer,
        seats,
        dealer,
        totals,
        hands,
        streak,
        seeded,
        active,
        state,
        length,
        match_start,
        match_no,
        waits,
    ) = row
    return StoredRoom(
        id_,
        created,
        rules,
        seed if seeded else None,
        timer,
        json.loads(seats),
        dealer,
        json.loads(totals),
        hands,
        streak,
        active,
        state,
        length,
        match_start,
        match_no,
        bool(waits),
    )
