"""Rules travel with every room (issue 11): a full rule set is stored with the room and in
every record, and the four-seat table (R12) plays through the server."""

from __future__ import annotations

import asyncio
import json
import logging
import random
from pathlib import Path
from typing import Any

import pytest

from paohuzi.cli.verify import check_replay
from paohuzi.engine.cards import parse_cards
from paohuzi.engine.fairdeal import commitment, verify
from paohuzi.engine.game import Game
from paohuzi.engine.record import Record, record_of, replay
from paohuzi.engine.rules import HUNAN, RuleSet
from paohuzi.server.config import Config
from paohuzi.server.rooms import Rooms
from paohuzi.server.store import open_store
from tests.pgcluster import db_url
from tests.server.harness import (
    FAST,
    PERSON,
    app_client,
    new_room,
    play_out,
    receive,
    room_of,
    seated,
    sql,
)

FOUR = {"preset": "hunan", "players": 4}
HOUSE = {"preset": "hunan", "min_huxi": 10, "hu_on_discard": True}


def test_a_four_seat_room_plays_a_hand_with_one_seat_sitting_out(tmp_path: Path) -> None:
    with app_client(tmp_path / "db", **FAST) as client:
        data = new_room(client, [None, "greedy", "greedy", "greedy"], rules=FOUR)
        assert len(data["seats"]) == 4 and "url" in data["seats"][0]
        info = client.get(f"/api/rooms/{data['room']}").json()
        assert json.loads(info["rules"])["players"] == 4 and len(info["totals"]) == 4
        with seated(client, data, 0) as ws:
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
    assert room is not None and room.rules_text == "hunan" and room.ruleset == HUNAN


OUT_OF_RANGE = [
    ({"preset": "hunan", "deng_step": 0}, "deng_step"),
    ({"preset": "hunan", "deng_base": 0}, "deng_base"),
    ({"preset": "hunan", "deng_step": 0, "deng_base": 0}, "deng_"),
    ({"preset": "hunan", "huxi": {"peng": [1, 2**40]}}, "huxi.peng"),
    ({"preset": "luzhou", "min_huxi": 1.5}, "min_huxi"),
    ({"preset": "hunan", "mingtang": [{"type": ["red_count"]}]}, "mingtang[0].type"),
]


def test_a_rule_set_out_of_range_is_refused_with_a_400_naming_it_and_nothing_stored(
    tmp_path: Path,
) -> None:
    """Issue 22: ``deng_step: 0`` was accepted (the room froze at its first win), and with
    ``deng_base: 0`` too a creation answered 500 with a traceback."""
    db = tmp_path / "db"
    with app_client(db, **FAST) as client:
        for rules, field in OUT_OF_RANGE:
            response = client.post(
                "/api/rooms", json={"bots": [None, "greedy", "greedy"], "timer": 0, "rules": rules}
            )
            assert response.status_code == 400, (rules, response.text)
            detail = response.json()["detail"]
            assert detail.startswith(f"rules: {field}"), detail
        assert sql(db, "SELECT count(*) FROM rooms")[0][0] == 0
        assert sql(db, "SELECT count(*) FROM hands")[0][0] == 0


EDGE_RULES = [
    {"preset": "hunan", "deng_step": 0},  # refused now; accepted before issue 22
    {"preset": "hunan", "deng_step": 1, "deng_base": 1, "min_huxi": 0},
    {"preset": "luzhou", "deng_step": 10_000, "self_draw_bonus": 0, "haidi_fan": 0},
    {"preset": "hunan", "huxi": {"cap": 0}, "min_huxi": 0, "fan_combine": "product"},
    {"preset": "hunan", "hu_on_discard": True, "min_huxi": 0, "mingtang": []},
]


def test_no_stored_move_is_ever_answered_with_an_error(tmp_path: Path) -> None:
    """Each rule set is refused at the door or a person plays whole hands under it: every move
    answered by a new state, never "internal error" after it was stored."""
    with app_client(tmp_path / "db", **FAST) as client:
        for rules in EDGE_RULES:
            response = client.post(
                "/api/rooms",
                json={"bots": [None, "greedy", "greedy"], "timer": 0, "rules": rules, "hands": 2},
            )
            if response.status_code == 400:
                assert response.json()["detail"].startswith("rules: deng_step")
                continue
            assert response.status_code == 200, response.text
            data = response.json()
            with seated(client, data, 0) as ws:
                for _ in range(2):
                    state = receive(ws)
                    end = play_out(ws, state)  # fails on any reply but a state
                    assert end["over"] and sum(end["result"]["payments"]) == 0
                    ws.send_json({"type": "ready"})


def test_an_action_that_fails_after_it_was_stored_is_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rule sets are checked so nothing fails once an action is stored; should anything
    (a bug), it is logged with its room, hand and action, never lost silently."""
    with app_client(tmp_path / "db", **FAST) as client:
        data = new_room(client, [None, None, None])
        room = room_of(client, data["room"])
        assert room.game is not None

        def broken(action: object) -> None:
            raise ZeroDivisionError("integer division or modulo by zero")

        with seated(client, data, room.game.to_act or 0) as ws:
            state = receive(ws)
            monkeypatch.setattr(room.game, "apply", broken)
            with caplog.at_level(logging.ERROR, logger="paohuzi.server"):
                ws.send_json({"type": "act", "action": state["legal"][0], "seq": state["seq"]})
                receive(ws)
        stored = [
            r
            for r in caplog.records
            if r.levelno >= logging.ERROR and data["room"] in r.getMessage()
        ]
        assert stored and "was stored" in stored[0].getMessage() and stored[0].exc_info


def test_a_stored_rule_set_out_of_range_is_quarantined_naming_the_field(tmp_path: Path) -> None:
    """A room stored before issue 22 with ``deng_step: 0`` no longer opens (it would freeze
    at its first win): on takeover it is quarantined with the field named."""
    db = tmp_path / "db"
    with app_client(db) as client:
        room_id = new_room(client, PERSON)["room"]
    bad = json.dumps(dict(HUNAN.to_json(), deng_step=0))
    sql(db, "UPDATE rooms SET rules = ? WHERE id = ?", bad, room_id)
    with app_client(db) as client:
        assert client.get(f"/api/rooms/{room_id}").status_code == 404
        listed = client.get("/api/admin/quarantine", headers={"Authorization": "Bearer op"})
        why = {entry["room"]: entry["why"] for entry in listed.json()}
        assert "deng_step" in why[room_id]


def test_a_server_record_commits_to_its_hand_number_and_rules(tmp_path: Path) -> None:
    """Issue 22: the record of hand n says so, and its deal's commitment covers the hand number,
    the dealer and the rule set, so ``paohuzi verify`` names any of them changed."""
    with app_client(tmp_path / "db", **FAST) as client:
        data = new_room(client, PERSON, rules=HOUSE)
        with seated(client, data, 0) as ws:
            for n in range(2):
                state = receive(ws)
                while state.get("hand_no") != n + 1:
                    state = receive(ws)
                seen = state["commitment"]
                play_out(ws, state)
                record = client.get(f"/api/rooms/{data['room']}/hands/{n}/record").json()
                assert record["hand"] == n and record["deal"]["scheme"] == "paohuzi-deal/2"
                assert verify(record, seen).ok, verify(record, seen).message
                assert check_replay(Record.from_json(record)) is None
                ws.send_json({"type": "next"})
    other = dict(record, hand=0)
    assert verify(other).message == "hand: the record says 0, the deal committed to 1"
    loose = dict(record, ruleset=dict(record["ruleset"], min_huxi=15))
    assert verify(loose).message.startswith("ruleset.min_huxi: the record says 15")


def test_a_hand_dealt_before_the_second_scheme_still_verifies(tmp_path: Path) -> None:
    """A hand committed to by the first scheme (dealt by a server before issue 22) keeps it:
    its record says paohuzi-deal/1 and opens to the commitment its table was shown."""
    db = tmp_path / "db"
    with app_client(db, **FAST) as client:
        data = new_room(client, PERSON)
    [(deck, salt)] = sql(db, "SELECT deck, salt FROM hands WHERE room = ?", data["room"])
    old = commitment(parse_cards(deck), salt)
    sql(db, "UPDATE hands SET commitment = ? WHERE room = ?", old, data["room"])
    with app_client(db, **FAST) as client, seated(client, data, 0) as ws:
        state = receive(ws)
        assert state["commitment"] == old
        play_out(ws, state)
        record = client.get(f"/api/rooms/{data['room']}/hands/0/record").json()
    assert record["deal"]["scheme"] == "paohuzi-deal/1" and verify(record, old).ok
    assert check_replay(Record.from_json(record)) is None


def test_a_clients_record_under_rules_out_of_range_is_a_422_naming_the_field(
    tmp_path: Path,
) -> None:
    """The replay board's records come from a client's disk: its rule set is checked too (a 等
    step of 0 divided by zero at the win: a 500)."""
    for seed in range(100):
        game = Game(seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            game.apply(rng.choice(game.legal_actions()))
        if game.result is not None and game.result.winner is not None:
            break
    data = record_of(game).to_json()
    data["ruleset"]["deng_step"] = 0
    with app_client(tmp_path / "db", **FAST) as client:
        response = client.post("/api/replay", content=json.dumps(data))
    assert response.status_code == 422, response.text
    assert response.json()["detail"].startswith("ruleset: deng_step: ")
