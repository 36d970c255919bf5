"""A seat's invite: the host gives it a new secret, and the old link opens nothing."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Request
from pydantic import BaseModel, ConfigDict, Field, StrictStr

from paohuzi.server.rooms import Elsewhere, RoomError
from paohuzi.server.routes.common import server_of
from paohuzi.server.store import StoreError

router = APIRouter()


class Revoke(BaseModel):
    """The host's own secret (in the body: never in a URL)."""

    model_config = ConfigDict(extra="forbid")

    token: Annotated[StrictStr, Field(max_length=64)]


@router.post("/api/rooms/{room_id}/seats/{seat}/link")
async def new_link(
    request: Request, room_id: str, seat: Annotated[int, Path(ge=0, le=3)], body: Revoke
) -> dict[str, Any]:
    """The host revokes a seat's invite: the seat gets a new secret (and link), the old
    one is refused from now on."""
    server = server_of(request)
    try:
        room = await server.open_room(request, room_id)
    except Elsewhere:
        raise HTTPException(503, "the room is on another process; try again") from None
    try:
        token = await room.revoke(body.token, seat)
    except KeyError as error:
        raise HTTPException(403, str(error.args[0])) from None
    except RoomError as error:
        raise HTTPException(422, str(error)) from None
    except StoreError as error:
        server.trouble.warn("store", f"could not store a new link: {error}")
        raise HTTPException(503, "the server could not store the new link; try again") from None
    return {"seat": seat, "token": token, "url": server.invite(room.id, token)}
