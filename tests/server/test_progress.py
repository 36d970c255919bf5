"""The course's and the puzzles' progress kept with the hall's player (issue 27 point 1, D153):
the cookie's player only, shipped ids only, only ever further, a change from the server's own
page only. Runs on SQLite and, with ``PAOHUZI_TEST_STORE=postgres``, on PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from paohuzi.lessons import shipped
from paohuzi.puzzles import shipped as shipped_puzzles
from paohuzi.server.players import COOKIE
from paohuzi.server.progress import ITEMS
from tests.server.harness import app_client, sql

ORIGIN = {"origin": "http://127.0.0.1:8000"}
LESSON = shipped()[0]
OTHER = shipped()[1]
PUZZLE = shipped_puzzles()[0].id


def me(client: TestClient) -> str:
    response = client.get("/api/me")
    assert response.status_code == 200, response.text
    found: str = response.json()["id"]
    return found


def put(client: TestClient, *items: dict[str, Any], headers: dict[str, str] = ORIGIN) -> Any:
    return client.post("/api/me/progress", json={"items": list(items)}, headers=headers)


def test_progress_is_kept_with_the_player_and_only_goes_further(tmp_path: Path) -> None:
    with app_client(tmp_path / "p.db") as client:
        pid = me(client)
        empty = client.get("/api/me/progress")
        assert empty.status_code == 200 and empty.json() == {"lessons": {}, "puzzles": {}}
        r = put(client, {"kind": "lesson", "id": LESSON.id, "step": 2})
        assert r.status_code == 200, r.text
        assert r.json()["lessons"] == {LESSON.id: {"step": 2, "done": False}}
        # A step behind (another device, an old browser copy) does not go back.
        put(client, {"kind": "lesson", "id": LESSON.id, "step": 1, "done": True})
        put(client, {"kind": "puzzle", "id": PUZZLE, "right": False})
        put(client, {"kind": "puzzle", "id": PUZZLE, "right": True})  # the first answer counts
        got = client.get("/api/me/progress").json()
        assert got["lessons"] == {LESSON.id: {"step": 2, "done": True}}
        assert got["puzzles"] == {PUZZLE: {"right": False}}
        rows = sql(tmp_path / "p.db", "SELECT kind, item FROM progress WHERE player = ?", pid)
        assert sorted(rows) == [("lesson", LESSON.id), ("puzzle", PUZZLE)]


def test_a_second_device_of_the_player_sees_the_progress(tmp_path: Path) -> None:
    with app_client(tmp_path / "p.db") as phone, app_client(tmp_path / "p.db") as laptop:
        me(phone)
        put(phone, {"kind": "lesson", "id": OTHER.id, "step": 3})
        me(laptop)
        assert laptop.get("/api/me/progress").json()["lessons"] == {}  # a player of its own
        code = phone.post("/api/me/transfer", headers=ORIGIN).json()["code"]
        assert laptop.post("/api/me/claim", json={"code": code}, headers=ORIGIN).status_code == 200
        got = laptop.get("/api/me/progress").json()
        assert got["lessons"] == {OTHER.id: {"step": 3, "done": False}}


def test_a_forged_or_missing_cookie_gets_nothing(tmp_path: Path) -> None:
    with app_client(tmp_path / "p.db") as client, app_client(tmp_path / "p.db") as thief:
        pid = me(client)
        put(client, {"kind": "lesson", "id": LESSON.id, "step": 1})
        assert thief.get("/api/me/progress").status_code == 403  # no cookie
        thief.cookies.set(COOKIE, f"{pid}.{'A' * 43}")  # the id, a guessed secret
        assert thief.get("/api/me/progress").status_code == 403
        assert put(thief, {"kind": "lesson", "id": LESSON.id, "step": 5}).status_code == 403
        assert client.get("/api/me/progress").json()["lessons"][LESSON.id]["step"] == 1


def test_a_change_from_another_site_is_refused(tmp_path: Path) -> None:
    with app_client(tmp_path / "p.db") as client:
        me(client)
        item = {"kind": "lesson", "id": LESSON.id, "step": 1}
        assert put(client, item, headers={}).status_code == 403
        assert put(client, item, headers={"origin": "https://evil.example"}).status_code == 403
        assert put(client, item, headers={"origin": "null"}).status_code == 403
        assert client.get("/api/me/progress").json()["lessons"] == {}


def test_ids_and_steps_that_are_not_shipped_are_refused(tmp_path: Path) -> None:
    with app_client(tmp_path / "p.db") as client:
        pid = me(client)
        bad: list[dict[str, Any]] = [
            {"kind": "lesson", "id": "no-such-lesson"},
            {"kind": "lesson", "id": LESSON.id, "step": len(LESSON.steps)},
            {"kind": "lesson", "id": LESSON.id, "step": -1},
            {"kind": "lesson", "id": LESSON.id, "step": "1"},
            {"kind": "lesson", "id": LESSON.id, "done": 1},
            {"kind": "puzzle", "id": "1-2-3456"},
            {"kind": "puzzle", "id": "<script>"},
            {"kind": "room", "id": LESSON.id},
            {"kind": "lesson", "id": "x" * 61},
            {"kind": "lesson", "id": LESSON.id, "extra": 1},
        ]
        for item in bad:
            refused = put(client, item)
            assert refused.status_code == 422, (item, refused.text)
        # One bad item refuses the whole request; nothing of it is kept.
        good = {"kind": "lesson", "id": LESSON.id, "step": 1}
        assert put(client, good, bad[0]).status_code == 422
        too_many = [good] * (ITEMS + 1)
        assert put(client, *too_many).status_code == 422
        assert (
            client.post("/api/me/progress", json={"items": []}, headers=ORIGIN).status_code == 422
        )
        assert sql(tmp_path / "p.db", "SELECT item FROM progress WHERE player = ?", pid) == []
        detail = put(client, bad[0]).json()["detail"]
        assert "没有这一课" in detail and "no such lesson" in detail


def test_progress_spends_a_budget(tmp_path: Path) -> None:
    with app_client(tmp_path / "p.db", progress_per_minute=3) as client:
        me(client)
        codes = [client.get("/api/me/progress").status_code for _ in range(5)]
        assert codes[:3] == [200, 200, 200] and codes[3:] == [429, 429]
