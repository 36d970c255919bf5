"""What the attack, fuzz and fault tests of issue 10 share: a server in a TestClient with
reads that cannot hang, a real ``paohuzi serve`` whose log is kept, and a bare WebSocket
client that sends any frame, valid or not."""

from __future__ import annotations

import base64
import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from paohuzi.server.app import create_app
from paohuzi.server.rooms import Room
from tests import clock
from tests.pgcluster import db_url
from tests.server.conftest import Server

TEXT, BINARY, CLOSE, PING = 0x1, 0x2, 0x8, 0x9
PERSON = [None, "greedy", "greedy"]
"""Seat 0 a person, the others greedy bots."""


def sql(db: Path, statement: str, *args: Any) -> list[Any]:
    """Run one statement on a server's database (file, or PostgreSQL schema), as another
    process would; its rows."""
    url = db_url(db)
    if url.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(url, autocommit=True) as pg:
            cursor = pg.execute(statement.replace("?", "%s"), args)
            return cursor.fetchall() if cursor.description else []
    con = sqlite3.connect(db)
    try:
        with con:
            return con.execute(statement, args).fetchall()
    finally:
        con.close()


FAST: dict[str, Any] = {
    "messages_per_second": 10_000.0,
    "rooms_per_minute": 10_000,
    "rooms_per_address": 10_000,
    "messages_per_address": 10_000.0,
    "connections_per_minute": 10_000,
    "reads_per_minute": 100_000,
    "refusal_delay": 0.0,
}
"""Limits out of the way, for tests that play whole hands as fast as they can."""


def app_client(db: Path, *, address: str = "203.0.113.7", **settings: Any) -> TestClient:
    """A server (enter it as a context manager) as a client at ``address`` sees it: by
    default a public one (no seeded deals), bots without pause, operator token "op"."""
    settings = {"bot_delay": 0, "operator_token": "op"} | settings
    return TestClient(create_app(db_url(db), **settings), client=(address, 50000))


def new_room(client: TestClient, bots: list[str | None], **fields: Any) -> dict[str, Any]:
    response = client.post("/api/rooms", json={"bots": bots, "timer": 0, **fields})
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def room_of(client: TestClient, room_id: str) -> Room:
    room: Room = client.app.state.rooms.rooms[room_id]  # type: ignore[attr-defined]
    return room


def ws_path(data: dict[str, Any]) -> str:
    """The path of a room's WebSocket: no secret in it (D71, D109)."""
    return f"/ws/{data['room']}"


def hello(data: dict[str, Any], seat: int) -> str:
    """The first message that sits a connection down at ``seat`` (D71): its secret."""
    return json.dumps({"type": "hello", "token": data["seats"][seat]["token"]})


@contextmanager
def seated(
    client: TestClient, data: dict[str, Any], seat: int, **options: Any
) -> Iterator[WebSocketTestSession]:
    """A connection of ``seat``, as the web table opens one: the room's WebSocket, the seat's
    secret in its first message (D109: never in the URL). ``options``: websocket_connect's."""
    with client.websocket_connect(ws_path(data), **options) as ws:
        ws.send_text(hello(data, seat))
        yield ws


def receive(ws: WebSocketTestSession, seconds: float = clock.PATIENCE) -> Any:
    """The next message, parsed; fails the test rather than wait for ever."""

    async def get() -> Any:
        with anyio.fail_after(seconds):
            return await ws._send_rx.receive()

    message = ws.portal.call(get)
    if message["type"] == "websocket.close":
        raise WebSocketDisconnect(message.get("code", 1000), message.get("reason"))
    return json.loads(message["text"])


def play_out(ws: WebSocketTestSession, state: dict[str, Any]) -> dict[str, Any]:
    """Play the seat's last legal option at each decision until the hand is over."""
    while not state["over"]:
        if state["legal"]:
            ws.send_json({"type": "act", "action": state["legal"][-1], "seq": state["seq"]})
        state = receive(ws)
        while state["type"] == "saving":  # told when a commit is slow (a loaded machine)
            state = receive(ws)
        assert state["type"] == "state", state
    return state


class LoggedServer(Server):
    """``paohuzi serve`` with its standard error kept in a file across restarts."""

    def __init__(self, db: Path, *options: str, bot_delay: float = 0.0) -> None:
        super().__init__(db, bot_delay)
        self.options = list(options)
        self.log = db.with_name(db.name + ".log")

    def start(self) -> None:
        command = [sys.executable, "-m", "paohuzi", "serve", "--port", str(self.port)]
        command += ["--db", db_url(self.db), "--bot-delay", str(self.bot_delay), *self.options]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log)
        deadline = clock.deadline()
        while not clock.expired(deadline):
            try:
                urllib.request.urlopen(self.url + "/healthz", timeout=1).read()
                return
            except OSError:
                time.sleep(0.05)
        self.process.kill()
        self.process.wait()
        raise RuntimeError(f"the server did not start: {self.errors()[-2000:]}")

    def errors(self) -> str:
        """Everything the server wrote to standard error so far."""
        return self.log.read_text(encoding="utf-8", errors="replace")

    def ws(self, path: str) -> str:
        return self.url.replace("http", "ws", 1) + path


def http(
    server: Server,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], bytes]:
    """One request; the status, headers and body whatever the status."""
    request = urllib.request.Request(server.url + path, data=body, method=method)
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=clock.PATIENCE) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


class RawWebSocket:
    """A WebSocket client on a plain socket: it frames whatever it is given."""

    def __init__(
        self, port: int, path: str, headers: dict[str, str] | None = None, rcvbuf: int = 0
    ) -> None:
        self.sock = socket.socket()
        self.sock.settimeout(10)
        if rcvbuf:  # before connecting, so the window offered stays that small
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.connect(("127.0.0.1", port))
        self._buffer = b""
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [
            f"GET {path} HTTP/1.1",
            f"Host: 127.0.0.1:{port}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}",
            "Sec-WebSocket-Version: 13",
            *(f"{name}: {value}" for name, value in (headers or {}).items()),
        ]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = self._read_until(b"\r\n\r\n")
        self.status = int(head.split(b" ", 2)[1])

    def _read_until(self, end: bytes) -> bytes:
        while end not in self._buffer:
            self._fill()
        head, _, self._buffer = self._buffer.partition(end)
        return head

    def _fill(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        self._buffer += chunk

    def _read(self, n: int) -> bytes:
        while len(self._buffer) < n:
            self._fill()
        found, self._buffer = self._buffer[:n], self._buffer[n:]
        return found

    def send_frame(self, opcode: int, payload: bytes) -> None:
        """One final, masked frame, as a client must send."""
        mask = os.urandom(4)
        size = len(payload)
        if size < 126:
            head = bytes([0x80 | opcode, 0x80 | size])
        elif size < 1 << 16:
            head = bytes([0x80 | opcode, 0x80 | 126]) + size.to_bytes(2, "big")
        else:
            head = bytes([0x80 | opcode, 0x80 | 127]) + size.to_bytes(8, "big")
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(head + mask + masked)

    def recv_frame(self) -> tuple[int, bytes]:
        """The next frame from the server (unmasked, unfragmented): its opcode and payload."""
        first, second = self._read(2)
        size = second & 0x7F
        if size == 126:
            size = int.from_bytes(self._read(2), "big")
        elif size == 127:
            size = int.from_bytes(self._read(8), "big")
        return first & 0x0F, self._read(size)

    def recv_json(self) -> Any:
        """The next text message, parsed; raises ConnectionError on a close frame."""
        while True:
            opcode, payload = self.recv_frame()
            if opcode == TEXT:
                return json.loads(payload)
            if opcode == CLOSE:
                raise ConnectionError(close_code(payload))

    def close(self) -> None:
        self.sock.close()


def close_code(payload: bytes) -> int:
    """The status code of a close frame's payload (1005: none given)."""
    return int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
