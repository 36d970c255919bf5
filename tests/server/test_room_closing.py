"""A room that closes (idle, moved to another process, the server stopping) while something is
under way on it: nothing half-changed, no connection left behind, no record lost (D80).

Each case was found by reading the room's rebuild (issue 22, point 9) and failed on it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

import paohuzi.server.rooms as rooms_module
import paohuzi.server.routes.play as play
from paohuzi.server.config import Config
from paohuzi.server.rooms import CLOSED_NOW, MOVED, Closed, Listener, Room, Rooms
from paohuzi.server.roomstate import RoomState
from paohuzi.server.store import LeaseLost, StoreError, open_store
from tests import clock
from tests.pgcluster import db_url
from tests.server.harness import PERSON, app_client, new_room, receive, room_of


async def _send(text: str) -> None:
    pass


async def _close(code: int, reason: str) -> None:
    pass


def _close_during(room: Room, kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The room closes while its write of ``kind`` is in flight."""
    save = room._save

    async def saving(what: str, *args: Any) -> Any:
        if what == kind:
            room.close()
        return await save(what, *args)

    monkeypatch.setattr(room, "_save", saving)


def test_a_start_whose_room_closed_during_its_write_deals_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def run() -> None:
        store = open_store(db_url(tmp_path / "a.db"))
        rooms = Rooms(store, Config(bot_delay=0))
        room = await rooms.create([None, None, "greedy"], timer=0, wait=True)
        salt, commitment = room.salt, room.commitment
        _close_during(room, "set_seats", monkeypatch)
        await room.start(0, "greedy")  # used to raise IllegalTransition, the deal half made
        assert room.state is RoomState.CLOSED and room.game is None
        assert (room.salt, room.commitment) == (salt, commitment)
        rooms.close()
        store.close()

    asyncio.run(run())


def test_an_arrival_whose_room_closed_during_its_write_deals_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def run() -> None:
        store = open_store(db_url(tmp_path / "b.db"))
        rooms = Rooms(store, Config(bot_delay=0))
        room = await rooms.create([None, "greedy", "greedy"], timer=0, wait=True)
        _close_during(room, "set_seats", monkeypatch)
        assert await room.arrive(0) is False
        assert room.state is RoomState.CLOSED and room.game is None
        rooms.close()
        store.close()

    asyncio.run(run())


def test_a_closed_room_takes_no_connection(tmp_path: Path) -> None:
    async def run() -> None:
        store = open_store(db_url(tmp_path / "c.db"))
        rooms = Rooms(store, Config(bot_delay=0))
        room = await rooms.create([None, "greedy", "greedy"], timer=0, wait=True)
        room.close()
        listener = Listener(None, _send, _close, 100)
        with pytest.raises(Closed):
            room.join(listener)
        assert room.listeners == []
        assert await room.set_auto(0, True) == CLOSED_NOW
        rooms.close()
        store.close()

    asyncio.run(run())


def test_a_room_closed_while_a_hello_is_awaited_sends_the_connection_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(play, "HELLO_WAIT", clock.PATIENCE)
    with app_client(tmp_path / "db") as client:
        data = new_room(client, [None, None, "greedy"], wait=True)
        room = room_of(client, data["room"])
        rooms = client.app.state.rooms  # type: ignore[attr-defined]
        found: list[Room] = []
        get = rooms.get

        async def getting(room_id: str) -> Room | None:
            got: Room | None = await get(room_id)
            found.extend([got] if got is not None else [])
            return got

        monkeypatch.setattr(rooms, "get", getting)
        with client.websocket_connect(f"/ws/{data['room']}") as ws:
            # The handler has found the room and waits for the hello: the room expires.
            clock.wait_until(lambda: found == [room], "the handler did not find the room")

            def expire() -> None:
                room.close(4410)
                rooms.rooms.pop(room.id)

            ws.portal.call(expire)
            ws.send_json({"type": "hello", "token": data["seats"][0]["token"]})
            assert receive(ws) == {"type": "error", "message": CLOSED_NOW}
            with pytest.raises(WebSocketDisconnect) as closed:
                receive(ws)
            assert closed.value.code == MOVED  # the page reconnects and finds the room anew
        assert room.seats[0].listener is None


def test_a_fault_as_a_seat_sits_down_leaves_no_connection_and_is_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async def broken(self: Room, seat: int | None) -> bool:
        raise ValueError("a bug in arrive")

    monkeypatch.setattr(Room, "arrive", broken)
    with app_client(tmp_path / "db") as client:
        data = new_room(client, [None, None, "greedy"], wait=True)
        room = room_of(client, data["room"])
        with (
            caplog.at_level(logging.WARNING),
            client.websocket_connect(f"/ws/{data['room']}") as ws,
        ):
            ws.send_json({"type": "hello", "token": data["seats"][0]["token"]})
            with pytest.raises(WebSocketDisconnect) as closed:
                receive(ws)
            assert closed.value.code == 1011
        listener = room.seats[0].listener
        assert listener is None or not listener.alive
        assert any("a bug in arrive" in r.getMessage() for r in caplog.records)


def test_a_finished_hand_is_stored_though_its_room_closed_before_the_retry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def run() -> None:
        store = open_store(db_url(tmp_path / "f.db"))
        rooms = Rooms(store, Config(bot_delay=0))
        room = await rooms.create(["greedy", "greedy", "greedy"], timer=0)
        save = room._save
        failed: list[str] = []

        async def saving(what: str, *args: Any) -> Any:
            if what == "finish_hand" and not failed:
                failed.append(what)
                raise StoreError("the disk is full, once")
            return await save(what, *args)

        monkeypatch.setattr(room, "_save", saving)
        await clock.until(lambda: room.finishing, "the hand did not end")
        room.close()  # idle before the retry: nobody else would store the record
        await clock.until(lambda: store.record(room.id, 0) is not None, "the record was lost")
        rooms.close()
        store.close()

    asyncio.run(run())


def test_a_finished_hand_of_a_room_another_process_took_is_not_tried_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rooms_module, "RETRY", 0.01)

    async def run() -> None:
        store = open_store(db_url(tmp_path / "g.db"))
        rooms = Rooms(store, Config(bot_delay=0))
        room = await rooms.create(["greedy", "greedy", "greedy"], timer=0)
        tried: list[str] = []

        async def saving(what: str, *args: Any) -> Any:
            if what == "finish_hand":
                tried.append(what)
                raise LeaseLost("another process holds this room")
            return None

        monkeypatch.setattr(room, "_save", saving)
        await clock.until(lambda: room.finishing, "the hand did not end")
        room.close()
        for _ in range(20):  # twenty retry intervals: a retry would have come by now
            await asyncio.sleep(0.01)
        assert tried == ["finish_hand"]  # fenced for good (D60): never tried again
        rooms.close()
        store.close()

    asyncio.run(run())


def test_the_process_end_cancels_the_retries_of_a_room_it_serves_no_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A room expired (or moved, or quarantined) while its players' standing is still being
    tried again is served no more, but its tries are not left running: the process's end
    cancels them with the served rooms' (D173, ``Rooms._gone``)."""
    monkeypatch.setattr(rooms_module, "RETRY", 0.01)

    async def run() -> None:
        store = open_store(db_url(tmp_path / "h.db"))
        rooms = Rooms(store, Config(bot_delay=0, room_ttl=0))
        room = await rooms.create([None, None, "greedy"], timer=0, wait=True)
        tries: list[float] = []

        async def refused() -> bool:
            tries.append(time.monotonic())
            return False  # the database did not take it

        room._keep_later(refused)
        await clock.until(lambda: bool(tries), "the standing was not tried again")
        await rooms.expire_now()
        assert room.id not in rooms.rooms  # expired: served no more
        assert room._retries  # still trying
        await rooms.stop_retries()
        assert not room._retries
        seen = len(tries)
        for _ in range(40):  # the next tries would come 0.02, 0.04, 0.08 … s apart
            await asyncio.sleep(0.01)
        assert len(tries) == seen
        rooms.close()
        store.close()

    asyncio.run(run())


def test_a_bug_raising_runtimeerror_while_a_seat_sits_down_is_logged_not_taken_for_a_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Starlette's RuntimeError for a closed socket means the client went away; the same
    exception from the room while the socket is open is a bug: logged, and closed with 1011."""

    async def broken(self: Room, seat: int | None) -> bool:
        raise RuntimeError("a bug in arrive")

    monkeypatch.setattr(Room, "arrive", broken)
    with app_client(tmp_path / "db") as client:
        data = new_room(client, PERSON)
        with client.websocket_connect(f"/ws/{data['room']}") as ws:
            ws.send_json({"type": "hello", "token": data["seats"][0]["token"]})
            with pytest.raises(WebSocketDisconnect) as closed:
                while True:
                    receive(ws)
    assert closed.value.code == 1011
    assert "a bug in arrive" in caplog.text
