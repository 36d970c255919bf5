"""The web server: HTTP for rooms and history, a WebSocket per seat, the web table.

Every client is assumed to lie (docs/security.md): every input is bounded and checked, every
refusal is a one-line JSON error (a WebSocket ``{"type": "error"}`` message, or HTTP 4xx with
``{"detail": …}``), and no request can hold up a room or the server. The routes are in
:mod:`paohuzi.server.routes`, one router for each concern; this module makes the application:
its lifespan, its middleware and its error answers.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from paohuzi.puzzles import shipped as shipped_puzzles
from paohuzi.server.config import Config
from paohuzi.server.limits import RateLimiter
from paohuzi.server.quick import HallHooks, Matcher
from paohuzi.server.reviews import Reviews
from paohuzi.server.rooms import Rooms
from paohuzi.server.routes import ROUTERS
from paohuzi.server.routes.common import Server, client_key, from_peer, host_of, one_line
from paohuzi.server.store import open_store

log = logging.getLogger("paohuzi.server")

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
SendASGI = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, SendASGI], Awaitable[None]]


class BodyLimit:
    """Refuse request bodies over ``limit`` bytes, declared or streamed, with a 413."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: SendASGI) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length" and (not value.isdigit() or int(value) > self.limit):
                await _too_large(send, self.limit)
                return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                # An HTTPException is the one error FastAPI lets out of reading a body as it
                # is (any other becomes a 400).
                raise HTTPException(413, f"request body over {self.limit} bytes")
            return message

        await self.app(scope, counted, send)


async def _too_large(send: SendASGI, limit: int) -> None:
    body = json.dumps({"detail": f"request body over {limit} bytes"}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", b"application/json"), *SECURITY_HEADERS],
        }
    )
    await send({"type": "http.response.body", "body": body})


class ReadBudget:
    """Every request about a room (its seats, history pages, records, replays, reviews) spends
    the client address's budget of reads; past it a 429 answered before any routing, ``delay``
    seconds late (a client that asks again at once waits: it costs the server a timer, no
    work) and with the connection closed (issue 22). At most ``TARPIT`` refusals wait at once;
    the rest are answered at once. A hall peer's forwarded request was counted by the peer."""

    TARPIT = 256

    def __init__(self, app: ASGIApp, limiter: RateLimiter, delay: float) -> None:
        self.app = app
        self.limiter = limiter
        self.delay = delay
        self.waiting = 0

    async def __call__(self, scope: Scope, receive: Receive, send: SendASGI) -> None:
        if (
            scope["type"] == "http"
            and scope["path"].startswith("/api/rooms/")
            and not from_peer(scope)
            and not self.limiter.allow(client_key(host_of(scope)))
        ):
            if self.delay > 0 and self.waiting < self.TARPIT:
                self.waiting += 1
                try:
                    await asyncio.sleep(self.delay)
                finally:
                    self.waiting -= 1
            await send(
                {
                    "type": "http.response.start",
                    "status": 429,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"connection", b"close"),
                        (b"retry-after", b"10"),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": TOO_MANY_READS})
            return
        await self.app(scope, receive, send)


TOO_MANY_READS = json.dumps(
    {"detail": "请求太频繁，请稍等 · too many requests from your address; wait"}
).encode()


class Hardening:
    """Security headers on every HTTP response (docs/security.md)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: SendASGI) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                extra = [h for h in SECURITY_HEADERS if h[0] not in names]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, with_headers)


class ClientFaultsInOneLine(logging.Filter):
    """uvicorn logs a client's text frame that is not UTF-8 with a traceback: any client could
    fill the log with them. The one line says it all."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and record.getMessage().startswith("Invalid UTF-8"):
            record.exc_info = None
            record.exc_text = None
        return True


CLIENT_FAULTS = ClientFaultsInOneLine()


def create_app(config: Config | str = "paohuzi.db", **settings: Any) -> FastAPI:
    """The application; ``config`` (or a database path) and any :class:`Config` field."""
    if isinstance(config, str):
        config = Config(db=config)
    config = replace(config, **settings)
    server = Server(config)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Connecting and migrating at start, off the loop too, with a deadline.
        store = await asyncio.wait_for(
            asyncio.to_thread(
                open_store,
                config.db,
                address=config.address or server.public,
                lease_ttl=config.lease_ttl,
            ),
            60,
        )
        rooms = Rooms(store, config)
        rooms.hooks = HallHooks(rooms)
        app.state.rooms = rooms
        matcher = Matcher(rooms, config.quick_every)
        app.state.matcher = matcher
        app.state.reviews = Reviews(config.review_workers, config.review_queue, config.review_limit)
        await rooms.load()
        # The shipped puzzles are read and parsed once a process (0.1 s): here, off the loop,
        # not in the first request for one (the lessons are made on demand, under a lock).
        await asyncio.wait_for(asyncio.to_thread(shipped_puzzles), 60)
        tasks = [
            asyncio.create_task(rooms.restore_all()),
            asyncio.create_task(rooms.expire()),
            asyncio.create_task(matcher.run()),
        ]
        if store.hall:
            tasks.append(asyncio.create_task(rooms.keep_leases()))
        yield
        for task in tasks:
            task.cancel()
        app.state.reviews.close()
        await rooms.stop_retries()
        rooms.close()
        store.close()
        server.replays.close()

    app = FastAPI(title="paohuzi", lifespan=lifespan)
    app.state.server = server
    logging.getLogger("uvicorn.error").addFilter(CLIENT_FAULTS)
    app.add_middleware(BodyLimit, limit=config.max_body)
    app.add_middleware(ReadBudget, limiter=server.reads, delay=config.refusal_delay)
    app.add_middleware(Hardening)  # added last, so outermost: on every answer

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        first = error.errors()[0] if error.errors() else {}
        where = one_line(".".join(str(p) for p in first.get("loc", ()) if p != "body"), 80)
        message = one_line(str(first.get("msg", "invalid request")), 200)
        return JSONResponse({"detail": f"{where}: {message}" if where else message}, 422)

    @app.exception_handler(StarletteHTTPException)
    async def refused(request: Request, error: StarletteHTTPException) -> JSONResponse:
        return JSONResponse({"detail": one_line(str(error.detail), 300)}, error.status_code)

    @app.exception_handler(Exception)
    async def failed(request: Request, error: Exception) -> JSONResponse:
        server.trouble.warn(
            type(error).__name__, f"{request.url.path}: {type(error).__name__}: {error}"
        )
        return JSONResponse({"detail": "internal error"}, 500)

    for router in ROUTERS:
        app.include_router(router)
    return app
