"""Players' standing (issue 25, D121): a player's public profile and each rule family's
leaderboard, read from the store with a deadline and rate-limited per address."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Query, Request

from paohuzi.server import ratings
from paohuzi.server.routes.common import address_of, server_of

router = APIRouter()

PlayerId = Annotated[str, Path(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_-]+$")]
"""A player's id as the players' cookies make them (hex), with room to spare."""
NO_PLAYER = "没有这位玩家 · no such player"
TOO_MANY = "查询太频繁，请稍等一分钟 · too many profile or leaderboard reads; wait a minute"
REPLAY = "/room/{room}/hand/{n}?seat={seat}"
RECORD = "/api/rooms/{room}/hands/{n}/record"


def _spend(request: Request) -> None:
    if not server_of(request).standing_reads.allow(address_of(request)):
        raise HTTPException(429, TOO_MANY)


@router.get("/api/players/{player}")
async def profile(
    request: Request,
    player: PlayerId,
    recent: Annotated[int, Query(ge=0, le=100)] = 20,
    points: Annotated[int, Query(ge=1, le=1000)] = 200,
) -> dict[str, Any]:
    """A player's public profile: per rule family their rating and counts, their last hands
    with replay links, their rating's history (at most ``points`` last points)."""
    _spend(request)
    server = server_of(request)
    found: dict[str, Any] | None = await server.read(request, "profile", player, recent, points)
    if found is None:
        raise HTTPException(404, NO_PLAYER)
    for hand in found["recent"]:
        hand["replay"] = REPLAY.format(**hand)
        hand["record"] = RECORD.format(**hand)
    found["provisional_hands"] = ratings.PROVISIONAL_HANDS
    return found


@router.get("/api/leaderboard")
async def leaderboard(
    request: Request,
    family: Annotated[str, Query(max_length=16)] = "hunan",
    limit: Annotated[int, Query(ge=1, le=100)] = 50,
) -> dict[str, Any]:
    """A rule family's settled ratings (not provisional), best first."""
    _spend(request)
    if family not in ratings.FAMILIES:
        known = ", ".join(ratings.FAMILIES)
        raise HTTPException(422, f"family: 没有这个规则 · unknown rule family (known: {known})")
    rows = await server_of(request).read(request, "leaderboard", family, limit)
    return {"family": family, "players": rows, "provisional_hands": ratings.PROVISIONAL_HANDS}
