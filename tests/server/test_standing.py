"""Players' standing (issue 25, D120, D121): a finished match rates its known players, hands
fill their profiles, both survive a restart, each is kept once; the profile and leaderboard
routes validate and limit. Under ``PAOHUZI_TEST_STORE=postgres`` the same on PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from paohuzi.server import ratings
from paohuzi.server.database import Database
from paohuzi.server.rooms import QUICK
from paohuzi.server.store import (
    PlayedHand,
    RatedMatch,
    Store,
    StoredRoom,
    StoreError,
    open_store,
)
from tests.clock import wait_until
from tests.pgcluster import db_url
from tests.server.harness import FAST, app_client, new_room, play_out, receive, room_of, seated


def store_of(client: TestClient) -> Store:
    store: Store = client.app.state.rooms.store  # type: ignore[attr-defined]
    return store


def held(store: Store, room: str) -> str:
    """A room of ``store`` that this process holds (a hall fences every write of a room by
    its lease), waiting for its people."""
    if store.room(room) is None:
        stored = StoredRoom(room, 0.0, "hunan", None, 0, [], 0, [0, 0, 0], 0, 0)
        stored.awaits_everyone = True
        assert store.create_room(stored, None)
    return room


def play_match(client: TestClient, player: str, quick: bool = True) -> dict[str, Any]:
    """A one-hand match, seat 0 a person who is the known ``player`` (the players' cookies
    put a player on a seat; set by hand here), the others greedy bots; its room. ``quick``:
    the room counts as one the quick-play queue made (only those are rated, D121)."""
    data = new_room(client, [None, "greedy", "greedy"], hands=1)
    room = room_of(client, data["room"])
    room.seats[0].player = player
    if quick:
        room.listed = QUICK
    with seated(client, data, 0) as ws:
        state = receive(ws)
        while state["type"] != "state":
            state = receive(ws)
        play_out(ws, state)
    return data


def profile(client: TestClient, player: str) -> dict[str, Any]:
    response = client.get(f"/api/players/{player}")
    assert response.status_code == 200, response.text
    found: dict[str, Any] = response.json()
    return found


def test_a_match_rates_its_player_and_the_history_survives_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "standing.db"
    with app_client(db, **FAST) as client:
        first = play_match(client, "p1")
        second = play_match(client, "p1")
        # Called again (as a restored room whose last hand is finished does), the hook keeps
        # the hand and rates the match no second time.
        room = room_of(client, second["room"])
        assert client.portal is not None
        client.portal.call(room.keep_standing, room.dealt)
        before = profile(client, "p1")
    (hunan,) = before["families"]
    assert hunan["family"] == "hunan" and hunan["hands"] == 2 and hunan["matches"] == 2
    assert hunan["provisional"] and len(hunan["history"]) == 2
    assert [p["room"] for p in hunan["history"]] == [first["room"], second["room"]]
    assert hunan["rating"] == hunan["history"][-1]["rating"]
    assert hunan["sigma"] < ratings.SIGMA
    assert before["player"] == {"id": "p1"}
    recent = before["recent"]
    assert [(h["room"], h["n"]) for h in recent] == [(second["room"], 0), (first["room"], 0)]
    assert recent[0]["replay"] == f"/room/{second['room']}/hand/0?seat=0"
    assert recent[0]["record"] == f"/api/rooms/{second['room']}/hands/0/record"
    with app_client(db, **FAST) as client:
        after = profile(client, "p1")
        # The record the profile links to is there.
        assert client.get(recent[0]["record"]).status_code == 200
    assert after == before


def test_standing_the_database_did_not_take_is_tried_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stalled or failing database (the write's deadline passed) does not lose a hand from
    its players' profiles nor a match's rating: both are tried again until they are stored,
    while the table plays on."""
    refused: list[str] = []
    write = Database.write

    async def failing(self: Database, kind: str, room: str, *args: Any, **kw: Any) -> Any:
        if kind in ("hand_played", "rate_match") and refused.count(kind) < 2:
            refused.append(kind)
            raise StoreError("the database did not answer within 5 s")
        return await write(self, kind, room, *args, **kw)

    monkeypatch.setattr(Database, "write", failing)
    db = tmp_path / "retried.db"
    with app_client(db, **FAST) as client:
        data = play_match(client, "p1")
        # Looked at in the database itself (the profile route limits its readers).
        store = open_store(db_url(db))
        try:

            def matches() -> int | None:
                found = store.profile("p1", 10, 10)
                return found["families"][0]["matches"] if found else None

            wait_until(lambda: matches() == 1, "the hand kept and the match rated at last")
        finally:
            store.close()
        found = profile(client, "p1")
        assert [(h["room"], h["n"]) for h in found["recent"]] == [(data["room"], 0)]
        assert found["families"][0]["hands"] == 1
    # Refused twice each: the hand's second try failed too, and so the match's.
    assert sorted(refused) == ["hand_played"] * 2 + ["rate_match"] * 2


def test_a_table_its_host_seated_is_kept_on_profiles_but_not_rated(tmp_path: Path) -> None:
    """A host could seat players of their own making to lose to them: only the queue's tables
    are rated; the hands of any table still fill the profile."""
    with app_client(tmp_path / "host.db", **FAST) as client:
        play_match(client, "p1", quick=False)
        found = profile(client, "p1")
        (hunan,) = found["families"]
        assert (hunan["hands"], hunan["matches"], hunan["history"]) == (1, 0, [])
        assert hunan["rating"] == 1500 and len(found["recent"]) == 1
        play_match(client, "p1")
        (hunan,) = profile(client, "p1")["families"]
        assert (hunan["hands"], hunan["matches"], len(hunan["history"])) == (2, 1, 1)


def test_a_player_with_no_hand_yet_has_a_profile_of_their_card(tmp_path: Path) -> None:
    with app_client(tmp_path / "card.db", **FAST) as client:
        me = client.get("/api/me", headers={"Origin": "http://testserver"}).json()
        found = profile(client, me["id"])
        assert found["player"] == {"id": me["id"], "name": me["name"], "avatar": me["avatar"]}
        assert found["families"] == [] and found["recent"] == []
        assert client.get("/api/players/nobody0000").status_code == 404


def test_a_hand_and_a_match_are_kept_once_and_bots_are_not_rated(tmp_path: Path) -> None:
    store = open_store(db_url(tmp_path / "once.db"))
    try:
        hand = PlayedHand("p1", 0, 12, 21, True, ("红胡",))
        assert store.hand_played(held(store, "r1"), 0, "hunan", [hand]) == 1
        assert store.hand_played("r1", 0, "hunan", [hand]) == 0  # the same hand again
        match = RatedMatch(
            1, "hunan", ("p1", None, None), (None, "greedy", "random"), (9, 1, -10), 1
        )
        assert store.rate_match("r1", match)
        assert not store.rate_match("r1", match)  # rated once
        found = store.profile("p1", 10, 10)
        assert found is not None
        (hunan,) = found["families"]
        assert (hunan["hands"], hunan["matches"], len(hunan["history"])) == (1, 1, 1)
        assert hunan["wins"] == 1 and hunan["average_huxi"] == 21
        assert hunan["mingtang"] == {"红胡": 1}
        # Only the known player has a rating: no row for a bot, whose level stays fixed.
        assert store.leaderboard("hunan", 10) == []
        assert found["player"] == {"id": "p1"}
        # A match of bots and unknown people only rates nobody; a lone player with an
        # unknown bot (an operator's own) has nobody to be rated against.
        assert store.rate_match(
            held(store, "r2"), RatedMatch(1, "hunan", (None, None), ("greedy", None), (1, -1), 1)
        )
        lone = RatedMatch(1, "hunan", ("p2", None), (None, "mybot"), (1, -1), 1)
        assert store.rate_match(held(store, "r3"), lone)
        assert store.profile("p2", 10, 10) is None
        assert store.profile("nobody", 10, 10) is None
    finally:
        store.close()


def settle(store: Store, player: str, family: str, results: list[int]) -> None:
    """``player`` plays a hand and a one-hand match against a greedy bot for each result."""
    for k, total in enumerate(results):
        room = held(store, f"{player}-{family}-{k}")
        store.hand_played(room, 0, family, [PlayedHand(player, 0, total, 0, total > 0, ())])
        match = RatedMatch(1, family, (player, None), (None, "greedy"), (total, -total), 1)
        store.rate_match(room, match)


def test_the_leaderboard_lists_settled_players_best_first(tmp_path: Path) -> None:
    db = tmp_path / "board.db"
    settled = ratings.PROVISIONAL_HANDS
    with app_client(db, **FAST) as client:
        store = store_of(client)
        settle(store, "strong", "hunan", [10] * settled)
        settle(store, "middle", "hunan", [10, -10] * (settled // 2))
        settle(store, "weak", "hunan", [-10] * settled)
        settle(store, "new", "hunan", [10] * (settled - 1))  # provisional: not listed
        settle(store, "other", "luzhou", [10] * settled)
        board = client.get("/api/leaderboard", params={"family": "hunan"}).json()
        assert [row["player"]["id"] for row in board["players"]] == ["strong", "middle", "weak"]
        assert [row["rank"] for row in board["players"]] == [1, 2, 3]
        shown = [row["rating"] for row in board["players"]]
        assert shown == sorted(shown, reverse=True) and shown[0] > 1500 > shown[2]
        assert board["provisional_hands"] == settled
        top = client.get("/api/leaderboard", params={"family": "hunan", "limit": 2}).json()
        assert [row["player"]["id"] for row in top["players"]] == ["strong", "middle"]
        luzhou = client.get("/api/leaderboard", params={"family": "luzhou"}).json()
        assert [row["player"]["id"] for row in luzhou["players"]] == ["other"]
        new = profile(client, "new")
        assert new["families"][0]["provisional"] and new["families"][0]["hands"] == settled - 1
        assert not profile(client, "strong")["families"][0]["provisional"]


def test_bad_parameters_are_refused_in_both_languages(tmp_path: Path) -> None:
    with app_client(tmp_path / "bad.db", **FAST) as client:
        unknown = client.get("/api/players/nobody")
        assert unknown.status_code == 404
        assert unknown.json()["detail"] == "没有这位玩家 · no such player"
        for path in (
            "/api/players/" + "a" * 33,
            "/api/players/a%00b",
            "/api/players/<script>",
            "/api/players/p1?recent=101",
            "/api/players/p1?recent=-1",
            "/api/players/p1?points=0",
            "/api/leaderboard?family=nowhere",
            "/api/leaderboard?family=" + "x" * 17,
            "/api/leaderboard?limit=0",
            "/api/leaderboard?limit=101",
            "/api/leaderboard?limit=ten",
        ):
            response = client.get(path)
            assert response.status_code in (404, 422), (path, response.status_code)
            assert "Traceback" not in response.text
        assert "unknown rule family" in client.get("/api/leaderboard?family=x").json()["detail"]


def test_profile_and_leaderboard_reads_are_limited_per_address(tmp_path: Path) -> None:
    with app_client(tmp_path / "limit.db", standing_reads_per_minute=3) as client:
        codes = [client.get("/api/leaderboard").status_code for _ in range(3)]
        codes.append(client.get("/api/players/p1").status_code)
        assert codes == [200, 200, 200, 429]
        assert "wait a minute" in client.get("/api/leaderboard").json()["detail"]
