"""Issue 10, durable before visible: a server killed at random moments, and a full disk,
lose no action a player was told of, and a room carries on once writing works again."""

from __future__ import annotations

import asyncio
import itertools
import os
import random
import signal
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from paohuzi.engine.record import Record, replay
from paohuzi.server import rooms as rooms_module
from paohuzi.server.config import Config
from paohuzi.server.rooms import SAVE_FAILED, Room, Rooms
from paohuzi.server.store import Store, open_store
from tests import clock
from tests.pgcluster import db_url, sqlite_only
from tests.server.faults_player import Player
from tests.server.harness import (
    FAST,
    PERSON,
    LoggedServer,
    app_client,
    hello,
    new_room,
    play_out,
    receive,
    room_of,
    seated,
    sql,
    ws_path,
)

KILLS = 22

# ---------------------------------------------------------------- kill -9


def test_kill_9_at_random_moments_loses_no_acknowledged_action(tmp_path: Path) -> None:
    server = LoggedServer(tmp_path / "db", "--dev-seeded-deals", bot_delay=0)
    server.start()
    chance = random.Random(10)
    try:
        room = server.post("/api/rooms", {"bots": PERSON, "timer": 0, "seed": 11})
        player = Player(server.ws(ws_path(room)), hello(room, 0))
        for _ in range(KILLS):
            assert server.process is not None
            killer = threading.Timer(
                chance.uniform(0.05, 0.6), os.kill, (server.process.pid, signal.SIGKILL)
            )
            killer.start()
            assert not player.play()
            killer.join()
            server.process.wait()
            server.start()
        while not player.play(finish=True):
            pass
        hands = player.last["hand_no"]
        records = [server.get(f"/api/rooms/{room['room']}/hands/{n}/record") for n in range(hands)]
    finally:
        server.stop()
    assert hands >= 2 and player.acknowledged >= KILLS
    for n, record in enumerate(records, start=1):
        again = replay(Record.from_json(record))
        assert again.error is None and again.status == "finished", (n, again.error)
        # Every action of seat 0 the server applied, and nothing else, once each, in order.
        mine = [a.removeprefix("0 ") for a in record["actions"] if a.startswith("0 ")]
        assert mine == player.applied.get(n, []), n
    assert "Traceback" not in server.errors(), server.errors()


# ---------------------------------------------------------------- a full disk

FILLERS = (
    "INSERT INTO actions VALUES ('~filler', 0, ?, ?)",
    "INSERT INTO hands (room, n, dealer, deck) VALUES ('~filler', ?, 0, ?)",
    "INSERT INTO rooms (id, created, rules, seed, timer, seats, dealer, totals, hands, streak,"
    " state) VALUES ('~filler' || ?, 0, 'hunan', 0, 0, ?, 0, '[]', 0, 0, 'closed')",
)


def fill(store: Store, fillers: tuple[str, ...] = FILLERS) -> None:
    """Cap the server's database at its size, then take up every byte left in its pages: the
    next row anywhere fails as on a full disk (SQLITE_FULL)."""
    db = store._db
    (pages,) = db.execute("PRAGMA page_count").fetchone()
    db.execute(f"PRAGMA max_page_count = {pages}")
    numbers = itertools.count()
    for size in (2000, 500, 100, 20, 5, 1):
        for statement in fillers:
            while True:
                try:
                    db.execute(statement, (next(numbers), "x" * size))
                except sqlite3.OperationalError as error:
                    assert "full" in str(error)
                    break


def free(store: Store) -> None:
    """Room on the disk again."""
    store._db.execute("PRAGMA max_page_count = 1000000")


def rows(db: Path, table: str, room: str) -> int:
    column = "id" if table == "rooms" else "room"
    [(count,)] = sql(db, f"SELECT count(*) FROM {table} WHERE {column} = ?", room)
    found: int = count
    return found


def on_the_loop(client: TestClient, work: Callable[[], Any]) -> Any:
    """Run ``work`` in the server's event loop, between two of its steps."""
    assert client.portal is not None

    async def run() -> Any:
        return work()

    return client.portal.call(run)


@sqlite_only
def test_full_disk_an_action_is_refused_unchanged_then_accepted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "db"
    with app_client(db, dev_seeded_deals=True, **FAST) as client:
        data = new_room(client, PERSON, seed=4)
        room = room_of(client, data["room"])
        store = client.app.state.rooms.store  # type: ignore[attr-defined]
        with seated(client, data, 0) as ws:
            state = receive(ws)
            while not state["legal"]:
                state = receive(ws)
            game = room.game
            assert game is not None
            before = (len(game.history), room.seq(0), rows(db, "actions", room.id))
            on_the_loop(client, lambda: fill(store))
            action = {"type": "act", "action": state["legal"][-1], "seq": state["seq"]}
            ws.send_json(action)
            reply = receive(ws)
            assert reply["type"] == "error" and "could not save" in reply["message"], reply
            assert (len(game.history), room.seq(0), rows(db, "actions", room.id)) == before
            ws.send_json({"type": "hint"})
            assert receive(ws)["type"] == "hint"  # the connection is fine
            on_the_loop(client, lambda: free(store))
            ws.send_json(action)
            after = receive(ws)
            assert after["type"] == "state" and after["seq"] > state["seq"]
            play_out(ws, after)
        record = client.get(f"/api/rooms/{data['room']}/hands/0/record").json()
    assert replay(Record.from_json(record)).status == "finished"
    assert f"0 {state['legal'][-1]}" in record["actions"]
    why = [r.getMessage() for r in caplog.records if "could not store" in r.getMessage()]
    assert why and all("full" in w for w in why), why


@sqlite_only
def test_full_disk_a_bots_move_waits_then_is_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(rooms_module, "RETRY", 0.05)
    with app_client(tmp_path / "db", dev_seeded_deals=True, **FAST) as client:
        data = new_room(client, PERSON, seed=4)
        room = room_of(client, data["room"])
        store = client.app.state.rooms.store  # type: ignore[attr-defined]
        game = room.game
        assert game is not None

        # Seat 0 plays until its action leaves a bot to move; then the disk is full at once.
        deadline = clock.deadline()
        while True:
            assert not clock.expired(deadline) and not game.is_over
            assert client.portal is not None
            if client.portal.call(_act_then_fill_if_a_bot_is_next, room, store):
                break
            time.sleep(0.01)
        assert game.to_act in (1, 2)
        moves = len(game.history)

        def failures() -> int:
            return sum("could not store a bot's move" in r.getMessage() for r in caplog.records)

        clock.wait_until(lambda: failures() >= 2, "the bot's move was not tried again")
        assert len(game.history) == moves  # tried again, and again, and never played
        on_the_loop(client, lambda: free(store))
        while len(game.history) == moves:
            assert not clock.expired(deadline), "the bot never moved again"
            time.sleep(0.01)


async def _act_then_fill_if_a_bot_is_next(room: Room, store: Store) -> bool:
    """In the event loop: if seat 0 is to act, act; when a bot must answer that, fill the disk
    before the bot's move can be stored (nothing between awaits anything, so no bot ran)."""
    game = room.game
    assert game is not None
    if game.to_act != 0 or room.lock.locked():
        return False
    assert await room.act(0, str(game.legal_actions()[-1]), room.seq(0)) is None
    if game.to_act in (1, 2):
        fill(store)
        return True
    return False


@sqlite_only
def test_full_disk_a_timeout_is_retried(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rooms_module, "RETRY", 0.05)

    async def run() -> None:
        store = open_store(db_url(tmp_path / "db"))
        rooms = Rooms(store, Config(bot_delay=0, dev_seeded_deals=True))
        room = await rooms.create(PERSON, timer=0.2, seed=3)
        game = room.game
        assert game is not None
        await until(lambda: game.to_act == 0 and room._timer_task is not None)
        fill(store)
        moves = len(game.history)
        await asyncio.sleep(0.6)  # the timer ran out, and its move failed, several times
        assert len(game.history) == moves
        free(store)
        await until(lambda: len(game.history) > moves)
        assert game.history[moves][0] == 0
        rooms.close()
        store.close()

    asyncio.run(run())


@sqlite_only
def test_full_disk_no_room_is_created_and_none_is_left_behind(tmp_path: Path) -> None:
    db = tmp_path / "db"
    with app_client(db, **FAST) as client:
        first = new_room(client, PERSON)
        rooms = client.app.state.rooms  # type: ignore[attr-defined]
        on_the_loop(client, lambda: fill(rooms.store))
        response = client.post("/api/rooms", json={"bots": PERSON, "timer": 0})
        assert response.status_code == 503
        assert "\n" not in response.json()["detail"]
        assert set(rooms.rooms) == {first["room"]}
        on_the_loop(client, lambda: free(rooms.store))
        second = new_room(client, PERSON)
    stored = {r for (r,) in sql(db, "SELECT id FROM rooms WHERE id NOT LIKE '~%'")}
    dealt = {r for (r,) in sql(db, "SELECT room FROM hands WHERE room NOT LIKE '~%'")}
    assert stored == dealt == {first["room"], second["room"]}


@sqlite_only
def test_full_disk_a_deal_is_refused_unchanged_then_dealt(tmp_path: Path) -> None:
    with app_client(tmp_path / "db", dev_seeded_deals=True, **FAST) as client:
        data = new_room(client, PERSON, seed=4)
        store = client.app.state.rooms.store  # type: ignore[attr-defined]
        with seated(client, data, 0) as ws:
            over = play_out(ws, receive(ws))
            on_the_loop(client, lambda: fill(store))
            ws.send_json({"type": "next"})
            reply = receive(ws)
            assert reply["type"] == "error" and "could not save" in reply["message"], reply
            room = room_of(client, data["room"])
            assert room.game is not None and room.game.is_over
            assert room.commitment == over["commitment"]
            on_the_loop(client, lambda: free(store))
            ws.send_json({"type": "next"})
            state = receive(ws)
            assert state["hand_no"] == 2 and not state["over"]
            assert state["commitment"] != over["commitment"]


@pytest.mark.parametrize("crash", [False, True])
@sqlite_only
def test_full_disk_a_finished_hand_is_stored_once_writing_works_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, crash: bool
) -> None:
    """The last action is stored, the record and the new score cannot be: the table sees the
    end, the next deal waits, and once the disk has room the hand is stored and counted once,
    by the retry or, after a crash, by the restart."""
    monkeypatch.setattr(rooms_module, "RETRY", 0.05)
    config = Config(bot_delay=0, dev_seeded_deals=True)

    async def first() -> tuple[str, list[int]]:
        store = open_store(db_url(tmp_path / "db"))
        rooms = Rooms(store, config)
        room = await rooms.create([None, None, None], timer=0, seed=7)
        game = room.game
        assert game is not None
        while True:
            seat = game.to_act
            assert seat is not None
            action = game.legal_actions()[-1]
            last = game.clone()
            last.apply(action)
            last.resume_all()  # the room's game stops at offers (D101)
            if last.is_over:  # the actions' pages keep room for one more row, not a record
                fill(store, FILLERS[1:])
            assert await room.act(seat, str(action), room.seq(seat)) is None
            if game.is_over:
                break
        assert room.finishing and store.record(room.id, 0) is None
        for ready in (1, 2):  # the next hand waits for every person (the ready step)
            assert await room.next_hand(ready) is None
        assert await room.next_hand(0) == SAVE_FAILED
        await asyncio.sleep(0.2)  # retried, and failing
        assert room.finishing and room.match.hands == 0
        payments = list(game.result.payments) if game.result else []
        if not crash:
            free(store)
            await until(lambda: not room.finishing)
            assert store.record(room.id, 0) is not None
            assert room.match.hands == 1 and room.match.totals == payments
        store.close()  # with ``crash``, the server dies before the disk has room
        rooms.close()
        return room.id, payments

    async def second(room_id: str, payments: list[int]) -> None:
        store = open_store(db_url(tmp_path / "db"))
        rooms = Rooms(store, config)
        await rooms.load()
        room = await rooms.get(room_id)
        assert room is not None and room.game is not None and room.game.is_over
        assert store.record(room_id, 0) is not None
        assert room.match.hands == 1 and room.match.totals == payments
        for ready in (1, 2, 0):  # readiness is not stored: everyone says it again
            assert await room.next_hand(ready) is None
        assert room.hand_no == 1
        rooms.close()
        store.close()

    room_id, payments = asyncio.run(first())
    asyncio.run(second(room_id, payments))


async def until(condition: Callable[[], bool], seconds: float = clock.PATIENCE) -> None:
    deadline = clock.deadline(seconds)
    while not condition():
        assert not clock.expired(deadline), "timed out"
        await asyncio.sleep(0.005)
