"""A game survives the server process being killed (SIGKILL) and restarted (issue 5)."""

from __future__ import annotations

import json
from typing import Any

from websockets.sync.client import connect

from tests.server.conftest import Server


def _act(ws: Any, state: dict[str, Any]) -> dict[str, Any]:
    ws.send(json.dumps({"type": "act", "action": state["legal"][-1], "seq": state["seq"]}))
    while True:
        message: dict[str, Any] = json.loads(ws.recv(timeout=10))
        if message["type"] == "state" and message["seq"] > state["seq"]:
            return message
        assert message["type"] != "error", message


def test_sigkill_and_restart_lose_no_action(server: Server) -> None:
    room = server.post("/api/rooms", {"bots": [None, "greedy", "greedy"], "timer": 0, "seed": 21})
    ws_url = (
        server.url.replace("http", "ws") + f"/ws/{room['room']}?token={room['seats'][0]['token']}"
    )
    with connect(ws_url) as ws:
        state = json.loads(ws.recv(timeout=10))
        for _ in range(3):
            if state["over"] or not state["legal"]:
                break
            state = _act(ws, state)
        before = state
    assert not before["over"] and before["seq"] > 0
    server.kill()
    server.start()
    with connect(ws_url) as ws:
        state = json.loads(ws.recv(timeout=10))
        assert state["seq"] == before["seq"] and state["hand"] == before["hand"]
        assert state["events"] == before["events"] and state["legal"] == before["legal"]
        while not state["over"]:
            state = _act(ws, state)
    record = server.get(f"/api/rooms/{room['room']}/hands/0/record")
    assert len(record["actions"]) == state["seq"] >= before["seq"]
    assert record["result"]["payments"] == state["result"]["payments"]
