"""Puzzles (issue 27 point 2, D151): the themes, a theme's list, the daily puzzle, a puzzle as
its seat sees it, and the verdict on an answer with the solution. Read-only, computed from the
shipped puzzles (:mod:`paohuzi.puzzles`), ids checked strictly, every request on a budget per
address. The solution leaves the server only in the answer's reply: the page never holds it
before the move is made."""

from __future__ import annotations

import asyncio
import datetime
import json
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, StrictStr

from paohuzi.puzzles import THEMES, Puzzle, by_id, by_theme, daily, themes
from paohuzi.server.course import view
from paohuzi.server.routes.common import address_of, server_of

router = APIRouter()

PuzzleId = Annotated[
    str, Path(min_length=5, max_length=24, pattern=r"^[0-9]{1,9}-[0-9]{1,6}-[0-9]{1,5}$")
]
"""A puzzle's id as the format makes it: ``SEED-HAND-INDEX`` (docs/puzzles.md)."""
Theme = Annotated[str, Query(min_length=1, max_length=12, pattern=r"^[a-z]+$")]
NO_PUZZLE = "没有这道题 · no such puzzle"
NO_THEME = "没有这个主题 · no such theme"
TOO_MANY = "读得太频繁，请稍等一分钟 · too many reads of the puzzles; wait a minute"
MAKING = 10.0
"""Seconds a puzzle's position may take to be replayed (a few milliseconds here)."""


class Answer(BaseModel):
    """The move the player chose: an F3 action as the view's ``legal`` names it."""

    model_config = ConfigDict(extra="forbid")
    move: StrictStr = Field(min_length=1, max_length=64)  # the longest 吃 with 比 is ~33


def _spend(request: Request) -> None:
    if not server_of(request).puzzle_reads.allow(address_of(request)):
        raise HTTPException(429, TOO_MANY)


def _json(data: Any) -> Response:
    return Response(json.dumps(data, ensure_ascii=False).encode(), media_type="application/json")


def _found(puzzle_id: str) -> Puzzle:
    found = by_id(puzzle_id)
    if found is None:
        raise HTTPException(404, NO_PUZZLE)
    return found


def puzzle_view(puzzle: Puzzle) -> dict[str, Any]:
    """What the page shows before the answer: :meth:`Puzzle.view_json`'s fields, the view in
    the fields of a live seat's state frame (as a lesson's step, D147) so the live table draws
    it. Only the seat's observation: never the deck, the other hands or the solution."""
    game = puzzle.game()
    return {
        "id": puzzle.id,
        "theme": puzzle.theme,
        "seat": puzzle.seat,
        "rules": puzzle.record.rule_set.name,
        "players": game.rules.players,
        "view": view(game, puzzle.seat, acting=True),
    }


async def _view(request: Request, puzzle: Puzzle) -> Response:
    server = server_of(request)
    made = server.puzzle_views.get(puzzle.id)
    if made is None:  # replayed in a thread once a process (at most one a shipped puzzle)
        async with server.making:
            made = server.puzzle_views.get(puzzle.id)
            if made is None:
                data = await asyncio.wait_for(asyncio.to_thread(puzzle_view, puzzle), MAKING)
                made = json.dumps(data, ensure_ascii=False).encode()
                server.puzzle_views[puzzle.id] = made
    return Response(made, media_type="application/json")


@router.get("/api/puzzles/themes")
async def puzzle_themes(request: Request) -> Response:
    """The themes in display order, their names and how many puzzles each has."""
    _spend(request)
    return _json({"themes": themes()})


@router.get("/api/puzzles")
async def puzzle_list(request: Request, theme: Theme) -> Response:
    """A theme's puzzles, the clearest first: ids only (no answer, no position)."""
    _spend(request)
    if theme not in THEMES:
        raise HTTPException(404, NO_THEME)
    return _json({"theme": theme, "puzzles": [p.id for p in by_theme(theme)]})


@router.get("/api/puzzles/daily")
async def puzzle_daily(request: Request) -> Response:
    """Today's puzzle (UTC), as :func:`puzzle_view` shows it, with the date."""
    _spend(request)
    today = datetime.datetime.now(datetime.UTC).date()
    response = await _view(request, daily(today))
    response.headers["Cache-Control"] = "no-store"  # tomorrow is another puzzle
    return response


@router.get("/api/puzzles/{puzzle_id}")
async def puzzle(request: Request, puzzle_id: PuzzleId) -> Response:
    """One puzzle, as its seat sees it (:func:`puzzle_view`)."""
    _spend(request)
    return await _view(request, _found(puzzle_id))


@router.post("/api/puzzles/{puzzle_id}/answer")
async def answer(request: Request, puzzle_id: PuzzleId, body: Answer) -> Response:
    """The verdict on a move and the solution: ``{"move", "right", **solution_json()}``. A move
    the position does not allow is refused (422): the page offers only legal ones."""
    _spend(request)
    found = _found(puzzle_id)
    await _view(request, found)  # the legal moves, made once
    legal = json.loads(server_of(request).puzzle_views[found.id])["view"]["legal"]
    if body.move not in legal:
        raise HTTPException(422, "这一步不合规则 · not a legal move here")
    return _json({"move": body.move, "right": found.solves(body.move), **found.solution_json()})
