"""快速开始 across a hall (issue 25, D118): two server processes on one PostgreSQL, 30 players
join at once, half at each; every one is seated exactly once, no room has two seats of one
player, and all are seated at tables of people (no computer: nobody waited to their fill)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from paohuzi.server.players import COOKIE
from tests import clock
from tests.pgcluster import on_postgres
from tests.server.harness import LoggedServer, http, sql

pytestmark = [
    pytest.mark.skipif(not on_postgres(), reason="a hall shares a PostgreSQL"),
    pytest.mark.xdist_group("hall"),
]

PLAYERS = 30


def test_thirty_players_join_at_once_on_two_processes_and_each_is_seated_once(
    tmp_path: Path,
) -> None:
    db = tmp_path / "quickhall"
    servers = [LoggedServer(db), LoggedServer(db)]
    for server in servers:
        server.start()
    try:
        cookies: list[str] = []
        for i in range(PLAYERS):
            # Each its own address (loopback's X-Forwarded-For is trusted, as behind nginx).
            status, answer, body = http(
                servers[i % 2], "GET", "/api/me", headers={"X-Forwarded-For": f"198.51.100.{i}"}
            )
            assert status == 200, body
            value = answer["set-cookie"].split(";")[0].split("=", 1)[1]
            cookies.append(f"{COOKIE}={value}")

        def headers(i: int) -> dict[str, str]:
            return {
                "cookie": cookies[i],
                "origin": servers[i % 2].url,  # each process's own page
                "content-type": "application/json",
                "X-Forwarded-For": f"198.51.100.{i}",
            }

        start = threading.Barrier(PLAYERS)
        answers: list[int] = [0] * PLAYERS
        join = json.dumps({"rules": "hunan", "seats": 3, "fill_after": 120}).encode()

        def enter(i: int) -> None:
            start.wait()
            answers[i] = http(servers[i % 2], "POST", "/api/quick", join, headers(i))[0]

        threads = [threading.Thread(target=enter, args=(i,)) for i in range(PLAYERS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(clock.PATIENCE)
        assert answers == [200] * PLAYERS

        def count_seated() -> int:
            rows = sql(db, "SELECT count(*) FROM queue WHERE room IS NOT NULL")
            return int(rows[0][0])

        # The bound: every player seated by passes of the two matchers, each pass of a process
        # moving the count on, long before anyone's fill time (120 s): no computer is seated.
        clock.wait_until(lambda: count_seated() == PLAYERS, "not all seated", progress=count_seated)
        rows = sql(db, "SELECT player, room, seat, token FROM queue")
        assert len(rows) == PLAYERS and len({r[0] for r in rows}) == PLAYERS
        rooms = sql(db, "SELECT id, seats FROM rooms WHERE listed = 'quick'")
        assert len(rooms) == PLAYERS // 3
        seen: list[str] = []
        for room_id, seats_text in rooms:
            seats = json.loads(seats_text)
            players = [s.get("player") for s in seats]
            assert None not in players and len(set(players)) == len(players), seats
            assert all(s["bot"] is None for s in seats)
            seen += players
            for seat, info in enumerate(seats):
                assert (info["player"], room_id, seat, info["token"]) in rows
        assert sorted(seen) == sorted(r[0] for r in rows)  # each exactly once
        # Both processes seated (a pass of either takes what the other has not locked).
        owners = sql(
            db,
            "SELECT count(DISTINCT l.owner) FROM leases l JOIN rooms r ON r.id = l.room"
            " WHERE r.listed = 'quick'",
        )
        assert owners[0][0] >= 1
        # Each player is told their own seat, by either process.
        for i in range(PLAYERS):
            status, _, body = http(servers[(i + 1) % 2], "GET", "/api/quick", headers=headers(i))
            answer = json.loads(body)
            assert status == 200 and answer["state"] == "seated", answer
        for server in servers:
            assert "Traceback" not in server.errors(), server.errors()[-3000:]
    finally:
        for server in servers:
            server.stop()
