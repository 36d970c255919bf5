"""The web table: its pages (one page, routed in the browser) and its files."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response

from paohuzi.server.assets import Asset, files

router = APIRouter()

FILES = {path: Asset.of(path, data) for path, data in files() if not path.endswith(".html")}
"""Every file the page loads (in static/ and its folders), read and compressed once."""
PAGE = next(Asset.of(path, data) for path, data in files() if path == "index.html")


@router.get("/", response_class=HTMLResponse)
async def index(request: Request) -> Response:
    return PAGE.response(request)


@router.get("/room/{room_id}", response_class=HTMLResponse)
async def room_page(request: Request, room_id: str) -> Response:
    return PAGE.response(request)


@router.get("/room/{room_id}/hand/{n}", response_class=HTMLResponse)
async def replay_page(request: Request, room_id: str, n: str) -> Response:
    return PAGE.response(request)


@router.get("/player/{player_id}", response_class=HTMLResponse)
async def player_page(request: Request, player_id: str) -> Response:
    return PAGE.response(request)


@router.get("/learn/{lesson_id}", response_class=HTMLResponse)
async def lesson_page(request: Request, lesson_id: str) -> Response:
    return PAGE.response(request)


@router.get("/puzzles/{puzzle_id}", response_class=HTMLResponse)
async def puzzle_page(request: Request, puzzle_id: str) -> Response:
    return PAGE.response(request)


@router.get("/puzzles", response_class=HTMLResponse)
@router.get("/leaderboard", response_class=HTMLResponse)
@router.get("/learn", response_class=HTMLResponse)
@router.get("/rules", response_class=HTMLResponse)
@router.get("/analysis", response_class=HTMLResponse)
@router.get("/replay", response_class=HTMLResponse)
async def other_page(request: Request) -> Response:
    return PAGE.response(request)


@router.get("/static/{path:path}")
async def static(request: Request, path: str) -> Response:
    found = FILES.get(path)
    if found is None:
        raise HTTPException(404, "no such file")
    return found.response(request)


@router.get("/favicon.ico")
async def favicon() -> Response:
    return Response(status_code=204)
