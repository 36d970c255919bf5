"""快速开始 (issue 25, D118) on SQLite: the matcher's plan, and the queue through the HTTP API
of one process (the hall of two processes on PostgreSQL: test_quick_hall.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from paohuzi.server.players import COOKIE
from paohuzi.server.quick import Table, Waiting, plan
from tests import clock
from tests.server.harness import app_client, sql

ORIGIN = "http://127.0.0.1:8000"
MANY: dict[str, Any] = {
    "players_per_minute": 1000,
    "quick_per_minute": 1000,
    "quick_polls_per_minute": 10_000,
}


def waiting(player: str, rating: float = 0.0, since: float = 0.0, **more: Any) -> Waiting:
    fields: dict[str, Any] = {"rules": "hunan", "family": "hunan/3", "seats": 3}
    fields |= {"fill_after": 30.0, "fill_level": "greedy", "since": since, "eligible": since}
    return Waiting(player, **(fields | more), rating=rating)


def test_plan_seats_the_nearest_ratings_together() -> None:
    rows = [
        waiting(p, r) for p, r in [("a", 0), ("b", 50), ("c", 1), ("d", 51), ("e", 2), ("f", 52)]
    ]
    tables = plan(rows, set(), now=0.0)
    assert sorted(sorted(t.players) for t in tables) == [["a", "c", "e"], ["b", "d", "f"]]
    assert all(t.bots == () for t in tables)


def test_plan_never_seats_a_blocked_pair_together() -> None:
    rows = [waiting(p) for p in "abcd"]
    tables = plan(rows, {frozenset("ab")}, now=0.0)
    assert len(tables) == 1 and not {"a", "b"} <= set(tables[0].players)
    # Past the wait, computers fill: still never the pair.
    filled = plan(rows, {frozenset("ab")}, now=100.0)
    for table in filled:
        assert not {"a", "b"} <= set(table.players)
    assert sorted(p for t in filled for p in t.players) == ["a", "b", "c", "d"]


def test_plan_fills_a_lone_player_with_computers_only_after_the_wait() -> None:
    rows = [waiting("a", fill_after=30.0, fill_level="expert")]
    assert plan(rows, set(), now=29.0) == []
    assert plan(rows, set(), now=30.0) == [Table("hunan", ("a",), ("expert", "expert"))]


def test_plan_keeps_rules_and_seat_counts_apart() -> None:
    rows = [waiting("a"), waiting("b"), waiting("c", rules="luzhou"), waiting("d", seats=4)]
    assert plan(rows, set(), now=0.0) == []


class Person:
    """One browser: its own player cookie on a shared application."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        response = client.get("/api/me")
        assert response.status_code == 200, response.text
        self.id = response.json()["id"]
        self.cookie = f"{COOKIE}={response.cookies[COOKIE]}"
        client.cookies.clear()

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        headers = {"cookie": self.cookie, "origin": ORIGIN}
        response = self.client.request(method, path, headers=headers, **kwargs)
        self.client.cookies.clear()
        return response


def seated(people: list[Person]) -> list[dict[str, Any]]:
    found = []
    for person in people:
        answer = person.request("GET", "/api/quick").json()
        assert answer["state"] in ("waiting", "seated"), answer
        found.append(answer)
    return found


def test_three_players_are_seated_together_and_only_each_sees_their_secret(tmp_path: Path) -> None:
    with app_client(tmp_path / "q.db", **MANY) as client:
        people = [Person(client) for _ in range(3)]
        for person in people:
            response = person.request("POST", "/api/quick", json={"rules": "hunan", "seats": 3})
            assert response.status_code == 200, response.text
        clock.wait_until(
            lambda: all(s["state"] == "seated" for s in seated(people)), "nobody was seated"
        )
        answers = seated(people)
        assert len({a["room"] for a in answers}) == 1
        assert sorted(a["seat"] for a in answers) == [0, 1, 2]
        room = client.get(f"/api/rooms/{answers[0]['room']}").json()
        assert sorted(s["player"] for s in room["seats"]) == sorted(p.id for p in people)
        assert all("token" not in s for s in room["seats"])
        # Without the cookie, nothing of the seat.
        assert client.get("/api/quick").json() == {"state": "none"}


def test_a_lone_player_gets_computers_of_their_level_after_the_wait(tmp_path: Path) -> None:
    db = tmp_path / "q.db"
    with app_client(db, **MANY) as client:
        person = Person(client)
        body = {"rules": "hunan", "seats": 3, "fill_after": 10, "fill_level": "random"}
        assert person.request("POST", "/api/quick", json=body).json()["state"] == "waiting"
        # The wait, without waiting: the row is made older.
        sql(db, "UPDATE queue SET since = since - 60, eligible = eligible - 60")
        clock.wait_until(lambda: seated([person])[0]["state"] == "seated", "no table was filled")
        answer = seated([person])[0]
        room = client.get(f"/api/rooms/{answer['room']}").json()
        assert [s["bot"] for s in room["seats"]] == [None, "random", "random"]


def test_a_repeat_leaver_waits_longer(tmp_path: Path) -> None:
    db = tmp_path / "q.db"
    with app_client(db, **MANY) as client:
        people = [Person(client) for _ in range(3)]
        sql(db, "UPDATE players SET leaves = 5 WHERE id = ?", people[0].id)
        for person in people:
            person.request("POST", "/api/quick", json={"rules": "hunan", "seats": 3})
        answers = seated(people)
        assert answers[0]["eligible"] >= answers[1]["eligible"] + 60
        matcher = client.app.state.matcher  # type: ignore[attr-defined]
        passes = matcher.passes
        clock.wait_until(lambda: matcher.passes >= passes + 2, "the matcher did not run")
        assert [a["state"] for a in seated(people)] == ["waiting"] * 3
        sql(db, "UPDATE queue SET eligible = eligible - 1000 WHERE player = ?", people[0].id)
        clock.wait_until(lambda: all(s["state"] == "seated" for s in seated(people)), "not seated")


def test_joining_twice_is_one_place_and_leaving_empties_it(tmp_path: Path) -> None:
    db = tmp_path / "q.db"
    with app_client(db, **MANY) as client:
        person = Person(client)
        first = person.request("POST", "/api/quick", json={"rules": "hunan", "seats": 3}).json()
        again = person.request("POST", "/api/quick", json={"rules": "luzhou", "seats": 3}).json()
        assert again["since"] == first["since"] and again["rules"] == "luzhou"
        assert sql(db, "SELECT count(*) FROM queue") == [(1,)]
        assert person.request("DELETE", "/api/quick").json() == {"state": "none"}
        assert sql(db, "SELECT count(*) FROM queue") == [(0,)]
