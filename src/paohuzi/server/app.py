"""The web server: HTTP for rooms and history, a WebSocket per seat, the web table.

Every client is assumed to lie (docs/security.md): every input is bounded and checked, every
refusal is a one-line JSON error (a WebSocket ``{"type": "error"}`` message, or HTTP 4xx with
``{"detail": …}``), and no request can hold up a room or the server.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager, suppress
from dataclasses import replace
from importlib import resources
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import FastAPI, HTTPException, Path, Query, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.websockets import WebSocketDisconnect, WebSocketState

from paohuzi.cards import parse_kind
from paohuzi.cli.analyze import answer, parse_query
from paohuzi.evaluator import best_win, current_huxi
from paohuzi.record import Record, RecordError
from paohuzi.rules import PRESETS
from paohuzi.server.config import Config
from paohuzi.server.forward import FORWARDED, forward_get, forward_websocket
from paohuzi.server.limits import Bucket, RateLimiter
from paohuzi.server.replays import Replays, frames_of
from paohuzi.server.reviews import Busy, Reviews
from paohuzi.server.rooms import MOVED, Elsewhere, Full, Listener, Room, RoomError, Rooms
from paohuzi.server.store import StoreError, open_store

STATIC = resources.files("paohuzi.server") / "static"
TYPES = {
    "js": "text/javascript",
    "css": "text/css",
    "woff2": "font/woff2",
    "svg": "image/svg+xml",
    "txt": "text/plain",
}
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
MAX_ID = 64
"""Longest room id looked up (ours are 22 characters)."""


def one_line(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, every character that is not printable written as
    its escape: a client's words (a JSON key, say) echoed in an error stay one line."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text[:limit])[:limit]


def plausible_id(room_id: str) -> bool:
    """Whether ``room_id`` could name a room: short printable ASCII. Anything else is no room,
    and never reaches the store (PostgreSQL refuses a NUL in text with an error)."""
    return len(room_id) <= MAX_ID and room_id.isascii() and room_id.isprintable()


Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
SendASGI = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, SendASGI], Awaitable[None]]


class NewRoom(BaseModel):
    """One entry a seat (as many as the rules' players): null for a person, or a bot level."""

    model_config = ConfigDict(extra="forbid")

    bots: list[Annotated[StrictStr, Field(max_length=32)] | None] = Field(
        default_factory=lambda: [None, "greedy", "greedy"], min_length=3, max_length=4
    )
    timer: StrictInt = Field(
        default=30, description="seconds a person has to decide: 0 (none) or 5–300"
    )
    rules: (
        Annotated[StrictStr, Field(max_length=32)] | Annotated[dict[str, Any], Field(max_length=32)]
    ) = "hunan"
    """A preset's name, or a rule-set object: ``{"preset": "hunan", "players": 3, …}``."""
    hands: Annotated[StrictInt, Field(ge=0, le=99)] = 0
    """Hands in a match: 0 for no end."""
    wait: StrictBool = False
    """Deal when every person has come (the lobby's tables of friends), not at once."""
    seed: Annotated[StrictInt, Field(ge=0, lt=2**63)] | None = None


class Revoke(BaseModel):
    """The host's own secret (in the body: never in a URL)."""

    model_config = ConfigDict(extra="forbid")

    token: Annotated[StrictStr, Field(max_length=64)]


class NewReview(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seat: Annotated[StrictInt, Field(ge=0, le=3)]
    samples: Annotated[StrictInt, Field(ge=1, le=200)] = 20


class Analysis(BaseModel):
    """A holding for the analysis board (FORMATS F6): cards in hand, table groups, and
    optionally the winning card."""

    model_config = ConfigDict(extra="forbid")

    hand: Annotated[StrictStr, Field(max_length=120)]
    table: Annotated[StrictStr, Field(max_length=200)] = ""
    win: Annotated[StrictStr, Field(max_length=4)] | None = None
    self_drawn: bool = False
    rules: Annotated[StrictStr, Field(max_length=32)] = "hunan"


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
            and not self.limiter.allow(client_key(_host(scope)))
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


TOO_MANY_READS = json.dumps({"detail": "too many requests from your address; wait"}).encode()


def _host(scope: Scope) -> str | None:
    client = scope.get("client")
    return str(client[0]) if client else None


def from_peer(scope: Scope) -> bool:
    """A request a process of the hall forwarded (D61): it says so, and comes from a private
    or loopback address (the hall's network); the peer counted its client's budget."""
    if not any(name == FORWARDED.encode() for name, _ in scope.get("headers", [])):
        return False
    with suppress(ValueError):
        address = ipaddress.ip_address(_host(scope) or "")
        return address.is_private or address.is_loopback
    return False


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


class OnceALine:
    """Logs at most one line a second for each kind of trouble, counting the rest."""

    def __init__(self) -> None:
        self._last: dict[str, float] = {}
        self._skipped: dict[str, int] = {}

    def warn(self, kind: str, message: str) -> None:
        now = time.monotonic()
        if now - self._last.get(kind, -1e9) < 1.0:
            self._skipped[kind] = self._skipped.get(kind, 0) + 1
            return
        skipped = self._skipped.pop(kind, 0)
        self._last[kind] = now
        log.warning("%s%s", message, f" (and {skipped} more)" if skipped else "")


class Cache:
    """A small least-recently-used cache of finished hands (they never change)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[tuple[Any, ...], Any] = OrderedDict()

    def get(self, key: tuple[Any, ...]) -> Any:
        found = self._items.get(key)
        if found is not None:
            self._items.move_to_end(key)
        return found

    def put(self, key: tuple[Any, ...], value: Any) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)


def analysis(query: Analysis) -> dict[str, Any]:
    """The analysis board's answer: F6 (``paohuzi analyze --json``), with, for a holding that
    waits, each winning card's best arrangement, and the holding's 胡息 now. Raises ValueError."""
    rules = PRESETS.get(query.rules)
    if rules is None:
        raise ValueError(f"unknown rules {query.rules!r}")
    parsed = parse_query(query.hand, query.table, query.win, query.self_drawn)
    found = answer(parsed, rules)
    found["huxi_now"] = current_huxi(parsed.hand, parsed.table, rules)
    if parsed.win is None:
        for wait in found["waits"]:
            win = parse_kind(wait["win"])
            best = best_win(parsed.hand, parsed.table, win, self_drawn=False, rules=rules)
            if best is not None:
                wait["groups"] = [str(g) for g in best.groups]
                wait["group_huxi"] = list(best.group_huxi)
                wait["mingtang"] = [{"name": n, "fan": f} for n, f in best.score.mingtang]
                wait["deng"], wait["fan"] = best.score.deng, best.score.fan
    elif found.get("hu"):
        best = best_win(
            parsed.hand, parsed.table, parsed.win, self_drawn=parsed.self_drawn, rules=rules
        )
        assert best is not None
        found["group_huxi"] = list(best.group_huxi)
    return found


def _origin(url: str) -> str:
    """A URL's web origin as a browser sends it: no path, and no default port."""
    parts = urlsplit(url)
    scheme, netloc = parts.scheme.lower(), parts.netloc.lower()
    default = {"http": ":80", "https": ":443"}.get(scheme)
    if default is not None and netloc.endswith(default):
        netloc = netloc.removesuffix(default)
    return f"{scheme}://{netloc}"


def _loopback(host: str | None) -> bool:
    if host is None:
        return False
    if host == "localhost":
        return True
    with suppress(ValueError):
        return ipaddress.ip_address(host).is_loopback
    return False


def client_key(host: str | None) -> str:
    """Who a limit counts: the client's address, or its /64 network for IPv6 (one machine
    usually holds a whole /64)."""
    if host is None:
        return "?"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def create_app(config: Config | str = "paohuzi.db", **settings: Any) -> FastAPI:
    """The application; ``config`` (or a database path) and any :class:`Config` field."""
    if isinstance(config, str):
        config = Config(db=config)
    config = replace(config, **settings)
    public = _origin(config.public_url or "http://127.0.0.1:8000")
    origins = {public, *(_origin(o) for o in config.allow_origins)}
    parts = urlsplit(public)
    if _loopback(parts.hostname):  # the same machine by another name
        port = f":{parts.port}" if parts.port else ""
        origins |= {f"{parts.scheme}://{h}{port}" for h in ("localhost", "127.0.0.1", "[::1]")}
    static_files = {
        f.name: (f.read_bytes(), TYPES[f.name.rsplit(".", 1)[-1]])
        for f in STATIC.iterdir()
        if f.is_file() and f.name.rsplit(".", 1)[-1] in TYPES
    }
    page = (STATIC / "index.html").read_bytes()
    trouble = OnceALine()
    creations = RateLimiter(config.rooms_per_minute)
    review_starts = RateLimiter(config.reviews_per_minute)
    analyses = RateLimiter(config.analyses_per_minute)
    thinking = asyncio.Semaphore(2)
    """Analyses and record replays worked out at once (in threads)."""
    cache = Cache(256)
    pages = Cache(1024)
    """History pages, as sent: a full page never changes (hands finish in order); one that is
    not full is kept a second (a hand may finish)."""
    known = Cache(4096)
    """Rooms known to exist (a room is never deleted: closed, its history stays readable)."""
    reads = RateLimiter(config.reads_per_minute)
    connects = RateLimiter(config.connections_per_minute)
    address_messages = RateLimiter(
        60 * config.messages_per_address, burst=2 * config.messages_per_address
    )
    replays = Replays()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Connecting and migrating at start, off the loop too, with a deadline.
        store = await asyncio.wait_for(
            asyncio.to_thread(
                open_store, config.db, address=config.address or public, lease_ttl=config.lease_ttl
            ),
            60,
        )
        rooms = Rooms(store, config)
        app.state.rooms = rooms
        app.state.reviews = Reviews(config.review_workers, config.review_queue, config.review_limit)
        await rooms.load()
        tasks = [asyncio.create_task(rooms.restore_all()), asyncio.create_task(rooms.expire())]
        if store.hall:
            tasks.append(asyncio.create_task(rooms.keep_leases()))
        yield
        for task in tasks:
            task.cancel()
        app.state.reviews.close()
        rooms.close()
        store.close()
        replays.close()

    app = FastAPI(title="paohuzi", lifespan=lifespan)
    logging.getLogger("uvicorn.error").addFilter(CLIENT_FAULTS)
    app.add_middleware(BodyLimit, limit=config.max_body)
    app.add_middleware(ReadBudget, limiter=reads, delay=config.refusal_delay)
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
        trouble.warn(type(error).__name__, f"{request.url.path}: {type(error).__name__}: {error}")
        return JSONResponse({"detail": "internal error"}, 500)

    def rooms_of(request: Request | WebSocket) -> Rooms:
        found: Rooms = request.app.state.rooms
        return found

    async def open_room(request: Request, room_id: str) -> Room:
        try:
            room = await rooms_of(request).get(room_id) if plausible_id(room_id) else None
        except StoreError as error:
            trouble.warn("store", f"could not open a room: {error}")
            raise HTTPException(503, "the server could not reach its database; try again") from None
        if room is None:
            raise HTTPException(404, "no such room (or it has closed)")
        return room

    async def known_room(request: Request, room_id: str) -> str:
        """A room of the database, open or closed: its history stays readable."""
        if not plausible_id(room_id):
            raise HTTPException(404, "no such room")
        if room_id in rooms_of(request).rooms or known.get((room_id,)):
            return room_id
        if await _read(request, "room_exists", room_id):
            known.put((room_id,), True)
            return room_id
        raise HTTPException(404, "no such room")

    async def _read(request: Request, method: str, *args: Any) -> Any:
        """A read of the store, in a reader thread, with a deadline: 503 when it fails."""
        rooms = rooms_of(request)
        try:
            return await rooms.db.read(getattr(rooms.store, method), *args)
        except StoreError as error:
            trouble.warn("store", f"could not read the database: {error}")
            raise HTTPException(503, "the server could not reach its database; try again") from None

    def operator(request: Request) -> None:
        token = config.operator_token
        given = request.headers.get("authorization", "")
        if token is not None:
            if secrets.compare_digest(given.encode(), f"Bearer {token}".encode()):
                return
        elif _loopback(request.client.host if request.client else None):
            return
        raise HTTPException(403, "operators only: from this machine, or with the operator token")

    @app.get("/", response_class=HTMLResponse)
    async def index() -> Response:
        return Response(page, media_type="text/html; charset=utf-8")

    @app.get("/room/{room_id}", response_class=HTMLResponse)
    async def room_page(room_id: str) -> Response:
        return Response(page, media_type="text/html; charset=utf-8")

    @app.get("/room/{room_id}/hand/{n}", response_class=HTMLResponse)
    async def replay_page(room_id: str, n: str) -> Response:
        return Response(page, media_type="text/html; charset=utf-8")

    @app.get("/rules", response_class=HTMLResponse)
    @app.get("/analysis", response_class=HTMLResponse)
    @app.get("/replay", response_class=HTMLResponse)
    async def other_page() -> Response:
        return Response(page, media_type="text/html; charset=utf-8")

    @app.get("/static/{name}")
    async def static(name: str) -> Response:
        found = static_files.get(name)
        if found is None:
            raise HTTPException(404, "no such file")
        return Response(found[0], media_type=f"{found[1]}; charset=utf-8")

    @app.get("/favicon.ico")
    async def favicon() -> Response:
        return Response(status_code=204)

    @app.get("/healthz")
    async def health() -> dict[str, str]:
        """Liveness: the process answers (a supervisor restarts one that does not). It asks
        nothing of the database: a stalled database is not a reason to restart."""
        return {"status": "ok"}

    @app.get("/api/bots")
    async def offered_bots() -> dict[str, list[str]]:
        """The bots the lobby offers (the operator's ``--offer-bots``), by name."""
        return {"bots": config.lobby_bots()}

    @app.get("/readyz")
    async def ready(request: Request) -> JSONResponse:
        """Readiness: the database answers within its deadline, no write has waited long, and
        in a hall this process's leases were renewed in time; a front proxy sends no new room
        here while it is not."""
        try:
            await rooms_of(request).db.ping()
        except StoreError as error:
            trouble.warn("store", f"not ready: {error}")
            return JSONResponse({"status": "unavailable"}, status_code=503)
        return JSONResponse({"status": "ready"})

    @app.post("/api/rooms")
    async def create_room(request: Request, body: NewRoom) -> JSONResponse:
        if body.timer != 0 and not 5 <= body.timer <= 300:
            raise HTTPException(422, "timer: seconds to decide, 0 (no timer) or 5–300")
        address = client_key(request.client.host if request.client else None)
        if not creations.allow(address):
            raise HTTPException(429, "too many rooms created from your address; wait a minute")
        if rooms_of(request).created_by(address) >= config.rooms_per_address:
            raise HTTPException(429, "your address has as many open rooms as it may")
        try:
            room = await rooms_of(request).create(
                body.bots,
                rules=body.rules,
                timer=body.timer,
                seed=body.seed,
                creator=address,
                hands=body.hands,
                wait=body.wait,
            )
        except Full as error:
            raise HTTPException(503, str(error)) from None
        except (RoomError, ValueError) as error:
            raise HTTPException(400, str(error)) from None
        except StoreError as error:
            trouble.warn("store", f"could not create a room: {error}")
            raise HTTPException(503, "the server could not store the room; try again") from None
        base = (config.public_url or public).rstrip("/")
        seats = [
            {"seat": i, "bot": s.bot}
            | ({} if s.bot else {"token": s.token, "url": f"{base}/room/{room.id}#token={s.token}"})
            for i, s in enumerate(room.seats)
        ]
        return JSONResponse(
            {
                "room": room.id,
                "seats": seats,
                "watch": f"{base}/room/{room.id}",
                "host": room.host,
                "hands": room.length,
            }
        )

    @app.get("/api/rooms/{room_id}")
    async def room_info(request: Request, room_id: str) -> Any:
        try:
            room = await open_room(request, room_id)
        except Elsewhere as elsewhere:
            if FORWARDED in request.headers:
                raise HTTPException(503, "the room is moving; try again") from None
            return await forward_get(elsewhere.address, request.url.path)
        return {
            "room": room.id,
            "seats": [{"seat": i} | s.public() for i, s in enumerate(room.seats)],
            "hands": room.match.hands,
            "totals": room.match.totals,
            "timer": room.timer,
            "rules": room.rules,
            "match": room.match_info(),
        }

    @app.post("/api/rooms/{room_id}/seats/{seat}/link")
    async def new_link(
        request: Request, room_id: str, seat: Annotated[int, Path(ge=0, le=3)], body: Revoke
    ) -> dict[str, Any]:
        """The host revokes a seat's invite: the seat gets a new secret (and link), the old
        one is refused from now on."""
        try:
            room = await open_room(request, room_id)
        except Elsewhere:
            raise HTTPException(503, "the room is on another process; try again") from None
        try:
            token = await room.revoke(body.token, seat)
        except KeyError as error:
            raise HTTPException(403, str(error.args[0])) from None
        except RoomError as error:
            raise HTTPException(422, str(error)) from None
        except StoreError as error:
            trouble.warn("store", f"could not store a new link: {error}")
            raise HTTPException(503, "the server could not store the new link; try again") from None
        base = (config.public_url or public).rstrip("/")
        return {"seat": seat, "token": token, "url": f"{base}/room/{room.id}#token={token}"}

    @app.get("/api/rooms/{room_id}/hands", response_model=list[dict[str, Any]])
    async def hands(
        request: Request,
        room_id: str,
        after: Annotated[int, Query(ge=-1, lt=2**31)] = -1,
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    ) -> Response:
        """Finished hands numbered above ``after``, a page of at most ``limit``."""
        page = min(limit, config.history_page)
        key = (room_id, after, page)
        found = pages.get(key)
        if found is None or (found[1] is not None and found[1] < time.monotonic()):
            await known_room(request, room_id)
            listed: list[dict[str, Any]] = await _read(
                request, "finished_hands", room_id, after, page
            )
            body = json.dumps(listed, ensure_ascii=False).encode()
            found = (body, None if len(listed) == page else time.monotonic() + 1.0)
            pages.put(key, found)
        return Response(found[0], media_type="application/json")

    async def finished(request: Request, room_id: str, n: int) -> dict[str, Any]:
        await known_room(request, room_id)
        found = cache.get((room_id, n, "record"))
        if found is None:
            found = await _read(request, "record", room_id, n)
            if found is None:
                raise HTTPException(404, "no finished hand with that number")
            cache.put((room_id, n, "record"), found)
        return dict(found)

    @app.get("/api/rooms/{room_id}/hands/{n}/record")
    async def record(
        request: Request, room_id: str, n: Annotated[int, Path(ge=0, lt=2**31)]
    ) -> dict[str, Any]:
        return await finished(request, room_id, n)

    @app.get("/api/rooms/{room_id}/hands/{n}/frames", response_model=list[dict[str, Any]])
    async def frames(
        request: Request, room_id: str, n: Annotated[int, Path(ge=0, lt=2**31)]
    ) -> Response:
        found = cache.get((room_id, n, "frames"))
        if found is None:
            data = await finished(request, room_id, n)
            found = await replays.frames(data)
            cache.put((room_id, n, "frames"), found)
        return Response(found, media_type="application/json")

    def reviews_of(request: Request) -> Reviews:
        found: Reviews = request.app.state.reviews
        return found

    @app.post("/api/rooms/{room_id}/hands/{n}/review")
    async def start_review(
        request: Request, room_id: str, n: Annotated[int, Path(ge=0, lt=2**31)], body: NewReview
    ) -> JSONResponse:
        """The expert's review of a finished hand for one seat, started in the background if
        it is not known yet: its progress (poll GET) and, once done, its findings."""
        key = (room_id, n, body.seat, body.samples)
        found = reviews_of(request).get(key)
        if found is None:
            data = await finished(request, room_id, n)
            if body.seat >= Record.from_json(data).rule_set.players:
                raise HTTPException(422, "seat: no such seat at this table")
            address = client_key(request.client.host if request.client else None)
            if not review_starts.allow(address):
                raise HTTPException(429, "too many reviews asked from your address; wait a minute")
            try:
                found = reviews_of(request).start(key, data)
            except Busy as error:
                raise HTTPException(503, str(error)) from None
        return JSONResponse(found.to_json(), 202 if found.state in ("queued", "running") else 200)

    @app.get("/api/rooms/{room_id}/hands/{n}/review")
    async def review_status(
        request: Request,
        room_id: str,
        n: Annotated[int, Path(ge=0, lt=2**31)],
        seat: Annotated[int, Query(ge=0, le=3)],
        samples: Annotated[int, Query(ge=1, le=200)] = 20,
    ) -> dict[str, Any]:
        found = reviews_of(request).get((room_id, n, seat, samples))
        if found is None:
            raise HTTPException(404, "no such review: start it with POST")
        return found.to_json()

    async def worked_out(request: Request, work: Callable[[], Any]) -> Any:
        """Run a bounded computation for a client in a thread, a few at a time, rate-limited
        per address; its ValueError is the client's 422."""
        address = client_key(request.client.host if request.client else None)
        if not analyses.allow(address):
            raise HTTPException(429, "too many requests from your address; wait a minute")
        async with thinking:
            try:
                return await asyncio.wait_for(asyncio.to_thread(work), 10)
            except (ValueError, RecordError) as error:
                raise HTTPException(422, str(error).splitlines()[0][:200]) from None
            except TimeoutError:
                raise HTTPException(503, "that took too long; try a smaller question") from None

    @app.post("/api/analyze")
    async def analyze(request: Request, body: Analysis) -> dict[str, Any]:
        """What ``paohuzi analyze --json`` answers (F6), for the analysis board."""
        found: dict[str, Any] = await worked_out(request, lambda: analysis(body))
        return found

    @app.post("/api/replay")
    async def replay_record(request: Request) -> list[dict[str, Any]]:
        """A record from the client's disk (F4), step by step as the replay board shows it."""
        try:
            data = json.loads(await request.body())
        except (ValueError, RecursionError):
            raise HTTPException(422, "a record is an F4 JSON object") from None
        if not isinstance(data, dict):
            raise HTTPException(422, "a record is an F4 JSON object")
        found: list[dict[str, Any]] = await worked_out(request, lambda: frames_of(data))
        return found

    @app.get("/api/metrics")
    async def metrics(request: Request) -> dict[str, Any]:
        operator(request)
        rooms = rooms_of(request)
        return {
            "rooms": rooms.count(),
            "quarantined": rooms.quarantined,
            "connections": sum(len(r.listeners) for r in rooms.rooms.values()),
            "commits": rooms.db.commits,
            "writes": rooms.db.written,
            **rooms.metrics.summary(),
        }

    @app.get("/api/admin/quarantine")
    async def quarantine(request: Request) -> list[dict[str, str]]:
        operator(request)
        rows: list[tuple[str, str]] = await _read(request, "quarantined")
        return [{"room": room_id, "why": note} for room_id, note in rows]

    @app.websocket("/ws/{room_id}")
    async def play(websocket: WebSocket, room_id: str) -> None:
        origin = websocket.headers.get("origin")
        if origin is not None and origin.lower() not in origins:
            await websocket.close(code=4403, reason="this page's origin may not connect")
            return
        address = client_key(websocket.client.host if websocket.client else None)
        peer = from_peer(websocket.scope)
        if not peer and not connects.allow(address):
            await websocket.close(code=4429, reason="too many connections from your address")
            return
        await websocket.accept()

        async def refuse(message: str, code: int) -> None:
            await websocket.send_json({"type": "error", "message": message})
            await websocket.close(code=code)

        try:
            room = await rooms_of(websocket).get(room_id) if plausible_id(room_id) else None
        except StoreError as error:
            trouble.warn("store", f"could not open a room: {error}")
            await refuse("the server could not reach its database; reconnect", MOVED)
            return
        except Elsewhere as elsewhere:
            # Another process of the hall holds the room: carry the connection to it (D61),
            # once; a forwarded one that finds it moved again reconnects from the start.
            if FORWARDED in websocket.headers:
                await refuse("the room is moving to another process; reconnect", MOVED)
                return
            await forward_websocket(websocket, elsewhere.address, room_id)
            return
        if room is None:
            await refuse("no such room (or it has closed)", 4404)
            return
        # A seat's secret comes in the first message (the web table's way: no secret in any
        # URL), or, from older clients, in the URL's query; without either, a spectator.
        token = websocket.query_params.get("token")
        early: str | None = None
        if token is None:
            try:
                message = await asyncio.wait_for(websocket.receive(), HELLO_WAIT)
            except TimeoutError:
                message = {"type": "websocket.receive"}
            if message["type"] == "websocket.disconnect":
                return
            early = message.get("text")
            said = hello(early)
            if said is not None:
                token, early = said or None, None
        try:
            seat = room.seat_of(token)
        except KeyError as error:
            await refuse(str(error.args[0]), 4403)
            return

        async def close(code: int, reason: str) -> None:
            if websocket.application_state is WebSocketState.CONNECTED:
                await websocket.close(code=code, reason=reason)

        listener = Listener(seat, websocket.send_text, close, config.send_queue)
        try:
            first = await room.enter(listener, token)
        except KeyError as error:  # revoked while it waited for the room
            await refuse(str(error.args[0]), 4403)
            return
        except RoomError as error:
            await refuse(str(error), 4429)
            return
        bucket = Bucket(config.messages_per_second, 2 * config.messages_per_second)
        refused_in_a_row = 0
        try:
            # A person's arrival may deal the first hand or change the waiting room: then the
            # room shows it to everyone, this connection with them.
            if not await room.arrive(seat) and first is not None:
                listener.push(first)
            while listener.alive:
                if early is not None:  # the first message, read while waiting for a hello
                    message, early = {"type": "websocket.receive", "text": early}, None
                else:
                    message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if not (bucket.take() and (peer or address_messages.allow(address))):
                    refused_in_a_row += 1
                    if refused_in_a_row > 20:
                        await close(1008, "too many messages")
                        break
                    reply: dict[str, Any] | None = {
                        "type": "error",
                        "message": "too many messages: slow down",
                    }
                elif text is None:
                    reply = {"type": "error", "message": "messages are JSON text, not binary"}
                elif len(text) > config.max_message:
                    reply = {"type": "error", "message": f"message over {config.max_message} bytes"}
                elif listener.seat is None and (token := hello(text)):
                    # A hello after the wait (a slow network): the spectator sits down.
                    try:
                        seat = room.seat_of(token)
                    except KeyError as error:
                        await refuse(str(error.args[0]), 4403)
                        break
                    room.leave(listener)
                    listener = Listener(seat, websocket.send_text, close, config.send_queue)
                    try:
                        first = await room.enter(listener, token)
                    except KeyError as error:  # revoked while it waited for the room
                        await refuse(str(error.args[0]), 4403)
                        break
                    except RoomError as error:
                        await refuse(str(error), 4429)
                        break
                    if not await room.arrive(seat) and first is not None:
                        listener.push(first)
                    reply = None
                else:
                    refused_in_a_row = 0
                    try:
                        reply = await handle(room, listener, text)
                    except Exception as error:  # a bug: answer, log a line, keep serving
                        trouble.warn(type(error).__name__, f"websocket: {error!r}")
                        reply = {"type": "error", "message": "internal error"}
                if reply is not None:
                    listener.push(json.dumps(reply, ensure_ascii=False), state=False)
        except (WebSocketDisconnect, RuntimeError):
            pass  # the connection went away (RuntimeError: Starlette, once it is closed)
        finally:
            room.leave(listener)

    return app


HELLO_WAIT = 1.0
"""Seconds a connection without a secret in its URL is waited for its ``hello`` before it is
taken for a spectator's."""


def hello(text: str | None) -> str | None:
    """The secret a first message ``{"type": "hello", "token": …}`` gives ("" for none: a
    spectator's hello); None when the message is no hello."""
    if text is None or len(text) > 512 or '"hello"' not in text:
        return None
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(message, dict) or message.get("type") != "hello":
        return None
    token = message.get("token")
    return token if isinstance(token, str) else ""


async def handle(room: Room, listener: Listener, text: str) -> dict[str, Any] | None:
    """One message from a seat; returns the reply to send it (an error, a hint) or None."""
    error = await _handle(room, listener, text)
    if isinstance(error, dict):
        return error
    return None if error is None else {"type": "error", "message": error}


async def _handle(room: Room, listener: Listener, text: str) -> str | dict[str, Any] | None:
    seat = listener.seat
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):  # bad JSON, an integer of thousands of digits, nesting
        return "malformed JSON"
    if not isinstance(message, dict):
        return "a message is a JSON object"
    kind: Any = message.get("type")  # act, ready (next, rematch), auto, hint, name, start, say
    if "seat" in message and message["seat"] != seat:
        return "you can only act for your own seat"
    if kind == "act":
        return await room.act(seat, message.get("action"), message.get("seq"))
    if kind in ("ready", "next", "rematch"):  # "next": the older name of "ready"
        return await room.next_hand(seat)
    if kind == "name":
        return await room.rename(seat, message.get("name"))
    if kind == "start":
        return await room.start(seat, message.get("bot", "greedy"))
    if kind == "say":
        return room.say(listener, message.get("what"))
    if kind == "auto":
        return await room.set_auto(seat, message.get("on"))
    if kind == "hello":
        return None  # said again (a seat's secret counts in the first message only)
    if kind == "hint":
        if seat is None:
            return "spectators have no hand"
        if room.game is None or room.dealing:  # (a deal whose write is in flight: not yet)
            return "nothing is dealt yet"
        return room.hint(seat)
    shown = kind if isinstance(kind, str) and len(kind) <= 20 else "?"
    return f"unknown message type {shown!r} (act, ready, auto, hint, name, start, say)"
