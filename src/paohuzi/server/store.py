"""Persistence: every room, every action before it is applied, every finished hand.

Two stores behind one interface (:class:`Store`): SQLite, the embedded default, for one
server process; PostgreSQL (``postgresql://…``, :class:`PostgresStore`) for a hall of many
processes sharing one database, where each room is held by one process at a time under a
lease (:meth:`Store.claim`), and every write of a room is fenced by it (D60).

A hand in progress is stored as its deck, dealer and actions, so a restarted server replays it
to exactly where it was (the engine is deterministic). Every write is committed before the
server shows its effect to anyone — the server's writer thread commits many rooms' writes in
one transaction (:meth:`Store.apply_writes`, D74) — and a failed write raises
:class:`StoreError` and leaves the database as it was. The store is synchronous; the server
calls it from threads only (:mod:`paohuzi.server.database`, D73).

The schema is versioned (``PRAGMA user_version``; in PostgreSQL a ``schema_version`` table):
:data:`MIGRATIONS` and :data:`PG_MIGRATIONS` are numbered SQL steps, applied in order at start,
so a database of an older server is brought up to date in place (D59).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paohuzi.server import ratings

if TYPE_CHECKING:
    import psycopg

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
    # 4: the hall for strangers (issue 25): players known by a cookie (only a hash of its
    # secret is kept), other devices' keys, blocks, the quick-play queue, and which rooms the
    # open-table list shows.
    """
    CREATE TABLE IF NOT EXISTS players (
        id TEXT PRIMARY KEY,
        secret TEXT NOT NULL,
        name TEXT NOT NULL,
        avatar INTEGER NOT NULL DEFAULT 0,
        created REAL NOT NULL,
        seen REAL NOT NULL,
        leaves INTEGER NOT NULL DEFAULT 0,
        transfer TEXT,
        transfer_until REAL
    );
    CREATE UNIQUE INDEX IF NOT EXISTS players_transfer ON players (transfer);
    CREATE TABLE IF NOT EXISTS player_keys (
        hash TEXT PRIMARY KEY,
        player TEXT NOT NULL,
        created REAL NOT NULL
    );
    CREATE INDEX IF NOT EXISTS player_keys_player ON player_keys (player);
    CREATE TABLE IF NOT EXISTS blocks (
        player TEXT NOT NULL,
        other TEXT NOT NULL,
        kind TEXT NOT NULL,
        PRIMARY KEY (player, other)
    );
    CREATE INDEX IF NOT EXISTS blocks_other ON blocks (other);
    CREATE TABLE IF NOT EXISTS queue (
        player TEXT PRIMARY KEY,
        rules TEXT NOT NULL,
        family TEXT NOT NULL,
        seats INTEGER NOT NULL,
        fill_after REAL NOT NULL,
        fill_level TEXT NOT NULL,
        since REAL NOT NULL,
        eligible REAL NOT NULL,
        room TEXT,
        seat INTEGER,
        token TEXT,
        seated REAL
    );
    CREATE INDEX IF NOT EXISTS queue_waiting ON queue (room, eligible);
    ALTER TABLE rooms ADD COLUMN listed TEXT NOT NULL DEFAULT '';
    CREATE INDEX IF NOT EXISTS rooms_listed ON rooms (listed, state);
    """,
    # 5: ratings and profiles (issue 25, D120, D121): each known player's rating per rule
    # family, its history, the matches rated (each once), and each hand a player played.
    """
    CREATE TABLE IF NOT EXISTS ratings (
        player TEXT NOT NULL,
        family TEXT NOT NULL,
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        hands INTEGER NOT NULL DEFAULT 0,
        matches INTEGER NOT NULL DEFAULT 0,
        updated REAL NOT NULL,
        PRIMARY KEY (player, family)
    );
    CREATE INDEX IF NOT EXISTS ratings_board ON ratings (family, mu);
    CREATE TABLE IF NOT EXISTS rating_history (
        player TEXT NOT NULL,
        family TEXT NOT NULL,
        at REAL NOT NULL,
        room TEXT NOT NULL,
        match_no INTEGER NOT NULL,
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        PRIMARY KEY (player, family, room, match_no)
    );
    CREATE TABLE IF NOT EXISTS rated_matches (
        room TEXT NOT NULL,
        match_no INTEGER NOT NULL,
        family TEXT NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (room, match_no)
    );
    CREATE TABLE IF NOT EXISTS player_hands (
        player TEXT NOT NULL,
        room TEXT NOT NULL,
        n INTEGER NOT NULL,
        family TEXT NOT NULL,
        at REAL NOT NULL,
        seat INTEGER NOT NULL,
        points INTEGER NOT NULL,
        huxi INTEGER NOT NULL,
        won INTEGER NOT NULL,
        mingtang TEXT NOT NULL,
        PRIMARY KEY (player, room, n)
    );
    CREATE INDEX IF NOT EXISTS player_hands_recent ON player_hands (player, at);
    """,
    # 6: the course's and the puzzles' progress kept with the player (issue 27, D153): per
    # shipped lesson the step reached and whether it was finished once; per shipped puzzle
    # whether the first answer was right. Ids are checked against the shipped ones.
    """
    CREATE TABLE IF NOT EXISTS progress (
        player TEXT NOT NULL,
        kind TEXT NOT NULL,
        item TEXT NOT NULL,
        step INTEGER NOT NULL,
        done INTEGER NOT NULL,
        right_answer INTEGER NOT NULL,
        updated REAL NOT NULL,
        PRIMARY KEY (player, kind, item)
    );
    """,
)

PG_MIGRATIONS: tuple[str, ...] = (
    # 1: the schema of SQLite's third step, in PostgreSQL's types.
    """
    CREATE TABLE rooms (
        id TEXT PRIMARY KEY,
        created DOUBLE PRECISION NOT NULL,
        rules TEXT NOT NULL,
        seed BIGINT NOT NULL,
        timer DOUBLE PRECISION NOT NULL,
        seats TEXT NOT NULL,
        dealer INTEGER NOT NULL,
        totals TEXT NOT NULL,
        hands INTEGER NOT NULL,
        streak INTEGER NOT NULL,
        seeded INTEGER NOT NULL DEFAULT 1,
        active DOUBLE PRECISION NOT NULL DEFAULT 0,
        state TEXT NOT NULL DEFAULT 'open',
        note TEXT NOT NULL DEFAULT '',
        length INTEGER NOT NULL DEFAULT 0,
        match_start INTEGER NOT NULL DEFAULT 0,
        match_no INTEGER NOT NULL DEFAULT 1,
        waits INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX rooms_state ON rooms (state, active);
    CREATE TABLE hands (
        room TEXT NOT NULL,
        n INTEGER NOT NULL,
        dealer INTEGER NOT NULL,
        deck TEXT NOT NULL,
        record TEXT,
        salt TEXT,
        commitment TEXT,
        PRIMARY KEY (room, n)
    );
    CREATE TABLE actions (
        room TEXT NOT NULL,
        n INTEGER NOT NULL,
        i INTEGER NOT NULL,
        action TEXT NOT NULL,
        PRIMARY KEY (room, n, i)
    );
    """,
    # 2: a hall of processes (issue 16): who lives (a heartbeat) and who holds which room.
    """
    CREATE TABLE processes (
        id TEXT PRIMARY KEY,
        address TEXT NOT NULL,
        seen TIMESTAMPTZ NOT NULL
    );
    CREATE TABLE leases (
        room TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        epoch BIGINT NOT NULL
    );
    CREATE INDEX leases_owner ON leases (owner);
    """,
    # 3: SQLite's fourth step (issue 25), in PostgreSQL's types.
    """
    CREATE TABLE players (
        id TEXT PRIMARY KEY,
        secret TEXT NOT NULL,
        name TEXT NOT NULL,
        avatar INTEGER NOT NULL DEFAULT 0,
        created DOUBLE PRECISION NOT NULL,
        seen DOUBLE PRECISION NOT NULL,
        leaves INTEGER NOT NULL DEFAULT 0,
        transfer TEXT,
        transfer_until DOUBLE PRECISION
    );
    CREATE UNIQUE INDEX players_transfer ON players (transfer);
    CREATE TABLE player_keys (
        hash TEXT PRIMARY KEY,
        player TEXT NOT NULL,
        created DOUBLE PRECISION NOT NULL
    );
    CREATE INDEX player_keys_player ON player_keys (player);
    CREATE TABLE blocks (
        player TEXT NOT NULL,
        other TEXT NOT NULL,
        kind TEXT NOT NULL,
        PRIMARY KEY (player, other)
    );
    CREATE INDEX blocks_other ON blocks (other);
    CREATE TABLE queue (
        player TEXT PRIMARY KEY,
        rules TEXT NOT NULL,
        family TEXT NOT NULL,
        seats INTEGER NOT NULL,
        fill_after DOUBLE PRECISION NOT NULL,
        fill_level TEXT NOT NULL,
        since DOUBLE PRECISION NOT NULL,
        eligible DOUBLE PRECISION NOT NULL,
        room TEXT,
        seat INTEGER,
        token TEXT,
        seated DOUBLE PRECISION
    );
    CREATE INDEX queue_waiting ON queue (room, eligible);
    ALTER TABLE rooms ADD COLUMN listed TEXT NOT NULL DEFAULT '';
    CREATE INDEX rooms_listed ON rooms (listed, state);
    """,
    # 4: SQLite's step 5 (ratings and profiles, issue 25), in PostgreSQL's types.
    """
    CREATE TABLE ratings (
        player TEXT NOT NULL,
        family TEXT NOT NULL,
        mu DOUBLE PRECISION NOT NULL,
        sigma DOUBLE PRECISION NOT NULL,
        hands INTEGER NOT NULL DEFAULT 0,
        matches INTEGER NOT NULL DEFAULT 0,
        updated DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (player, family)
    );
    CREATE INDEX ratings_board ON ratings (family, mu);
    CREATE TABLE rating_history (
        player TEXT NOT NULL,
        family TEXT NOT NULL,
        at DOUBLE PRECISION NOT NULL,
        room TEXT NOT NULL,
        match_no INTEGER NOT NULL,
        mu DOUBLE PRECISION NOT NULL,
        sigma DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (player, family, room, match_no)
    );
    CREATE TABLE rated_matches (
        room TEXT NOT NULL,
        match_no INTEGER NOT NULL,
        family TEXT NOT NULL,
        at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (room, match_no)
    );
    CREATE TABLE player_hands (
        player TEXT NOT NULL,
        room TEXT NOT NULL,
        n INTEGER NOT NULL,
        family TEXT NOT NULL,
        at DOUBLE PRECISION NOT NULL,
        seat INTEGER NOT NULL,
        points INTEGER NOT NULL,
        huxi INTEGER NOT NULL,
        won INTEGER NOT NULL,
        mingtang TEXT NOT NULL,
        PRIMARY KEY (player, room, n)
    );
    CREATE INDEX player_hands_recent ON player_hands (player, at);
    """,
    # 5: SQLite's step 6 (progress kept with the player, issue 27, D153).
    """
    CREATE TABLE progress (
        player TEXT NOT NULL,
        kind TEXT NOT NULL,
        item TEXT NOT NULL,
        step INTEGER NOT NULL,
        done INTEGER NOT NULL,
        right_answer INTEGER NOT NULL,
        updated DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (player, kind, item)
    );
    """,
)
"""PostgreSQL's own numbered steps (its first is SQLite's first three at once)."""

log = logging.getLogger("paohuzi.server")

OPEN, CLOSED, QUARANTINED = "open", "closed", "quarantined"
"""Room states: playing; expired (history kept); not restorable (kept for the operator)."""


class StoreError(Exception):
    """A write that did not happen (disk full, I/O error, …): nothing of it was stored."""


class LeaseLost(StoreError):
    """A write of a room this process no longer holds: another took it over (it was thought
    dead), so nothing of it was stored, and nothing of it ever will be (fencing, D60)."""


@dataclass
class StoredRoom:
    id: str
    created: float
    rules_text: str
    """A preset's name, or a rule set's JSON (:mod:`roomrules`)."""
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
    awaits_everyone: bool = False
    """Created to wait for its people before the first deal: without a hand it is waiting,
    not broken."""
    listed: str = ""
    """Whether the open-table list shows it: "" (a room of invites), "quick" (made by the
    quick-play queue) or "public" (its host listed it)."""


@dataclass
class Write:
    """One write of a room, as the server's writer thread commits it with others
    (:meth:`Store.apply_writes`, group commit): ``kind`` names the method it stands for
    (``add_action``, ``start_hand``, ``set_seats``, ``finish_hand``, ``set_state``,
    ``hand_played``, ``rate_match``) and
    ``args`` are that method's arguments after the room."""

    kind: str
    room: str
    args: tuple[Any, ...]


UNFENCED = frozenset({"hand_played", "rate_match"})
"""The writes not fenced by the room's lease: a finished hand's facts for its players (D173).
Each is made only once the hand's record is stored (under the lease) and is idempotent, so a
process that has since lost the room may still store them; its new holder restores only the
room's last hand, and an expired room nobody."""


@dataclass(frozen=True)
class PlayedHand:
    """What a known player's profile keeps of a finished hand they played."""

    player: str
    seat: int
    points: int
    """What the hand paid the seat (negative: it paid)."""
    huxi: int
    """The winner's hu-xi, for the hand's winner; 0 for the others."""
    won: bool
    mingtang: tuple[str, ...]
    """The winner's 名堂, by name."""


@dataclass(frozen=True)
class RatedMatch:
    """A finished match as the ratings see it: per seat the known player (None: a bot or a
    person who is no known player), the bot level, and the match's total."""

    match_no: int
    family: str
    players: tuple[str | None, ...]
    bots: tuple[str | None, ...]
    totals: tuple[int, ...]
    hands: int


@dataclass
class StoredHand:
    n: int
    dealer: int
    deck: str
    actions: list[str]
    record: dict[str, Any] | None
    salt: str | None = None
    commitment: str | None = None


def _connect(path: str, timeout: float = 5) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=timeout)
    db.execute("PRAGMA journal_mode=WAL")
    # A committed transaction survives the process being killed; after a power cut the last
    # ones may be lost (docs/security.md): FULL would fsync every action.
    db.execute("PRAGMA synchronous=NORMAL")
    return db


class Store:
    """The database of a server (SQLite), synchronous: a connection that writes and one that
    reads history (one caller at a time); a thread that calls :meth:`open_thread` first gets
    a connection of its own. The server never calls it from its event loop: its writer thread
    commits the rooms' writes in groups (:meth:`apply_writes`), reader threads answer the
    rest (:mod:`paohuzi.server.database`). Every room is this process's: a SQLite file
    belongs to one server."""

    hall = False
    """Whether other processes share the database (rooms are then claimed, :meth:`claim`)."""
    _taken: tuple[type[BaseException], ...] = (sqlite3.IntegrityError,)
    """The driver's error for a primary key that is taken."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._local = threading.local()
        self._opened: list[Any] = []
        self._opened_lock = threading.Lock()
        self._closed = False
        self._db = _connect(self.path)
        self._migrate()
        self._reader = _connect(self.path)
        self._read_lock = threading.Lock()

    def open_thread(self) -> None:
        """Give the calling thread a connection of its own (a reader thread of the server):
        its reads and writes go through it from now on (none once the store is closed)."""
        if self._closed:
            return
        self._local.db = self._adopt(_connect(self.path))

    def _adopt(self, connection: Any) -> Any:
        """Keep a thread's connection, to close it with the store (refused once it is)."""
        with self._opened_lock:
            if not self._closed:
                self._opened.append(connection)
                return connection
        connection.close()
        raise StoreError("the store is closed")

    def _close_opened(self) -> None:
        with self._opened_lock:
            self._closed = True
            opened, self._opened = self._opened, []
        for connection in opened:
            with suppress(Exception):
                connection.close()

    def writer_deadline(self, seconds: float) -> None:
        """How long the writing connection waits for a lock another holds, at each try."""
        self._db.execute(f"PRAGMA busy_timeout = {int(seconds * 1000)}")

    def _conn(self) -> sqlite3.Connection:
        found: sqlite3.Connection = getattr(self._local, "db", None) or self._db
        return found

    def _execute(self, sql: str, args: tuple[Any, ...] = ()) -> Any:
        return self._conn().execute(sql, args)

    def _executemany(self, sql: str, rows: list[tuple[Any, ...]]) -> int:
        return self._conn().executemany(sql, rows).rowcount

    def _read(self, sql: str, args: tuple[Any, ...] = ()) -> Any:
        local = getattr(self._local, "db", None)
        return (local or self._reader).execute(sql, args)

    def _reading(self) -> AbstractContextManager[Any]:
        """The shared reading connection is one caller's at a time; a thread's own is its own."""
        return nullcontext() if getattr(self._local, "db", None) else self._read_lock

    def transient(self, error: StoreError) -> bool:
        """Whether a failed write may succeed unchanged if tried again (a lock another holds,
        a lost connection, a deadline): the server keeps it and tries again, where an error
        that stays (a full disk, a broken row) is told to whoever acted."""
        cause = error.__cause__
        return isinstance(cause, sqlite3.OperationalError) and (
            "locked" in str(cause) or "busy" in str(cause)
        )

    def _migrate(self) -> None:
        version = self._execute("PRAGMA user_version").fetchone()[0]
        if (
            version == 0
            and self._execute("SELECT 1 FROM sqlite_master WHERE name = 'rooms'").fetchone()
        ):
            version = 1  # a database of the first server, made before versions were kept
        for number, step in enumerate(MIGRATIONS[version:], start=version + 1):
            with self._transaction():
                for statement in filter(str.strip, step.split(";")):
                    self._execute(statement)
                self._execute(f"PRAGMA user_version = {number}")

    def close(self) -> None:
        self._close_opened()
        self._db.close()
        self._reader.close()

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        db = self._conn()
        try:
            self._execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                # SQLite has rolled back already after some errors (a full disk, I/O): a
                # second ROLLBACK would fail and hide the cause.
                if db.in_transaction:
                    self._execute("ROLLBACK")
                raise
            self._execute("COMMIT")
        except sqlite3.Error as error:
            if db.in_transaction:
                self._execute("ROLLBACK")
            raise StoreError(str(error)) from error

    def ping(self) -> None:
        """Raise :class:`StoreError` unless the database answers now."""
        try:
            with self._reading():
                self._read("SELECT 1").fetchone()
        except Exception as error:
            raise StoreError(str(error)) from error

    # ------------------------------------------------------------------ leases (a hall)

    def _fence(self, room: str) -> None:
        """Inside a write of ``room``: raise :class:`LeaseLost` unless this process holds it."""

    def _fence_many(self, rooms: set[str]) -> set[str]:
        """Inside a write of many rooms: those of them this process holds (each checked as
        :meth:`_fence` does, in one statement)."""
        return rooms

    def _lease_new(self, room: str) -> None:
        """Inside the creation of ``room``: this process holds it from the start."""

    def _lease_held(self, room: str) -> None:
        """The creation of ``room`` committed: its lease is this process's (known only now,
        so that a heartbeat reading meanwhile does not judge a lease it cannot see yet)."""

    def claim(self, room: str) -> bool | str:
        """Hold ``room`` (its lease) if it is open and no live process does: True when it is
        this process's now, False when it is not open, else the address of its live holder."""
        return True

    def heartbeat(self) -> set[str] | None:
        """Tell the hall this process lives; the rooms it still holds (None: all it had)."""
        return None

    def orphans(self, limit: int) -> list[str]:
        """Open rooms that no live process holds (their holder died), oldest activity first."""
        return []

    def release(self, room: str) -> None:
        """Let go of ``room`` (it closed here, or this process stops)."""

    # ------------------------------------------------------------------ writes

    def create_room(self, room: StoredRoom, hand: StoredHand | None) -> bool:
        """Insert a new room with its first hand (None: it waits for its people); False when
        the id is taken already."""
        try:
            with self._transaction():
                self._insert_room(room, hand)
        except StoreError as error:
            if isinstance(error.__cause__, self._taken):
                return False
            raise
        self._lease_held(room.id)
        return True

    def _insert_room(self, room: StoredRoom, hand: StoredHand | None) -> None:
        """Inside a transaction: the room's row, its lease and its first hand (if any)."""
        self._execute(
            "INSERT INTO rooms (id, created, rules, seed, timer, seats, dealer, totals,"
            " hands, streak, seeded, active, state, length, match_start, match_no, waits,"
            " listed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                *self._room_values(room),
                int(room.seed is not None),
                room.active,
                OPEN,
                room.length,
                room.match_start,
                room.match_no,
                int(room.awaits_everyone),
                room.listed,
            ),
        )
        self._lease_new(room.id)
        if hand is not None:
            self._insert_hand(room.id, hand)

    def _room_values(self, room: StoredRoom) -> tuple[Any, ...]:
        return (
            room.id,
            room.created,
            room.rules_text,
            room.seed or 0,
            room.timer,
            json.dumps(room.seats),
            room.dealer,
            json.dumps(room.totals),
            room.hands,
            room.streak,
        )

    def _insert_hand(self, room: str, hand: StoredHand) -> None:
        self._execute(
            "INSERT INTO hands (room, n, dealer, deck, record, salt, commitment)"
            " VALUES (?, ?, ?, ?, NULL, ?, ?)",
            (room, hand.n, hand.dealer, hand.deck, hand.salt, hand.commitment),
        )

    def start_hand(self, room: str, hand: StoredHand, match: StoredRoom | None = None) -> None:
        """A new deal; with ``match``, the first of a new match (its score and start)."""
        with self._transaction():
            self._fence(room)
            self._start_hand(room, hand, match)
            self._touch(room)

    def _start_hand(self, room: str, hand: StoredHand, match: StoredRoom | None = None) -> None:
        self._insert_hand(room, hand)
        if match is not None:
            self._execute(
                "UPDATE rooms SET totals = ?, match_start = ?, match_no = ? WHERE id = ?",
                (json.dumps(match.totals), match.match_start, match.match_no, room),
            )

    def set_seats(self, room: str, seats: list[dict[str, Any]]) -> None:
        """Who sits where: names, arrivals, bots that took empty seats."""
        with self._transaction():
            self._fence(room)
            self._set_seats(room, seats)
            self._touch(room)

    def _set_seats(self, room: str, seats: list[dict[str, Any]]) -> None:
        self._execute("UPDATE rooms SET seats = ? WHERE id = ?", (json.dumps(seats), room))

    def add_action(self, room: str, n: int, i: int, action: str) -> None:
        """Store an action before it is applied; a second action at the same place fails."""
        with self._transaction():
            self._fence(room)
            self._execute("INSERT INTO actions VALUES (?, ?, ?, ?)", (room, n, i, action))
            self._touch(room)

    def _add_actions(self, rows: list[tuple[str, int, int, str]]) -> None:
        """Insert actions; one already stored at its place is taken for this one tried again
        (its first try committed, but the answer was lost) when it is the same action, and
        refused otherwise."""
        done = self._executemany(
            "INSERT INTO actions VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING", rows
        )
        if done == len(rows):
            return
        for room, n, i, action in rows:
            found = self._execute(
                "SELECT action FROM actions WHERE room = ? AND n = ? AND i = ?", (room, n, i)
            ).fetchone()
            if found is None or found[0] != action:
                raise StoreError(f"room {room}: another action is stored at {n}/{i}")

    def finish_hand(self, room: StoredRoom, n: int, record: dict[str, Any]) -> None:
        """The finished hand's record and the room's new score, together."""
        with self._transaction():
            self._fence(room.id)
            self._finish_hand(room, n, record)

    def _finish_hand(self, room: StoredRoom, n: int, record: dict[str, Any]) -> None:
        self._execute(
            "UPDATE hands SET record = ? WHERE room = ? AND n = ?",
            (json.dumps(record, ensure_ascii=False), room.id, n),
        )
        self._execute(
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
            self._fence(room)
            self._set_state(room, state, note)

    def _set_state(self, room: str, state: str, note: str = "") -> None:
        self._execute("UPDATE rooms SET state = ?, note = ? WHERE id = ?", (state, note, room))

    def apply_writes(self, writes: list[Write]) -> list[StoreError | None]:
        """Commit many rooms' writes in one transaction (group commit), in their order: for
        each, None (stored) or why it was not (nothing of it stored): the :class:`LeaseLost`
        of a room this process no longer holds, or (PostgreSQL's batch of actions) the
        :class:`StoreError` of an action whose place holds another. Raises
        :class:`StoreError` when the transaction fails: nothing of any of them is stored
        then."""
        results: list[StoreError | None] = [None] * len(writes)
        with self._transaction():
            held = self._fence_many({w.room for w in writes if w.kind not in UNFENCED})
            actions: list[tuple[str, int, int, str]] = []
            touched: set[str] = set()
            for k, write in enumerate(writes):
                if write.kind not in UNFENCED and write.room not in held:
                    results[k] = LeaseLost(f"room {write.room} is held by another process now")
                    continue
                if write.kind == "add_action":
                    actions.append((write.room, *write.args))
                    touched.add(write.room)
                    continue
                if actions:  # in order: a room's earlier actions before its other writes
                    self._add_actions(actions)
                    actions = []
                if write.kind == "start_hand":
                    self._start_hand(write.room, *write.args)
                    touched.add(write.room)
                elif write.kind == "set_seats":
                    self._set_seats(write.room, *write.args)
                    touched.add(write.room)
                elif write.kind == "finish_hand":
                    self._finish_hand(*write.args)
                elif write.kind == "set_state":
                    self._set_state(write.room, *write.args)
                elif write.kind == "hand_played":
                    self._hand_played(write.room, *write.args)
                elif write.kind == "rate_match":
                    self._rate_match(write.room, *write.args)
                else:
                    raise ValueError(f"no write {write.kind!r}")
            if actions:
                self._add_actions(actions)
            now = time.time()
            self._executemany(
                "UPDATE rooms SET active = ? WHERE id = ?", [(now, r) for r in sorted(touched)]
            )
        return results

    def apply_write(self, write: Write) -> Any:
        """One write in a transaction of its own: what its method returns (raises as it
        does; an action tried again after its commit's answer was lost is stored once)."""
        if write.kind == "add_action":
            with self._transaction():
                self._fence(write.room)
                self._add_actions([(write.room, *write.args)])
                self._touch(write.room)
            return None
        if write.kind in ("finish_hand", "create_room"):  # their first argument: the room
            return getattr(self, write.kind)(*write.args)
        return getattr(self, write.kind)(write.room, *write.args)

    def _touch(self, room: str) -> None:
        self._execute("UPDATE rooms SET active = ? WHERE id = ?", (time.time(), room))

    # ------------------------------------------------------------------ reads at start

    def open_rooms(self) -> list[StoredRoom]:
        """The open rooms; one whose row does not read is quarantined, not fatal to the rest."""
        rows = self._execute(
            f"SELECT {_ROOM_COLUMNS} FROM rooms WHERE state = ? ORDER BY active",
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

    def room(self, room: str) -> StoredRoom | None:
        """One open room, as :meth:`open_rooms` reads them; None if it is not open."""
        row = self._execute(
            f"SELECT {_ROOM_COLUMNS} FROM rooms WHERE id = ? AND state = ?", (room, OPEN)
        ).fetchone()
        if row is None:
            return None
        try:
            return _stored_room(row)
        except (ValueError, TypeError) as error:
            note = f"its row does not read: {type(error).__name__}: {error}"[:500]
            log.error("room %s quarantined: %s", row[0], note)
            with suppress(StoreError):
                self.set_state(row[0], QUARANTINED, note)
            return None

    def last_hand(self, room: str) -> StoredHand | None:
        row = self._execute(
            "SELECT n, dealer, deck, record, salt, commitment FROM hands WHERE room = ?"
            " ORDER BY n DESC LIMIT 1",
            (room,),
        ).fetchone()
        if row is None:
            return None
        n, dealer, deck, record, salt, commitment = row
        actions = [
            a
            for (a,) in self._execute(
                "SELECT action FROM actions WHERE room = ? AND n = ? ORDER BY i", (room, n)
            )
        ]
        return StoredHand(
            n, dealer, deck, actions, json.loads(record) if record else None, salt, commitment
        )

    def quarantined(self) -> list[tuple[str, str]]:
        rows: list[tuple[str, str]] = self._execute(
            "SELECT id, note FROM rooms WHERE state = ? ORDER BY id", (QUARANTINED,)
        ).fetchall()
        return [(str(a), str(b)) for a, b in rows]

    # ------------------------------------------------------------------ history (threads)

    def room_exists(self, room: str) -> bool:
        with self._reading():
            return bool(self._read("SELECT 1 FROM rooms WHERE id = ?", (room,)).fetchone())

    def finished_hands(self, room: str, after: int, limit: int) -> list[dict[str, Any]]:
        """Finished hands numbered above ``after``, at most ``limit``: number, dealer and result."""
        with self._reading():
            rows = self._read(
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
        with self._reading():
            row = self._read(
                "SELECT record FROM hands WHERE room = ? AND n = ? AND record IS NOT NULL",
                (room, n),
            ).fetchone()
        found: dict[str, Any] | None = json.loads(row[0]) if row else None
        return found

    # ------------------------------------------------------------------ players' standing

    _locking = ""
    """What a read of ratings about to be changed adds to lock its rows (PostgreSQL's own)."""

    def hand_played(self, room: str, n: int, family: str, rows: list[PlayedHand]) -> int:
        """A finished hand's facts for each known player at it (their profile); each counts
        one hand more to the player's rating in ``family``. A hand stored already is not
        counted again. How many were new."""
        with self._transaction():
            return self._hand_played(room, n, family, rows)

    def _hand_played(self, room: str, n: int, family: str, rows: list[PlayedHand]) -> int:
        now, added = time.time(), 0
        for row in rows:
            cursor = self._execute(
                "INSERT INTO player_hands (player, room, n, family, at, seat, points, huxi, won,"
                " mingtang) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (
                    row.player,
                    room,
                    n,
                    family,
                    now,
                    row.seat,
                    row.points,
                    row.huxi,
                    int(row.won),
                    json.dumps(list(row.mingtang), ensure_ascii=False),
                ),
            )
            if cursor.rowcount != 1:
                continue
            added += 1
            self._execute(
                "INSERT INTO ratings (player, family, mu, sigma, hands, matches, updated)"
                " VALUES (?, ?, ?, ?, 1, 0, ?) ON CONFLICT (player, family) DO UPDATE"
                " SET hands = ratings.hands + 1, updated = excluded.updated",
                (row.player, family, ratings.MU, ratings.SIGMA, now),
            )
        return added

    def rate_match(self, room: str, match: RatedMatch) -> bool:
        """Rate a finished match (:func:`ratings.update`) and keep each known player's new
        rating and a point of its history, in one transaction; a match rated already is not
        rated again (False)."""
        with self._transaction():
            return self._rate_match(room, match)

    def _rate_match(self, room: str, match: RatedMatch) -> bool:
        now = time.time()
        fresh = self._execute(
            "INSERT INTO rated_matches (room, match_no, family, at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT DO NOTHING",
            (room, match.match_no, match.family, now),
        ).rowcount
        if fresh != 1:
            return False
        seats: list[tuple[str | None, ratings.Rating | ratings.BotLevel, int]] = []
        seen: set[str] = set()
        for player, bot, total in sorted(
            zip(match.players, match.bots, match.totals, strict=True),
            key=lambda seat: seat[0] or "",  # rows locked in one order: no deadlock
        ):
            level = ratings.bot_level(bot) if player is None else None
            if player is not None and player not in seen:
                seen.add(player)
                row = self._execute(
                    "SELECT mu, sigma FROM ratings WHERE player = ? AND family = ?" + self._locking,
                    (player, match.family),
                ).fetchone()
                rating = ratings.Rating(*row) if row else ratings.Rating()
                seats.append((player, rating, total))
            elif level is not None:
                seats.append((None, level, total))
        if not seen or len(seats) < 2:
            return True
        after = ratings.update([s[1] for s in seats], [s[2] for s in seats], match.hands)
        for (player, _, _), new in zip(seats, after, strict=True):
            if player is None:
                continue
            self._execute(
                "INSERT INTO ratings (player, family, mu, sigma, hands, matches, updated)"
                " VALUES (?, ?, ?, ?, 0, 1, ?) ON CONFLICT (player, family) DO UPDATE"
                " SET mu = excluded.mu, sigma = excluded.sigma, matches = ratings.matches + 1,"
                " updated = excluded.updated",
                (player, match.family, new.mu, new.sigma, now),
            )
            self._execute(
                "INSERT INTO rating_history (player, family, at, room, match_no, mu, sigma)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (player, match.family, now, room, match.match_no, new.mu, new.sigma),
            )
        return True

    def _has_players(self) -> bool:
        """Whether the players' own table (names, avatars: issue 25 point 1) is here."""
        return bool(
            self._read(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'players'"
            ).fetchone()
        )

    def _cards(self, players: list[str]) -> dict[str, dict[str, Any]]:
        """Each player's public card: id, and name and avatar where the players' table has a
        row for them."""
        cards: dict[str, dict[str, Any]] = {p: {"id": p} for p in players}
        if not players or not self._has_players():
            return cards
        marks = ", ".join("?" for _ in players)
        for player, name, avatar in self._read(
            f"SELECT id, name, avatar FROM players WHERE id IN ({marks})", tuple(players)
        ).fetchall():
            cards[player] |= {"name": name, "avatar": avatar}
        return cards

    def profile(self, player: str, recent: int, points: int) -> dict[str, Any] | None:
        """A player's public profile (D121): their card, per family their rating, counts and
        名堂, their ``recent`` last hands and at most ``points`` last points of each family's
        rating history; None for an id that is no player and has nothing kept."""
        with self._reading():
            rows = self._read(
                "SELECT family, mu, sigma, hands, matches FROM ratings WHERE player = ?"
                " ORDER BY family",
                (player,),
            ).fetchall()
            known = self._read("SELECT 1 FROM players WHERE id = ?", (player,)).fetchone()
            if not rows and not known:
                return None  # nobody: a player with no hand yet still has a card
            families = []
            for family, mu, sigma, hands, matches in rows:
                won, huxi = self._read(
                    "SELECT COUNT(*), COALESCE(SUM(huxi), 0) FROM player_hands"
                    " WHERE player = ? AND family = ? AND won = 1",
                    (player, family),
                ).fetchone()
                names: dict[str, int] = {}
                for (text,) in self._read(
                    "SELECT mingtang FROM player_hands WHERE player = ? AND family = ?"
                    " AND won = 1 AND mingtang <> '[]'",
                    (player, family),
                ):
                    for name in json.loads(text):
                        names[name] = names.get(name, 0) + 1
                history = self._read(
                    "SELECT at, mu, sigma, room, match_no FROM rating_history"
                    " WHERE player = ? AND family = ? ORDER BY at DESC, match_no DESC LIMIT ?",
                    (player, family, points),
                ).fetchall()
                rating = ratings.Rating(mu, sigma)
                families.append(
                    {
                        "family": family,
                        "rating": ratings.display(rating),
                        "provisional": ratings.provisional(hands),
                        "mu": round(mu, 3),
                        "sigma": round(sigma, 3),
                        "hands": hands,
                        "matches": matches,
                        "wins": won,
                        "win_rate": round(won / hands, 4) if hands else None,
                        "average_huxi": round(huxi / won, 2) if won else None,
                        "mingtang": dict(sorted(names.items(), key=lambda i: (-i[1], i[0]))),
                        "history": [
                            {
                                "at": at,
                                "rating": ratings.display(ratings.Rating(m, s)),
                                "room": r,
                                "match": no,
                            }
                            for at, m, s, r, no in reversed(history)
                        ],
                    }
                )
            hands_rows = self._read(
                "SELECT room, n, family, at, seat, points, huxi, won, mingtang FROM player_hands"
                " WHERE player = ? ORDER BY at DESC, room, n DESC LIMIT ?",
                (player, recent),
            ).fetchall()
            card = self._cards([player])[player]
        return {
            "player": card,
            "families": families,
            "recent": [
                {
                    "room": room,
                    "n": n,
                    "family": family,
                    "at": at,
                    "seat": seat,
                    "points": points_,
                    "huxi": huxi,
                    "won": bool(won),
                    "mingtang": json.loads(mingtang),
                }
                for room, n, family, at, seat, points_, huxi, won, mingtang in hands_rows
            ],
        }

    def leaderboard(self, family: str, limit: int) -> list[dict[str, Any]]:
        """The settled ratings of ``family`` (not provisional), best first (the mean, then the
        surer), at most ``limit``."""
        with self._reading():
            rows = self._read(
                "SELECT player, mu, sigma, hands, matches FROM ratings"
                " WHERE family = ? AND hands >= ? AND matches > 0"
                " ORDER BY mu DESC, sigma, player LIMIT ?",
                (family, ratings.PROVISIONAL_HANDS, limit),
            ).fetchall()
            cards = self._cards([row[0] for row in rows])
        return [
            {
                "rank": k + 1,
                "player": cards[player],
                "rating": ratings.display(ratings.Rating(mu, sigma)),
                "hands": hands,
                "matches": matches,
            }
            for k, (player, mu, sigma, hands, matches) in enumerate(rows)
        ]


_ROOM_COLUMNS = (
    "id, created, rules, seed, timer, seats, dealer, totals, hands, streak,"
    " seeded, active, state, length, match_start, match_no, waits, listed"
)


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
        listed,
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
        listed,
    )


def open_store(url: str | Path, *, address: str = "", lease_ttl: float = 3.0) -> Store:
    """The store a ``--db`` names: ``postgresql://…`` (or ``postgres://…``) a hall's shared
    PostgreSQL, anything else a SQLite file."""
    text = str(url)
    if text.startswith(("postgresql://", "postgres://")):
        return PostgresStore(text, address=address, lease_ttl=lease_ttl)
    return Store(text)


_CLAIM = """
INSERT INTO leases (room, owner, epoch)
SELECT %s, %s, 1 WHERE EXISTS (SELECT 1 FROM rooms WHERE id = %s AND state = 'open')
ON CONFLICT (room) DO UPDATE SET owner = excluded.owner, epoch = leases.epoch + 1
WHERE leases.owner = excluded.owner OR NOT EXISTS (
    SELECT 1 FROM processes p
    WHERE p.id = leases.owner AND p.seen > now() - make_interval(secs => %s)
    AND p.address <> %s
)
RETURNING epoch
"""
"""Take a room's lease if nobody holds it, or its holder's heartbeat is older than the TTL, or
its holder had this process's address (an earlier run of it, killed: two live processes never
listen at one address); every taking counts one more epoch. A holder's write in flight holds
the lease row (FOR SHARE, :meth:`PostgresStore._fence`), so the taking waits for it and then
replays it with the rest."""


ACTIONS_AT_ONCE = """
WITH held AS (
    SELECT l.room FROM leases l
    JOIN unnest(%s::text[], %s::bigint[]) AS e(room, epoch) ON e.room = l.room AND e.epoch = l.epoch
    WHERE l.owner = %s
    FOR SHARE OF l
), given AS (
    SELECT * FROM unnest(%s::text[], %s::int[], %s::int[], %s::text[]) AS g(room, n, i, action)
    WHERE g.room IN (SELECT room FROM held)
), added AS (
    INSERT INTO actions (room, n, i, action) SELECT room, n, i, action FROM given
    ON CONFLICT DO NOTHING RETURNING room, n, i
), touched AS (
    UPDATE rooms SET active = %s WHERE id IN (SELECT room FROM held)
)
SELECT 'held', room, NULL::int, NULL::int, NULL::text FROM held
UNION ALL
SELECT 'taken', a.room, a.n, a.i, a.action FROM actions a JOIN given g USING (room, n, i)
WHERE NOT EXISTS (SELECT 1 FROM added d WHERE (d.room, d.n, d.i) = (g.room, g.n, g.i))
"""
"""A batch of actions in one statement (group commit, D74): the lease rows of the rooms this
process holds at the epochs it knows, kept (FOR SHARE) until it commits, so a taking waits
(D60); their actions inserted, the rooms' activity touched; answered with the rooms held and,
for an action whose place was taken already, what is stored there (the statement sees the
database as it was before it: a place taken is one stored earlier)."""


PG_OPTIONS: dict[str, Any] = {
    "autocommit": True,
    "connect_timeout": 5,
    # A peer that stops answering (a black hole: nothing acknowledged) breaks the connection
    # within seconds instead of the kernel's quarter of an hour; then the write is tried
    # again on a new one.
    "tcp_user_timeout": 10_000,
    "keepalives": 1,
    "keepalives_idle": 5,
    "keepalives_interval": 2,
    "keepalives_count": 3,
}
"""How every connection to a hall's PostgreSQL is made (psycopg's keywords)."""


class PostgresStore(Store):
    """A hall's shared PostgreSQL (psycopg 3). Each process has an id, an address its peers
    reach it at and a heartbeat; it serves only the rooms whose lease it holds, and each write
    of a room checks, in its own transaction, that it still holds it (D60)."""

    hall = True

    def __init__(self, url: str, *, address: str = "", lease_ttl: float = 3.0) -> None:
        import psycopg

        self._psycopg = psycopg
        self._taken = (psycopg.errors.UniqueViolation,)
        self.path = url
        self.url = url
        self.id = uuid.uuid4().hex
        self.address = address
        self.lease_ttl = lease_ttl
        self._epochs: dict[str, int] = {}
        self._local = threading.local()
        self._opened: list[Any] = []
        self._opened_lock = threading.Lock()
        self._closed = False
        self._lock = threading.RLock()
        """The writing connection is shared by the event loop and start-up; one at a time."""
        self._read_lock = threading.Lock()
        try:
            self._pg = self._connect()
            self._pg_reader = self._connect()
            self._migrate()
            with self._transaction():
                self._execute(
                    "INSERT INTO processes (id, address, seen) VALUES (?, ?, now())",
                    (self.id, address),
                )
        except psycopg.Error as error:
            raise StoreError(f"PostgreSQL: {error}") from error

    def _connect(self) -> psycopg.Connection[Any]:
        return self._psycopg.connect(self.url, **PG_OPTIONS)

    def open_thread(self) -> None:
        if self._closed:
            return
        try:
            self._local.pg = self._adopt(self._connect())
        except (self._psycopg.Error, StoreError):
            self._local.pg = None  # connected at the first use instead

    def writer_deadline(self, seconds: float) -> None:
        """(SQLite's lock wait; a PostgreSQL write waits on no lock of another process but a
        room's lease row, which a taking holds for a moment.)"""

    def _conn(self) -> Any:
        if hasattr(self._local, "pg"):
            local = self._local.pg
            if local is None or local.closed:
                if self._closed:
                    raise StoreError("the store is closed")
                local = self._local.pg = self._adopt(self._connect())
            return local
        if self._pg.closed:
            if self._closed:
                raise StoreError("the store is closed")
            self._pg = self._connect()  # the server restarted: connect again
        return self._pg

    def _execute(self, sql: str, args: tuple[Any, ...] = ()) -> Any:
        return self._conn().execute(sql.replace("?", "%s"), args)

    def _executemany(self, sql: str, rows: list[tuple[Any, ...]]) -> int:
        with self._conn().cursor() as cursor:
            cursor.executemany(sql.replace("?", "%s"), rows)
            return int(cursor.rowcount)

    def _read(self, sql: str, args: tuple[Any, ...] = ()) -> Any:
        if hasattr(self._local, "pg"):
            return self._execute(sql, args)
        if self._pg_reader.closed:
            self._pg_reader = self._connect()
        return self._pg_reader.execute(sql.replace("?", "%s"), args)

    def _reading(self) -> AbstractContextManager[Any]:
        return nullcontext() if hasattr(self._local, "pg") else self._read_lock

    def transient(self, error: StoreError) -> bool:
        cause = error.__cause__
        if not isinstance(cause, self._psycopg.OperationalError):
            return False
        state = getattr(cause, "sqlstate", None)
        # No state: the connection broke. 08: connection; 57P0x: the server shuts down or
        # restarts; 57014: a statement cancelled; 40001/40P01: serialization, deadlock.
        return state is None or state.startswith(("08", "57P0", "57014", "40001", "40P01"))

    def _migrate(self) -> None:
        with self._transaction():
            # Processes starting together migrate one after the other.
            self._execute("SELECT pg_advisory_xact_lock(16016)")
            self._execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = self._execute("SELECT version FROM schema_version").fetchone()
            if row is None:
                self._execute("INSERT INTO schema_version VALUES (0)")
            version = row[0] if row else 0
            for number, step in enumerate(PG_MIGRATIONS[version:], start=version + 1):
                for statement in filter(str.strip, step.split(";")):
                    self._execute(statement)
                self._execute("UPDATE schema_version SET version = ?", (number,))

    def close(self) -> None:
        with suppress(Exception):
            for room in list(self._epochs):
                self.release(room)
        self._close_opened()
        self._pg.close()
        self._pg_reader.close()

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        # The shared connection is one thread's at a time; a thread's own is its own.
        with nullcontext() if hasattr(self._local, "pg") else self._lock:
            try:
                with self._conn().transaction():
                    yield
            except self._psycopg.Error as error:
                raise StoreError(str(error)) from error

    def apply_writes(self, writes: list[Write]) -> list[StoreError | None]:
        # A batch of actions only (nearly every batch) is one statement, so one round trip and
        # its own transaction (the connection commits each statement): a round trip is a wait
        # on the network after which the writer thread must take the interpreter back from a
        # busy event loop, and each costs a commit more than the database's own work.
        args = self.batch_of_actions(writes)
        if args is None:
            return super().apply_writes(writes)
        try:  # the shared connection is one thread's at a time (it may be in a transaction)
            with nullcontext() if hasattr(self._local, "pg") else self._lock:
                found = self._conn().execute(ACTIONS_AT_ONCE, args).fetchall()
        except self._psycopg.Error as error:
            raise StoreError(str(error)) from error
        return self.batch_results(writes, found)

    def batch_of_actions(self, writes: list[Write]) -> tuple[Any, ...] | None:
        """The arguments of :data:`ACTIONS_AT_ONCE` that store ``writes`` (None: they are not
        all actions, the general way stores them)."""
        rows = [(w.room, *w.args) for w in writes]
        if not all(w.kind == "add_action" for w in writes) or len({r[:3] for r in rows}) < len(
            rows
        ):  # (two actions at one place: a room awaits each write before the next, so never)
            return None
        rooms = sorted({w.room for w in writes})
        epochs = [self._epochs.get(room, -1) for room in rooms]
        columns = [[r[k] for r in rows] for k in range(4)]
        return (rooms, epochs, self.id, *columns, time.time())

    def batch_results(
        self, writes: list[Write], found: list[tuple[Any, ...]]
    ) -> list[StoreError | None]:
        """What :data:`ACTIONS_AT_ONCE` answered, write by write (as :meth:`apply_writes`)."""
        held = {room for kind, room, *_ in found if kind == "held"}
        stored = {(room, n, i): action for kind, room, n, i, action in found if kind == "taken"}
        for room in {w.room for w in writes} - held:
            self._epochs.pop(room, None)
        results: list[StoreError | None] = []
        for write in writes:
            n, i, action = write.args
            if write.room not in held:
                results.append(LeaseLost(f"room {write.room} is held by another process now"))
            elif stored.get((write.room, n, i), action) != action:
                taken = f"room {write.room}: another action is stored at {n}/{i}"
                results.append(StoreError(taken))
            else:
                results.append(None)
        return results

    def _fence(self, room: str) -> None:
        epoch = self._epochs.get(room)
        if (
            epoch is None
            or not self._execute(
                "SELECT 1 FROM leases WHERE room = ? AND owner = ? AND epoch = ? FOR SHARE",
                (room, self.id, epoch),
            ).fetchone()
        ):
            self._epochs.pop(room, None)
            raise LeaseLost(f"room {room} is held by another process now")

    def _fence_many(self, rooms: set[str]) -> set[str]:
        if not rooms:
            return set()
        rows = self._execute(
            "SELECT room, epoch FROM leases WHERE owner = ? AND room = ANY(?)"
            " ORDER BY room FOR SHARE",
            (self.id, sorted(rooms)),
        ).fetchall()
        held = {room for room, epoch in rows if self._epochs.get(room) == epoch}
        for room in rooms - held:
            self._epochs.pop(room, None)
        return held

    _locking = " FOR UPDATE"

    def _has_players(self) -> bool:
        return bool(self._read("SELECT to_regclass('players') IS NOT NULL").fetchone()[0])

    def _lease_new(self, room: str) -> None:
        self._execute("INSERT INTO leases VALUES (?, ?, 1)", (room, self.id))

    def _lease_held(self, room: str) -> None:
        self._epochs[room] = 1

    def claim(self, room: str) -> bool | str:
        with self._transaction():
            row = self._execute(
                _CLAIM, (room, self.id, room, self.lease_ttl, self.address)
            ).fetchone()
            if row is not None:
                self._epochs[room] = row[0]
                return True
            holder = self._execute(
                "SELECT p.address FROM leases l JOIN processes p ON p.id = l.owner"
                " JOIN rooms r ON r.id = l.room AND r.state = 'open'"
                " WHERE l.room = ? AND l.owner <> ?",
                (room, self.id),
            ).fetchone()
        return str(holder[0]) if holder is not None else False

    def heartbeat(self) -> set[str] | None:
        # Rooms taken meanwhile (created or claimed by another thread while this one reads)
        # are not judged by a read that may not see them.
        known = dict(self._epochs)
        with self._transaction():
            self._execute("UPDATE processes SET seen = now() WHERE id = ?", (self.id,))
            rows = self._execute(
                "SELECT room, epoch FROM leases WHERE owner = ?", (self.id,)
            ).fetchall()
        held = {room for room, epoch in rows if known.get(room) == epoch}
        for room, epoch in known.items():
            if room not in held and self._epochs.get(room) == epoch:
                self._epochs.pop(room, None)
        return held | (set(self._epochs) - set(known))

    def orphans(self, limit: int) -> list[str]:
        rows = self._execute(
            "SELECT r.id FROM rooms r LEFT JOIN leases l ON l.room = r.id"
            " LEFT JOIN processes p ON p.id = l.owner"
            " WHERE r.state = 'open'"
            " AND (p.id IS NULL OR p.seen < now() - make_interval(secs => ?)"
            " OR (p.address = ? AND p.id <> ?))"
            " ORDER BY r.active LIMIT ?",
            (self.lease_ttl, self.address, self.id, limit),
        ).fetchall()
        return [room for (room,) in rows]

    def release(self, room: str) -> None:
        epoch = self._epochs.pop(room, None)
        if epoch is not None:
            with self._transaction():
                self._execute(
                    "UPDATE leases SET owner = '' WHERE room = ? AND owner = ? AND epoch = ?",
                    (room, self.id, epoch),
                )
