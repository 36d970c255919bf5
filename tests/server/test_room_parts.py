"""The parts a room is built of (issue 22, point 9): its state, its seats, its pace."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from paohuzi import native
from paohuzi.engine.match import Match
from paohuzi.server.config import Config
from paohuzi.server.limits import Histogram
from paohuzi.server.pacing import Frame, Pacer
from paohuzi.server.rooms import ELSEWHERE, Listener, Room, Rooms, Seat
from paohuzi.server.roomstate import ALLOWED, IllegalTransition, RoomState, Stage
from paohuzi.server.store import open_store
from tests.pgcluster import db_url

ILLEGAL = [(a, b) for a in RoomState for b in RoomState if b not in ALLOWED[a]]


@pytest.mark.parametrize(("start", "to"), ILLEGAL, ids=[f"{a.value}-{b.value}" for a, b in ILLEGAL])
def test_an_illegal_transition_raises_and_changes_nothing(start: RoomState, to: RoomState) -> None:
    stage = Stage(start)
    with pytest.raises(IllegalTransition, match=f"from {start.value} to {to.value}"):
        stage.to(to)
    assert stage.state is start


def test_a_closed_room_goes_nowhere_and_every_other_state_may_close() -> None:
    assert not ALLOWED[RoomState.CLOSED]
    assert all(RoomState.CLOSED in ALLOWED[s] for s in RoomState if s is not RoomState.CLOSED)
    assert RoomState.PLAYING not in ALLOWED[RoomState.WAITING]  # nothing plays undealt


def _state(room: Room) -> RoomState:
    return room.state  # read afresh (mypy would keep what an earlier assert narrowed)


def test_a_room_goes_through_its_states(tmp_path: Path) -> None:
    async def run() -> None:
        store = open_store(db_url(tmp_path / "states.db"))
        rooms = Rooms(store, Config(bot_delay=0))
        room = await rooms.create([None, "greedy", "greedy"], timer=0, wait=True)
        assert room.state is RoomState.WAITING and room.game is None
        assert await room.next_hand(0) == "the first hand waits for everyone to come"
        assert await room.arrive(0)  # the only person came: dealt, stored, shown
        assert _state(room) is RoomState.PLAYING and not room.dealing
        with pytest.raises(IllegalTransition):
            room.stage.to(RoomState.WAITING)
        assert await room.next_hand(0) == "the hand is not over"
        await room.set_auto(0, True)  # the server plays the hand out for the person
        for _ in range(3000):  # a time: 30 s for what takes well under one, on a loaded machine
            if _state(room) is RoomState.SETTLING:
                break
            await asyncio.sleep(0.01)
        assert _state(room) is RoomState.SETTLING and room.dealt.is_over
        assert await room.next_hand(0) is None
        assert _state(room) in (RoomState.PLAYING, RoomState.SETTLING) and room.hand_no == 1
        room.close()
        room.close()  # twice: the second is nothing
        assert _state(room) is RoomState.CLOSED
        assert await room.act(0, "pass", 0) == "the hand is over"
        rooms.close()
        store.close()

    asyncio.run(run())


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
    assert seat.auto and seat.by_timer
    seat.take_back()  # the person took back control
    assert not seat.auto and not seat.by_timer and seat.timed_out == (1, "pass")
    seat.time_out("discard x7")
    assert seat.auto and seat.by_timer and seat.timed_out == (2, "discard x7")


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


def test_the_pacer_shows_frames_in_order_and_public_ones_apart() -> None:
    async def run() -> None:
        seen: list[tuple[float, Frame]] = []
        pacer = Pacer(0.05, lambda frame: seen.append((time.monotonic(), frame)))
        frames = [
            Frame({0: "offer", None: "offer"}, public=True),
            Frame({0: "question"}, public=False, decider=0),
            Frame({0: "discard", None: "discard"}, public=True),
        ]
        for frame in frames:
            pacer.capture(frame)
        assert not seen and not pacer.queued  # captured: shown only once the change holds
        pacer.show()
        assert not pacer.drained.is_set() and pacer.last_shown(0) is None
        await asyncio.wait_for(pacer.drained.wait(), 20)  # a time: 20 s for 50 ms, loaded CI
        assert [f for _, f in seen] == frames
        assert seen[2][0] - seen[0][0] >= 0.05  # the question took no place in the pace
        assert pacer.shown == {0: "discard", None: "discard"}
        pacer.capture(Frame({}, public=True))  # built for nobody (nobody watched)
        pacer.show()
        await asyncio.wait_for(pacer.drained.wait(), 20)
        assert pacer.shown == {} and len(seen) == 4

    asyncio.run(run())


def test_a_room_plays_on_the_default_core_and_is_restored_on_it(tmp_path: Path) -> None:
    # D101: a room's hand stops at each card on offer, which both cores do, so the room plays
    # on the default core (the native one where it is built; CI runs this suite on both).
    expected = "native" if native.evaluators is not None else "python"

    async def run() -> None:
        store = open_store(db_url(tmp_path / "cores.db"))
        config = Config(bot_delay=0, dev_seeded_deals=True)
        rooms = Rooms(store, config)
        room = await rooms.create([None, None, None], timer=0, seed=11)
        game = room.dealt
        assert game.core == expected and not game.paused
        for _ in range(12):  # a dozen decisions, through the offers on the way
            seat = game.to_act
            if seat is None:
                break
            action = str(game.legal_actions()[0])
            assert await room.act(seat, action, room.seq(seat)) is None
            assert not game.paused  # the room went on from every offer
        again = Rooms(store, config)
        await again.load()
        restored = await again.get(room.id)
        assert restored is not None and restored.dealt is not game
        assert restored.dealt.core == expected and not restored.dealt.paused
        assert restored.dealt.position() == game.position()
        assert restored.dealt.log == game.log
        assert [restored.seq(s) for s in range(3)] == [room.seq(s) for s in range(3)]
        again.close()
        rooms.close()
        store.close()

    asyncio.run(run())
