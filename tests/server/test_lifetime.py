"""Room lifetime (issue 10): an idle room closes; its finished hands stay readable."""

from __future__ import annotations

import time
from pathlib import Path

from fastapi.testclient import TestClient

from paohuzi.engine.fairdeal import verify
from paohuzi.server.app import create_app
from tests import clock
from tests.pgcluster import db_url


def test_an_idle_room_closes_and_its_finished_hands_stay(tmp_path: Path) -> None:
    app = create_app(db_url(tmp_path / "db.sqlite"), bot_delay=0, room_ttl=3.0)
    with TestClient(app) as client:
        room = client.post("/api/rooms", json={"bots": ["greedy"] * 3, "timer": 0}).json()["room"]
        held = app.state.rooms.rooms[room]
        # Open as soon as it is made (not after its hand: the bots may end the hand at once,
        # and a loaded machine may then take the time to live to ask; a CI run did).
        assert client.get(f"/api/rooms/{room}").status_code == 200
        clock.wait_until(  # played in the background; a stall is no move for the patience
            lambda: client.get(f"/api/rooms/{room}/hands").json(),
            "the bots stopped",
            progress=lambda: held.game and len(held.game.history),
        )
        # Idle past the room's time to live (3 s), and a sweep (every second): reading the
        # room is no activity, so it closes while it is read.
        clock.wait_until(
            lambda: client.get(f"/api/rooms/{room}").status_code == 404, "the room stayed open"
        )
        with client.websocket_connect(f"/ws/{room}") as ws:
            assert ws.receive_json()["message"].startswith("no such room")
        hands = client.get(f"/api/rooms/{room}/hands").json()
        assert [h["n"] for h in hands] == [0]
        record = client.get(f"/api/rooms/{room}/hands/0/record").json()
        assert verify(record).ok
    # A restarted server does not bring the closed room back.
    with TestClient(create_app(db_url(tmp_path / "db.sqlite"), bot_delay=0)) as client:
        assert client.get(f"/api/rooms/{room}").status_code == 404
        assert client.get(f"/api/rooms/{room}/hands/0/record").status_code == 200


def test_an_expert_plays_from_its_worker_process(tmp_path: Path) -> None:
    app = create_app(db_url(tmp_path / "db.sqlite"), bot_delay=0)
    with TestClient(app) as client:
        # That the request is answered before the hand is played is test_attacks.py's
        # (test_f2_an_all_bot_room_is_created_at_once_and_plays_in_the_background), counted.
        body = {"bots": ["expert@1", "greedy", "expert@0.05s"], "timer": 0}
        room = client.post("/api/rooms", json=body).json()["room"]
        held = app.state.rooms.rooms[room]
        progress = clock.Progress()  # a stall is no move for the patience, not a slow hand
        while not client.get(f"/api/rooms/{room}/hands").json():
            progress.check(held.game and len(held.game.history), "the bots stopped")
            time.sleep(0.1)
        record = client.get(f"/api/rooms/{room}/hands/0/record").json()
        assert verify(record).ok and record["result"] is not None
