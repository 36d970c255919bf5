"""The server: bad input changes nothing, messages hide what a seat may not see, history,
persistence across a restart (issue 5)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from paohuzi.engine.cards import format_cards
from paohuzi.engine.game import Game
from paohuzi.engine.groups import GroupType
from paohuzi.engine.record import Record, replay
from paohuzi.server.app import create_app
from paohuzi.server.config import Config
from paohuzi.server.pacing import Frame
from paohuzi.server.rooms import Listener, Room, Rooms
from paohuzi.server.store import open_store
from tests import clock
from tests.pgcluster import db_url
from tests.server.harness import seated


@pytest.fixture
def client(tmp_path: Path) -> Any:
    with TestClient(
        create_app(
            db_url(tmp_path / "db.sqlite"), bot_delay=0, dev_seeded_deals=True, operator_token="op"
        )
    ) as c:
        yield c


def new_room(
    client: TestClient, bots: list[str | None], timer: float = 0, seed: int = 1
) -> dict[str, Any]:
    response = client.post("/api/rooms", json={"bots": bots, "timer": timer, "seed": seed})
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def room_of(client: TestClient, room_id: str) -> Room:
    room: Room = client.app.state.rooms.rooms[room_id]  # type: ignore[attr-defined]
    return room


def test_bad_input_gets_an_error_and_changes_nothing(client: TestClient) -> None:
    data = new_room(client, [None, None, "greedy"])
    room = room_of(client, data["room"])
    game = room.game
    assert game is not None
    with (
        seated(client, data, 0) as ws0,
        seated(client, data, 1) as ws1,
    ):
        state0 = ws0.receive_json()
        ws1.receive_json()
        actor, other = (ws0, ws1) if game.to_act == 0 else (ws1, ws0)
        seq = state0["seq"]
        before = (len(game.history), [list(h) for h in game.hands])
        attempts = [
            (actor, "{not json", "malformed JSON"),
            (actor, json.dumps([1, 2]), "JSON object"),
            (actor, json.dumps({"type": "act", "action": "fly", "seq": seq}), "unknown action"),
            (
                actor,
                json.dumps({"type": "act", "action": "discard x11", "seq": seq}),
                "unknown card",
            ),
            (actor, json.dumps({"type": "act", "action": "hu", "seq": seq}), "seat"),
            (actor, json.dumps({"type": "act", "action": "pass", "seq": seq - 1}), "stale"),
            (
                actor,
                json.dumps({"type": "act", "action": "pass", "seq": seq, "seat": 2}),
                "own seat",
            ),
            (other, json.dumps({"type": "act", "action": "pass", "seq": seq}), "not your turn"),
            (actor, json.dumps({"type": "dance"}), "unknown message type"),
            (actor, json.dumps({"type": "next"}), "not over"),
        ]
        for ws, text, message in attempts:
            ws.send_text(text)
            reply = ws.receive_json()
            assert reply["type"] == "error" and message in reply["message"], (text, reply)
            assert (len(game.history), [list(h) for h in game.hands]) == before


def test_a_wrong_token_opens_no_seat(client: TestClient) -> None:
    data = new_room(client, [None, "greedy", "greedy"])
    with client.websocket_connect(f"/ws/{data['room']}") as ws:
        ws.send_json({"type": "hello", "token": "nope"})
        assert ws.receive_json() == {
            "type": "error",
            "message": "this token opens no seat of this room",
        }
    with client.websocket_connect("/ws/nosuchroom") as ws:
        assert ws.receive_json()["message"].startswith("no such room")


def test_spectators_cannot_act(client: TestClient) -> None:
    data = new_room(client, [None, "greedy", "greedy"])
    with client.websocket_connect(f"/ws/{data['room']}") as ws:
        state = ws.receive_json()
        assert state["you"] is None and state["hand"] == "" and state["legal"] == []
        ws.send_text(json.dumps({"type": "act", "action": "pass", "seq": state["seq"]}))
        assert ws.receive_json()["type"] == "error"


def test_a_hand_against_bots_over_the_websocket_and_its_history(client: TestClient) -> None:
    data = new_room(client, [None, "greedy", "greedy"], seed=4)
    with seated(client, data, 0) as ws:
        state = ws.receive_json()
        while not state["over"]:
            if state["legal"]:
                ws.send_text(
                    json.dumps({"type": "act", "action": state["legal"][-1], "seq": state["seq"]})
                )
            state = ws.receive_json()
            assert state["type"] == "state"
        result = state["result"]
        assert sum(result["payments"]) == 0 and "other_huxi" in result
        ws.send_text(json.dumps({"type": "hint"}))
        assert ws.receive_json()["type"] == "hint"
    hands = client.get(f"/api/rooms/{data['room']}/hands").json()
    assert len(hands) == 1 and hands[0]["n"] == 0
    record = client.get(f"/api/rooms/{data['room']}/hands/0/record").json()
    again = replay(Record.from_json(record))
    assert again.error is None and again.status == "finished"
    frames = client.get(f"/api/rooms/{data['room']}/hands/0/frames").json()
    assert len(frames) == len(record["actions"]) + 1 and frames[-1]["result"] == record["result"]
    assert client.get(f"/api/rooms/{data['room']}/hands/5/record").status_code == 404
    metrics = client.get("/api/metrics", headers={"Authorization": "Bearer op"})
    assert metrics.json()["actions"] > 0
    assert client.get("/api/metrics").status_code == 403  # operators only


def _check_message(game: Game, seat: int | None, text: str) -> None:
    """A message to ``seat`` shows nothing the referee's view of ``game`` says it may not see."""
    message = json.loads(text)
    assert "hands" not in message
    assert message["hand"] == (format_cards(game.hand_cards(seat)) if seat is not None else "")
    for other in range(3):
        for shown, group in zip(message["tables"][other], game.tables[other], strict=True):
            if group.type is GroupType.WEI and other != seat:
                assert shown == "wei:?"
            else:
                assert shown == str(group)
    for event in message["events"]:
        if event["event"] in ("draw", "wei") and event["seat"] != seat:
            assert event["card"] is None
    if seat is None:
        assert message["legal"] == [] and message["chou"] == ""


async def until(condition: Callable[[], bool], seconds: float = clock.PATIENCE) -> None:
    """Wait (in the event loop) until ``condition`` holds."""
    deadline = clock.deadline(seconds)
    while not condition():
        assert not clock.expired(deadline), "timed out"
        await asyncio.sleep(0.005)


def over(room: Room) -> bool:
    return room.game is not None and room.game.is_over


@pytest.mark.parametrize("seed", range(6))
def test_no_message_shows_a_hidden_card(seed: int, tmp_path: Path) -> None:
    async def run() -> int:
        store = open_store(db_url(tmp_path / f"{seed}.db"))
        rooms = Rooms(store, Config(bot_delay=1e-6, dev_seeded_deals=True))
        room = await rooms.create(["greedy", "random", "greedy"], timer=0, seed=seed)
        await until(lambda: over(room))
        # Every frame is checked as it is built, against the game at that moment.
        checked = 0
        build = room._frame

        def checking(game: Game, *, public: bool, only: int | None = None) -> Frame:
            nonlocal checked
            frame = build(game, public=public, only=only)
            for seat, text in frame.views.items():
                _check_message(game, seat, text)
                checked += 1
            return frame

        room._frame = checking  # type: ignore[method-assign]

        async def unused(text: str) -> None:
            pass

        async def close(code: int, reason: str) -> None:
            pass

        room.listeners = [Listener(seat, unused, close, 1000) for seat in (0, 1, 2, None)]
        for _ in range(2):
            assert await room.next_hand(0) is None
            await until(lambda: over(room))
        rooms.close()
        store.close()
        return checked

    assert asyncio.run(run()) > 40


def test_restore_after_restart_continues_where_it_was(tmp_path: Path) -> None:
    db = str(tmp_path / "db.sqlite")

    async def first() -> tuple[str, int, list[str]]:
        store = open_store(db_url(db))
        rooms = Rooms(store, Config(bot_delay=0, dev_seeded_deals=True))
        room = await rooms.create([None, "greedy", "greedy"], timer=0, seed=8)
        game = room.game
        assert game is not None
        for _ in range(4):
            await until(lambda: game.to_act == 0 or game.is_over)
            if game.is_over:
                break
            assert await room.act(0, str(game.legal_actions()[0]), room.seq(0)) is None
        history = [f"{s} {a}" for s, a in game.history]
        rooms.close()
        store.close()  # the process dies here: nothing else is written
        return room.id, room.match.hands, history

    async def second(room_id: str) -> tuple[int, list[str]]:
        store = open_store(db_url(db))
        rooms = Rooms(store, Config(bot_delay=0, dev_seeded_deals=True))
        await rooms.load()
        room = await rooms.get(room_id)
        assert room is not None
        assert room.game is not None
        history = [f"{s} {a}" for s, a in room.game.history]
        rooms.close()
        store.close()
        return room.match.hands, history

    room_id, hands, history = asyncio.run(first())
    assert len(history) > 1
    assert asyncio.run(second(room_id)) == (hands, history)


def test_the_turn_timer_plays_for_a_silent_seat(tmp_path: Path) -> None:
    async def run() -> tuple[int, int]:
        store = open_store(db_url(tmp_path / "timer.db"))
        rooms = Rooms(store, Config(bot_delay=0, dev_seeded_deals=True))
        room = await rooms.create([None, "greedy", "greedy"], timer=0.05, seed=3)
        game = room.game
        assert game is not None
        await until(lambda: game.to_act == 0)
        before = len(game.history)
        waited = 0
        while len(game.history) == before and waited < 100:
            await asyncio.sleep(0.02)
            waited += 1
        seat, action = game.history[before]
        assert seat == 0
        obs_legal_kinds = {"pass", "discard"}
        assert action.type.value in obs_legal_kinds
        rooms.close()
        store.close()
        return before, len(game.history)

    before, after = asyncio.run(run())
    assert after > before
