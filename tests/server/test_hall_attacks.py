"""Attacks from outside on the hall for strangers (issue 25), found by trying them against a
running server: each test is an attack that worked before its fix. Both stores (run with
``PAOHUZI_TEST_STORE=postgres`` for PostgreSQL)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

from tests import clock
from tests.server.harness import app_client, hello, new_room, receive
from tests.server.test_quick import MANY, ORIGIN, Person, seated


def public_room(client: Any) -> dict[str, Any]:
    """A table of two people and a computer, listed, made from the server's own page."""
    body = {"bots": [None, None, "greedy"], "timer": 0, "wait": True, "public": True}
    response = client.post("/api/rooms", json=body, headers={"origin": ORIGIN})
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


def test_a_listed_table_is_made_from_the_servers_own_page_only(tmp_path: Path) -> None:
    """A page of another site could list tables from its visitors' addresses (spending their
    budget of rooms) and take the host's place in them; a table of invites, as before, is
    anyone's to make."""
    with app_client(tmp_path / "a.db", **MANY) as client:
        body = {"bots": [None, None, "greedy"], "timer": 0, "wait": True, "public": True}
        for origin in ("https://evil.example", "null", None):
            headers = {} if origin is None else {"origin": origin}
            response = client.post("/api/rooms", json=body, headers=headers)
            assert response.status_code == 403, (origin, response.text)
        assert Person(client).request("GET", "/api/tables").json()["open"] == []
        assert new_room(client, [None, None, "greedy"], wait=True)["room"]
        assert public_room(client)["room"]


def test_a_stranger_cannot_take_the_hosts_seat_of_a_public_table(tmp_path: Path) -> None:
    with app_client(tmp_path / "a.db", **MANY) as client:
        public = public_room(client)
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
        public = public_room(client)
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


def test_a_host_who_renews_a_players_link_cannot_play_as_that_player(tmp_path: Path) -> None:
    """A new link gives the host the seat's new secret: the seat is no longer the player's
    who opened it, or the host could play (and lose) their rated match in their name."""
    with app_client(tmp_path / "a.db", **MANY) as client:
        room = new_room(client, [None, None, "greedy"], wait=True, hands=1)
        friend = Person(client)
        with client.websocket_connect(
            f"/ws/{room['room']}", headers={"cookie": friend.cookie}
        ) as ws:
            ws.send_text(json.dumps({"type": "hello", "token": room["seats"][1]["token"]}))
            assert receive(ws)["type"] == "lobby"
        client.cookies.clear()
        seats = client.get(f"/api/rooms/{room['room']}").json()["seats"]
        assert seats[1]["player"] == friend.id
        renewed = client.post(
            f"/api/rooms/{room['room']}/seats/1/link", json={"token": room["seats"][0]["token"]}
        )
        assert renewed.status_code == 200, renewed.text
        seats = client.get(f"/api/rooms/{room['room']}").json()["seats"]
        assert seats[1]["player"] is None and seats[1]["avatar"] is None


def quick_table(client: Any, db: Path) -> tuple[list[Person], dict[str, Any]]:
    """Three players the queue seated at one table: the people, in seat order, and the
    room's id with each seat's secret."""
    people = [Person(client) for _ in range(3)]
    for person in people:
        joined = person.request("POST", "/api/quick", json={"rules": "hunan", "seats": 3})
        assert joined.status_code == 200, joined.text
    clock.wait_until(lambda: all(s["state"] == "seated" for s in seated(people)), "not seated")
    answers = seated(people)
    order = sorted(range(3), key=lambda n: answers[n]["seat"])
    room = {"room": answers[0]["room"], "seats": [{"token": answers[n]["token"]} for n in order]}
    return [people[n] for n in order], room


def test_a_quick_table_does_not_wait_for_ever_on_a_host_who_never_comes(tmp_path: Path) -> None:
    """Whoever waited longest is the quick table's first seat: one who never opens it must
    not leave the others with nobody able to start (they could only wait for the room's
    end of life, a day)."""
    db = tmp_path / "a.db"
    with app_client(db, **MANY) as client:
        people, room = quick_table(client, db)
        with client.websocket_connect(
            f"/ws/{room['room']}", headers={"cookie": people[1].cookie}
        ) as ws:
            ws.send_text(hello(room, 1))
            lobby = receive(ws)
            assert lobby["type"] == "lobby" and lobby["host"] == 1, lobby
            ws.send_text(json.dumps({"type": "start", "bot": "greedy"}))
            clock.wait_until(lambda: receive(ws)["type"] == "state", "never dealt")
        client.cookies.clear()


def test_a_quick_tables_seats_are_its_players_no_host_renews_them(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    with app_client(db, **MANY) as client:
        people, room = quick_table(client, db)
        renewed = client.post(
            f"/api/rooms/{room['room']}/seats/1/link", json={"token": room["seats"][0]["token"]}
        )
        assert renewed.status_code == 422, renewed.text
        assert people[1].request("GET", "/api/quick").json()["token"] == room["seats"][1]["token"]
