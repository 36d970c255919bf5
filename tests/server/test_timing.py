"""Time tells nothing (issue 22, point 7, R8): when a claim window ends tells the 吃 player
nothing of whether another seat could 碰 the card, people thinking at the table included.

The rooms run on a virtual clock (an event loop whose time jumps to its next timer when it
has nothing else to do), so every arrival time is the server's release schedule itself,
whatever the machine's load: two decks that differ only in whether seat 2 holds a pair of
the dealer's first discard, 200 hands each with the same people (the same random thinking
times), and the 吃 player's arrival times are compared with a two-sample Kolmogorov–Smirnov
test. Before D69 the window asked seat 2 only once seat 1 had answered, and seat 1 waited
for seat 2's thinking: its confirmations were bimodal.
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import selectors
import time
import types
from bisect import bisect_right
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest

import paohuzi.server.rooms as rooms_module
from paohuzi.engine.actions import PASS, ActionType, discard
from paohuzi.engine.cards import KIND_NAMES
from paohuzi.engine.position import ClaimWindow, Discarding
from paohuzi.server.config import Config
from paohuzi.server.database import Database
from paohuzi.server.rooms import Listener, Room, Rooms
from paohuzi.server.store import open_store
from tests import scenario
from tests.clock import PATIENCE
from tests.pgcluster import db_url

DEALER, CHI_SEAT, PENG_SEAT = 0, 1, 2
LAST = 79  # the last wall card: never drawn in the few moves played
SEED = 1  # a development room's seed whose first dealer is seat 0
PACE = 0.5
HANDS = 200


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0
        self.busy = 0
        """Database calls in flight (in the database's threads): the clock waits for them."""

    def monotonic(self) -> float:
        return self.now


class Jumping(selectors.DefaultSelector):
    """A selector that, with nothing ready, moves the clock to the next timer at once, once
    no database call is in flight (a call's thread works in real time, and wakes the loop
    when it is done): the database takes no virtual time, as a synchronous store did."""

    def __init__(self, clock: Clock) -> None:
        super().__init__()
        self.clock = clock

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        ready = super().select(0)
        if not ready and timeout != 0 and self.clock.busy:
            ready = super().select(PATIENCE)
            if not ready:
                raise RuntimeError(f"a database call took over {PATIENCE:g} s")
        elif not ready and timeout:
            self.clock.now += timeout
        elif not ready and timeout is None:
            raise RuntimeError("the rooms wait for nothing: a deadlock")
        return ready


def run_virtual(main: Coroutine[Any, Any, Any], clock: Clock) -> Any:
    loop = asyncio.SelectorEventLoop(Jumping(clock))
    loop.time = clock.monotonic  # type: ignore[method-assign]
    write, call = Database.write, Database._call

    def counted(method: Callable[..., Coroutine[Any, Any, Any]]) -> Callable[..., Any]:
        async def counting(self: Database, *args: Any, **kwargs: Any) -> Any:
            clock.busy += 1
            try:
                return await method(self, *args, **kwargs)
            finally:
                clock.busy -= 1

        return counting

    Database.write = counted(write)  # type: ignore[method-assign]
    Database._call = counted(call)  # type: ignore[method-assign]
    try:
        return loop.run_until_complete(main)
    finally:
        Database.write, Database._call = write, call  # type: ignore[method-assign]
        loop.close()


def sibling_decks() -> tuple[list[int], list[int], int]:
    """Two decks alike but for one card of seat 2 (swapped with the last wall card), and the
    dealer's first discard: in both seat 1 may 吃 it (the same options); in the first seat 2
    may 碰 it too, in the second seat 2 may do nothing with it."""
    for deck, other, card, a, b in scenario.sibling_decks(22, DEALER, PENG_SEAT, 20_000):
        pa, pb = a.phase, b.phase
        if not (isinstance(pa, ClaimWindow) and isinstance(pb, ClaimWindow)):
            continue
        if pa.asking != (CHI_SEAT, PENG_SEAT) or pb.asking != (CHI_SEAT,):
            continue
        if pa.offered != pb.offered or not all(x.type is ActionType.CHI for x in pa.offered):
            continue
        peng = a.clone()
        peng.apply(PASS)
        if {x.type for x in peng.legal_actions()} != {ActionType.PENG, ActionType.PASS}:
            continue
        return deck, other, card
    raise AssertionError("no pair of sibling decks found")


async def until(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0.001)  # virtual: costs nothing


async def hands(deck: list[int], card: int, tmp: Path, clock: Clock) -> list[tuple[float, ...]]:
    """``HANDS`` hands from ``deck`` (:func:`one_hand`), each with its own thinking times."""
    store = open_store(db_url(tmp))
    rooms = Rooms(store, Config(bot_delay=PACE, dev_seeded_deals=True))
    try:
        return [await one_hand(rooms, card, random.Random(i), clock) for i in range(HANDS)]
    finally:
        rooms.close()
        store.close()


async def one_hand(rooms: Rooms, card: int, rng: random.Random, clock: Clock) -> tuple[float, ...]:
    """The dealer discards ``card``, seat 1 answers 吃 after d1 and seat 2, when asked, passes
    after d2; seat 1's question and confirmation arrival times, from the discard and from its
    answer."""
    d1, d2 = rng.uniform(0, 2 * PACE), rng.uniform(0, 0.9 * PACE)
    room = await rooms.create([None, None, None], timer=0, seed=SEED)
    await until(lambda: room.frames.drained.is_set())
    times: dict[str, float] = {}
    tasks: list[asyncio.Task[Any]] = []

    async def answer(seat: int, action: str, after: float) -> None:
        seq = room.seq(seat)
        await asyncio.sleep(after)
        if seat == CHI_SEAT:
            times["answered"] = clock.now
        assert await room.act(seat, action, seq) is None

    def sender(seat: int) -> Any:
        async def send(text: str) -> None:
            message = json.loads(text)
            legal = message.get("legal") or []
            if seat == CHI_SEAT and "answered" in times and "confirmed" not in times:
                times["confirmed"] = clock.now
            if not legal or "discarded" not in times or message["type"] != "state":
                return
            if seat == CHI_SEAT and "asked" not in times:
                times["asked"] = clock.now
                tasks.append(asyncio.create_task(answer(seat, legal[0], d1)))
            elif seat == PENG_SEAT and "pass" in legal:
                tasks.append(asyncio.create_task(answer(seat, "pass", d2)))

        return send

    async def close(code: int, reason: str) -> None:
        pass

    for seat in (DEALER, CHI_SEAT, PENG_SEAT):
        listener = Listener(seat, sender(seat), close, 1000)
        first = room.join(listener)
        assert first is not None
        listener.push(first)
    await until(lambda: room.frames.drained.is_set())
    times["discarded"] = clock.now
    assert await room.act(DEALER, str(discard(card)), room.seq(DEALER)) is None
    await until(lambda: "confirmed" in times)
    await asyncio.gather(*tasks)
    await until(lambda: room.frames.drained.is_set())
    game = room.game
    assert game is not None and game.to_act == CHI_SEAT  # it took the card: it discards
    room.close()
    del rooms.rooms[room.id]
    return (times["asked"] - times["discarded"], times["confirmed"] - times["answered"])


def ks_statistic(a: list[float], b: list[float]) -> float:
    """The two-sample Kolmogorov–Smirnov statistic: the largest gap of the two empirical
    distribution functions."""
    a, b = sorted(a), sorted(b)
    return max(
        abs(bisect_right(a, v) / len(a) - bisect_right(b, v) / len(b)) for v in sorted({*a, *b})
    )


def test_ks_statistic() -> None:
    assert ks_statistic([1, 2, 3], [1, 2, 3]) == 0
    assert ks_statistic([1, 2], [3, 4]) == 1
    assert ks_statistic([1, 2, 3, 4], [3, 4, 5, 6]) == 0.5


def test_the_chi_players_times_tell_nothing_of_another_seats_peng(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_peng, without, card = sibling_decks()
    clock = Clock()
    fake = types.SimpleNamespace(
        monotonic=clock.monotonic, time=time.time, perf_counter=time.perf_counter
    )
    monkeypatch.setattr(rooms_module, "time", fake)
    results = []
    for name, deck in (("a", with_peng), ("b", without)):
        monkeypatch.setattr(Room, "new_deck", lambda self, deck=deck: list(deck))
        results.append(run_virtual(hands(deck, card, tmp_path / f"{name}.db", clock), clock))
    asked, unasked = results
    assert len(asked) == len(unasked) == HANDS
    # The bar of a two-sample KS test at the 0.1 % level, for 200 samples each.
    bar = 1.95 * math.sqrt(2 / HANDS)
    for what in range(2):  # the question's arrival, then the confirmation after the answer
        a = [round(t[what], 6) for t in asked]
        b = [round(t[what], 6) for t in unasked]
        assert ks_statistic(a, b) < bar, (what, ks_statistic(a, b), a[:10], b[:10])
    # The confirmations are not all at once either: the pace shows (the test can see a gap).
    assert max(t[1] for t in unasked) > 0.2 * PACE


async def one_window(
    deck: list[int],
    card: int,
    tmp: Path,
    play: Callable[[Room], Coroutine[Any, Any, None]],
    *,
    seen: dict[int, list[Any]] | None = None,
    auto: tuple[int, ...] = (),
    **kw: Any,
) -> Room:
    """Deal ``deck`` (people in every seat, watched; the seats of ``seen`` connected, the
    states each is sent kept there; those of ``auto`` on 托管), the dealer discards ``card``;
    then ``play`` the window."""
    store = open_store(db_url(tmp))
    rooms = Rooms(store, Config(bot_delay=PACE, dev_seeded_deals=True))
    room = await rooms.create([None, None, None], seed=SEED, **kw)

    async def send(text: str) -> None:
        pass

    async def close(code: int, reason: str) -> None:
        pass

    def keeper(states: list[Any]) -> Callable[[str], Coroutine[Any, Any, None]]:
        async def keep(text: str) -> None:
            states.append(json.loads(text))

        return keep

    room.join(Listener(None, send, close, 1000))
    for seat, states in (seen or {}).items():
        room.join(Listener(seat, keeper(states), close, 1000))
    for seat in auto:
        assert await room.set_auto(seat, True) is None
    await until(lambda: room.frames.drained.is_set())
    assert await room.act(DEALER, str(discard(card)), room.seq(DEALER)) is None
    await until(lambda: room.frames.drained.is_set())
    try:
        await play(room)
    finally:
        room.close()
        rooms.close()
        store.close()
    return room


def test_an_answer_given_before_the_engines_turn_is_played_in_its_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deck, _, card = sibling_decks()
    monkeypatch.setattr(Room, "new_deck", lambda self: list(deck))

    async def play(room: Room) -> None:
        game = room.game
        assert game is not None and game.to_act == CHI_SEAT
        # Seat 2 was asked at the opening: it answers 碰 while seat 1 still thinks.
        assert await room.act(PENG_SEAT, "peng", room.seq(PENG_SEAT)) is None
        assert game.to_act == CHI_SEAT
        assert await room.act(PENG_SEAT, "pass", room.seq(PENG_SEAT)) is not None  # once
        assert await room.act(CHI_SEAT, "pass", room.seq(CHI_SEAT)) is None
        await until(lambda: room.frames.drained.is_set())
        assert game.to_act == PENG_SEAT and isinstance(game.phase, Discarding)
        assert [str(a) for _, a in game.history][-2:] == ["pass", "peng"]
        assert room.db.store.last_hand(room.id).actions[-2:] == ["1 pass", "2 peng"]  # type: ignore[union-attr]

    clock = Clock()
    run_virtual(one_window(deck, card, tmp_path / "db", play, timer=0), clock)


def test_a_window_timer_passes_for_every_person_still_to_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    deck, _, card = sibling_decks()
    monkeypatch.setattr(Room, "new_deck", lambda self: list(deck))
    clock = Clock()
    fake = types.SimpleNamespace(
        monotonic=clock.monotonic, time=time.time, perf_counter=time.perf_counter
    )
    monkeypatch.setattr(rooms_module, "time", fake)

    async def play(room: Room) -> None:
        game = room.game
        assert game is not None
        opened = clock.now
        await until(lambda: game.to_act not in (CHI_SEAT, PENG_SEAT) or room.seats[CHI_SEAT].auto)
        await until(lambda: room.frames.drained.is_set())
        assert 10 <= clock.now - opened < 15  # one timer for the window (not 20: one a seat)
        assert room.seats[CHI_SEAT].auto and room.seats[PENG_SEAT].auto
        assert [str(a) for _, a in game.history][1:3] == ["pass", "pass"]

    run_virtual(one_window(deck, card, tmp_path / "db", play, timer=10), clock)


def test_a_window_timeout_tells_each_person_at_once_on_its_question(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each person whose time ran out in a window is told so at once (D116), on the question
    as it was put: whether the engine had come to that seat yet (another's answer) shows
    nowhere (R8)."""
    deck, _, card = sibling_decks()
    monkeypatch.setattr(Room, "new_deck", lambda self: list(deck))
    clock = Clock()
    fake = types.SimpleNamespace(
        monotonic=clock.monotonic, time=time.time, perf_counter=time.perf_counter
    )
    monkeypatch.setattr(rooms_module, "time", fake)
    seen: dict[int, list[Any]] = {CHI_SEAT: [], PENG_SEAT: []}

    async def play(room: Room) -> None:
        game = room.game
        assert game is not None
        asked = {s: states[-1]["legal"] for s, states in seen.items()}
        assert asked[CHI_SEAT] and asked[PENG_SEAT] == ["pass", "peng"]
        await until(lambda: room.seats[CHI_SEAT].auto)
        await until(lambda: room.frames.drained.is_set())
        for seat, states in seen.items():
            told = next(m for m in states if m["type"] == "state" and m["auto"][seat])
            # Before the table moved on: the card still on offer, the question as it was put.
            assert told["offer"] == KIND_NAMES[card] and told["legal"] == asked[seat]
            assert told["timed_out"][seat] == {"n": 1, "action": "pass"}
            assert told["deadline"] is None

    run_virtual(one_window(deck, card, tmp_path / "db", play, seen=seen, timer=10), clock)


def test_taking_back_control_while_tuoguan_answers_a_window_keeps_its_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seat 2, on 托管 when the window opened, had its computer asked at once (D69); its
    person takes back control before the engine's turn comes: the computer's answer stands
    (the question was never put to the person), and the window goes on (D116)."""
    deck, _, card = sibling_decks()
    monkeypatch.setattr(Room, "new_deck", lambda self: list(deck))
    clock = Clock()

    async def play(room: Room) -> None:
        game = room.game
        assert game is not None and game.to_act == CHI_SEAT
        assert await room.set_auto(PENG_SEAT, False) is None
        assert await room.act(CHI_SEAT, "pass", room.seq(CHI_SEAT)) is None
        end = clock.now + PATIENCE  # virtual seconds: a stall, not a speed
        while len(game.history) < 3:  # the discard, seat 1's pass and seat 2's answer
            assert clock.now < end, "the window waits for an answer nobody is asked for"
            await asyncio.sleep(0.001)
        assert not room.seats[PENG_SEAT].auto

    run_virtual(one_window(deck, card, tmp_path / "db", play, auto=(PENG_SEAT,), timer=0), clock)
