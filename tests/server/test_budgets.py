"""Every message spends a budget (issue 22, point 3): WebSocket pings and messages, history
reads and connections, per connection and per client address; half-sent requests are closed.

Counting, not timing: a flood of N gets at most its budget answered (the budgets refill by
the second, so the bounds allow for the seconds a slow machine takes), and the room plays on.
"""

from __future__ import annotations

import contextlib
import json
import selectors
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

from tests import clock
from tests.server.harness import (
    FAST,
    PERSON,
    PING,
    TEXT,
    LoggedServer,
    RawWebSocket,
    app_client,
    close_code,
    hello,
    new_room,
    receive,
    ws_path,
)

PONG, CLOSE = 0xA, 0x8


def frames(count: int, opcode: int, payload: bytes) -> bytes:
    """``count`` masked client frames in one buffer (the mask all zero: the payload as is)."""
    one = bytes([0x80 | opcode, 0x80 | len(payload)]) + b"\0\0\0\0" + payload
    return one * count


def drain(ws: RawWebSocket) -> tuple[dict[int, int], int | None, list[Any]]:
    """Frames of each opcode until the server closes; the close code, and the texts."""
    seen: dict[int, int] = {}
    texts: list[Any] = []
    code = None
    ws.sock.settimeout(30)  # a generous bound for the server to get through the flood
    try:
        while True:
            opcode, payload = ws.recv_frame()
            seen[opcode] = seen.get(opcode, 0) + 1
            if opcode == TEXT:
                texts.append(json.loads(payload))
            if opcode == CLOSE:
                code = close_code(payload)
                break
    except (ConnectionError, OSError):
        pass
    return seen, code, texts


def play_some(ws: RawWebSocket, moves: int) -> tuple[int, bool]:
    """A person's seat plays its last legal option ``moves`` times (or to the hand's end): the
    states it was sent, and whether the hand ended first (a deal can end at once, R9.5)."""
    states = 0
    while moves > 0:
        message = ws.recv_json()
        if message.get("type") != "state":
            continue
        states += 1
        if message["over"]:
            return states, True
        if message["legal"]:
            action = message["legal"][-1]
            ws.sock.sendall(masked_text({"type": "act", "action": action, "seq": message["seq"]}))
            moves -= 1
    return states, False


def masked_text(message: dict[str, Any]) -> bytes:
    payload = json.dumps(message).encode()
    assert len(payload) < 126
    return bytes([0x80 | TEXT, 0x80 | len(payload)]) + b"\0\0\0\0" + payload


def test_a_ping_flood_gets_at_most_its_budget_answered_and_the_room_plays_on(
    tmp_path: Path,
) -> None:
    server = LoggedServer(tmp_path / "db")
    server.start()
    try:
        data = server.post("/api/rooms", {"bots": PERSON, "timer": 0})
        room = data["room"]
        seat = RawWebSocket(server.port, ws_path(data))
        flooder = RawWebSocket(server.port, f"/ws/{room}")
        try:
            assert seat.status == flooder.status == 101
            seat.send_frame(TEXT, hello(data, 0).encode())  # its secret: the first message
            flooder.sock.sendall(frames(20_000, PING, b"x"))
            seen, code, _ = drain(flooder)
            # The budget: 10 at once, one a second after; closed past 50 refused.
            assert seen.get(PONG, 0) <= 20, seen
            assert code == 1008, (seen, code)
            # The bystander's seat was not held up: it plays on and is shown every move (to
            # the hand's end, where a deal ends sooner).
            states, over = play_some(seat, 5)
            assert states >= 5 or (over and states >= 1), (states, over)
        finally:
            flooder.close()
            seat.close()
        # Application messages: a flood of 1,000 gets at most the budget (20 a second,
        # bursts of 40) answered, the rest refused, and is closed after 20 refused in a row.
        spam = RawWebSocket(server.port, f"/ws/{room}")
        first = spam.recv_json()
        assert first["type"] == "state"
        spam.sock.sendall(masked_text({"type": "ping"}) * 1000)
        seen, code, texts = drain(spam)
        answered = [t for t in texts if t.get("type") == "error" and "unknown" in t["message"]]
        refused = [t for t in texts if t.get("type") == "error" and "too many" in t["message"]]
        assert len(answered) <= 50, len(answered)
        assert len(answered) + len(refused) <= 50 + 21  # the close may overtake replies
        assert code == 1008
        spam.close()
    finally:
        server.stop()
    assert "Traceback" not in server.errors()


def test_many_connections_of_one_address_share_its_message_budget(tmp_path: Path) -> None:
    with app_client(tmp_path / "db", messages_per_address=5.0) as client:
        data = new_room(client, PERSON)
        answered = 0
        for _ in range(3):
            with client.websocket_connect(f"/ws/{data['room']}") as ws:
                assert receive(ws)["type"] == "state"
                for _ in range(15):
                    ws.send_json({"type": "hint"})
                for _ in range(15):
                    reply = receive(ws)
                    answered += "too many" not in reply["message"]
        # Each connection alone may send 40 at once; together they have 10 (and 5 a second).
        assert answered <= 10 + 5 * 5, answered


def test_connections_of_one_address_are_budgeted(tmp_path: Path) -> None:
    with app_client(tmp_path / "db", connections_per_minute=3) as client:
        data = new_room(client, PERSON)
        for _ in range(3):
            with client.websocket_connect(f"/ws/{data['room']}") as ws:
                assert receive(ws)["type"] == "state"
        with (
            pytest.raises(WebSocketDisconnect) as refused,
            client.websocket_connect(f"/ws/{data['room']}") as ws,
        ):
            receive(ws)
        assert refused.value.code == 4429


def test_a_reconnecting_flood_is_refused_before_the_application(tmp_path: Path) -> None:
    """Past its address's budget of connections, a WebSocket upgrade is answered 429 by the
    HTTP protocol (guard.GuardedHTTP), before the application (which refuses with 403).
    A client that goes away before its refusal is sent logs no traceback. Behind the trusted proxy (127.0.0.1, uvicorn's default)
    each forwarded address has a budget of its own. Counting, not timing: the budget of 5 a
    minute refills one token in 12 s, far more than the loop below takes."""
    server = LoggedServer(tmp_path / "db", "--connections-per-minute", "5", "--refusal-delay", "0")
    server.start()
    try:
        statuses = []
        for _ in range(12):
            ws = RawWebSocket(server.port, "/ws/nosuchroom0")
            statuses.append(ws.status)
            ws.close()  # at once: the application may still be refusing the unknown room
        forwarded = RawWebSocket(
            server.port, "/ws/nosuchroom0", headers={"X-Forwarded-For": "203.0.113.7"}
        )
        forwarded.close()
        accepted = statuses.count(101)
        assert 5 <= accepted <= 6, statuses  # 6: one token refilled on a very slow machine
        assert statuses.count(429) == len(statuses) - accepted, statuses
        assert forwarded.status == 101
    finally:
        server.stop()
    assert "Traceback" not in server.errors(), server.errors()[-3000:]


def _upgrade(port: int) -> socket.socket:
    """A socket that has sent a WebSocket upgrade and reads nothing yet."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(
        f"GET /ws/nosuchroom0 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    return sock


def _response(sock: socket.socket) -> bytes:
    """All the server sends on ``sock`` until it closes it."""
    data = b""
    while chunk := sock.recv(4096):
        data += chunk
    return data


def test_a_refused_upgrade_waits_for_its_429_unread(tmp_path: Path) -> None:
    """Past its address's budget, an upgrade's 429 comes ``--refusal-delay`` seconds late, the
    connection unread meanwhile (guard.GuardedHTTP: a client that reconnects as soon as it is
    refused, issue 22's ping flood, tries about once a second instead of hundreds of times).
    At most eight refusals of one address wait at once; another is answered at once, before
    them. Lower bounds and order only: a loaded machine makes answers later, never earlier.
    The server then stops with a refusal still waiting, without a traceback."""
    delay = 3.0
    server = LoggedServer(
        tmp_path / "db", "--connections-per-minute", "1", "--refusal-delay", str(delay)
    )
    server.start()
    socks: list[socket.socket] = []
    try:
        first = RawWebSocket(server.port, "/ws/nosuchroom0")  # the one token of the budget
        assert first.status != 429
        first.close()
        sent = []
        for _ in range(9):  # eight held, one answered at once
            sent.append(time.monotonic())
            socks.append(_upgrade(server.port))
        waited: dict[int, float] = {}  # socket index: seconds from its own send to its answer
        answered: dict[int, float] = {}
        with selectors.DefaultSelector() as selector:
            for i, sock in enumerate(socks):
                selector.register(sock, selectors.EVENT_READ, i)
            deadline = clock.deadline()
            while len(answered) < len(socks) and not clock.expired(deadline):
                for key, _ in selector.select(timeout=1):
                    answered[key.data] = time.monotonic()
                    waited[key.data] = answered[key.data] - sent[key.data]
                    selector.unregister(key.fileobj)
        assert len(answered) == 9, answered
        responses = [_response(sock) for sock in socks]
        assert [int(r.split(b" ", 2)[1]) for r in responses] == [429] * 9
        # Said as every 429 of the server is (players read Chinese), whoever reads it.
        body = responses[0].split(b"\r\n\r\n", 1)[1].decode()
        assert "连接太多" in body and "too many connections" in body, body
        order = sorted(answered, key=answered.__getitem__)
        # Eight waited the delay from their own send (a lower bound whatever the load); the
        # one answered first did not wait for them.
        assert all(waited[i] >= delay - 0.05 for i in order[1:]), waited
        assert waited[order[0]] < min(waited[i] for i in order[1:]), waited
        waiting = _upgrade(server.port)
        socks.append(waiting)
        time.sleep(0.5)  # read and held by then (unless the machine is very slow: no matter)
        server.stop()  # with a refusal waiting: it is closed, not answered
        with contextlib.suppress(ConnectionResetError):  # closed with the request unread
            assert waiting.recv(4096) == b""
    finally:
        for sock in socks:
            sock.close()
        server.stop()
    assert "Traceback" not in server.errors(), server.errors()[-3000:]


def test_a_history_flood_gets_at_most_its_budget_and_the_store_is_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = {"finished_hands": 0, "record": 0}
    settings: dict[str, Any] = FAST | {"reads_per_minute": 60, "history_page": 1}
    # The refusals come at once here (a server waits a second before each).
    with app_client(tmp_path / "db", **settings) as client:
        store = client.app.state.rooms.store  # type: ignore[attr-defined]
        for name in calls:
            original = getattr(store, name)

            def counted(*args: Any, _name: str = name, _original: Any = original) -> Any:
                calls[_name] += 1
                return _original(*args)

            monkeypatch.setattr(store, name, counted)
        data = new_room(client, ["greedy", "greedy", "greedy"])
        room = data["room"]
        clock.wait_until(
            lambda: client.app.state.rooms.rooms[room].match.hands,  # type: ignore[attr-defined]
            "the bots did not play a hand",
        )
        started = time.monotonic()  # measured: the budget refills with the seconds the run took
        statuses: dict[int, int] = {}
        for _ in range(500):
            for path in ("/hands", "/hands/0/record"):  # in turn: the budget serves both
                response = client.get(f"/api/rooms/{room}{path}")
                statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
                if response.status_code == 429:
                    assert response.headers["connection"] == "close"
                    assert "太频繁" in response.json()["detail"]  # in both languages
        elapsed = time.monotonic() - started  # a measurement the bounds below allow for
        # 60 at once and one a second after; everything else refused before any work.
        assert statuses.get(200, 0) <= 60 + elapsed + 1, statuses
        assert statuses.get(429, 0) >= 1000 - 60 - elapsed - 1, statuses
        assert set(statuses) == {200, 429}
        # A full page and a finished hand's record never change: read from the store once.
        assert calls == {"finished_hands": 1, "record": 1}, calls


@pytest.mark.parametrize(
    "half",
    [
        b"GET /healthz HTTP/1.1\r\nHost: x\r\n",  # a head without its end
        b"POST /api/analyze HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{",  # a body
    ],
    ids=["head", "body"],
)
def test_a_half_sent_request_is_closed(tmp_path: Path, half: bytes) -> None:
    server = LoggedServer(tmp_path / "db", "--request-timeout", "1")
    server.start()
    try:
        with socket.create_connection(("127.0.0.1", server.port)) as whole:
            whole.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            assert whole.recv(4096).startswith(b"HTTP/1.1 200")
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            sock.sendall(half)
            sock.settimeout(30)  # far beyond the 1 s it has: the server closes it first
            received = b""
            while chunk := sock.recv(4096):
                received += chunk
            assert b"200" not in received
    finally:
        server.stop()
