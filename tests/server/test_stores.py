"""The store behind ``--db`` (issue 16): a SQLite database made by the server before halls is
opened in place and plays on; ``--db`` chooses the store by its form."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
from pathlib import Path

from paohuzi.engine.cards import format_cards, full_deck
from paohuzi.server.config import Config
from paohuzi.server.rooms import Rooms
from paohuzi.server.store import MIGRATIONS, PostgresStore, Store, open_store
from tests.pgcluster import sqlite_only

TODAY = len(MIGRATIONS)
"""``PRAGMA user_version`` of today's SQLite schema: an old database is brought up to it."""


@sqlite_only
def test_a_sqlite_database_of_the_schema_before_halls_opens_in_place_and_plays_on(
    tmp_path: Path,
) -> None:
    db = tmp_path / "before.db"
    # The schema exactly as the server before issue 16 left it, written by hand.
    con = sqlite3.connect(db)
    con.executescript(
        """
        CREATE TABLE rooms (id TEXT PRIMARY KEY, created REAL NOT NULL, rules TEXT NOT NULL,
            seed INTEGER NOT NULL, timer REAL NOT NULL, seats TEXT NOT NULL,
            dealer INTEGER NOT NULL, totals TEXT NOT NULL, hands INTEGER NOT NULL,
            streak INTEGER NOT NULL, seeded INTEGER NOT NULL DEFAULT 1,
            active REAL NOT NULL DEFAULT 0, state TEXT NOT NULL DEFAULT 'open',
            note TEXT NOT NULL DEFAULT '', length INTEGER NOT NULL DEFAULT 0,
            match_start INTEGER NOT NULL DEFAULT 0, match_no INTEGER NOT NULL DEFAULT 1,
            waits INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE hands (room TEXT NOT NULL, n INTEGER NOT NULL, dealer INTEGER NOT NULL,
            deck TEXT NOT NULL, record TEXT, salt TEXT, commitment TEXT, PRIMARY KEY (room, n));
        CREATE TABLE actions (room TEXT NOT NULL, n INTEGER NOT NULL, i INTEGER NOT NULL,
            action TEXT NOT NULL, PRIMARY KEY (room, n, i));
        CREATE INDEX rooms_state ON rooms (state, active);
        PRAGMA user_version = 3;
        """
    )
    seats = [{"token": f"t{s}", "bot": None, "name": "", "joined": True} for s in range(3)]
    with con:
        con.execute(
            "INSERT INTO rooms (id, created, rules, seed, timer, seats, dealer, totals, hands,"
            " streak, seeded, active) VALUES ('old', 1, 'hunan', 0, 0, ?, 0, '[0,0,0]', 0, 0,"
            " 0, 1e12)",
            (json.dumps(seats),),
        )
        cards = full_deck()
        random.Random(16).shuffle(cards)
        deck = format_cards(cards, sort=False)
        con.execute("INSERT INTO hands (room, n, dealer, deck) VALUES ('old', 0, 0, ?)", (deck,))
    con.close()

    async def play() -> int:
        store = open_store(db)
        assert type(store) is Store
        rooms = Rooms(store, Config(bot_delay=0))
        await rooms.load()
        room = await rooms.get("old")
        assert room is not None and room.game is not None
        seat = room.game.to_act
        assert seat is not None
        action = str(room.game.legal_actions()[0])
        assert await room.act(seat, action, room.seq(seat)) is None
        rooms.close()
        store.close()
        return len(room.game.history)

    assert asyncio.run(play()) == 1
    con = sqlite3.connect(db)
    try:
        assert con.execute("PRAGMA user_version").fetchone() == (TODAY,)
        assert con.execute("SELECT count(*) FROM actions WHERE room = 'old'").fetchone() == (1,)
    finally:
        con.close()


def test_db_chooses_the_store_by_its_form(tmp_path: Path) -> None:
    store = open_store(tmp_path / "a.db")
    try:
        assert type(store) is Store and not store.hall
    finally:
        store.close()
    assert issubclass(PostgresStore, Store)
