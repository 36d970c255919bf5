"""Only the events not sent yet (D100): a client whose hello says ``"events": "new"`` is sent,
after a hand's first state, each state with ``events_from`` and the events from there on;
made whole again from what it was sent before, every state is the one a client sent whole
states gets, hand after hand (claim windows' questions included). And ``/api/metrics`` times
every message sent, from its queueing to its socket."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from starlette.testclient import WebSocketTestSession

from paohuzi.server.rooms import Listener
from paohuzi.server.views import StateText
from tests.server.harness import FAST, PERSON, app_client, new_room, receive, room_of


class Whole:
    """A connection's states as they arrive, and made whole (the web table's way)."""

    def __init__(self, ws: WebSocketTestSession) -> None:
        self.ws = ws
        self.sent: list[Any] | None = None
        self.cut = 0
        """States that came with ``events_from``."""
        self.states = 0

    def next_state(self) -> dict[str, Any]:
        while True:
            message: dict[str, Any] = receive(self.ws)
            if message["type"] != "state":
                continue
            self.states += 1
            if "events_from" in message:
                self.cut += 1
                start = message.pop("events_from")
                assert self.sent is not None and len(self.sent) >= start
                message["events"] = self.sent[:start] + message["events"]
            self.sent = message["events"]
            return message


def test_a_client_of_new_events_makes_every_state_whole(tmp_path: Path) -> None:
    with app_client(tmp_path / "db", **FAST) as client:
        data = new_room(client, PERSON)
        room = data["room"]
        token = data["seats"][0]["token"]
        with (
            client.websocket_connect(f"/ws/{room}") as whole_ws,
            client.websocket_connect(f"/ws/{room}") as new_ws,
        ):
            whole_ws.send_json({"type": "hello"})
            new_ws.send_json({"type": "hello", "events": "new"})
            whole, new = Whole(whole_ws), Whole(new_ws)
            with client.websocket_connect(f"/ws/{room}") as seat_ws:
                seat_ws.send_json({"type": "hello", "token": token, "events": "new"})
                seat = Whole(seat_ws)
                for hand in range(2):
                    state = seat.next_state()
                    while not state["over"]:
                        if state["legal"]:
                            action = state["legal"][-1]
                            seat_ws.send_json(
                                {"type": "act", "action": action, "seq": state["seq"]}
                            )
                        state = seat.next_state()
                    # The seat's log made whole is the one its observation gives now.
                    assert state["events"] == room_of(client, room).view(0)["events"]
                    # The spectators saw the same states, one whole, one made whole (from the
                    # later one's first: the bots may move between their two arrivals).
                    while True:
                        a, b = whole.next_state(), new.next_state()
                        if hand == 0 and whole.states == new.states == 1:
                            while len(a["events"]) < len(b["events"]):
                                a = whole.next_state()
                            while len(b["events"]) < len(a["events"]):
                                b = new.next_state()
                        assert a == b
                        if a["over"] and a["hand_no"] == hand + 1:
                            break
                    seat_ws.send_json({"type": "ready"})
            assert whole.cut == 0
            # Cut states, hand after hand: every state but each hand's first, however short the
            # hands (their decks are random) and however many states a busy machine merged.
            assert new.cut > 0 and new.states - new.cut == 2
            assert seat.cut > 0 and seat.states - seat.cut == 2
        # Every message handed to a socket was timed from its queueing (the writer's wait).
        metrics = client.get("/api/metrics", headers={"Authorization": "Bearer op"}).json()
        assert metrics["sent"] >= whole.states + new.states + seat.states
        assert 0 <= metrics["send_p50_ms"] <= metrics["send_p99_ms"] <= metrics["send_max_ms"]


def test_a_connection_cuts_only_what_follows_the_state_it_sent() -> None:
    async def scenario() -> list[str]:
        sent: list[str] = []

        async def send(text: str) -> None:
            sent.append(text)

        async def close(code: int, reason: str) -> None:
            raise AssertionError("not closed")

        listener = Listener(0, send, close, 100, new_events=True)
        parts = ['{"e": 1}', '{"e": 2}']
        listener.push(StateText.of('{"type": "state", "n": 1', parts))  # the first: whole
        parts.append('{"e": 3}')
        listener.push(StateText.of('{"type": "state", "n": 2', parts))  # the new one only
        listener.push('{"type": "lobby"}')  # not a state of a hand: the next is whole
        listener.push(StateText.of('{"type": "state", "n": 3', parts))
        other = ['{"e": 1}']  # another hand's list: whole
        listener.push(StateText.of('{"type": "state", "n": 4', other))
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        listener.close()
        return sent

    assert asyncio.run(scenario()) == [
        '{"type": "state", "n": 1, "events": [{"e": 1}, {"e": 2}]}',
        '{"type": "state", "n": 2, "events_from": 2, "events": [{"e": 3}]}',
        '{"type": "lobby"}',
        '{"type": "state", "n": 3, "events": [{"e": 1}, {"e": 2}, {"e": 3}]}',
        '{"type": "state", "n": 4, "events": [{"e": 1}]}',
    ]
