"""The web table: its pages (one page, routed in the browser) and its files."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException
from fastapi.responses import HTMLResponse, Response

from paohuzi.server.routes.common import STATIC, TYPES

router = APIRouter()

PAGE = (STATIC / "index.html").read_bytes()
FILES = {
    f.name: (f.read_bytes(), TYPES[f.name.rsplit(".", 1)[-1]])
    for f in STATIC.iterdir()
    if f.is_file() and f.name.rsplit(".", 1)[-1] in TYPES
}
"""Every file the page loads, read once, with its type."""


def _page() -> Response:
    return Response(PAGE, media_type="text/html; charset=utf-8")


@router.get("/", response_class=HTMLResponse)
async def index() -> Response:
    return _page()


@router.get("/room/{room_id}", response_class=HTMLResponse)
async def room_page(room_id: str) -> Response:
    return _page()


@router.get("/room/{room_id}/hand/{n}", response_class=HTMLResponse)
async def replay_page(room_id: str, n: str) -> Response:
    return _page()


@router.get("/rules", response_class=HTMLResponse)
@router.get("/analysis", response_class=HTMLResponse)
@router.get("/replay", response_class=HTMLResponse)
async def other_page() -> Response:
    return _page()


@router.get("/static/{name}")
async def static(name: str) -> Response:
    found = FILES.get(name)
    if found is None:
        raise HTTPException(404, "no such file")
    return Response(found[0], media_type=f"{found[1]}; charset=utf-8")


@router.get("/favicon.ico")
async def favicon() -> Response:
    return Response(status_code=204)
