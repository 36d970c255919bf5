"""The parts a room is built of (issue 22, point 9): its seats."""

from __future__ import annotations

import asyncio

from paohuzi.match import Match
from paohuzi.server.config import Config
from paohuzi.server.limits import Histogram
from paohuzi.server.rooms import ELSEWHERE, Listener, Room, Seat


async def _unused(text: str) -> None:
    raise AssertionError("nothing is sent in these tests")


def test_a_seat_stores_who_sits_in_it_and_nothing_of_the_table() -> None:
    seat = Seat("secret", None, "阿明", joined=True)
    seat.auto, seat.own_actions, seat.ready = True, 7, True
    seat.time_out("pass")
    stored = seat.to_json()
    assert stored == {"token": "secret", "bot": None, "name": "阿明", "joined": True}
    again = Seat.from_json(stored)
    assert (again.token, again.bot, again.name, again.joined) == ("secret", None, "阿明", True)
    assert not again.auto and again.own_actions == 0 and again.timed_out is None
    assert "token" not in seat.public()


def test_a_seat_stored_before_joined_was_counts_as_come() -> None:
    assert Seat.from_json({"token": "t", "bot": None}).joined


def test_each_timeout_is_numbered_and_puts_the_seat_on_auto() -> None:
    seat = Seat("t")
    seat.time_out("pass")
    seat.auto = False  # the person took back control
    seat.time_out("discard x7")
    assert seat.auto and seat.timed_out == (2, "discard x7")


def test_a_seat_keeps_one_connection_the_newest() -> None:
    closed: list[int] = []

    async def close(code: int, reason: str) -> None:
        closed.append(code)

    async def run() -> None:
        seats = [Seat("a"), Seat("b", "greedy"), Seat("c", "greedy")]
        # No database and no bots: joining and leaving touch neither.
        room = Room("r", "hunan", seats, Match(), 0, None, Config(), None, Histogram())  # type: ignore[arg-type]
        first, second = (Listener(0, _unused, close, 10) for _ in range(2))
        watcher = Listener(None, _unused, close, 10)
        for listener in (first, watcher, second):
            assert room.join(listener) is not None  # the waiting room
        await asyncio.sleep(0)
        assert closed == [ELSEWHERE] and not first.alive
        assert seats[0].listener is second and room.watchers == [watcher]
        assert room.listeners == [second, watcher]
        room.leave(first)  # the old connection's handler ends: the seat keeps the new one
        assert seats[0].listener is second
        room.leave(second)
        room.leave(watcher)
        assert room.listeners == []

    asyncio.run(run())
