"""Finished hands: the history pages, records, replay frames and reviews of a room, and the
boards that work on a record or a holding of the client's own (replay, analysis)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from paohuzi.engine.analysis import answer, parse_query
from paohuzi.engine.cards import parse_kind
from paohuzi.engine.evaluator import best_win, current_huxi
from paohuzi.engine.record import Record, RecordError
from paohuzi.engine.rules import PRESETS
from paohuzi.server.replays import frames_of
from paohuzi.server.reviews import Busy
from paohuzi.server.routes.common import address_of, server_of

TOO_MANY_REVIEWS = "复盘太频繁，请稍等一分钟 · too many reviews from your address: wait a minute"
TOO_MANY = "请求太频繁，请稍等一分钟 · too many requests from your address; wait a minute"

router = APIRouter()
HandNo = Annotated[int, Path(ge=0, lt=2**31)]


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


@router.get("/api/rooms/{room_id}/hands", response_model=list[dict[str, Any]])
async def hands(
    request: Request,
    room_id: str,
    after: Annotated[int, Query(ge=-1, lt=2**31)] = -1,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
) -> Response:
    """Finished hands numbered above ``after``, a page of at most ``limit``."""
    server = server_of(request)
    page = min(limit, server.config.history_page)
    key = (room_id, after, page)
    found = server.pages.get(key)
    if found is None or (found[1] is not None and found[1] < time.monotonic()):
        await server.known_room(request, room_id)
        listed: list[dict[str, Any]] = await server.read(
            request, "finished_hands", room_id, after, page
        )
        body = json.dumps(listed, ensure_ascii=False).encode()
        found = (body, None if len(listed) == page else time.monotonic() + 1.0)
        server.pages.put(key, found)
    return Response(found[0], media_type="application/json")


async def finished(request: Request, room_id: str, n: int) -> dict[str, Any]:
    """A finished hand's record (F4), from the cache or the store: 404 if there is none."""
    server = server_of(request)
    await server.known_room(request, room_id)
    found = server.cache.get((room_id, n, "record"))
    if found is None:
        found = await server.read(request, "record", room_id, n)
        if found is None:
            raise HTTPException(404, "no finished hand with that number")
        server.cache.put((room_id, n, "record"), found)
    return dict(found)


@router.get("/api/rooms/{room_id}/hands/{n}/record")
async def record(request: Request, room_id: str, n: HandNo) -> dict[str, Any]:
    return await finished(request, room_id, n)


@router.get("/api/rooms/{room_id}/hands/{n}/frames", response_model=list[dict[str, Any]])
async def frames(request: Request, room_id: str, n: HandNo) -> Response:
    server = server_of(request)
    found = server.cache.get((room_id, n, "frames"))
    if found is None:
        data = await finished(request, room_id, n)
        found = await server.replays.frames(data)
        server.cache.put((room_id, n, "frames"), found)
    return Response(found, media_type="application/json")


@router.post("/api/rooms/{room_id}/hands/{n}/review")
async def start_review(request: Request, room_id: str, n: HandNo, body: NewReview) -> JSONResponse:
    """The expert's review of a finished hand for one seat, started in the background if
    it is not known yet: its progress (poll GET) and, once done, its findings."""
    server = server_of(request)
    reviews = server.reviews(request)
    key = (room_id, n, body.seat, body.samples)
    found = reviews.get(key)
    if found is None:
        data = await finished(request, room_id, n)
        record = Record.from_json(data)
        if body.seat >= record.rule_set.players:
            raise HTTPException(422, "seat: no such seat at this table")
        if body.seat not in record.rule_set.seating(record.dealer).playing:
            raise HTTPException(422, "seat: this seat sat the hand out (R12)")
        if not server.review_starts.allow(address_of(request)):
            raise HTTPException(429, TOO_MANY_REVIEWS)
        try:
            found = reviews.start(key, data)
        except Busy as error:
            raise HTTPException(503, str(error)) from None
    return JSONResponse(found.to_json(), 202 if found.state in ("queued", "running") else 200)


@router.get("/api/rooms/{room_id}/hands/{n}/review")
async def review_status(
    request: Request,
    room_id: str,
    n: HandNo,
    seat: Annotated[int, Query(ge=0, le=3)],
    samples: Annotated[int, Query(ge=1, le=200)] = 20,
) -> dict[str, Any]:
    found = server_of(request).reviews(request).get((room_id, n, seat, samples))
    if found is None:
        raise HTTPException(404, "no such review: start it with POST")
    return found.to_json()


async def worked_out(request: Request, work: Callable[[], Any]) -> Any:
    """Run a bounded computation for a client in a thread, a few at a time, rate-limited
    per address; its ValueError is the client's 422."""
    server = server_of(request)
    if not server.analyses.allow(address_of(request)):
        raise HTTPException(429, TOO_MANY)
    async with server.thinking:
        try:
            return await asyncio.wait_for(asyncio.to_thread(work), 10)
        except (ValueError, RecordError) as error:
            raise HTTPException(422, str(error).splitlines()[0][:200]) from None
        except TimeoutError:
            raise HTTPException(503, "that took too long; try a smaller question") from None


@router.post("/api/analyze")
async def analyze(request: Request, body: Analysis) -> dict[str, Any]:
    """What ``paohuzi analyze --json`` answers (F6), for the analysis board."""
    found: dict[str, Any] = await worked_out(request, lambda: analysis(body))
    return found


@router.post("/api/replay")
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
