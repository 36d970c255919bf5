"""The server's settings and limits, with defaults that one machine holds (docs/security.md)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from paohuzi.bots import BOTS, MAX_NAME, make_bot
from paohuzi.bots.loader import check_spec, spec_kind

_OFFERED_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9@._-]*")


@dataclass(frozen=True)
class Config:
    """Every setting of a server; ``paohuzi serve`` sets them from its options."""

    db: str = "paohuzi.db"
    """A SQLite file, or ``postgresql://…``: a hall's database, shared by many processes."""
    address: str = ""
    """In a hall: the address the other processes reach this one at (``http://10.0.0.5:8001``),
    to forward a room's connections to it while it holds the room (D61)."""
    lease_ttl: float = 3.0
    """In a hall: seconds without a heartbeat after which a process counts as dead and its
    rooms are taken over by the others."""
    public_url: str | None = None
    """The address players reach the server at (``https://paohuzi.example``): invite links are
    built from it, never from a request's Host header. None: the address it listens on."""
    allow_origins: tuple[str, ...] = ()
    """Web origins besides the server's own that may open a WebSocket."""
    operator_token: str | None = None
    """Bearer token for ``/api/metrics`` and ``/api/admin/*``; without one, loopback only."""
    dev_seeded_deals: bool = False
    """Development only: accept a ``seed`` when creating a room, making its decks predictable.
    A public server never sets it."""
    bot_delay: float = 0.4
    """Pace of a room with bots: at least this many seconds between two public moments, so
    people can follow and nobody can tell by timing whether a bot was asked (R8)."""
    bot_workers: int = 1
    """Processes that run searching bots (the expert), apart from the server's own."""
    bot_deadline: float = 12.0
    """Hard bound on one bot decision; past it the room plays the greedy bot's choice."""
    offered_bots: tuple[tuple[str, str], ...] | None = None
    """The bots the lobby offers and rooms accept, as (name, bot spec): only the operator
    names a ``module:factory`` or ``cmd:`` bot, a client picks one by its name. None: the
    built-in bots (any built-in name, ``expert@N`` too)."""

    def bot_spec(self, name: str) -> str:
        """The bot spec a client's bot name stands for; ValueError if it is not offered."""
        if self.offered_bots is None:
            if spec_kind(name) != "builtin":
                raise ValueError(f"unknown bot {name!r} (known: {', '.join(BOTS)})")
            make_bot(name)
            return name
        for offered, spec in self.offered_bots:
            if offered == name:
                return spec
        names = ", ".join(n for n, _ in self.offered_bots)
        raise ValueError(f"this server does not offer the bot {name!r} (it offers: {names})")

    def lobby_bots(self) -> list[str]:
        """The names the lobby lists, in order."""
        if self.offered_bots is None:
            first = [n for n in LOBBY_ORDER if n in BOTS]
            return [*first, *(n for n in BOTS if n not in LOBBY_ORDER)]
        return [n for n, _ in self.offered_bots]

    room_ttl: float = 24 * 3600.0
    """Seconds a room may stay idle before it closes (its finished hands stay readable)."""
    max_rooms: int = 2000
    """Open rooms at once."""
    rooms_per_minute: int = 20
    """Room creations per client address per minute (an IPv6 address counts by its /64)."""
    rooms_per_address: int = 50
    """Open rooms created from one client address (counted as above)."""
    max_body: int = 16 * 1024
    """Largest HTTP request body, in bytes."""
    max_message: int = 4096
    """Largest WebSocket message from a client, in bytes."""
    messages_per_second: float = 20.0
    """Sustained WebSocket messages a connection may send (bursts of twice that)."""
    messages_per_address: float = 200.0
    """Sustained WebSocket messages all the connections of one client address may send
    (bursts of twice that), counted as above."""
    connections_per_minute: int = 600
    """WebSocket connections one client address may open a minute (bursts of as many)."""
    pings_per_second: float = 1.0
    """WebSocket pings (and pongs) a connection may send (bursts of ``ping_burst``); past the
    budget they are dropped, and a connection that goes on is closed (:mod:`guard`)."""
    ping_burst: int = 10
    reads_per_minute: int = 600
    """Reads of rooms and their history (pages, records, replays) per client address a
    minute (bursts of as many); past it a 429 that closes the connection."""
    refusal_delay: float = 1.0
    """Seconds a read over the budget waits for its 429 (a tarpit: a client that floods waits,
    the server does no work meanwhile)."""
    request_timeout: float = 5.0
    """Seconds a client has to send a whole HTTP request, head and body, on the server's own
    port (a half-sent request is closed: slowloris)."""
    send_queue: int = 64
    """Messages waiting for one slow connection before it is dropped (it reconnects to the
    full state)."""
    listeners_per_room: int = 64
    """Connections watching or playing one room at once."""
    history_page: int = 100
    """Most finished hands listed in one page of a room's history."""
    review_workers: int = 1
    """Reviews run at once, each in a worker process of its own at the lowest priority."""
    review_queue: int = 8
    """Reviews waiting or running at once; past it a new one is refused (503)."""
    review_limit: float = 120.0
    """Seconds one hand's review may take; it stops there with what it found."""
    reviews_per_minute: int = 10
    """Reviews started per client address per minute."""
    analyses_per_minute: int = 120
    """Analyses (the analysis board) and record replays per client address per minute."""
    players_per_minute: int = 10
    """New players (a first visit without a cookie) per client address per minute."""
    me_per_minute: int = 120
    """Reads and changes of one's own player (``/api/me``), per player and per address."""
    quick_per_minute: int = 20
    """Quick-play joins, leaves and status reads of the queue's write side (``POST`` and
    ``DELETE /api/quick``), per player and per address."""
    quick_polls_per_minute: int = 120
    """``GET /api/quick`` (a waiting page polls it), per player and per address."""
    tables_per_minute: int = 60
    """Reads of the open-table list, per player and per address (a page polls every 5 s)."""
    blocks_per_minute: int = 30
    """Mutes, blocks and seat takings of open tables, per player and per address."""
    claims_per_minute: int = 5
    """Transfer codes made or tried, per address (a code is 60 random bits)."""
    quick_every: float = 1.0
    """Seconds between two passes of the quick-play matcher of a process."""
    standing_reads_per_minute: int = 60
    """Profile and leaderboard reads per client address per minute (bursts of as many)."""
    lesson_reads_per_minute: int = 120
    """Reads of the course (its list and its lessons) per client address per minute."""
    puzzle_reads_per_minute: int = 120
    """Reads of the puzzles (themes, lists, views) and answers, per client address per minute."""
    progress_per_minute: int = 120
    """Reads and writes of one's own course and puzzle progress (``/api/me/progress``), per
    player and per address."""


LOBBY_ORDER = ("greedy", "learned", "expert", "random")
"""The built-in bots first listed in the lobby."""


def parse_offered(text: str | Sequence[str]) -> tuple[tuple[str, str], ...]:
    """``--offer-bots``: comma-separated ``NAME`` (a built-in bot) or ``NAME=SPEC`` (SPEC a
    built-in name, ``module:factory`` or ``cmd:PROGRAM``). Raises ValueError for a bad entry
    (a name too long or of other characters, a spec that names no bot, a name twice)."""
    entries = text.split(",") if isinstance(text, str) else list(text)
    offered: list[tuple[str, str]] = []
    for entry in entries:
        name, sep, spec = entry.strip().partition("=")
        name, spec = name.strip(), spec.strip() if sep else name.strip()
        if not name:
            continue
        if len(name) > MAX_NAME or not _OFFERED_NAME.fullmatch(name):
            raise ValueError(
                f"bad offered bot name {name!r}: at most {MAX_NAME} letters, digits, @ . _ -"
            )
        check_spec(spec)
        if any(n == name for n, _ in offered):
            raise ValueError(f"the bot {name!r} is offered twice")
        offered.append((name, spec))
    if not offered:
        raise ValueError("--offer-bots lists no bot")
    return tuple(offered)
