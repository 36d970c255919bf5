"""A seat's secret in no URL, one live connection a seat (issue 22, point 5)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

import paohuzi.server.routes.play as play_module
from paohuzi.server.config import Config
from paohuzi.server.rooms import ELSEWHERE, Listener, Rooms
from paohuzi.server.store import open_store
from tests.pgcluster import db_url
from tests.server.harness import PERSON, app_client, new_room, receive


def test_an_invite_carries_its_secret_in_the_fragment(tmp_path: Path) -> None:
    with app_client(tmp_path / "db") as client:
        data = new_room(client, [None, None, "greedy"])
        for seat in data["seats"][:2]:
            assert seat["url"].endswith(f"/room/{data['room']}#token={seat['token']}")
            assert "?" not in seat["url"]
        assert "token" not in data["watch"]


def test_the_secret_comes_in_the_first_message(tmp_path: Path) -> None:
    with app_client(tmp_path / "db") as client:
        data = new_room(client, PERSON)
        room, token = data["room"], data["seats"][0]["token"]
        with client.websocket_connect(f"/ws/{room}") as ws:
            ws.send_json({"type": "hello", "token": token})
            state = receive(ws)
            assert state["type"] == "state" and state["you"] == 0 and "legal" in state
        with client.websocket_connect(f"/ws/{room}") as ws:  # a spectator says hello too
            ws.send_json({"type": "hello"})
            assert receive(ws)["you"] is None
        with client.websocket_connect(f"/ws/{room}") as ws:
            ws.send_json({"type": "hello", "token": "forged"})
            assert receive(ws)["type"] == "error"
            with pytest.raises(WebSocketDisconnect) as refused:
                receive(ws)
            assert refused.value.code == 4403
        with client.websocket_connect(f"/ws/{room}") as ws:  # no hello: a spectator, later
            assert receive(ws)["you"] is None


def test_a_secret_in_the_websocket_url_is_refused_and_the_seat_stays_free(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """D109: the secret comes in the first message only. In the URL, even a seat's valid
    one, it is refused (4400, told where it goes) before the room is looked up: nobody sits
    down, nothing is stored, no state is sent; the same secret's hello then sits down."""
    looked_up: list[str] = []
    get = Rooms.get

    async def counted(self: Rooms, room_id: str) -> Any:
        looked_up.append(room_id)
        return await get(self, room_id)

    monkeypatch.setattr(Rooms, "get", counted)
    with app_client(tmp_path / "db") as client:
        # A waiting room: a person's arrival there is stored (``joined``) and shown to all.
        data = new_room(client, [None, None, "greedy"], wait=True)
        room, friend = data["room"], data["seats"][1]["token"]
        for query in (f"token={friend}", "token=", "token=forged", f"events=new&token={friend}"):
            with client.websocket_connect(f"/ws/{room}?{query}") as ws:
                refusal = receive(ws)
                assert refusal == {"type": "error", "message": play_module.SECRET_IN_URL}
                assert "第一条消息" in refusal["message"] and "first message" in refusal["message"]
                with pytest.raises(WebSocketDisconnect) as refused:
                    receive(ws)
                assert refused.value.code == 4400, query
        assert looked_up == []
        assert client.get(f"/api/rooms/{room}").json()["seats"][1]["joined"] is False
        assert not client.app.state.rooms.rooms[room].listeners  # type: ignore[attr-defined]
        with client.websocket_connect(f"/ws/{room}") as ws:
            ws.send_json({"type": "hello", "token": friend})
            lobby = receive(ws)
            assert lobby["type"] == "lobby" and lobby["you"] == 1
        assert room in looked_up  # by the hello's connection
        assert client.get(f"/api/rooms/{room}").json()["seats"][1]["joined"] is True
        # A hand in play: the seat's state comes with the hello, not with the URL.
        data = new_room(client, PERSON)
        room, token = data["room"], data["seats"][0]["token"]
        with client.websocket_connect(f"/ws/{room}?token={token}") as ws:
            assert receive(ws) == {"type": "error", "message": play_module.SECRET_IN_URL}
            with pytest.raises(WebSocketDisconnect) as refused:
                receive(ws)
            assert refused.value.code == 4400
        assert not client.app.state.rooms.rooms[room].listeners  # type: ignore[attr-defined]
        with client.websocket_connect(f"/ws/{room}") as ws:
            ws.send_json({"type": "hello", "token": token})
            state = receive(ws)
            assert state["type"] == "state" and state["you"] == 0 and "legal" in state


def test_a_hello_after_the_wait_sits_the_spectator_down(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(play_module, "HELLO_WAIT", 0.01)
    with app_client(tmp_path / "db") as client:
        data = new_room(client, PERSON)
        with client.websocket_connect(f"/ws/{data['room']}") as ws:
            assert receive(ws)["you"] is None
            ws.send_json({"type": "hello", "token": data["seats"][0]["token"]})
            # States of the bots' moves sent to the spectator before the hello is handled
            # may come first; each is a spectator's, and the seat's own comes within a few.
            for _ in range(20):
                state = receive(ws)
                if state["you"] is not None:
                    break
                assert state["type"] == "state" and state["legal"] == []
            assert state["you"] == 0


def test_a_second_connection_takes_the_seat_and_the_first_is_told(tmp_path: Path) -> None:
    with app_client(tmp_path / "db") as client:
        data = new_room(client, PERSON)
        room, token = data["room"], data["seats"][0]["token"]
        with client.websocket_connect(f"/ws/{room}") as first:
            first.send_json({"type": "hello", "token": token})
            assert receive(first)["you"] == 0
            with client.websocket_connect(f"/ws/{room}") as second:
                second.send_json({"type": "hello", "token": token})
                state = receive(second)
                assert state["you"] == 0
                with pytest.raises(WebSocketDisconnect) as taken:
                    while True:  # (states of the bots' moves stored before may come first)
                        receive(first)
                assert taken.value.code == ELSEWHERE
                assert "elsewhere" in str(taken.value.reason)
                # The seat has one acting connection: the newest.
                live = [li for li in client.app.state.rooms.rooms[room].listeners if li.alive]  # type: ignore[attr-defined]
                assert [li.seat for li in live] == [0]
                if state["legal"]:
                    act = {"type": "act", "action": state["legal"][-1], "seq": state["seq"]}
                    second.send_json(act)
                    assert receive(second)["type"] == "state"


def test_the_host_revokes_an_invite_the_old_secret_is_refused(tmp_path: Path) -> None:
    with app_client(tmp_path / "db") as client:
        data = new_room(client, [None, None, "greedy"], wait=True)
        room, host, friend = data["room"], data["seats"][0]["token"], data["seats"][1]["token"]
        path = f"/api/rooms/{room}/seats/1/link"
        assert client.post(path, json={"token": friend}).status_code == 403  # not the host
        assert client.post(path, json={"token": "forged"}).status_code == 403
        assert (
            client.post(f"/api/rooms/{room}/seats/2/link", json={"token": host}).status_code == 422
        )
        with client.websocket_connect(f"/ws/{room}") as old:
            old.send_json({"type": "hello", "token": friend})
            assert receive(old)["you"] == 1
            answer = client.post(path, json={"token": host})
            assert answer.status_code == 200, answer.text
            new = answer.json()
            assert new["token"] != friend and new["url"].endswith(f"#token={new['token']}")
            with pytest.raises(WebSocketDisconnect) as revoked:
                while True:
                    receive(old)
            assert revoked.value.code == 4403
        with client.websocket_connect(f"/ws/{room}") as again:
            again.send_json({"type": "hello", "token": friend})
            assert receive(again)["type"] == "error"
        with client.websocket_connect(f"/ws/{room}") as ws:
            ws.send_json({"type": "hello", "token": new["token"]})
            assert receive(ws)["you"] == 1
    # Stored: a restarted server knows the new secret only.
    with app_client(tmp_path / "db") as client, client.websocket_connect(f"/ws/{room}") as ws:
        ws.send_json({"type": "hello", "token": new["token"]})
        assert receive(ws)["you"] == 1


def test_a_secret_revoked_while_its_connection_waits_for_the_room_opens_nothing(
    tmp_path: Path,
) -> None:
    """A connection checks its secret, then waits for the room's lock, which a revocation
    holds while its write is stored: the secret is checked again under the lock."""

    async def main() -> None:
        store = open_store(db_url(tmp_path / "db"))
        rooms = Rooms(store, Config(bot_delay=0))
        try:
            room = await rooms.create([None, None, "greedy"], wait=True)
            host, friend = room.seats[0].token, room.seats[1].token
            write, held = rooms.db.write, asyncio.Event()

            async def slow(kind: str, *args: Any, **kwargs: Any) -> Any:
                if kind == "set_seats":
                    await held.wait()
                return await write(kind, *args, **kwargs)

            rooms.db.write = slow  # type: ignore[method-assign]
            revoking = asyncio.create_task(room.revoke(host, 1))
            await asyncio.sleep(0)  # the revocation holds the lock, its write in flight
            assert room.lock.locked()

            async def send(text: str) -> None:
                pass

            async def close(code: int, reason: str) -> None:
                pass

            entering = asyncio.create_task(room.enter(Listener(1, send, close, 100), friend))
            await asyncio.sleep(0)
            held.set()
            new = await revoking
            with pytest.raises(KeyError):
                await entering
            assert all(li.seat != 1 for li in room.listeners)
            assert await room.enter(Listener(1, send, close, 100), new) is not None
        finally:
            rooms.close()
            store.close()

    asyncio.run(main())


def test_a_hello_brings_the_seats_name_before_it_arrives(tmp_path: Path) -> None:
    """Issue 24: the friend who comes last deals the hand, and the others meet the friend by
    name in that very first state (not "玩家" until a rename); a name the rules refuse is
    said, and the seat sits down all the same; a spectator's name is ignored."""
    with app_client(tmp_path / "db") as client:
        data = new_room(client, [None, None, "greedy"], wait=True)
        room = data["room"]
        first, second = (data["seats"][s]["token"] for s in (0, 1))
        assert client.get(f"/api/rooms/{room}").json()["waiting"] is True
        with client.websocket_connect(f"/ws/{room}") as host:
            host.send_json({"type": "hello", "token": first, "name": "老张"})
            lobby = receive(host)
            assert lobby["type"] == "lobby" and lobby["seats"][0]["name"] == "老张"
            with client.websocket_connect(f"/ws/{room}") as friend:
                friend.send_json({"type": "hello", "token": second, "name": "  小王 "})
                while (state := receive(friend))["type"] != "state":  # the last came: dealt
                    assert state["type"] == "lobby"
                assert [s["name"] for s in state["seats"][:2]] == ["老张", "小王"]
                while (seen := receive(host))["type"] != "state":
                    pass
                assert seen["seats"][1]["name"] == "小王"
            assert client.get(f"/api/rooms/{room}").json()["waiting"] is False
        other = new_room(client, [None, "greedy", "greedy"])
        with client.websocket_connect(f"/ws/{other['room']}") as ws:
            token = other["seats"][0]["token"]
            ws.send_json({"type": "hello", "token": token, "name": "\u200b"})  # nothing visible
            replies = [receive(ws), receive(ws)]
            assert {r["type"] for r in replies} == {"error", "state"}
            assert "visible" in next(r for r in replies if r["type"] == "error")["message"]
        with client.websocket_connect(f"/ws/{other['room']}") as ws:
            ws.send_json({"type": "hello", "name": "watcher"})
            assert receive(ws)["you"] is None
        assert all(
            s["name"] != "watcher"
            for s in client.get(f"/api/rooms/{other['room']}").json()["seats"]
        )
