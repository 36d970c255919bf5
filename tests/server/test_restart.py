"""A game survives the server process being killed (SIGKILL) and restarted (issue 5)."""

from __future__ import annotations

import json
from typing import Any

from websockets.sync.client import connect

from tests import clock
from tests.server.conftest import Server
from tests.server.harness import hello, ws_path


def _act(ws: Any, state: dict[str, Any], sent: list[str]) -> dict[str, Any]:
    """Answer, then read the table's states up to the next decision (or the end)."""
    sent.append("0 " + state["legal"][-1])
    ws.send(json.dumps({"type": "act", "action": state["legal"][-1], "seq": state["seq"]}))
    while True:
        message: dict[str, Any] = json.loads(ws.recv(timeout=clock.PATIENCE))
        assert message["type"] != "error", message
        if message["seq"] > state["seq"] and (message["legal"] or message["over"]):
            return message


def test_sigkill_and_restart_lose_no_action(server: Server) -> None:
    room = server.post("/api/rooms", {"bots": [None, "greedy", "greedy"], "timer": 0, "seed": 21})
    ws_url = server.url.replace("http", "ws") + ws_path(room)
    sent: list[str] = []
    with connect(ws_url) as ws:
        ws.send(hello(room, 0))
        state = json.loads(ws.recv(timeout=clock.PATIENCE))
        for _ in range(3):
            if state["over"] or not state["legal"]:
                break
            state = _act(ws, state, sent)
        before = state
    assert not before["over"] and before["seq"] > 0
    server.kill()
    server.start()
    with connect(ws_url) as ws:
        ws.send(hello(room, 0))
        state = json.loads(ws.recv(timeout=clock.PATIENCE))
        assert state["seq"] == before["seq"] and state["hand"] == before["hand"]
        assert state["events"] == before["events"] and state["legal"] == before["legal"]
        while not state["over"]:
            state = _act(ws, state, sent)
    record = server.get(f"/api/rooms/{room['room']}/hands/0/record")
    # Every action seat 0 sent, before and after the kill, is in the record once, in order.
    assert [a for a in record["actions"] if a.startswith("0 ")] == sent
    assert record["result"]["payments"] == state["result"]["payments"]
