"""Rules travel with every room (issue 11): a full rule set is stored with the room and in
every record, and the four-seat table (R12) plays through the server."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from paohuzi.fairdeal import verify
from paohuzi.record import Record, replay
from paohuzi.rules import HUNAN, RuleSet
from paohuzi.server.config import Config
from paohuzi.server.rooms import Rooms
from paohuzi.server.store import open_store
from tests.pgcluster import db_url
from tests.server.harness import FAST, app_client, new_room, play_out, receive, seat_url, sql

FOUR = {"preset": "hunan", "players": 4}
HOUSE = {"preset": "hunan", "min_huxi": 10, "hu_on_discard": True}


def test_a_four_seat_room_plays_a_hand_with_one_seat_sitting_out(tmp_path: Path) -> None:
    with app_client(tmp_path / "db", **FAST) as client:
        data = new_room(client, [None, "greedy", "greedy", "greedy"], rules=FOUR)
        assert len(data["seats"]) == 4 and "url" in data["seats"][0]
        info = client.get(f"/api/rooms/{data['room']}").json()
        assert json.loads(info["rules"])["players"] == 4 and len(info["totals"]) == 4
        with client.websocket_connect(seat_url(data, 0)) as ws:
            state = receive(ws)
            assert len(state["seats"]) == 4 and len(state["hand_sizes"]) == 4
            end = play_out(ws, state)
        record = client.get(f"/api/rooms/{data['room']}/hands/0/record").json()
        assert record["ruleset"]["players"] == 4 and verify(record).ok
        outcome = replay(Record.from_json(record))
        assert outcome.error is None and outcome.game.is_over
        payments = end["result"]["payments"]
        dealer = record["dealer"]
        assert len(payments) == 4 and payments[(dealer + 2) % 4] == 0  # R12: sat out
        assert end["hand_sizes"][(dealer + 2) % 4] == 0 and sum(payments) == 0


def test_the_seats_must_match_the_rules(tmp_path: Path) -> None:
    with app_client(tmp_path / "db", **FAST) as client:
        three = client.post("/api/rooms", json={"bots": [None, None, None], "rules": FOUR})
        assert three.status_code == 400 and "4 seats" in three.json()["detail"]
        bad = client.post("/api/rooms", json={"bots": [None] * 3, "rules": {"players": 5}})
        assert bad.status_code == 400 and "rules" in bad.json()["detail"]
        odd = client.post("/api/rooms", json={"bots": [None] * 3, "rules": {"colour": "red"}})
        assert odd.status_code == 400


def test_a_house_rule_room_is_stored_whole_and_restored_with_its_rules(tmp_path: Path) -> None:
    db = tmp_path / "db"

    async def create() -> str:
        store = open_store(db_url(db))
        rooms = Rooms(store, Config(bot_delay=0))
        room = await rooms.create([None, None, None], rules=HOUSE, timer=0)
        rooms.close()
        store.close()
        return room.id

    async def restore(room_id: str) -> RuleSet:
        store = open_store(db_url(db))
        rooms = Rooms(store, Config(bot_delay=0))
        await rooms.load()
        room = await rooms.get(room_id)
        assert room is not None and room.game is not None
        rules = room.game.rules
        rooms.close()
        store.close()
        return rules

    room_id = asyncio.run(create())
    rules = asyncio.run(restore(room_id))
    assert rules.min_huxi == 10 and rules.hu_on_discard and rules.name == "hunan"
    assert rules == RuleSet.from_json(HOUSE)


def test_a_room_stored_by_preset_name_still_restores(tmp_path: Path) -> None:
    """Rooms of the first server stored their rules as a preset's name."""
    db = tmp_path / "db"

    async def create() -> str:
        store = open_store(db_url(db))
        rooms = Rooms(store, Config(bot_delay=0))
        room = await rooms.create([None, None, None], timer=0)
        rooms.close()
        store.close()
        return room.id

    room_id = asyncio.run(create())
    sql(db, "UPDATE rooms SET rules = 'hunan' WHERE id = ?", room_id)

    async def restore() -> Any:
        store = open_store(db_url(db))
        rooms = Rooms(store, Config(bot_delay=0))
        await rooms.load()
        room = await rooms.get(room_id)
        rooms.close()
        store.close()
        return room

    room = asyncio.run(restore())
    assert room is not None and room.rules == "hunan" and room.ruleset == HUNAN
