"""A person's own player (issue 25, D117): made at the first visit, named, moved to another
device by a one-time code; their mutes and blocks.

Every request that changes something must come from a page of this server (its ``Origin``
one of the server's, as the WebSocket requires) and carry the SameSite=Strict cookie, which a
browser sends only from this site's own pages: a cross-site request changes nothing (403)."""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from paohuzi.server import players, progress
from paohuzi.server.limits import RateLimiter
from paohuzi.server.players import AVATARS, COOKIE, Player
from paohuzi.server.routes.common import address_of, server_of
from paohuzi.server.store import StoreError

router = APIRouter()

COOKIE_AGE = 400 * 24 * 3600
"""Seconds a browser keeps the player's cookie (the most browsers allow)."""


class MeChange(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Annotated[StrictStr, Field(max_length=64)] | None = None
    avatar: Annotated[StrictInt, Field(ge=0, lt=AVATARS)] | None = None


class Claim(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: Annotated[StrictStr, Field(max_length=32)]


class ProgressItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["lesson", "puzzle"]
    id: Annotated[StrictStr, Field(min_length=1, max_length=60)]
    step: Annotated[StrictInt, Field(ge=0, lt=100)] = 0
    done: StrictBool = False
    right: StrictBool = False


class ProgressChange(BaseModel):
    model_config = ConfigDict(extra="forbid")

    items: Annotated[list[ProgressItem], Field(min_length=1, max_length=progress.ITEMS)]


class BlockChange(BaseModel):
    model_config = ConfigDict(extra="forbid")

    player: Annotated[StrictStr, Field(min_length=8, max_length=32)]
    kind: Literal["mute", "block", "none"]


def same_origin(request: Request) -> None:
    """A change comes from a page of this server: its ``Origin`` is one the server's
    WebSockets accept (a browser always sends one with a POST, PATCH or DELETE); else 403."""
    origin = request.headers.get("origin")
    if origin is None or origin.lower() not in server_of(request).origins:
        raise HTTPException(403, "this request must come from the server's own page")


def spend(request: Request, limiter: RateLimiter, player: str | None = None) -> None:
    """One unit of ``limiter``'s budget of the client's address and, if known, of the
    player: past either, 429."""
    if not limiter.allow("a:" + address_of(request)) or (
        player is not None and not limiter.allow("p:" + player)
    ):
        raise HTTPException(429, "请求太频繁，请稍等 · too many requests; wait a moment")


async def call(request: Request, work: Any, *args: Any) -> Any:
    """A function of the hall's tables, off the event loop with a deadline: 503 on failure."""
    server = server_of(request)
    rooms = server.rooms(request)
    try:
        return await rooms.db.call(work, rooms.store, *args)
    except StoreError as error:
        server.trouble.warn("store", f"players: {error}")
        raise HTTPException(503, "the server could not reach its database; try again") from None


async def player_of(request: Request) -> Player | None:
    """The player the request's cookie names, if its secret checks; else None."""
    found = players.read_cookie(request.cookies.get(COOKIE))
    if found is None:
        return None
    result: Player | None = await call(request, players.find, *found, time.time())
    return result


async def signed_in(request: Request) -> Player:
    """The request's player, for a change: from this server's page, with the cookie."""
    same_origin(request)
    player = await player_of(request)
    if player is None:
        raise HTTPException(403, "no player: open the start page first")
    return player


def with_cookie(request: Request, body: dict[str, Any], player: str, secret: str) -> JSONResponse:
    response = JSONResponse(body)
    response.set_cookie(
        COOKIE,
        f"{player}.{secret}",
        max_age=COOKIE_AGE,
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return response


def me_json(player: Player, blocks: dict[str, list[str]] | None = None) -> dict[str, Any]:
    found = player.public() | {"leaves": player.leaves, "avatars": AVATARS}
    return found if blocks is None else found | {"blocks": blocks}


@router.get("/api/me")
async def me(request: Request) -> Any:
    """The visitor's player, made now (with its cookie) if the request has none that checks:
    a forged or unknown cookie gets a new player, never another's."""
    server = server_of(request)
    player = await player_of(request)
    spend(request, server.me, player.id if player else None)
    if player is not None:
        blocks = await call(request, players.blocks_of, player.id)
        return me_json(player, blocks)
    spend(request, server.new_players)
    made, secret = await call(request, players.create, time.time())
    empty: dict[str, list[str]] = {"mute": [], "block": [], "blocked_by": []}
    return with_cookie(request, me_json(made, empty), made.id, secret)


@router.patch("/api/me")
async def change_me(request: Request, body: MeChange) -> Any:
    """Name (1–12 characters, shown as text) and avatar (an index of the shipped set)."""
    player = await signed_in(request)
    spend(request, server_of(request).me, player.id)
    name = None
    if body.name is not None:
        try:
            name = players.check_name(body.name)
        except ValueError as error:
            raise HTTPException(422, f"name: {error}") from None
    changed = await call(request, players.update, player.id, name, body.avatar)
    if changed is None:
        raise HTTPException(404, "no such player")
    return me_json(changed)


@router.post("/api/me/transfer")
async def transfer(request: Request) -> dict[str, Any]:
    """A one-time code for another device (shown once, kept hashed, 10 minutes)."""
    player = await signed_in(request)
    spend(request, server_of(request).claims, player.id)
    code = players.new_code()
    await call(request, players.start_transfer, player.id, code, time.time())
    return {"code": code, "expires_in": int(players.TRANSFER_TTL)}


@router.post("/api/me/claim")
async def claim(request: Request, body: Claim) -> Any:
    """This device becomes the code's player (a key of its own; the code is used up)."""
    same_origin(request)
    spend(request, server_of(request).claims)
    found = await call(request, players.claim_transfer, players.clean_code(body.code), time.time())
    if found is None:
        raise HTTPException(404, "no such code, or it was used or has expired")
    player, secret = found
    return with_cookie(request, me_json(player), player.id, secret)


@router.post("/api/block")
async def block(request: Request, body: BlockChange) -> Any:
    """Mute (their sayings are not shown to you) or block (never seated together, their
    tables not listed to you) another player, or neither any more."""
    player = await signed_in(request)
    spend(request, server_of(request).blocks, player.id)
    if body.player == player.id:
        raise HTTPException(422, "player: that is you")
    kind = None if body.kind == "none" else body.kind
    if not await call(request, players.set_block, player.id, body.player, kind):
        raise HTTPException(404, "no such player")
    return {"blocks": await call(request, players.blocks_of, player.id)}


@router.get("/api/me/progress")
async def my_progress(request: Request) -> Any:
    """The course's and the puzzles' progress of the cookie's player (D153); a request
    without a player that checks gets nothing (403), never another's."""
    player = await player_of(request)
    if player is None:
        raise HTTPException(403, "没有玩家：请先打开首页 · no player: open the start page first")
    spend(request, server_of(request).progress, player.id)
    return await call(request, progress.read, player.id)


@router.post("/api/me/progress")
async def record_progress(request: Request, body: ProgressChange) -> Any:
    """Record lessons' steps and puzzles' first answers (shipped ids only; only ever
    further: the further of the kept and the sent wins); the player's progress after."""
    player = await signed_in(request)
    spend(request, server_of(request).progress, player.id)
    try:
        items = [progress.check(x.kind, x.id, x.step, x.done, x.right) for x in body.items]
    except ValueError as error:
        raise HTTPException(422, str(error)) from None
    await call(request, progress.record, player.id, items, time.time())
    return await call(request, progress.read, player.id)
