"""Seat 0 of a room played through connections that may break: what the fault tests of
issues 10 and 16 know of its own actions."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import connect

from tests import clock


class Player:
    """Seat 0 of a room, playing through whatever connection it gets, and what it knows of
    its own actions: those the server applied (by hand), and the one not yet answered."""

    def __init__(self, url: str, hello: str) -> None:
        self.url = url
        self.hello = hello
        """The first message of each connection: the seat's secret (D109: not in the URL)."""
        self.applied: dict[int, list[str]] = {}
        self.pending: tuple[int, int, str] | None = None
        """Hand, seq and action sent, not yet known to be applied or not."""
        self.acknowledged = 0
        """Actions the connection they were sent on confirmed (the others were learnt after
        a restart)."""
        self.last: dict[str, Any] = {}
        self._sent = 0.0
        self.gate: threading.Event | None = None
        """When set up (with :attr:`hold_after`): before an action past that many
        acknowledged ones, wait until the gate opens (a moment chosen by the test)."""
        self.hold_after = 0
        self.held = False
        """Waiting at the gate now: in the middle of a hand, with a choice to make."""

    def learn(self, state: dict[str, Any], *, same_connection: bool) -> None:
        """Whether the pending action was applied, from a state of the table."""
        if self.pending is None:
            return
        hand, seq, text = self.pending
        if state["hand_no"] != hand or state["seq"] > seq:
            self.applied.setdefault(hand, []).append(text)
            self.acknowledged += same_connection
            self.pending = None
        elif not same_connection:  # a restarted server that had not stored it
            assert state["seq"] == seq, (state["seq"], seq)
            self.pending = None

    def play(self, finish: bool = False, hand: int = 0) -> bool:
        """Play until the connection breaks (False) or, with ``finish``, until the hand in
        play is over (True), and it is hand number ``hand`` or later."""
        try:
            with connect(self.url, open_timeout=clock.PATIENCE, close_timeout=1) as ws:
                ws.send(self.hello)
                fresh = True
                while True:
                    message = json.loads(ws.recv(timeout=clock.PATIENCE))
                    if message["type"] == "saving":  # a slow commit (a loaded machine)
                        continue
                    if message["type"] == "error" and fresh:
                        return False  # refused for now (a room moving in a hall): again
                    assert message["type"] == "state", message
                    self.learn(message, same_connection=not fresh)
                    fresh = False
                    self.last = message
                    if message["over"] and finish and message["hand_no"] >= hand:
                        return True
                    if message["over"] or message["legal"]:
                        self._send(ws, message)
        except TimeoutError:
            raise  # a server that stops answering is a failure, not a kill
        except (ConnectionClosed, InvalidHandshake, OSError):
            return False

    def _send(self, ws: Any, state: dict[str, Any]) -> None:
        # Within the message rate a connection is allowed (20 a second).
        time.sleep(max(0.0, self._sent + 0.06 - time.monotonic()))  # pacing, not a bound
        if state["over"]:
            ws.send(json.dumps({"type": "next"}))
        else:
            if self.gate is not None and self.acknowledged >= self.hold_after:
                self.held = True
                self.gate.wait()
                self.held = False
            action = state["legal"][-1]
            self.pending = (state["hand_no"], state["seq"], action)
            ws.send(json.dumps({"type": "act", "action": action, "seq": state["seq"]}))
        self._sent = time.monotonic()  # when the last message went (pacing, not a bound)
