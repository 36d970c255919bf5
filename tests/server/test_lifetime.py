"""Room lifetime (issue 10): an idle room closes; its finished hands stay readable."""

from __future__ import annotations

import time
from pathlib import Path

from fastapi.testclient import TestClient

from paohuzi.fairdeal import verify
from paohuzi.server.app import create_app
from tests.pgcluster import db_url


def test_an_idle_room_closes_and_its_finished_hands_stay(tmp_path: Path) -> None:
    app = create_app(db_url(tmp_path / "db.sqlite"), bot_delay=0, room_ttl=1.0)
    with TestClient(app) as client:
        room = client.post("/api/rooms", json={"bots": ["greedy"] * 3, "timer": 0}).json()["room"]
        deadline = time.monotonic() + 20
        while not client.get(f"/api/rooms/{room}/hands").json():  # played in the background
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert client.get(f"/api/rooms/{room}").status_code == 200
        time.sleep(2.5)  # idle past the room's time to live, and one sweep
        assert client.get(f"/api/rooms/{room}").status_code == 404
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
        started = time.monotonic()
        body = {"bots": ["expert@1", "greedy", "expert@0.05s"], "timer": 0}
        room = client.post("/api/rooms", json=body).json()["room"]
        assert time.monotonic() - started < 1.0  # the hand is played in the background
        deadline = time.monotonic() + 60
        while not client.get(f"/api/rooms/{room}/hands").json():
            assert time.monotonic() < deadline
            time.sleep(0.1)
        record = client.get(f"/api/rooms/{room}/hands/0/record").json()
        assert verify(record).ok and record["result"] is not None
