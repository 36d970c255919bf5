"""Rooms: create one, read its public facts, and the bots the lobby offers."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from paohuzi.server.forward import FORWARDED, forward_get
from paohuzi.server.rooms import Elsewhere, Full, RoomError
from paohuzi.server.roomstate import RoomState
from paohuzi.server.routes.common import address_of, server_of
from paohuzi.server.routes.players import same_origin
from paohuzi.server.store import StoreError

TOO_MANY_CREATED = (
    "创建房间太频繁，请稍等一分钟 · too many rooms created from your address; wait a minute"
)
TOO_MANY_OPEN = "你这里开着的房间已达上限 · your address has as many open rooms as it may"

router = APIRouter()


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
    public: StrictBool = False
    """List the table in the open-table list (``GET /api/tables``): strangers may take its
    free seats while it waits (issue 25)."""
    seed: Annotated[StrictInt, Field(ge=0, lt=2**63)] | None = None


@router.get("/api/bots")
async def offered_bots(request: Request) -> dict[str, list[str]]:
    """The bots the lobby offers (the operator's ``--offer-bots``), by name."""
    return {"bots": server_of(request).config.lobby_bots()}


@router.post("/api/rooms")
async def create_room(request: Request, body: NewRoom) -> JSONResponse:
    server = server_of(request)
    config, rooms = server.config, server.rooms(request)
    if body.timer != 0 and not 5 <= body.timer <= 300:
        raise HTTPException(422, "timer: seconds to decide, 0 (no timer) or 5–300")
    if body.public:  # a change to the hall, as every other: from the server's own page
        same_origin(request)
    address = address_of(request)
    if not server.creations.allow(address):
        raise HTTPException(429, TOO_MANY_CREATED)
    if rooms.created_by(address) >= config.rooms_per_address:
        raise HTTPException(429, TOO_MANY_OPEN)
    try:
        room = await rooms.create(
            body.bots,
            rules=body.rules,
            timer=body.timer,
            seed=body.seed,
            creator=address,
            hands=body.hands,
            wait=body.wait,
            listed="public" if body.public else "",
        )
    except Full as error:
        raise HTTPException(503, str(error)) from None
    except (RoomError, ValueError) as error:
        raise HTTPException(400, str(error)) from None
    except StoreError as error:
        server.trouble.warn("store", f"could not create a room: {error}")
        raise HTTPException(503, "the server could not store the room; try again") from None
    seats = [
        {"seat": i, "bot": s.bot}
        | ({} if s.bot else {"token": s.token, "url": server.invite(room.id, s.token)})
        for i, s in enumerate(room.seats)
    ]
    return JSONResponse(
        {
            "room": room.id,
            "seats": seats,
            "watch": f"{server.base}/room/{room.id}",
            "host": room.host,
            "hands": room.length,
        }
    )


@router.get("/api/rooms/{room_id}")
async def room_info(request: Request, room_id: str) -> Any:
    try:
        room = await server_of(request).open_room(request, room_id)
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
        "rules": room.rules_text,
        "match": room.match_info(),
        # Whether it waits for its people (nothing dealt yet): an invite's page asks a name
        # first then (issue 24).
        "waiting": room.state is RoomState.WAITING,
    }
