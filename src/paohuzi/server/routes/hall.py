"""The hall for strangers (issue 25): 快速开始 (the quick-play queue, D118) and the open-table
list (D119), and taking a free seat of a listed table."""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from paohuzi.server import players, quick
from paohuzi.server.quick import Matcher
from paohuzi.server.roomrules import room_rules
from paohuzi.server.rooms import Elsewhere, RoomError, family_of
from paohuzi.server.routes.common import server_of
from paohuzi.server.routes.players import call, player_of, signed_in, spend

router = APIRouter()

LISTED = 100
"""Most tables the open-table list shows."""
LISTING_AGE = 1.0
"""Seconds one read of the open-table list is served to everyone (D119)."""


class QuickJoin(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rules: (
        Annotated[StrictStr, Field(max_length=32)] | Annotated[dict[str, Any], Field(max_length=32)]
    ) = "hunan"
    """As ``POST /api/rooms``: a preset's name, or a rule-set object."""
    seats: Literal[3, 4] = 3
    fill_after: Annotated[StrictInt, Field(ge=10, le=120)] = 30
    fill_level: Annotated[StrictStr, Field(max_length=32)] = "greedy"


class TakeSeat(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seat: Annotated[StrictInt, Field(ge=0, le=3)] | None = None
    """A free seat, or none: the first free one."""


def matcher_of(request: Request) -> Matcher:
    found: Matcher = request.app.state.matcher
    return found


def with_url(request: Request, found: dict[str, Any]) -> dict[str, Any]:
    if found.get("state") == "seated":
        found["url"] = server_of(request).invite(found["room"], found["token"])
    return found


@router.post("/api/quick")
async def join_quick(request: Request, body: QuickJoin) -> dict[str, Any]:
    """Wait for a quick-play table: the rules and seats wanted, and after how many seconds
    computers of which level fill it. Joining again changes what is waited for, not the
    place; the answer is ``GET /api/quick``'s."""
    player = await signed_in(request)
    server = server_of(request)
    spend(request, server.quick, player.id)
    spec = body.rules if isinstance(body.rules, dict) else {"preset": body.rules}
    if spec.get("players", body.seats) != body.seats:
        raise HTTPException(422, "rules.players: not the number of seats asked for")
    try:
        text, rules = room_rules({**spec, "players": body.seats})
    except ValueError as error:
        raise HTTPException(400, str(error)) from None
    if body.fill_level not in server.config.lobby_bots():
        raise HTTPException(422, f"fill_level: one of {', '.join(server.config.lobby_bots())}")
    eligible = time.time() + players.leave_delay(player.leaves)
    request_row = (text, family_of(rules), body.seats, float(body.fill_after), body.fill_level)
    await call(request, quick.join, player.id, request_row, time.time(), eligible)
    matcher_of(request).wake()
    return with_url(request, await call(request, quick.status, player.id))


@router.get("/api/quick")
async def quick_status(request: Request) -> dict[str, Any]:
    """Where the visitor's player stands: ``none``, ``waiting`` (since when, and when
    computers fill the table), or ``seated`` (the room, seat and the seat's secret: only to
    this player's cookie)."""
    player = await player_of(request)
    spend(request, server_of(request).quick_polls, player.id if player else None)
    if player is None:
        return {"state": "none"}
    return with_url(request, await call(request, quick.status, player.id))


@router.delete("/api/quick")
async def leave_quick(request: Request) -> dict[str, Any]:
    """Leave the queue (or forget the seat it found)."""
    player = await signed_in(request)
    spend(request, server_of(request).quick, player.id)
    await call(request, quick.leave, player.id)
    return {"state": "none"}


async def listing(request: Request) -> list[dict[str, Any]]:
    """The listed rooms, read at most once a :data:`LISTING_AGE` for every requester."""
    server = server_of(request)
    now = time.monotonic()
    if server.listing is None or now - server.listing[0] > LISTING_AGE:
        rating_of = matcher_of(request).rating_of
        found = await call(request, quick.listed_rooms, LISTED, rating_of)
        server.listing = (now, found)
    return server.listing[1]


@router.get("/api/tables")
async def tables(request: Request) -> dict[str, Any]:
    """Tables with a free seat to take (``open``) and tables in play to watch (``playing``):
    quick-play rooms and rooms their host listed, never a room of invites only; a table where
    someone the visitor blocks, or who blocks them, sits is not shown to them."""
    server = server_of(request)
    player = await player_of(request)
    spend(request, server.tables, player.id if player else None)
    found = await listing(request)
    avoid: set[str] = set()
    if player is not None:
        blocks = await call(request, players.blocks_of, player.id)
        avoid = {*blocks["block"], *blocks["blocked_by"]}
    shown_open, playing = [], []
    for table in found:
        if avoid & {s["player"] for s in table["seats"]}:
            continue
        host = next((n for n, s in enumerate(table["seats"]) if s["bot"] is None), None)
        free = [
            n
            for n, s in enumerate(table["seats"])
            if s["bot"] is None and s["player"] is None and not s["joined"] and n != host
        ]  # the host's seat is its creator's (Room.take_seat)
        entry = {k: table[k] for k in ("room", "rules", "family", "listed", "match")} | {
            "seats": table["seats"],
            "free": free,
            "watch": f"{server.base}/room/{table['room']}",
        }
        if not table["dealt"] and free:
            shown_open.append(entry)
        elif table["dealt"]:
            playing.append(entry)
    return {"open": shown_open, "playing": playing}


@router.post("/api/rooms/{room_id}/join")
async def take_seat(request: Request, room_id: str, body: TakeSeat) -> dict[str, Any]:
    """Take a free seat of a listed table, as the visitor's player: the seat's secret and
    link, to this player only."""
    player = await signed_in(request)
    server = server_of(request)
    spend(request, server.blocks, player.id)
    try:
        room = await server.open_room(request, room_id)
    except Elsewhere:
        raise HTTPException(503, "the room is on another process; try again") from None
    blocks = await call(request, players.blocks_of, player.id)
    try:
        seat = await room.take_seat(player, body.seat, {*blocks["block"], *blocks["blocked_by"]})
    except RoomError as error:
        raise HTTPException(409, str(error)) from None
    token = room.seats[seat].token
    return {"room": room.id, "seat": seat, "token": token, "url": server.invite(room.id, token)}
