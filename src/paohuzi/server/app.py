"""The web server: HTTP for rooms and history, a WebSocket per seat, the web table."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from typing import Any

from fastapi import FastAPI, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, Field

from paohuzi.server.rooms import Listener, Room, Rooms
from paohuzi.server.store import Store

STATIC = resources.files("paohuzi.server") / "static"


class NewRoom(BaseModel):
    """Seats 0–2: null for a person, or a bot level."""

    bots: list[str | None] = Field(default_factory=lambda: [None, "greedy", "greedy"])
    timer: float = Field(default=30.0, ge=0, le=3600)
    rules: str = "hunan"
    seed: int | None = None


def create_app(db: str = "paohuzi.db", *, bot_delay: float = 0.4) -> FastAPI:
    """The application, its rooms kept in the SQLite database ``db``."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = Store(db)
        rooms = Rooms(store, bot_delay=bot_delay)
        app.state.rooms = rooms
        await rooms.restore()
        yield
        rooms.close()
        store.close()

    app = FastAPI(title="paohuzi", lifespan=lifespan)

    def rooms_of(request: Request | WebSocket) -> Rooms:
        found: Rooms = request.app.state.rooms
        return found

    def room_or_404(request: Request, room_id: str) -> Room:
        room = rooms_of(request).rooms.get(room_id)
        if room is None:
            raise HTTPException(404, "no such room")
        return room

    def page() -> HTMLResponse:
        return HTMLResponse((STATIC / "index.html").read_text(encoding="utf-8"))

    @app.get("/", response_class=HTMLResponse)
    async def index() -> HTMLResponse:
        return page()

    @app.get("/room/{room_id}", response_class=HTMLResponse)
    async def room_page(room_id: str) -> HTMLResponse:
        return page()

    @app.get("/static/{name}")
    async def static(name: str) -> Response:
        types = {"js": "text/javascript", "css": "text/css"}
        kind = types.get(name.rsplit(".", 1)[-1])
        path = STATIC / name
        if kind is None or "/" in name or not path.is_file():
            raise HTTPException(404, "no such file")
        return Response(path.read_text(encoding="utf-8"), media_type=f"{kind}; charset=utf-8")

    @app.post("/api/rooms")
    async def create_room(request: Request, body: NewRoom) -> JSONResponse:
        try:
            room = await rooms_of(request).create(
                body.bots, rules=body.rules, timer=body.timer, seed=body.seed
            )
        except ValueError as error:
            raise HTTPException(400, str(error)) from None
        base = str(request.base_url).rstrip("/")
        seats = [
            {"seat": i, "bot": s.bot}
            | ({} if s.bot else {"token": s.token, "url": f"{base}/room/{room.id}?token={s.token}"})
            for i, s in enumerate(room.seats)
        ]
        return JSONResponse({"room": room.id, "seats": seats, "watch": f"{base}/room/{room.id}"})

    @app.get("/api/rooms/{room_id}")
    async def room_info(request: Request, room_id: str) -> dict[str, Any]:
        room = room_or_404(request, room_id)
        return {
            "room": room.id,
            "seats": [{"seat": i, "bot": s.bot} for i, s in enumerate(room.seats)],
            "hands": room.match.hands,
            "totals": room.match.totals,
            "timer": room.timer,
        }

    @app.get("/api/rooms/{room_id}/hands")
    async def hands(request: Request, room_id: str) -> list[dict[str, Any]]:
        return room_or_404(request, room_id).finished_hands()

    @app.get("/api/rooms/{room_id}/hands/{n}/record")
    async def record(request: Request, room_id: str, n: int) -> dict[str, Any]:
        found = room_or_404(request, room_id).record(n)
        if found is None:
            raise HTTPException(404, "no finished hand with that number")
        return found

    @app.get("/api/rooms/{room_id}/hands/{n}/frames")
    async def frames(request: Request, room_id: str, n: int) -> list[dict[str, Any]]:
        found = room_or_404(request, room_id).frames(n)
        if found is None:
            raise HTTPException(404, "no finished hand with that number")
        return found

    @app.get("/api/metrics")
    async def metrics(request: Request) -> dict[str, Any]:
        rooms = rooms_of(request)
        return {"rooms": len(rooms.rooms), **rooms.metrics.summary()}

    @app.websocket("/ws/{room_id}")
    async def play(websocket: WebSocket, room_id: str) -> None:
        await websocket.accept()
        room = rooms_of(websocket).rooms.get(room_id)
        if room is None:
            await websocket.send_json({"type": "error", "message": "no such room"})
            await websocket.close(code=4404)
            return
        try:
            seat = room.seat_of(websocket.query_params.get("token"))
        except KeyError as error:
            await websocket.send_json({"type": "error", "message": str(error.args[0])})
            await websocket.close(code=4403)
            return
        listener = Listener(seat, websocket.send_text)
        room.listeners.append(listener)
        await websocket.send_json(room.view(seat))
        try:
            while True:
                text = await websocket.receive_text()
                reply = await handle(room, seat, text)
                if reply is not None:
                    await websocket.send_json(reply)
        except WebSocketDisconnect:
            pass
        finally:
            listener.close()
            if listener in room.listeners:
                room.listeners.remove(listener)

    return app


async def handle(room: Room, seat: int | None, text: str) -> dict[str, Any] | None:
    """One message from a seat; returns the reply to send it (an error, a hint) or None."""
    error = await _handle(room, seat, text)
    if isinstance(error, dict):
        return error
    return None if error is None else {"type": "error", "message": error}


async def _handle(room: Room, seat: int | None, text: str) -> str | dict[str, Any] | None:
    try:
        message = json.loads(text)
    except json.JSONDecodeError:
        return "malformed JSON"
    if not isinstance(message, dict):
        return "a message is a JSON object"
    kind = message.get("type")
    if "seat" in message and message["seat"] != seat:
        return "you can only act for your own seat"
    if kind == "act":
        return await room.act(seat, message.get("action"), message.get("seq"))
    if kind == "next":
        return await room.next_hand(seat)
    if kind == "hint":
        if seat is None:
            return "spectators have no hand"
        return room.hint(seat)
    return f"unknown message type {kind!r} (act, next, hint)"
