"""What the routers of one application share: its limits, caches and helpers (:class:`Server`),
reached from a request as :func:`server_of`."""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import MutableMapping
from contextlib import suppress
from typing import Any
from urllib.parse import urlsplit

from fastapi import HTTPException, Request, WebSocket

from paohuzi.server.config import Config
from paohuzi.server.forward import FORWARDED
from paohuzi.server.limits import RateLimiter
from paohuzi.server.replays import Replays
from paohuzi.server.reviews import Reviews
from paohuzi.server.rooms import Room, Rooms
from paohuzi.server.store import StoreError

MAX_ID = 64
"""Longest room id looked up (ours are 22 characters)."""
log = logging.getLogger("paohuzi.server")


def one_line(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, every character that is not printable written as
    its escape: a client's words (a JSON key, say) echoed in an error stay one line."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text[:limit])[:limit]


def plausible_id(room_id: str) -> bool:
    """Whether ``room_id`` could name a room: short printable ASCII. Anything else is no room,
    and never reaches the store (PostgreSQL refuses a NUL in text with an error)."""
    return len(room_id) <= MAX_ID and room_id.isascii() and room_id.isprintable()


def origin_of(url: str) -> str:
    """A URL's web origin as a browser sends it: no path, and no default port."""
    parts = urlsplit(url)
    scheme, netloc = parts.scheme.lower(), parts.netloc.lower()
    default = {"http": ":80", "https": ":443"}.get(scheme)
    if default is not None and netloc.endswith(default):
        netloc = netloc.removesuffix(default)
    return f"{scheme}://{netloc}"


def loopback(host: str | None) -> bool:
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


def host_of(scope: MutableMapping[str, Any]) -> str | None:
    client = scope.get("client")
    return str(client[0]) if client else None


def from_peer(scope: MutableMapping[str, Any]) -> bool:
    """A request a process of the hall forwarded (D61): it says so, and comes from a private
    or loopback address (the hall's network); the peer counted its client's budget."""
    if not any(name == FORWARDED.encode() for name, _ in scope.get("headers", [])):
        return False
    with suppress(ValueError):
        address = ipaddress.ip_address(host_of(scope) or "")
        return address.is_private or address.is_loopback
    return False


def address_of(request: Request | WebSocket) -> str:
    """The client's address as its limits count it (:func:`client_key`)."""
    return client_key(request.client.host if request.client else None)


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


class Server:
    """One application's configuration, limits, caches and the helpers its routes share."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.public = origin_of(config.public_url or "http://127.0.0.1:8000")
        self.base = (config.public_url or self.public).rstrip("/")
        """Where links point: the configured public URL, or this machine."""
        origins = {self.public, *(origin_of(o) for o in config.allow_origins)}
        parts = urlsplit(self.public)
        if loopback(parts.hostname):  # the same machine by another name
            port = f":{parts.port}" if parts.port else ""
            origins |= {f"{parts.scheme}://{h}{port}" for h in ("localhost", "127.0.0.1", "[::1]")}
        self.origins = frozenset(origins)
        """Pages that may open a WebSocket (their Origin)."""
        self.trouble = OnceALine()
        self.creations = RateLimiter(config.rooms_per_minute)
        self.review_starts = RateLimiter(config.reviews_per_minute)
        self.analyses = RateLimiter(config.analyses_per_minute)
        self.standing_reads = RateLimiter(config.standing_reads_per_minute)
        self.lesson_reads = RateLimiter(config.lesson_reads_per_minute)
        self.course: tuple[bytes, dict[str, bytes]] | None = None
        """The course's list and each lesson as JSON text, once made (they never change)."""
        self.puzzle_reads = RateLimiter(config.puzzle_reads_per_minute)
        self.puzzle_views: dict[str, bytes] = {}
        """Each shipped puzzle's view as JSON text, once asked for (at most one a puzzle)."""
        self.making = asyncio.Lock()
        """Held while the course or a puzzle's view is made, so that requests arriving together
        make it once between them, not once each."""
        self.thinking = asyncio.Semaphore(2)
        """Analyses and record replays worked out at once (in threads)."""
        self.cache = Cache(256)
        self.pages = Cache(1024)
        """History pages, as sent: a full page never changes (hands finish in order); one that
        is not full is kept a second (a hand may finish)."""
        self.known = Cache(4096)
        """Rooms known to exist (a room is never deleted: closed, its history stays readable)."""
        self.reads = RateLimiter(config.reads_per_minute)
        self.connects = RateLimiter(config.connections_per_minute)
        self.address_messages = RateLimiter(
            60 * config.messages_per_address, burst=2 * config.messages_per_address
        )
        self.replays = Replays()
        self.new_players = RateLimiter(config.players_per_minute)
        self.me = RateLimiter(config.me_per_minute)
        self.quick = RateLimiter(config.quick_per_minute)
        self.quick_polls = RateLimiter(config.quick_polls_per_minute)
        self.tables = RateLimiter(config.tables_per_minute)
        self.blocks = RateLimiter(config.blocks_per_minute)
        self.claims = RateLimiter(config.claims_per_minute)
        self.progress = RateLimiter(config.progress_per_minute)
        self.listing: tuple[float, list[dict[str, Any]]] | None = None
        """The open-table list as last read, and when (one read a second at most)."""

    @staticmethod
    def rooms(request: Request | WebSocket) -> Rooms:
        found: Rooms = request.app.state.rooms
        return found

    @staticmethod
    def reviews(request: Request) -> Reviews:
        found: Reviews = request.app.state.reviews
        return found

    async def open_room(self, request: Request, room_id: str) -> Room:
        """An open room, for an HTTP request: 404 if none, 503 if the database did not answer;
        raises :class:`~paohuzi.server.rooms.Elsewhere` for a room another process holds."""
        try:
            room = await self.rooms(request).get(room_id) if plausible_id(room_id) else None
        except StoreError as error:
            self.trouble.warn("store", f"could not open a room: {error}")
            raise HTTPException(503, "the server could not reach its database; try again") from None
        if room is None:
            raise HTTPException(404, "no such room (or it has closed)")
        return room

    async def known_room(self, request: Request, room_id: str) -> str:
        """A room of the database, open or closed: its history stays readable."""
        if not plausible_id(room_id):
            raise HTTPException(404, "no such room")
        if room_id in self.rooms(request).rooms or self.known.get((room_id,)):
            return room_id
        if await self.read(request, "room_exists", room_id):
            self.known.put((room_id,), True)
            return room_id
        raise HTTPException(404, "no such room")

    async def read(self, request: Request, method: str, *args: Any) -> Any:
        """A read of the store, in a reader thread, with a deadline: 503 when it fails."""
        rooms = self.rooms(request)
        try:
            return await rooms.db.read(getattr(rooms.store, method), *args)
        except StoreError as error:
            self.trouble.warn("store", f"could not read the database: {error}")
            raise HTTPException(503, "the server could not reach its database; try again") from None

    def operator(self, request: Request) -> None:
        """Only from this machine, or with the operator token: else 403."""
        token = self.config.operator_token
        given = request.headers.get("authorization", "")
        if token is not None:
            if secrets.compare_digest(given.encode(), f"Bearer {token}".encode()):
                return
        elif loopback(request.client.host if request.client else None):
            return
        raise HTTPException(403, "operators only: from this machine, or with the operator token")

    def invite(self, room_id: str, token: str) -> str:
        """A seat's link: its secret in the fragment, which no request carries (issue 22)."""
        return f"{self.base}/room/{room_id}#token={token}"


def server_of(request: Request | WebSocket) -> Server:
    found: Server = request.app.state.server
    return found
