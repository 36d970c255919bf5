"""The WebSocket of a seat (its secret in the first message) or of a spectator: the room's
states and frames out, the seat's actions and requests in, each checked and budgeted."""

from __future__ import annotations

import asyncio
import json
import time
from contextlib import suppress
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect, WebSocketState

from paohuzi.server import players
from paohuzi.server.forward import FORWARDED, forward_websocket
from paohuzi.server.limits import Bucket
from paohuzi.server.players import COOKIE, Player
from paohuzi.server.rooms import CLOSED_NOW, MOVED, Closed, Elsewhere, Listener, Room, RoomError
from paohuzi.server.roomstate import RoomState
from paohuzi.server.routes.common import address_of, from_peer, plausible_id, server_of
from paohuzi.server.store import StoreError

router = APIRouter()

HELLO_WAIT = 1.0
"""Seconds a connection is waited for its ``hello`` before it is taken for a spectator's."""

SECRET_IN_URL = (
    "座位密钥请放在第一条消息里，不要放在网址中 / a seat's secret goes in the first message "
    '({"type": "hello", "token": …}), not in the URL'
)
"""The refusal of a WebSocket URL with a ``token`` (D109)."""


@router.websocket("/ws/{room_id}")
async def play(websocket: WebSocket, room_id: str) -> None:
    server = server_of(websocket)
    config = server.config
    origin = websocket.headers.get("origin")
    if origin is not None and origin.lower() not in server.origins:
        await websocket.close(code=4403, reason="this page's origin may not connect")
        return
    address = address_of(websocket)
    peer = from_peer(websocket.scope)
    if not peer and not server.connects.allow(address):
        await websocket.close(code=4429, reason="too many connections from your address")
        return
    await websocket.accept()

    async def refuse(message: str, code: int) -> None:
        """Tell the client why and close; one that went away meanwhile is not told."""
        with suppress(WebSocketDisconnect, RuntimeError):  # RuntimeError: closed already
            await websocket.send_json({"type": "error", "message": message})
            await websocket.close(code=code)

    # A seat's secret comes in the first message only, never in the URL, which proxies and
    # their logs see (D109): a URL with a token, whatever its value, is refused before the
    # room is even looked up, so the seat stays free and nothing is stored or shown.
    if "token" in websocket.query_params:
        await refuse(SECRET_IN_URL, 4400)
        return
    try:
        room = await server.rooms(websocket).get(room_id) if plausible_id(room_id) else None
    except StoreError as error:
        server.trouble.warn("store", f"could not open a room: {error}")
        await refuse("the server could not reach its database; reconnect", MOVED)
        return
    except Elsewhere as elsewhere:
        # Another process of the hall holds the room: carry the connection to it (D61),
        # once; a forwarded one that finds it moved again reconnects from the start.
        if FORWARDED in websocket.headers:
            await refuse("the room is moving to another process; reconnect", MOVED)
            return
        await forward_websocket(websocket, elsewhere.address, room_id)
        return
    if room is None:
        await refuse("no such room (or it has closed)", 4404)
        return
    # A seat's secret comes in the first message, a hello (D71: no secret in any URL);
    # without one, a spectator.
    token: str | None = None
    early: str | None = None
    new_events = False
    try:
        message = await asyncio.wait_for(websocket.receive(), HELLO_WAIT)
    except TimeoutError:
        message = {"type": "websocket.receive"}
    if message["type"] == "websocket.disconnect":
        return
    early = message.get("text")
    said = read_hello(early)
    name: str | None = None
    if said is not None:
        token, early = said.token or None, None
        new_events, name = said.new_events, said.name

    async def close(code: int, reason: str) -> None:
        if websocket.application_state is WebSocketState.CONNECTED:
            await websocket.close(code=code, reason=reason)

    player = await known_player(websocket)

    async def sit(token: str | None) -> Listener | None:
        """A connection for the seat ``token`` opens (None: a spectator's), in the room and
        shown its first state; None when refused (the refusal sent)."""
        try:
            seat = room.seat_of(token)
        except KeyError as error:
            await refuse(str(error.args[0]), 4403)
            return None
        if player is not None and seat is None and not await may_sit(websocket, room, player, seat):
            await refuse("你不能进入这张桌子 / you cannot open this table", 4403)
            return None
        listener = Listener(
            seat,
            websocket.send_text,
            close,
            config.send_queue,
            new_events=new_events,
            send_times=server.rooms(websocket).sends,
        )
        try:
            first = await room.enter(listener, token)
        except KeyError as error:  # revoked while it waited for the room
            await refuse(str(error.args[0]), 4403)
            return None
        except Closed as error:  # closed (idle, moved) since it was found: find it anew
            await refuse(str(error), MOVED)
            return None
        except RoomError as error:
            await refuse(str(error), 4429)
            return None
        # A person's arrival may deal the first hand or change the waiting room: then the
        # room shows it to everyone, this connection with them. A name the hello brings is
        # the seat's before it arrives, so the others meet it by that name (issue 24).
        try:
            if seat is not None and player is not None:  # a known player's seat (issue 25)
                await room.seat_player(seat, player.id, player.name, player.avatar)
            if seat is not None and name is not None and not room.seats[seat].name:
                refused = await room.rename(seat, name)
                if refused is not None:
                    reply = {"type": "error", "message": refused}
                    listener.push(json.dumps(reply, ensure_ascii=False), state=False)
            arrived = await room.arrive(seat)
        except BaseException:
            room.leave(listener)  # registered by enter: not left behind, alive, in the room
            raise
        if not arrived and first is not None:
            listener.push(first)
        return listener

    bucket = Bucket(config.messages_per_second, 2 * config.messages_per_second)
    refused_in_a_row = 0
    listener: Listener | None = None
    try:
        listener = await sit(token)
        while listener is not None and listener.alive:
            if early is not None:  # the first message, read while waiting for a hello
                message, early = {"type": "websocket.receive", "text": early}, None
            else:
                message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text")
            if not (bucket.take() and (peer or server.address_messages.allow(address))):
                refused_in_a_row += 1
                if refused_in_a_row > 20:
                    await close(1008, "too many messages")
                    break
                reply: dict[str, Any] | None = {
                    "type": "error",
                    "message": "too many messages: slow down",
                }
            elif text is None:
                reply = {"type": "error", "message": "messages are JSON text, not binary"}
            elif len(text) > config.max_message:
                reply = {"type": "error", "message": f"message over {config.max_message} bytes"}
            elif listener.seat is None and (late := read_hello(text)) and late.token:
                # A hello after the wait (a slow network): the spectator sits down.
                room.leave(listener)
                new_events, name = late.new_events, late.name
                listener = await sit(late.token)
                reply = None
            else:
                refused_in_a_row = 0
                try:
                    reply = await handle(room, listener, text)
                except Exception as error:  # a bug: answer, log a line, keep serving
                    server.trouble.warn(type(error).__name__, f"websocket: {error!r}")
                    reply = {"type": "error", "message": "internal error"}
            if reply is not None and listener is not None:
                listener.push(json.dumps(reply, ensure_ascii=False), state=False)
    except WebSocketDisconnect:
        pass  # the connection went away
    except Exception as error:
        # Starlette raises RuntimeError for a socket used once it is closed: that is the
        # connection going away too. Anything else (or a RuntimeError on a socket still open)
        # is a bug while a seat sat down: a line in the log, not silence.
        if not (isinstance(error, RuntimeError) and gone(websocket)):
            server.trouble.warn(type(error).__name__, f"websocket: {error!r}")
            await close(1011, "internal error")
    finally:
        if listener is not None:
            room.leave(listener)


async def known_player(websocket: WebSocket) -> Player | None:
    """The player the connection's cookie names (the browser sends it with the upgrade), if
    its secret checks; None without one, or when the database does not answer in time."""
    found = players.read_cookie(websocket.cookies.get(COOKIE))
    if found is None:
        return None
    rooms = server_of(websocket).rooms(websocket)
    try:
        return await rooms.db.call(players.find, rooms.store, *found, time.time())
    except StoreError:
        return None


async def may_sit(websocket: WebSocket, room: Room, player: Player, seat: int | None) -> bool:
    """Whether ``player`` may open the room (a seat, or watch): not when a player they block,
    or who blocks them, sits in another of its seats."""
    others = {s.player for n, s in enumerate(room.seats) if n != seat and s.player is not None}
    if not others:
        return True
    rooms = server_of(websocket).rooms(websocket)
    try:
        blocks = await rooms.db.call(players.blocks_of, rooms.store, player.id)
    except StoreError:
        return True  # the seat's own secret is what opens it; a block only keeps apart
    return not others & {*blocks["block"], *blocks["blocked_by"]}


def gone(websocket: WebSocket) -> bool:
    """Whether either side has closed the socket."""
    closed = (WebSocketState.DISCONNECTED,)
    return websocket.application_state in closed or websocket.client_state in closed


@dataclass(frozen=True)
class Hello:
    """A connection's first message, ``{"type": "hello", "token": …, "events": "new",
    "name": …}`` (D71, D100): the seat's secret ("" for a spectator), whether only the events
    not yet sent are wanted, and the seat's nickname (checked when it is set)."""

    token: str
    new_events: bool
    name: str | None


def read_hello(text: str | None) -> Hello | None:
    """The hello ``text`` says; None when it is no hello."""
    if text is None or len(text) > 512 or '"hello"' not in text:
        return None
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(message, dict) or message.get("type") != "hello":
        return None
    token, name = message.get("token"), message.get("name")
    return Hello(
        token if isinstance(token, str) else "",
        message.get("events") == "new",
        name if isinstance(name, str) and name else None,
    )


async def handle(room: Room, listener: Listener, text: str) -> dict[str, Any] | None:
    """One message from a seat; returns the reply to send it (an error, a hint) or None."""
    error = await _handle(room, listener, text)
    if isinstance(error, dict):
        return error
    return None if error is None else {"type": "error", "message": error}


async def _handle(room: Room, listener: Listener, text: str) -> str | dict[str, Any] | None:
    seat = listener.seat
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):  # bad JSON, an integer of thousands of digits, nesting
        return "malformed JSON"
    if not isinstance(message, dict):
        return "a message is a JSON object"
    kind: Any = message.get("type")  # act, ready (next, rematch), auto, hint, name, start, say
    if "seat" in message and message["seat"] != seat:
        return "you can only act for your own seat"
    if kind == "act":
        return await room.act(seat, message.get("action"), message.get("seq"))
    if kind in ("ready", "next", "rematch"):  # "next": the older name of "ready"
        return await room.next_hand(seat)
    if kind == "name":
        return await room.rename(seat, message.get("name"))
    if kind == "start":
        return await room.start(seat, message.get("bot", "greedy"))
    if kind == "say":
        return room.say(listener, message.get("what"))
    if kind == "auto":
        return await room.set_auto(seat, message.get("on"))
    if kind == "hello":
        return None  # said again (a seat's secret counts in the first message only)
    if kind == "hint":
        if seat is None:
            return "spectators have no hand"
        if room.closed:
            return CLOSED_NOW
        if room.state in (RoomState.WAITING, RoomState.DEALING):  # a deal's write in flight
            return "nothing is dealt yet"
        return room.hint(seat)
    shown = kind if isinstance(kind, str) and len(kind) <= 20 else "?"
    return f"unknown message type {shown!r} (act, ready, auto, hint, name, start, say)"
