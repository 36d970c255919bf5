"""Carrying a room's traffic to the process of the hall that holds it (D61).

The front proxy sends each room's connections to one process by a hash of the room id, so
this is the exception: a room created on one process and hashed to another, or taken over
by a process the hash does not pick. The peer is trusted as the database is (docs/security.md):
it is reached on the hall's private network, at the address it stored with its heartbeat.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any
from urllib.parse import urlsplit

from fastapi import HTTPException
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState
from websockets.asyncio.client import connect
from websockets.exceptions import WebSocketException

from paohuzi.server.rooms import MOVED

FORWARDED = "x-paohuzi-forwarded"
"""Header of a forwarded request: it is not forwarded again (no loops between peers)."""


async def forward_websocket(websocket: WebSocket, address: str, room_id: str) -> None:
    """Relay an accepted client WebSocket to the holder's, both ways, until either ends; the
    holder's close code reaches the client (MOVED: reconnect)."""
    parts = urlsplit(address)
    scheme = "wss" if parts.scheme == "https" else "ws"
    query = websocket.url.query
    url = f"{scheme}://{parts.netloc}/ws/{room_id}" + (f"?{query}" if query else "")
    code, reason = MOVED, "the room's process did not answer; reconnect"
    try:
        async with connect(
            url,
            additional_headers={FORWARDED: "1"},
            max_size=2**22,
            open_timeout=5,
            ping_interval=None,
            # Between two processes of the hall (a private network): compressing there would
            # cost the holder a compression and this process a decompression of every state.
            compression=None,
        ) as upstream:

            async def up() -> None:
                while True:
                    message = await websocket.receive()
                    if message["type"] == "websocket.disconnect":
                        return
                    data = message.get("text")
                    await upstream.send(data if data is not None else message.get("bytes", b""))

            async def down() -> None:
                async for data in upstream:
                    if isinstance(data, str):
                        await websocket.send_text(data)
                    else:
                        await websocket.send_bytes(data)

            tasks = [asyncio.create_task(up()), asyncio.create_task(down())]
            _, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in pending:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(BaseException):
                    await task
            if upstream.close_code is not None:
                code, reason = upstream.close_code, upstream.close_reason or ""
    except (OSError, TimeoutError, WebSocketException, WebSocketDisconnect, RuntimeError):
        pass
    if websocket.application_state is WebSocketState.CONNECTED:
        with contextlib.suppress(RuntimeError, WebSocketDisconnect):
            if code in (1005, 1006) or not 1000 <= code < 5000:
                code = MOVED  # no code, or one that may not be sent: reconnect
            await websocket.close(code=code, reason=reason[:120])


async def forward_get(address: str, path: str) -> Any:
    """A GET of a room's state from its holder, answered as it answers."""
    import urllib.error
    import urllib.request

    def fetch() -> tuple[int, Any]:
        request = urllib.request.Request(address.rstrip("/") + path, headers={FORWARDED: "1"})
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                return response.status, json.load(response)
        except urllib.error.HTTPError as error:
            return error.code, json.load(error)

    try:
        status, body = await asyncio.to_thread(fetch)
    except (OSError, ValueError):
        raise HTTPException(503, "the room is moving; try again") from None
    if status != 200:
        raise HTTPException(status, str(body.get("detail", "")) if isinstance(body, dict) else "")
    return body
