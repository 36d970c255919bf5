"""Players (issue 25, D117): made at the first visit, known by a cookie whose secret only the
browser holds, named, moved to another device by a one-time code, seated as themselves."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from paohuzi.server.players import AVATARS, COOKIE, hashed
from tests import clock
from tests.server.harness import app_client, hello, new_room, receive, sql, ws_path

ORIGIN = {"origin": "http://127.0.0.1:8000"}


def me(client: TestClient) -> dict[str, Any]:
    response = client.get("/api/me")
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


def test_a_first_visit_makes_a_player_with_an_httponly_strict_cookie(tmp_path: Path) -> None:
    with app_client(tmp_path / "p.db") as client:
        response = client.get("/api/me")
        assert response.status_code == 200
        header = response.headers["set-cookie"]
        assert header.startswith(f"{COOKIE}=")
        lowered = header.lower()
        assert "httponly" in lowered and "samesite=strict" in lowered and "path=/" in lowered
        assert "secure" not in lowered  # plain http here
        player = response.json()
        assert 1 <= len(player["name"]) <= 12 and 0 <= player["avatar"] < player["avatars"]
        value = client.cookies[COOKIE]
        pid, secret = value.split(".", 1)
        assert pid == player["id"]
        # The database keeps a hash of the secret, never the secret.
        stored = sql(tmp_path / "p.db", "SELECT secret FROM players WHERE id = ?", pid)
        assert stored == [(hashed(secret),)] and secret not in str(stored)
        # The same browser is the same player.
        assert me(client)["id"] == pid
        assert "set-cookie" not in client.get("/api/me").headers


def test_a_name_and_an_avatar_are_changed_and_kept(tmp_path: Path) -> None:
    with app_client(tmp_path / "p.db") as client:
        pid = me(client)["id"]
        response = client.patch(
            "/api/me", json={"name": " 小王  同学 ", "avatar": 3}, headers=ORIGIN
        )
        assert response.status_code == 200, response.text
        assert response.json()["name"] == "小王 同学" and response.json()["avatar"] == 3
        assert me(client)["name"] == "小王 同学" and me(client)["id"] == pid
        for bad in ("", "   ", "a" * 13, "x\x00y", "a\u202eb", "\u200b"):
            refused = client.patch("/api/me", json={"name": bad}, headers=ORIGIN)
            assert refused.status_code == 422, (bad, refused.text)
        assert client.patch("/api/me", json={"avatar": 12}, headers=ORIGIN).status_code == 422
        assert me(client)["name"] == "小王 同学"
        # Twelve characters whatever their bytes: CJK counts one a character.
        assert client.patch("/api/me", json={"name": "汉" * 12}, headers=ORIGIN).status_code == 200


def test_a_transfer_code_moves_the_player_to_another_device_once(tmp_path: Path) -> None:
    with app_client(tmp_path / "p.db") as phone, app_client(tmp_path / "p.db") as laptop:
        pid = me(phone)["id"]
        code = phone.post("/api/me/transfer", headers=ORIGIN).json()["code"]
        stored = sql(tmp_path / "p.db", "SELECT transfer FROM players WHERE id = ?", pid)
        assert stored == [(hashed(code),)]
        assert me(laptop)["id"] != pid  # a player of its own first
        claimed = laptop.post("/api/me/claim", json={"code": code.lower()}, headers=ORIGIN)
        assert claimed.status_code == 200, claimed.text
        assert claimed.json()["id"] == pid and me(laptop)["id"] == pid
        assert me(phone)["id"] == pid  # the first device stays signed in
        again = laptop.post("/api/me/claim", json={"code": code}, headers=ORIGIN)
        assert again.status_code == 404


def test_a_player_who_opens_a_seat_sits_as_themselves(tmp_path: Path) -> None:
    with app_client(tmp_path / "p.db") as client:
        pid = me(client)["id"]
        client.patch("/api/me", json={"name": "阿明", "avatar": 5}, headers=ORIGIN)
        room = new_room(client, [None, "greedy", "greedy"])
        with client.websocket_connect(ws_path(room)) as ws:
            ws.send_text(hello(room, 0))
            receive(ws)
        info = client.get(f"/api/rooms/{room['room']}").json()
        assert info["seats"][0]["name"] == "阿明"
        assert info["seats"][0]["player"] == pid and info["seats"][0]["avatar"] == 5
        assert "token" not in info["seats"][0]
        stored = sql(tmp_path / "p.db", "SELECT seats FROM rooms WHERE id = ?", room["room"])
        assert pid in stored[0][0]


def test_a_player_gone_past_the_timer_counts_a_leave(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    # A fixed deal: in a random one the hand may end before seat 0 has a choice (a dealer's
    # 天胡 is won for it), the timer never runs for it, and no leave is counted (CI, once).
    with app_client(db, dev_seeded_deals=True) as client:
        pid = me(client)["id"]
        room = client.post(
            "/api/rooms", json={"bots": [None, "greedy", "greedy"], "timer": 5, "seed": 3}
        ).json()
        with client.websocket_connect(ws_path(room)) as ws:
            ws.send_text(hello(room, 0))
            receive(ws)
        # The connection is gone: when the seat must decide, the timer plays for it, and
        # that is a hand left.
        clock.wait_until(
            lambda: sql(db, "SELECT leaves FROM players WHERE id = ?", pid) == [(1,)],
            "no leave counted",
        )


def test_every_avatar_of_the_set_is_served(tmp_path: Path) -> None:
    with app_client(tmp_path / "p.db") as client:
        for n in range(AVATARS):
            response = client.get(f"/static/avatars/{n}.svg")
            assert response.status_code == 200 and response.text.startswith("<svg")
