"""Attacks from outside on the hall for strangers (issue 25), found by trying them against a
running server: each test is an attack that worked before its fix. Both stores (run with
``PAOHUZI_TEST_STORE=postgres`` for PostgreSQL)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.websockets import WebSocketDisconnect

from tests.server.harness import app_client, new_room, receive
from tests.server.test_quick import MANY, Person


def test_a_stranger_cannot_take_the_hosts_seat_of_a_public_table(tmp_path: Path) -> None:
    with app_client(tmp_path / "a.db", **MANY) as client:
        public = new_room(client, [None, None, "greedy"], wait=True, public=True)
        stranger = Person(client)
        listed = stranger.request("GET", "/api/tables").json()["open"]
        assert next(t for t in listed if t["room"] == public["room"])["free"] == [1]
        taken = stranger.request("POST", f"/api/rooms/{public['room']}/join", json={"seat": 0})
        assert taken.status_code == 409, taken.text
        # Without a seat named, the first free one: never the host's.
        taken = stranger.request("POST", f"/api/rooms/{public['room']}/join", json={})
        assert taken.status_code == 200 and taken.json()["seat"] == 1, taken.text


def test_a_seat_taken_from_the_list_has_a_secret_only_its_taker_knows(tmp_path: Path) -> None:
    """The creator of a public table was given every seat's secret: a stranger who takes a
    seat must not share it, or the creator could play (and lose) the stranger's rated match."""
    with app_client(tmp_path / "a.db", **MANY) as client:
        public = new_room(client, [None, None, "greedy"], wait=True, public=True)
        stranger = Person(client)
        taken = stranger.request("POST", f"/api/rooms/{public['room']}/join", json={"seat": 1})
        assert taken.status_code == 200, taken.text
        token = taken.json()["token"]
        assert token != public["seats"][1]["token"]
        assert token in taken.json()["url"]
        old = json.dumps({"type": "hello", "token": public["seats"][1]["token"]})
        with client.websocket_connect(f"/ws/{public['room']}") as ws:
            ws.send_text(old)
            assert receive(ws)["type"] == "error"
            with pytest.raises(WebSocketDisconnect) as refused:
                receive(ws)
            assert refused.value.code == 4403
        with client.websocket_connect(f"/ws/{public['room']}") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": token}))
            first = receive(ws)
            assert first["type"] == "lobby" and first["you"] == 1, first
        # Asked again, the taker gets the same seat and its (new) secret.
        again = stranger.request("POST", f"/api/rooms/{public['room']}/join", json={})
        assert again.status_code == 200 and again.json()["token"] == token
