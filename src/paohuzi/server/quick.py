"""快速开始, quick play (issue 25, D118): players wait in one queue, the hall seats them.

A player's place in the queue is one row of ``queue`` (its primary key is the player): the
rules and seats wanted, when they may be matched (``eligible``: a repeat leaver later,
:func:`~paohuzi.server.players.leave_delay`), and after how long computers of which level
fill their table. Every process of a hall runs a :class:`Matcher`; a pass takes the waiting
rows it can lock (PostgreSQL: ``SELECT … FOR UPDATE SKIP LOCKED``, so two passes at once take
disjoint rows and never wait on each other; SQLite: one process, ``BEGIN IMMEDIATE``), groups
them (:func:`plan`), and in the same transaction inserts each table's room and marks each of
its rows seated. A row is seated by the one transaction that locked it or by none, so nobody
is seated twice, and a room exists exactly when its players' rows name it.

The quick room waits for its people (as a lobby table of friends does) and deals when every
player seated in it has opened their seat; its first person is its host, who may start with
computers in the seats of anyone who does not come.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from paohuzi.engine.match import Match
from paohuzi.server import ratings
from paohuzi.server.players import BLOCK, add_leave
from paohuzi.server.roomrules import room_rules
from paohuzi.server.rooms import QUICK, Elsewhere, Room, RoomHooks, Rooms, family_of
from paohuzi.server.store import Store, StoredRoom, StoreError

log = logging.getLogger("paohuzi.server")

RATING_WINDOW = 150.0
"""Widest spread of shown ratings (D120: 50 a mu, 400 about 10:1 odds) of a table formed at
once."""
RATING_WIDEN = 10.0
"""How much wider the spread may be for each second its longest waiting player has waited."""
BATCH = 400
"""Most waiting rows one pass takes."""
SEATED_KEEP = 30.0
"""Seconds a seat found by the queue is kept as the player's answer: joining again sooner
answers that seat, later joins the queue anew."""
QUICK_TIMER = 30
"""Seconds to decide at a quick-play table."""
QUICK_HANDS = 4
"""Hands in a quick-play match (a rating counts whole matches)."""
EVERY = 1.0
"""Seconds between two passes of a matcher when nobody joins meanwhile."""

RatingOf = Callable[[Store, str, str], int | None]
"""A player's shown rating at a kind of table (``hunan/3``), read in the caller's
transaction; None for a player with no rating there."""


def _matched(rating: int | None) -> float:
    """The rating the matcher seats by: a player with none as a new player's."""
    return float(ratings.DISPLAY_BASE if rating is None else rating)


def stored_rating(store: Store, player: str, kind: str) -> int | None:
    """The player's shown rating (D120) in the rule family of a kind of table (``hunan/3``
    is rated in ``hunan``: three and four seats alike, :func:`ratings.family`); None when
    the player has none."""
    row = store._execute(
        "SELECT mu, sigma FROM ratings WHERE player = ? AND family = ?",
        (player, kind.split("/")[0]),
    ).fetchone()
    return None if row is None else ratings.display(ratings.Rating(float(row[0]), float(row[1])))


@dataclass(frozen=True)
class Waiting:
    """One waiting row of the queue, with the player's rating in its rule family."""

    player: str
    rules: str
    family: str
    seats: int
    fill_after: float
    fill_level: str
    since: float
    eligible: float
    rating: float = 0.0


@dataclass(frozen=True)
class Table:
    """A table a pass forms: its rules, its players (the first seats) and its computers."""

    rules: str
    players: tuple[str, ...]
    bots: tuple[str, ...]


def plan(waiting: list[Waiting], blocked: set[frozenset[str]], now: float) -> list[Table]:
    """Tables of the waiting players (pure): for each rules and seat count, the longest
    waiting first, each with the players nearest in rating who may sit with them (no blocked
    pair, spread within the window its wait has opened); then everyone who has waited past
    their ``fill_after`` gets a table, with whoever fits and computers of their level."""
    tables: list[Table] = []
    keys: dict[tuple[str, int], list[Waiting]] = {}
    for row in sorted(waiting, key=lambda r: (r.since, r.player)):
        keys.setdefault((row.rules, row.seats), []).append(row)
    for (rules, seats), rows in keys.items():
        free = list(rows)
        for anchor in rows:  # full tables of people
            if anchor in free:
                group = _group(anchor, free, seats, blocked, now)
                if len(group) == seats:
                    tables.append(Table(rules, tuple(g.player for g in group), ()))
                    free = [r for r in free if r not in group]
        for anchor in rows:  # the tables waited for long enough: computers fill them
            if anchor in free and now >= anchor.eligible + anchor.fill_after:
                group = _group(anchor, free, seats, blocked, now)
                bots = (anchor.fill_level,) * (seats - len(group))
                tables.append(Table(rules, tuple(g.player for g in group), bots))
                free = [r for r in free if r not in group]
    return tables


def _group(
    anchor: Waiting, free: list[Waiting], size: int, blocked: set[frozenset[str]], now: float
) -> list[Waiting]:
    """``anchor`` and at most ``size - 1`` of ``free``, nearest in rating first, none blocked
    by another of the group, the group's spread within the window ``anchor``'s wait opened."""
    window = RATING_WINDOW + RATING_WIDEN * max(0.0, now - anchor.eligible)
    group = [anchor]
    for other in sorted(free, key=lambda r: (abs(r.rating - anchor.rating), r.since)):
        if len(group) == size:
            break
        if other is anchor or any(frozenset((other.player, g.player)) in blocked for g in group):
            continue
        spread = [g.rating for g in group] + [other.rating]
        if max(spread) - min(spread) <= window:
            group.append(other)
    return group


def quick_room(table: Table, profiles: dict[str, tuple[str, int]], now: float) -> StoredRoom:
    """The stored room of a table the queue formed: its players' seats (with their names and
    avatars), then the computers', waiting for its people (pure but for the CSPRNG)."""
    text, rules = room_rules(table.rules)
    seats: list[dict[str, Any]] = []
    for player in table.players:
        name, avatar = profiles.get(player, ("", 0))
        seats.append(
            {
                "token": secrets.token_urlsafe(16),
                "bot": None,
                "name": name,
                "joined": False,
                "player": player,
                "avatar": avatar,
            }
        )
    for level in table.bots:
        seats.append({"token": secrets.token_urlsafe(16), "bot": level, "name": "", "joined": True})
    match = Match(rules)
    return StoredRoom(
        secrets.token_hex(16),
        now,
        text,
        None,
        QUICK_TIMER,
        seats,
        match.dealer,
        [0] * len(seats),
        0,
        0,
        active=now,
        length=QUICK_HANDS,
        awaits_everyone=True,
        listed=QUICK,
    )


# ---------------------------------------------------------------------- store (hall threads)


def _marks(count: int) -> str:
    return ", ".join("?" * count)


def join(
    store: Store,
    player: str,
    request: tuple[str, str, int, float, str],
    now: float,
    eligible: float,
) -> None:
    """Put ``player`` in the queue (``request``: rules, family, seats, fill_after,
    fill_level), or change what they wait for; one row a player. A player waiting keeps
    their place (``since``) and their delay; one seated within :data:`SEATED_KEEP` keeps
    their seat."""
    lock = " FOR UPDATE" if store.hall else ""
    with store._transaction():
        row = store._execute(
            f"SELECT room, seated FROM queue WHERE player = ?{lock}", (player,)
        ).fetchone()
        if row is not None and row[0] is not None and row[1] > now - SEATED_KEEP:
            return
        if row is not None and row[0] is None:
            store._execute(
                "UPDATE queue SET rules = ?, family = ?, seats = ?, fill_after = ?,"
                " fill_level = ? WHERE player = ?",
                (*request, player),
            )
            return
        store._execute(
            "INSERT INTO queue (player, rules, family, seats, fill_after, fill_level, since,"
            " eligible, room, seat, token, seated) VALUES (?, ?, ?, ?, ?, ?, ?, ?,"
            " NULL, NULL, NULL, NULL) ON CONFLICT (player) DO UPDATE SET rules = excluded.rules,"
            " family = excluded.family, seats = excluded.seats,"
            " fill_after = excluded.fill_after, fill_level = excluded.fill_level,"
            " since = excluded.since, eligible = excluded.eligible, room = NULL, seat = NULL,"
            " token = NULL, seated = NULL",
            (player, *request, now, eligible),
        )


def status(store: Store, player: str) -> dict[str, Any]:
    """Where ``player`` stands in the queue (their seat's secret included: only for them)."""
    with store._transaction():
        row = store._execute(
            "SELECT rules, seats, fill_after, fill_level, since, eligible, room, seat, token"
            " FROM queue WHERE player = ?",
            (player,),
        ).fetchone()
    if row is None:
        return {"state": "none"}
    rules, seats, fill_after, fill_level, since, eligible, room, seat, token = row
    if room is not None:
        return {"state": "seated", "room": room, "seat": seat, "token": token}
    return {
        "state": "waiting",
        "rules": rules,
        "seats": seats,
        "fill_level": fill_level,
        "since": since,
        "eligible": eligible,
        "fill_at": eligible + fill_after,
    }


def leave(store: Store, player: str) -> None:
    with store._transaction():
        store._execute("DELETE FROM queue WHERE player = ?", (player,))


def seat_waiting(
    store: Store, now: float, rating_of: RatingOf, limit: int = BATCH
) -> list[StoredRoom]:
    """One pass of the matcher, in one transaction: lock the waiting rows nobody else holds,
    form tables, insert their rooms (held by this process) and mark their rows seated. The
    rooms made; nothing of them is stored if the transaction fails."""
    lock = " FOR UPDATE SKIP LOCKED" if store.hall else ""
    made: list[StoredRoom] = []
    with store._transaction():
        rows = store._execute(
            "SELECT player, rules, family, seats, fill_after, fill_level, since, eligible"
            f" FROM queue WHERE room IS NULL AND eligible <= ? ORDER BY since LIMIT ?{lock}",
            (now, limit),
        ).fetchall()
        if not rows:
            return []
        ids = [str(r[0]) for r in rows]
        marks = _marks(len(ids))
        blocked = {
            frozenset((str(a), str(b)))
            for a, b in store._execute(
                f"SELECT player, other FROM blocks WHERE kind = ? AND player IN ({marks})"
                f" AND other IN ({marks})",
                (BLOCK, *ids, *ids),
            )
        }
        profiles = {
            str(p): (str(name), int(avatar))
            for p, name, avatar in store._execute(
                f"SELECT id, name, avatar FROM players WHERE id IN ({marks})", tuple(ids)
            )
        }
        waiting = [
            Waiting(
                str(player), str(rules), str(family), int(seats), float(fill_after),
                str(level), float(since), float(eligible),
                _matched(rating_of(store, str(player), str(family))),
            )
            for player, rules, family, seats, fill_after, level, since, eligible in rows
        ]  # fmt: skip
        for table in plan(waiting, blocked, now):
            stored = quick_room(table, profiles, now)
            store._insert_room(stored, None)
            for seat, player in enumerate(table.players):
                store._execute(
                    "UPDATE queue SET room = ?, seat = ?, token = ?, seated = ?"
                    " WHERE player = ? AND room IS NULL",
                    (stored.id, seat, stored.seats[seat]["token"], now, player),
                )
            made.append(stored)
    for stored in made:
        store._lease_held(stored.id)
    return made


# ---------------------------------------------------------------------- the matcher (loop)


class Matcher:
    """The queue's matcher of one process: a pass when a player joins here, and every
    :data:`EVERY` seconds (for the fills, and for players who joined at another process)."""

    def __init__(self, rooms: Rooms, every: float = EVERY) -> None:
        self.rooms = rooms
        self.every = every
        self.rating_of: RatingOf = stored_rating
        """A player's rating at a kind of table (``hunan/3``), called in a database thread,
        inside the pass's transaction (a test may put another)."""
        self._wake = asyncio.Event()
        self.passes = 0
        """Passes run (for the tests: they wait on progress, not on time)."""
        self.seated = 0
        """Players seated by this process."""

    def wake(self) -> None:
        self._wake.set()

    async def run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.every)
            self._wake.clear()
            try:
                await self.pass_now()
            except StoreError as error:
                log.warning("quick play: a pass failed: %s", error)

    async def pass_now(self) -> list[str]:
        """One pass; the rooms it made (each live in this process)."""
        rooms = self.rooms
        if rooms.count() >= rooms.config.max_rooms:
            return []
        made = await rooms.db.call(seat_waiting, rooms.store, time.time(), self.rating_of)
        self.passes += 1
        for stored in made:  # every room known before any is opened (an await)
            self.seated += sum(s["bot"] is None for s in stored.seats)
            rooms.adopt(stored)
        for stored in made:
            try:
                await rooms.get(stored.id)
            except (StoreError, Elsewhere) as error:  # opened at its first request instead
                log.warning("quick play: room %s not opened yet: %s", stored.id, error)
        return [s.id for s in made]


class HallHooks(RoomHooks):
    """The hall's side of the rooms' hooks: a player who left a hand in play counts one leave
    more (the queue holds repeat leavers back)."""

    def __init__(self, rooms: Rooms) -> None:
        self.rooms = rooms
        self._tasks: set[asyncio.Task[None]] = set()

    def left(self, room: Room, player: str) -> None:
        task = asyncio.get_running_loop().create_task(self._count(player))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _count(self, player: str) -> None:
        try:
            await self.rooms.db.call(add_leave, self.rooms.store, player)
        except StoreError as error:
            log.warning("could not count a player's leave: %s", error)


def listed_rooms(store: Store, limit: int, rating_of: RatingOf) -> list[dict[str, Any]]:
    """The open rooms the open-table list shows (quick-play rooms and those their host
    listed), most recently active first: each with its seats (tokens left out, each
    player's rating in the room's family) and whether its first hand is dealt."""
    with store._transaction():
        rows = store._execute(
            "SELECT r.id, r.rules, r.seats, r.listed, r.hands, r.length, r.match_start,"
            " EXISTS (SELECT 1 FROM hands h WHERE h.room = r.id)"
            " FROM rooms r WHERE r.listed <> '' AND r.state = 'open'"
            " ORDER BY r.active DESC LIMIT ?",
            (limit,),
        ).fetchall()
        found = []
        for room, rules, seats, listed, hands, length, start, dealt in rows:
            try:
                text, ruleset = room_rules(rules)
                seated = json.loads(seats)
            except ValueError:
                continue  # a room whose row does not read is the operator's (quarantine)
            family = family_of(ruleset)
            shown = [
                {k: s.get(k) for k in ("name", "bot", "joined", "player", "avatar")} for s in seated
            ]
            for seat in shown:
                seat["rating"] = (
                    None if seat["player"] is None else rating_of(store, seat["player"], family)
                )
            found.append(
                {
                    "room": room,
                    "rules": text if len(text) <= 32 else ruleset.name,
                    "family": family,
                    "seats": shown,
                    "listed": listed,
                    "dealt": bool(dealt),
                    "match": {"length": length, "played": hands - start},
                }
            )
    return found
