"""``paohuzi serve --no-ws-compression`` sends WebSocket messages uncompressed (compressing
every state is about a third of the server's CPU); by default they are compressed."""

from __future__ import annotations

from pathlib import Path

import pytest
from websockets.sync.client import connect

from tests.server.harness import PERSON, LoggedServer, hello, ws_path


@pytest.mark.parametrize("off", [False, True])
def test_websocket_compression_follows_the_flag(tmp_path: Path, off: bool) -> None:
    options = ["--no-ws-compression"] if off else []
    server = LoggedServer(tmp_path / "db", *options)
    server.start()
    try:
        room = server.post("/api/rooms", {"bots": PERSON, "timer": 0})
        with connect(server.ws(ws_path(room)), open_timeout=30) as ws:  # deflate asked
            ws.send(hello(room, 0))
            assert ws.recv(timeout=30)
            negotiated = [e.name for e in ws.protocol.extensions]
        assert negotiated == ([] if off else ["permessage-deflate"])
    finally:
        server.stop()
