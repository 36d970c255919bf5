"""Budgets below the application (issue 22): what uvicorn answers by itself is bounded too.

* **WebSocket control frames.** A client's ping is answered by the WebSocket library, never
  seen by the application: a flood of them (four sockets sent 3 M in 12 s) cost the server
  its CPU. Here every connection has a budget of pings and pongs (:class:`Bucket`): one over
  it is dropped, neither answered nor passed on, and a connection that goes on past it is
  closed (1008): the server stops reading it at once and lets go of it a few seconds later,
  so a flooder that reconnects at once waits first. The bytes of a read are parsed a slice at
  a time, so a read of thousands of pings stops at the slice where the budget ran out.
* **WebSocket upgrades.** A client past its address's budget of connections a minute is
  answered 429 by the HTTP protocol itself, before a WebSocket protocol, a task or the
  application is made for it, and ``refusal_delay`` seconds late, the connection unread
  meanwhile (a tarpit, as the application's own 429s): a flooder that reconnects as soon as it
  is refused (issue 22's ping flood, about 400 attempts a second) then tries about once a
  second a socket, and each try costs the parsing of its request and no more. At most
  ``held_per_address`` refusals of one address, and ``held_at_most`` in all, wait at once;
  past that they are sent at once.
  The address is the one the application sees (behind a trusted proxy, the forwarded one).
  The application keeps its own count for servers run without these classes.
* **Half-sent requests.** uvicorn's keep-alive timeout runs only between requests: a client
  that sends part of a request head (or body) and stalls holds its connection for ever. Here
  every request must be complete (head and body) within ``request_timeout`` seconds of the
  connection opening or of the previous response; a connection that is not is closed.

Both are uvicorn protocol classes (``uvicorn.run(http=…, ws=…)``), made by :func:`protocols`
from a :class:`Config`.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any, ClassVar

import h11
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory
from websockets.frames import Frame, Opcode
from websockets.server import ServerProtocol

from paohuzi.server.config import Config
from paohuzi.server.limits import Bucket, RateLimiter
from paohuzi.server.routes.common import client_key

TOO_MANY_UPGRADES = "你这里的连接太多了 · too many connections from your address".encode()
"""The body of a refused upgrade, in the words of the other 429s (Chinese · English)."""
SLICE = 1024
"""Bytes of a WebSocket read parsed at once, between two looks at the budget."""
TOO_MANY = 1008
"""WebSocket close code (policy violation) for a connection that floods."""


class BudgetedFrames(ServerProtocol):
    """websockets' server protocol, with a budget of control frames (pings and pongs)."""

    def __init__(self, *args: Any, control: Bucket, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.control = control
        self.refused = 0
        """Control frames dropped over the budget, on this connection."""

    def recv_frame(self, frame: Frame) -> None:
        if frame.opcode in (Opcode.PING, Opcode.PONG) and not self.control.take():
            self.refused += 1
            return  # not answered, not passed on: it costs what parsing it cost
        super().recv_frame(frame)


class GuardedWebSockets(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol with a budget of control frames a connection."""

    pings_per_second = 1.0
    ping_burst = 10
    refusals = 50
    """Control frames dropped before the connection is closed."""
    linger = 5.0
    """Seconds a flooding connection is held, unread, before it is let go."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        extensions = []
        if self.config.ws_per_message_deflate:  # as uvicorn builds its own
            extensions = [
                ServerPerMessageDeflateFactory(
                    server_max_window_bits=12,
                    client_max_window_bits=12,
                    compress_settings={"memLevel": 5},
                )
            ]
        self.conn = BudgetedFrames(
            extensions=extensions,
            max_size=self.config.ws_max_size,
            logger=self.conn.logger,
            control=Bucket(self.pings_per_second, self.ping_burst),
        )

    flooding = False

    def data_received(self, data: bytes) -> None:
        if self.flooding:  # read again (uvicorn resumes reading when the app has read all)
            self.transport.pause_reading()
            return
        conn = self.conn
        assert isinstance(conn, BudgetedFrames)
        for start in range(0, len(data), SLICE):
            if self.transport.is_closing():
                return
            super().data_received(data[start : start + SLICE])
            if conn.refused > self.refusals:
                self.flooded()
                return

    def flooded(self) -> None:
        """Close the connection: the application is told at once that it went away, the
        client is sent a close frame and is not read again, and the socket is let go of
        ``linger`` seconds later (a flooder's sends stall meanwhile, at no cost here)."""
        if self.transport.is_closing() or self.close_sent:
            return
        self.flooding = True
        if self.handshake_complete:
            self.conn.fail(TOO_MANY, "too many pings")
            self.transport.write(b"".join(self.conn.data_to_send()))
            self.queue.put_nowait({"type": "websocket.disconnect", "code": TOO_MANY})
        self.close_sent = True
        self.stop_keepalive()
        self.transport.pause_reading()
        self.read_paused = True
        if self.close_timer is not None:
            self.close_timer.cancel()
        self.close_timer = self.loop.call_later(self.linger, self.transport.close)


@dataclass
class Held:
    """The refused upgrades waiting for their 429 (:class:`GuardedHTTP`)."""

    by_address: dict[str, int] = field(default_factory=dict)
    total: int = 0


class GuardedHTTP(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, closing a connection whose request is not complete within
    ``request_timeout`` seconds (of the connection opening, or of the previous response)."""

    request_timeout = 5.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._request_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def _arm(self) -> None:
        self._disarm()
        self._request_deadline = self.loop.call_later(self.request_timeout, self._expired)

    def _disarm(self) -> None:
        if self._request_deadline is not None:
            self._request_deadline.cancel()
            self._request_deadline = None

    def _expired(self) -> None:
        self._request_deadline = None
        if self.transport.is_closing() or self.transport.get_protocol() is not self:
            return  # gone, or a WebSocket now (its own protocol bounds it)
        if self.conn.their_state in (h11.IDLE, h11.SEND_BODY):
            self.transport.close()  # a request begun (or none) and not finished: slowloris

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state not in (h11.IDLE, h11.SEND_BODY):
            self._disarm()  # the request is in: the rest is the application's

    upgrades: RateLimiter | None = None
    """WebSocket upgrades a client address may ask for (None: no budget here)."""
    refusal_delay = 0.0
    """Seconds a refused upgrade waits, unread, for its 429."""
    held_per_address = 8
    """Refusals of one address that may wait at once (past it: sent at once)."""
    held_at_most = 256
    """Refusals that may wait at once, every address's (past it: sent at once)."""
    held: ClassVar[Held] = Held()
    """Refusals waiting now (each protocols() class has its own)."""
    _refusal: asyncio.TimerHandle | None = None
    _held_by: str | None = None

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._disarm()
        if self.upgrades is not None:
            address = self._address(event)
            if not self.upgrades.allow(address):
                self._refuse_later(address)
                return
        super().handle_websocket_upgrade(event)

    def _refuse_later(self, address: str) -> None:
        """The 429 of an upgrade over the budget, ``refusal_delay`` seconds from now."""
        held = self.held
        waiting = held.by_address.get(address, 0)
        full = waiting >= self.held_per_address or held.total >= self.held_at_most
        if self.refusal_delay <= 0 or full:
            self._refuse(429, TOO_MANY_UPGRADES)
            return
        held.by_address[address] = waiting + 1
        held.total += 1
        self._held_by = address
        self.transport.pause_reading()
        self._refusal = self.loop.call_later(self.refusal_delay, self._refuse_held)

    def _release(self) -> None:
        if self._refusal is not None:
            self._refusal.cancel()
            self._refusal = None
        address, self._held_by = self._held_by, None
        if address is not None:
            held = self.held
            held.total -= 1
            left = held.by_address.get(address, 1) - 1
            if left > 0:
                held.by_address[address] = left
            else:
                held.by_address.pop(address, None)

    def _refuse_held(self) -> None:
        self._refusal = None
        self._release()
        try:
            if not self.transport.is_closing():
                self._refuse(429, TOO_MANY_UPGRADES)
        finally:
            self.transport.close()  # whatever the refusal did: no paused socket is left

    def shutdown(self) -> None:
        """uvicorn's graceful shutdown: a refusal still waiting is not sent (h11 is in the
        middle of a response it never began), the connection is closed."""
        if self._held_by is not None:
            self._release()
            self.transport.close()
            return
        super().shutdown()

    def _address(self, event: h11.Request) -> str:
        """The client's address as the application's limits count it: the peer's, or behind
        a trusted proxy the one it forwards (uvicorn's own middleware decides, as it does for
        the application)."""
        scope: dict[str, Any] = {"type": "websocket", "client": self.client, "headers": []}
        if self.config.proxy_headers:
            scope["headers"] = list(event.headers)
            middleware = ProxyHeadersMiddleware(_noop, self.config.forwarded_allow_ips)
            with contextlib.suppress(StopIteration):  # it never waits: one step runs it
                middleware(scope, _never, _never).send(None)  # type: ignore[arg-type]
        client = scope.get("client")
        return client_key(str(client[0]) if client else None)

    def _refuse(self, status: int, text: bytes) -> None:
        headers = [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"content-length", str(len(text)).encode()),
            (b"connection", b"close"),
        ]
        response = h11.Response(status_code=status, headers=headers, reason=b"Too Many Requests")
        self.transport.write(self.conn.send(response) or b"")
        self.transport.write(self.conn.send(h11.Data(data=text)) or b"")
        self.transport.write(self.conn.send(h11.EndOfMessage()) or b"")
        self.transport.close()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self._held_by is None:
            self._arm()  # the next request on this connection has as long

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._release()
        super().connection_lost(exc)


async def _noop(scope: Any, receive: Any, send: Any) -> None:
    """The application :meth:`GuardedHTTP._address` runs uvicorn's proxy middleware over."""


async def _never() -> Any:
    raise AssertionError("not called")


def protocols(config: Config) -> tuple[type[GuardedHTTP], type[GuardedWebSockets]]:
    """The HTTP and WebSocket protocol classes for ``uvicorn.run``, with ``config``'s limits."""
    http = type(
        "GuardedHTTP",
        (GuardedHTTP,),
        {
            "request_timeout": config.request_timeout,
            "upgrades": RateLimiter(config.connections_per_minute),
            "refusal_delay": config.refusal_delay,
            "held": Held(),
        },
    )
    ws = type(
        "GuardedWebSockets",
        (GuardedWebSockets,),
        {"pings_per_second": config.pings_per_second, "ping_burst": config.ping_burst},
    )
    return http, ws
