"""Attacks on players, the queue and the open tables (issue 25): forged cookies, another
player's id, cross-site requests, a flood of joins, names made to inject, reading a table of
someone who blocks you."""

from __future__ import annotations

from pathlib import Path

from paohuzi.server.players import COOKIE
from tests import clock
from tests.server.harness import app_client, new_room, receive, sql
from tests.server.test_quick import MANY, ORIGIN, Person, seated


def test_a_forged_or_borrowed_cookie_gets_a_new_player_never_anothers(tmp_path: Path) -> None:
    with app_client(tmp_path / "a.db", **MANY) as client:
        victim = Person(client)
        for forged in (
            f"{victim.id}.{'A' * 43}",  # the victim's id, a wrong secret
            f"{victim.id}.",
            victim.id,
            "x" * 500,
            f"{victim.id}.{'A' * 43}\x00",
            "../../etc.passwd-secret-of-sixteen",
        ):
            client.cookies.clear()
            response = client.get("/api/me", headers={"cookie": f"{COOKIE}={forged}"})
            assert response.status_code == 200, response.text
            assert response.json()["id"] != victim.id
            assert COOKIE in response.headers.get("set-cookie", "")
        # Nothing the forger did changed the victim.
        client.cookies.clear()
        changed = client.patch(
            "/api/me",
            json={"name": "hacked"},
            headers={"cookie": f"{COOKIE}={victim.id}.{'A' * 43}", "origin": ORIGIN},
        )
        assert changed.status_code == 403
        assert victim.request("GET", "/api/me").json()["name"] != "hacked"


def test_changes_from_another_site_or_without_an_origin_are_refused(tmp_path: Path) -> None:
    with app_client(tmp_path / "a.db", **MANY) as client:
        person = Person(client)
        other = Person(client)
        attempts = [
            ("PATCH", "/api/me", {"name": "pwned"}),
            ("POST", "/api/quick", {"rules": "hunan", "seats": 3}),
            ("DELETE", "/api/quick", None),
            ("POST", "/api/block", {"player": other.id, "kind": "block"}),
            ("POST", "/api/me/transfer", None),
            ("POST", "/api/me/claim", {"code": "ABCDEFGHJKLM"}),
            ("POST", "/api/me/progress", {"items": [{"kind": "lesson", "id": "cards"}]}),
        ]
        for origin in ("https://evil.example", None, "null", "http://127.0.0.1:8000.evil.example"):
            headers = {"cookie": person.cookie}
            if origin is not None:
                headers["origin"] = origin
            for method, path, body in attempts:
                response = client.request(method, path, json=body, headers=headers)
                client.cookies.clear()
                assert response.status_code == 403, (origin, path, response.text)
        assert sql(tmp_path / "a.db", "SELECT count(*) FROM queue") == [(0,)]
        assert sql(tmp_path / "a.db", "SELECT count(*) FROM blocks") == [(0,)]
        assert sql(tmp_path / "a.db", "SELECT count(*) FROM progress") == [(0,)]
        assert person.request("GET", "/api/me").json()["name"] != "pwned"


def test_a_name_made_to_inject_is_refused_before_anything_is_stored(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    with app_client(db, **MANY) as client:
        person = Person(client)
        before = sql(db, "SELECT name FROM players WHERE id = ?", person.id)
        marks = "\u0301" * 12  # combining marks with nothing to mark
        for name in ("a\x00b", "x" * 10_000, "\u202eevil", "a\nb", "<b>" * 5, marks, " \u0301 "):
            response = person.request("PATCH", "/api/me", json={"name": name})
            assert response.status_code == 422, (name[:20], response.text)
        assert sql(db, "SELECT name FROM players WHERE id = ?", person.id) == before
        # Markup is text: kept as it is typed, within the length, and sent as JSON text.
        shown = person.request("PATCH", "/api/me", json={"name": "<img src=x>"})
        assert shown.status_code == 200 and shown.json()["name"] == "<img src=x>"
        huge = "x" * 20_000
        response = person.request("PATCH", "/api/me", content=f'{{"name": "{huge}"}}')
        assert response.status_code == 413


def test_a_flood_of_joins_is_one_place_and_then_refused(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    with app_client(db, quick_per_minute=20, players_per_minute=100) as client:
        person = Person(client)
        codes = [
            person.request("POST", "/api/quick", json={"rules": "hunan", "seats": 3}).status_code
            for _ in range(60)
        ]
        assert codes.count(200) <= 20 and codes[-1] == 429
        assert sql(db, "SELECT count(*) FROM queue") == [(1,)]


def test_a_blocked_player_is_never_seated_with_the_blocker(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    with app_client(db, **MANY) as client:
        people = [Person(client) for _ in range(4)]
        blocker, blocked = people[0], people[1]
        response = blocker.request(
            "POST", "/api/block", json={"player": blocked.id, "kind": "block"}
        )
        assert response.status_code == 200 and response.json()["blocks"]["block"] == [blocked.id]
        for person in people:
            person.request(
                "POST", "/api/quick", json={"rules": "hunan", "seats": 3, "fill_after": 10}
            )
        sql(db, "UPDATE queue SET since = since - 60, eligible = eligible - 60")
        clock.wait_until(lambda: all(s["state"] == "seated" for s in seated(people)), "not seated")
        answers = seated(people)
        assert answers[0]["room"] != answers[1]["room"]
        # The blocker's room refuses the blocked player even as a watcher; a stranger watches.
        path = f"/ws/{answers[0]['room']}"
        with client.websocket_connect(path, headers={"cookie": blocked.cookie}) as ws:
            refused = receive(ws)
            assert refused["type"] == "error" and "cannot" in refused["message"], refused
        client.cookies.clear()
        stranger = Person(client)
        with client.websocket_connect(path, headers={"cookie": stranger.cookie}) as ws:
            assert receive(ws)["type"] == "lobby"
        client.cookies.clear()


def test_the_open_table_list_shows_public_and_quick_rooms_never_invites(tmp_path: Path) -> None:
    with app_client(tmp_path / "a.db", **MANY) as client:
        invite = new_room(client, [None, None, "greedy"], wait=True)
        public = client.post(
            "/api/rooms",
            json={"bots": [None, None, "greedy"], "timer": 0, "wait": True, "public": True},
            headers={"origin": ORIGIN},
        ).json()
        person = Person(client)
        tables = person.request("GET", "/api/tables").json()
        shown = {t["room"] for t in tables["open"] + tables["playing"]}
        assert public["room"] in shown and invite["room"] not in shown
        entry = next(t for t in tables["open"] if t["room"] == public["room"])
        assert entry["free"] == [1] and all("token" not in s for s in entry["seats"])
        taken = person.request("POST", f"/api/rooms/{public['room']}/join", json={"seat": 1})
        assert taken.status_code == 200, taken.text
        assert taken.json()["token"] != public["seats"][1]["token"]  # the taker's alone
        again = Person(client).request(
            "POST", f"/api/rooms/{public['room']}/join", json={"seat": 1}
        )
        assert again.status_code == 409
        refused = Person(client).request("POST", f"/api/rooms/{invite['room']}/join", json={})
        assert refused.status_code == 409
