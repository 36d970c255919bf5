"""Startup that always comes up (issue 10): quick with many stored rooms, and a room whose
stored game no longer replays is quarantined while every other room starts."""

from __future__ import annotations

import asyncio
import random
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from paohuzi.server.config import Config
from paohuzi.server.rooms import Rooms
from paohuzi.server.store import open_store
from tests.pgcluster import db_url
from tests.server.conftest import Server
from tests.server.harness import sql

ROOMS = 1000


def stored_rooms(db: Path, count: int) -> list[str]:
    """``count`` rooms of three people, each a few random actions into its hand."""

    async def make() -> list[str]:
        store = open_store(db_url(db))
        rooms = Rooms(store, Config(bot_delay=0, rooms_per_minute=10**6, max_rooms=10**6))
        rng = random.Random(3)
        made = []
        for _ in range(count):
            room = await rooms.create([None, None, None], timer=30)
            game = room.game
            assert game is not None
            for _ in range(rng.randrange(2, 12)):
                if game.is_over:
                    break
                seat = game.to_act
                assert seat is not None
                action = str(rng.choice(game.legal_actions()))
                assert await room.act(seat, action, room.seq(seat)) is None
            made.append(room.id)
        rooms.close()
        store.close()
        return made

    return asyncio.run(make())


def test_a_server_with_1000_stored_rooms_listens_having_replayed_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Listening does not wait for the stored rooms: startup notes them and replays none
    (counted); each is replayed on first use, or in the background. How soon a server
    listens is a figure of speed: ``benchmarks/startup.py`` prints it with and without rooms."""
    db = tmp_path / "many.db"
    ids = stored_rooms(db, ROOMS)
    replayed: list[str] = []
    real = Rooms._restore

    def restore(self: Rooms, stored: Any) -> Any:
        replayed.append(stored.id)
        return real(self, stored)

    monkeypatch.setattr(Rooms, "_restore", restore)

    async def start() -> None:
        store = open_store(db_url(db))
        try:
            rooms = Rooms(store, Config(bot_delay=0))
            await rooms.load()  # all that startup does before it listens
            assert replayed == [] and rooms.rooms == {}
            assert rooms.count() == (0 if store.hall else ROOMS)  # a hall takes them by lease
            picked = random.Random(1).sample(ids, 5)
            for room_id in picked:  # restored on demand, each once
                room = await rooms.get(room_id)
                assert room is not None and room.id == room_id
                assert await rooms.get(room_id) is room
            assert replayed == picked
            for room_id in picked:  # let the next process take them (in a hall)
                rooms.rooms.pop(room_id).close()
                store.release(room_id)
            rooms.close()
        finally:
            store.close()

    asyncio.run(start())
    server = Server(db)
    server.start()  # returns once /api/metrics answers
    try:
        for room_id in random.Random(2).sample(ids, 5):  # restored on demand or already
            assert server.get(f"/api/rooms/{room_id}")["room"] == room_id
    finally:
        server.stop()


def test_a_room_that_does_not_replay_is_quarantined_and_the_others_start(tmp_path: Path) -> None:
    db = tmp_path / "bad.db"
    good, bad = stored_rooms(db, 2)
    # The stored game of one room is broken.
    sql(db, "UPDATE actions SET action = '0 peng' WHERE room = ?", bad)
    sql(db, "UPDATE hands SET deck = 'x1 x2' WHERE room = ?", bad)
    server = Server(db)
    server.start()
    try:
        assert server.get(f"/api/rooms/{good}")["room"] == good
        try:
            server.get(f"/api/rooms/{bad}")
            raise AssertionError("a broken room was served")
        except urllib.error.HTTPError as error:
            assert error.code == 404
        quarantined = server.get("/api/admin/quarantine")
        assert [q["room"] for q in quarantined] == [bad] and quarantined[0]["why"]
        assert server.get("/api/metrics")["quarantined"] == 1
    finally:
        server.stop()
    # Kept on disk for the operator.
    assert sql(db, "SELECT state FROM rooms WHERE id = ?", bad) == [("quarantined",)]


def test_the_serving_process_collects_rarely_and_never_scans_start_up() -> None:
    """D82: after ``tune_collector`` what exists is frozen (never scanned again) and young
    collections wait for 20,000 new objects, not 700."""
    import gc

    from paohuzi.cli.serve import COLLECTOR_THRESHOLDS, tune_collector

    before = gc.get_threshold()
    try:
        tune_collector()
        assert gc.get_threshold() == COLLECTOR_THRESHOLDS
        assert COLLECTOR_THRESHOLDS[0] >= 10 * before[0]
        assert gc.get_freeze_count() > 1000
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
