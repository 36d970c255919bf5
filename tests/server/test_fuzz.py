"""Issue 10, every bad input answered: random WebSocket messages and HTTP requests (Hypothesis).

Each WebSocket message gets only states, hints and one-line errors back; the game moves only
by a legal action of the seat to act, sent by that seat; nothing raises. Each HTTP request
gets a status under 500 and, from the API, a JSON body.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from concurrent.futures import Executor, ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from starlette.testclient import WebSocketTestSession

from paohuzi.bots.greedy import GreedyBot
from paohuzi.engine.actions import Action, parse_action
from paohuzi.engine.cards import NotationError
from paohuzi.engine.game import Game
from paohuzi.engine.observation import Observation
from paohuzi.server import botrunner
from paohuzi.server.botrunner import BotRunner
from paohuzi.server.rooms import Room
from tests import clock
from tests.server.harness import (
    PERSON,
    app_client,
    new_room,
    play_out,
    receive,
    room_of,
    seated,
)

LIMITS: dict[str, Any] = {  # the budgets are test_budgets.py's; here every message is read
    "messages_per_second": 1e6,
    "messages_per_address": 1e6,
    "connections_per_minute": 10**6,
    "rooms_per_minute": 10**6,
    "max_rooms": 10**6,
    "rooms_per_address": 10**6,
}
EXAMPLES = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**62, max_value=2**80)
    | st.floats()
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)
words = st.sampled_from(
    ["act", "next", "hint", "ACT", "", "pass", "peng", "hu", "chi", "discard x1", "discard d10"]
    + ["discard x11", "chi x1x2x3", "chi x1x2x3 x2x2d2", "discard", "pass pass", "\u4e2d", "\ud800"]
)


@pytest.fixture(autouse=True)
def no_search_processes(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """An expert a fuzzed request might seat decides in a thread, as the greedy bot would."""
    pool = ThreadPoolExecutor(1)

    def decide(name: str, seed: int, observation: Observation, limit: float) -> Action:
        return GreedyBot().act(observation)

    def executor(self: BotRunner) -> Executor:
        return pool

    monkeypatch.setattr(botrunner, "_decide", decide)
    monkeypatch.setattr(BotRunner, "_executor", executor)
    yield
    pool.shutdown()


# ---------------------------------------------------------------- WebSocket


def message_for(legal: list[str], seq: int) -> st.SearchStrategy[Any]:
    """A message of any shape, often close to a right one for seat 0 now."""
    shaped = st.fixed_dictionaries(
        {"type": words | json_values},
        optional={
            "action": words | st.sampled_from(legal) | st.text(max_size=70) | json_values,
            "seq": st.just(seq) | st.integers(-2, 2).map(lambda d: seq + d) | json_values,
            "seat": st.sampled_from([0, 1, 2, -1, None, 0.0, False, "0"]) | json_values,
        },
    )
    right = st.builds(
        lambda action, extra: {"type": "act", "action": action, "seq": seq, **extra},
        st.sampled_from(legal),
        st.sampled_from([{}, {"seat": 0}]),
    )
    return st.one_of(
        right,
        st.just({"type": "next"}),
        shaped,
        json_values,
        st.text(max_size=200).map(lambda t: ("raw", t)),
        st.binary(max_size=50),
    )


def text_of(message: Any) -> str | bytes:
    if isinstance(message, bytes):
        return message
    if isinstance(message, tuple):
        raw: str = message[1]
        return raw
    return json.dumps(message, ensure_ascii=False)


def check_reply(reply: Any) -> None:
    """A reply is a state, a hint, or a one-line error and nothing else."""
    assert isinstance(reply, dict), reply
    if reply["type"] == "error":
        assert set(reply) == {"type", "message"}, reply
        assert isinstance(reply["message"], str) and "\n" not in reply["message"]
    else:
        assert reply["type"] in ("state", "hint"), reply


def settle(room: Room) -> None:
    """Wait until the bots are done: seat 0 must decide, or the hand is over."""
    deadline = clock.deadline()
    while True:
        game = room.game
        if game is not None and (game.is_over or game.to_act == 0) and not room.lock.locked():
            return
        assert not clock.expired(deadline), "the bots never stopped"
        time.sleep(0.002)


def mine(game: Game) -> list[Action]:
    return [action for seat, action in game.history if seat == 0]


def accepted(message: Any, room: Room, seq: int) -> Action | None:
    """The action ``message`` would play for seat 0 now, or None for none."""
    game = room.game
    if not (
        isinstance(message, dict)
        and message.get("type") == "act"
        and ("seat" not in message or message["seat"] == 0)
        and type(message.get("seq")) is int
        and message["seq"] == seq
        and isinstance(message.get("action"), str)
        and game is not None
        and game.to_act == 0
    ):
        return None
    try:
        action = parse_action(message["action"])
    except NotationError:
        return None
    return action if action in game.legal_actions() else None


def exchange(ws: WebSocketTestSession, text: str | bytes, mark: int) -> None:
    """Send ``text``, then a marker whose error reply comes after every reply to ``text``;
    check every message on the way."""
    if isinstance(text, bytes):
        ws.send_bytes(text)
    else:
        ws.send_text(text)
    ws.send_json({"type": f"mark{mark}"})
    while True:
        reply = receive(ws)
        check_reply(reply)
        if reply["type"] == "error" and f"'mark{mark}'" in reply["message"]:
            return


def test_fuzzed_websocket_messages(tmp_path: Path) -> None:
    marks = iter(range(10**9))
    with app_client(tmp_path / "db", dev_seeded_deals=True, **LIMITS) as client:

        @settings(EXAMPLES, max_examples=100)
        @given(st.integers(0, 30), st.data())
        def fuzz(seed: int, data: st.DataObject) -> None:
            created = new_room(client, PERSON, seed=seed)
            room = room_of(client, created["room"])
            with (
                seated(client, created, 0) as ws,
                client.websocket_connect(f"/ws/{room.id}") as spectator,
            ):
                if data.draw(st.integers(0, 5)) == 0:  # now and then, from the end of a hand
                    play_out(ws, receive(ws))
                for _ in range(data.draw(st.integers(1, 6))):
                    settle(room)
                    game, seq = room.game, room.seq(0)
                    assert game is not None
                    before, over = mine(game), game.is_over
                    legal = [str(a) for a in game.legal_actions()] if game.to_act == 0 else []
                    message = data.draw(message_for(legal or ["pass"], seq))
                    expected = accepted(message, room, seq)
                    watcher = data.draw(st.booleans())
                    exchange(spectator if watcher else ws, text_of(message), next(marks))
                    if room.game is not game:  # a new hand: only a seat's "next" deals one
                        assert over and not watcher and isinstance(message, dict), message
                        assert message.get("type") == "next"
                        assert mine(game) == before
                        event("a new hand dealt")
                        continue
                    after = mine(game)
                    if watcher or expected is None:
                        assert after == before, message
                    else:
                        assert after == [*before, expected], message
                        event("an action played")

        fuzz()


# ---------------------------------------------------------------- HTTP

room_fields = st.fixed_dictionaries(
    {},
    optional={
        "bots": st.lists(
            st.sampled_from([None, "greedy", "random", "expert@0", "expert@nans", "expert@1e9s"])
            | st.text(max_size=40)
            | json_values,
            max_size=4,
        )
        | json_values,
        "timer": st.sampled_from([0, 5, 300, 4, 301, 1e-9, True, 30.0])
        | st.integers()
        | json_values,
        "rules": st.sampled_from(["hunan", "mars", ""]) | st.text(max_size=40) | json_values,
        "seed": st.integers() | json_values,
        "extra": json_values,
    },
)
bodies = st.one_of(
    room_fields.map(lambda d: json.dumps(d).encode()),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.binary(max_size=200),
    st.text(max_size=200).map(str.encode),
)


def check_json(response: Any, where: str) -> None:
    assert response.status_code < 500, (where, response.status_code, response.text[:300])
    assert response.headers["content-type"].startswith("application/json"), where
    body = response.json()
    if response.status_code >= 400:
        assert isinstance(body["detail"], str) and "\n" not in body["detail"], where


def test_fuzzed_room_creation(tmp_path: Path) -> None:
    with app_client(tmp_path / "db", **LIMITS) as client:

        @EXAMPLES
        @given(
            bodies, st.sampled_from(["application/json", "text/plain", "", "application/x+json"])
        )
        def fuzz(body: bytes, kind: str) -> None:
            headers = {"Content-Type": kind} if kind else {}
            response = client.post("/api/rooms", content=body, headers=headers)
            check_json(response, repr(body[:100]))
            if response.status_code == 200:
                assert set(response.json()) == {"room", "seats", "watch", "host", "hands"}

        fuzz()


segments = st.text(max_size=30) | st.integers().map(str) | st.sampled_from(["", ".", "..", "%"])


def test_fuzzed_reads(tmp_path: Path) -> None:
    with app_client(tmp_path / "db", **LIMITS) as client:
        finished = new_room(client, ["greedy", "greedy", "greedy"])["room"]
        deadline = clock.deadline()
        while client.get(f"/api/rooms/{finished}/hands").json() == []:
            assert not clock.expired(deadline)
            time.sleep(0.02)

        @EXAMPLES
        @given(
            st.sampled_from(
                [
                    "/api/rooms/{room}",
                    "/api/rooms/{room}/hands",
                    "/api/rooms/{room}/hands/{n}/record",
                    "/api/rooms/{room}/hands/{n}/frames",
                    "/api/metrics",
                    "/api/admin/quarantine",
                    "/static/{name}",
                    "/room/{room}",
                    "/healthz",
                    "/{name}",
                ]
            ),
            st.sampled_from([finished]) | segments,
            st.sampled_from(["0", "1", "-1", "2147483648", "1e3"]) | segments,
            segments,
            st.dictionaries(
                st.sampled_from(["after", "limit", "token"]) | segments, segments, max_size=3
            ),
            st.sampled_from([{}, {"Authorization": "Bearer op"}, {"Authorization": "Bearer x"}]),
        )
        # Found on PostgreSQL, which refuses a NUL in text: the id must not reach the store.
        @example("/api/rooms/{room}/hands", "\x00", "0", "x", {}, {})
        @example("/api/rooms/{room}", "\x00", "0", "x", {}, {})
        def fuzz(
            template: str,
            room: str,
            n: str,
            name: str,
            query: dict[str, str],
            headers: dict[str, str],
        ) -> None:
            path = template.format(
                room=quote(room, safe=""), n=quote(n, safe=""), name=quote(name, safe="")
            )
            if query:
                path += "?" + urlencode(query)
            response = client.get(path, headers=headers)
            if path.startswith("/api/") or path == "/healthz":
                check_json(response, path)
            else:
                assert response.status_code < 500, (path, response.status_code)

        fuzz()


@pytest.mark.parametrize("key", ["\n", "a\rb", "\u2028", "\x00", "x" * 500])
def test_a_key_of_any_characters_is_refused_in_one_line(tmp_path: Path, key: str) -> None:
    """Found by the fuzzer on a loaded CI run: an unknown key with a newline in it came back
    in the error's detail, breaking the one-line contract (docs/security.md)."""
    with app_client(tmp_path / "db", **LIMITS) as client:
        response = client.post("/api/rooms", json={"bots": PERSON, key: None})
        assert response.status_code == 422
        check_json(response, repr(key))
        assert len(response.json()["detail"]) < 400
