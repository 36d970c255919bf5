"""Tables of friends (issue 13): the waiting room, names, the match's length, the rematch,
quick phrases, and the history tools of the web (replay frames, review, analysis)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from paohuzi.cli import main
from paohuzi.engine.record import Record, position_json
from paohuzi.tools.review import MISTAKE_SAMPLES
from tests import clock
from tests.server.harness import FAST, app_client, new_room, play_out, receive, room_of, seated

FRIENDS = [None, None, "greedy"]
"""Two people and a bot."""


def hands_in_db(client: Any, room: str) -> int:
    return len(client.get(f"/api/rooms/{room}/hands").json())


def test_a_table_of_friends_waits_for_everyone_then_deals(tmp_path: Path) -> None:
    with app_client(tmp_path / "db", **FAST) as client:
        data = new_room(client, FRIENDS, wait=True)
        assert data["host"] == 0 and data["watch"].endswith(data["room"])
        assert room_of(client, data["room"]).game is None  # nothing dealt, nothing stored
        with seated(client, data, 0) as first:
            lobby = receive(first)
            assert lobby["type"] == "lobby" and lobby["you"] == 0 and lobby["host"] == 0
            assert [s["joined"] for s in lobby["seats"]] == [True, False, True]
            first.send_json({"type": "name", "name": "  小\u202e明\n  "})
            renamed = receive(first)
            assert renamed["seats"][0]["name"] == "小明"  # no direction mark, spaces collapsed
            first.send_json({"type": "ready"})
            assert "waits" in receive(first)["message"]
            with client.websocket_connect(f"/ws/{data['room']}") as watcher:
                assert receive(watcher)["type"] == "lobby"
                with seated(client, data, 1) as second:
                    states = [receive(ws) for ws in (first, second, watcher)]
                    assert [s["type"] for s in states] == ["state"] * 3
                    assert states[0]["seats"][0]["name"] == "小明"
                    assert states[1]["you"] == 1 and states[2]["you"] is None


@pytest.mark.parametrize(
    ("name", "error"),
    [("", "visible"), ("\u200b\u200b", "visible"), ("x" * 17, "at most 16"), (7, "string")],
)
def test_names_are_bounded_and_printable(tmp_path: Path, name: Any, error: str) -> None:
    with app_client(tmp_path / "db", **FAST) as client:
        data = new_room(client, FRIENDS, wait=True)
        with seated(client, data, 0) as ws:
            receive(ws)
            ws.send_json({"type": "name", "name": name})
            assert error in receive(ws)["message"]


def test_the_host_starts_with_bots_in_the_empty_seats(tmp_path: Path) -> None:
    with app_client(tmp_path / "db", **FAST) as client:
        data = new_room(client, [None, None, None], wait=True)
        with seated(client, data, 1) as guest:
            receive(guest)
            guest.send_json({"type": "start", "bot": "greedy"})
            assert "host" in receive(guest)["message"]
            with seated(client, data, 0) as host:
                receive(host)
                receive(guest)  # the host came
                host.send_json({"type": "start", "bot": "nonsense"})
                assert "unknown" in receive(host)["message"].lower()
                host.send_json({"type": "start", "bot": "greedy"})
                state = receive(host)
                assert state["type"] == "state"
                assert [s["bot"] for s in state["seats"]] == [None, None, "greedy"]


def test_a_waiting_room_and_its_arrivals_survive_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "db"
    with app_client(db, **FAST) as client:
        data = new_room(client, FRIENDS, wait=True)
        with seated(client, data, 0) as ws:
            receive(ws)
            ws.send_json({"type": "name", "name": "Ann"})
            receive(ws)
    with app_client(db, **FAST) as client:
        with seated(client, data, 1) as second:
            state = receive(second)
            assert state["type"] == "state"  # seat 0 had come: its arrival was stored
            assert state["seats"][0]["name"] == "Ann"
        info = client.get(f"/api/rooms/{data['room']}").json()
        assert info["seats"][0]["name"] == "Ann"


def test_a_match_ends_after_its_hands_and_a_rematch_starts_from_zero(tmp_path: Path) -> None:
    with app_client(tmp_path / "db", **FAST) as client:
        data = new_room(client, [None, "greedy", "greedy"], wait=True, hands=1)
        with seated(client, data, 0) as ws:
            state = play_out(ws, receive(ws))
            assert state["match"] == {"length": 1, "played": 1, "no": 1, "over": True}
            ws.send_json({"type": "rematch"})
            state = receive(ws)
            while state["type"] != "state" or state["hand_no"] != 2:
                state = receive(ws)
            assert state["match"] == {"length": 1, "played": 0, "no": 2, "over": False}
            assert state["totals"] == [0, 0, 0] and not state["over"]
        assert hands_in_db(client, data["room"]) == 1  # the first match's hand stays listed


def next_error(ws: Any) -> Any:
    message = receive(ws)
    while message["type"] != "error":
        message = receive(ws)
    return message


def test_phrases_and_reactions_reach_everyone_and_are_rate_limited(tmp_path: Path) -> None:
    with app_client(tmp_path / "db", **FAST) as client:
        data = new_room(client, FRIENDS)
        with (
            seated(client, data, 0) as first,
            seated(client, data, 1) as second,
            client.websocket_connect(f"/ws/{data['room']}") as watcher,
        ):
            for ws in (first, second, watcher):
                receive(ws)
            first.send_json({"type": "say", "what": "hurry"})
            for ws in (second, watcher):
                message = receive(ws)
                while message["type"] != "said":
                    message = receive(ws)
                assert message == {"type": "said", "seat": 0, "what": "hurry"}
            first.send_json({"type": "say", "what": "<b>free text</b>"})
            # (A bot's move stored while the connections opened may bring a state between.)
            assert "phrases" in next_error(first)["message"]
            watcher.send_json({"type": "say", "what": "like"})
            assert "silence" in next_error(watcher)["message"]
            refused = 0
            for _ in range(6):
                second.send_json({"type": "say", "what": "like"})
            deadline = clock.deadline()
            while refused == 0 and not clock.expired(deadline):
                message = receive(second)
                refused += "too many reactions" in message.get("message", "")
            assert refused


def test_rules_come_as_a_preset_or_a_rule_set_object(tmp_path: Path) -> None:
    with app_client(tmp_path / "db", **FAST) as client:
        data = new_room(
            client, [None, "greedy", "greedy"], rules={"preset": "luzhou", "players": 3}
        )
        assert client.get(f"/api/rooms/{data['room']}").json()["rules"] == "luzhou"
        # Issue 11: a house rule is played and stored whole; a four-seat table needs four seats.
        house = new_room(
            client, [None, "greedy", "greedy"], rules={"preset": "hunan", "min_huxi": 10}
        )
        stored = client.get(f"/api/rooms/{house['room']}").json()["rules"]
        assert json.loads(stored)["min_huxi"] == 10 and json.loads(stored)["preset"] == "hunan"
        for rules, words in (
            ({"preset": "hunan", "players": 4}, "4 seats"),
            ({"preset": "mars"}, "mars"),
            ({"preset": "hunan", "nonsense": 1}, "nonsense"),
        ):
            response = client.post(
                "/api/rooms", json={"bots": [None, "greedy", "greedy"], "rules": rules}
            )
            assert response.status_code == 400 and words in response.json()["detail"], response.text


def finished_hand(
    client: Any, bots: tuple[str, ...] = ("greedy",) * 3, **room: Any
) -> tuple[str, dict[str, Any]]:
    data = new_room(client, list(bots), **room)
    held = client.app.state.rooms.rooms[data["room"]]
    clock.wait_until(  # a stall is no move for the patience, not a slow hand
        lambda: client.get(f"/api/rooms/{data['room']}/hands").json(),
        "the bots stopped",
        progress=lambda: held.game and len(held.game.history),
    )
    record: dict[str, Any] = client.get(f"/api/rooms/{data['room']}/hands/0/record").json()
    return data["room"], record


def test_replay_frames_are_the_engines_positions(tmp_path: Path) -> None:
    with app_client(tmp_path / "db", **FAST) as client:
        room, record = finished_hand(client)
        frames = client.get(f"/api/rooms/{room}/hands/0/frames").json()
        uploaded = client.post("/api/replay", content=json.dumps(record)).json()
        assert uploaded == frames
        game = Record.from_json(record).new_game()
        assert frames[0]["position"] == position_json(game)
        for frame, text in zip(frames[1:], record["actions"], strict=True):
            game.apply_text(text)
            assert frame["position"] == position_json(game) and frame["action"] == text
        assert frames[-1]["result"]["payments"] == record["result"]["payments"]
        assert client.post("/api/replay", content=b"[1]").status_code == 422
        broken = record | {"actions": ["0 nonsense"]}
        assert client.post("/api/replay", content=json.dumps(broken)).status_code == 422


def test_a_review_in_the_background_finds_what_paohuzi_review_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    samples = MISTAKE_SAMPLES  # the fewest at which a review calls a mistake (D115)
    with app_client(tmp_path / "db", **FAST) as client:
        room, record = finished_hand(client)
        url = f"/api/rooms/{room}/hands/0/review"
        assert client.get(url, params={"seat": 0, "samples": samples}).status_code == 404
        started = client.post(url, json={"seat": 0, "samples": samples})
        assert started.status_code in (200, 202)
        # A stall is a review that makes no progress, not one slower than some time: on a
        # loaded machine (CI's PostgreSQL run reviews on the Python core) it takes minutes.
        progress = clock.Progress()
        found = started.json()
        while found["state"] in ("queued", "running"):
            progress.check((found["state"], found["done"]), "the review stopped")
            time.sleep(0.1)
            found = client.get(url, params={"seat": 0, "samples": samples}).json()
        assert found["state"] == "done" and found["done"] == found["total"]
        assert client.post(url, json={"seat": 5}).status_code == 422
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(record))
    assert main(["review", str(path), "--seat", "0", "--samples", str(samples), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    keys = ("index", "played", "best", "loss", "loss_se", "mistake", "estimates", "samples")
    assert [{k: d[k] for k in keys} for d in found["decisions"]] == [
        {k: d[k] for k in keys} for d in printed["decisions"]
    ]
    for key in ("mistakes", "mistake_z", "mistake_samples"):
        assert found[key] == printed[key]


def test_a_review_of_the_seat_that_sat_the_hand_out_is_refused(tmp_path: Path) -> None:
    with app_client(tmp_path / "db", **FAST) as client:
        room, record = finished_hand(
            client, ("greedy",) * 4, rules={"preset": "hunan", "players": 4}
        )
        url = f"/api/rooms/{room}/hands/0/review"
        dealer = record["dealer"]
        out = (dealer + 2) % 4  # R12: the seat opposite the dealer sits the hand out
        refused = client.post(url, json={"seat": out, "samples": 2})
        assert refused.status_code == 422 and "sat the hand out" in refused.json()["detail"]
        assert client.post(url, json={"seat": dealer, "samples": 2}).status_code in (200, 202)


def test_the_analysis_board_answers_what_paohuzi_analyze_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hand, table = "d1 d1 d1 d2 d7 d10 x1 x2 x3 x5 x5 x5 d4 d5 d6 d8 d9", "chi:x7x8x9"
    with app_client(tmp_path / "db", **FAST) as client:
        found = client.post("/api/analyze", json={"hand": hand, "table": table}).json()
        won = client.post("/api/analyze", json={"hand": hand, "table": table, "win": "d10"}).json()
        bad = client.post("/api/analyze", json={"hand": "x1 x1 x1 x1 x1"})
        assert bad.status_code == 422 and "\n" not in bad.json()["detail"]
    assert main(["analyze", "--hand", hand, "--table", table, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert [{k: w[k] for k in ("win", "huxi", "score")} for w in found["waits"]] == printed["waits"]
    assert all(w["groups"] for w in found["waits"]) and isinstance(found["huxi_now"], int)
    assert main(["analyze", "--hand", hand, "--table", table, "--win", "d10", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert {k: won[k] for k in printed} == printed


def test_bad_records_and_holdings_get_one_line_answers(tmp_path: Path) -> None:
    record = json.loads((Path(__file__).parents[1] / "golden" / "bi.phz.json").read_text())
    records: list[Any] = [
        record | {"actions": [1]},
        record | {"dealer": 9},
        record | {"deck": "x1"},
        record | {"actions": ["9 peng"]},
        {"rules": {"a": 1}},
        [],
        5,
    ]
    holdings: list[dict[str, Any]] = [
        {"hand": "x1 " * 30},
        {"hand": "zz"},
        {"hand": "x1", "table": "foo:x1"},
        {"hand": "x1", "rules": "mars"},
        {"hand": "x1 x2", "win": "x3"},
    ]
    with app_client(tmp_path / "db", **FAST) as client:
        answers = [client.post("/api/replay", content=json.dumps(r)) for r in records]
        answers += [client.post("/api/analyze", json=h) for h in holdings]
        for response in answers:
            assert response.status_code == 422, response.text
            assert "\n" not in response.json()["detail"]
