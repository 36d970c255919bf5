"""Rooms: three seats, a match of hands, bots, turn timers and the views sent to each seat.

The server is authoritative: a seat acts only for itself, only when asked, only with a legal
action, and every message to a seat is built from that seat's observation (a spectator's from
the public one). All changes of a room happen under its lock, in the server's event loop.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from paohuzi.actions import PASS, Action, parse_action
from paohuzi.bots import Bot, ExpertBot, GreedyBot, make_bot
from paohuzi.bots.protocol import event_json, observation_json
from paohuzi.cards import KIND_NAMES, NotationError, format_cards, parse_cards
from paohuzi.game import Game, IllegalAction
from paohuzi.match import Match
from paohuzi.observation import observe
from paohuzi.record import Record, position_json, record_of, replay, result_json
from paohuzi.rules import PRESETS
from paohuzi.server.store import Store, StoredRoom

JSON = dict[str, Any]
Send = Callable[[str], Awaitable[None]]


class Metrics:
    """Server-side latency of handling one action: from its arrival to the new state queued
    for every listener (each listener's writer task then sends it)."""

    def __init__(self, keep: int = 200_000) -> None:
        self.latencies: deque[float] = deque(maxlen=keep)

    def add(self, seconds: float) -> None:
        self.latencies.append(seconds)

    def summary(self) -> JSON:
        values = sorted(self.latencies)
        if not values:
            return {"actions": 0}

        def pct(p: float) -> float:
            return round(values[min(len(values) - 1, int(p * len(values)))] * 1000, 3)

        return {
            "actions": len(values),
            "p50_ms": pct(0.50),
            "p99_ms": pct(0.99),
            "max_ms": pct(1.0),
        }


@dataclass
class SeatInfo:
    """Who sits in a seat: a person (with a secret token) or a bot of a level."""

    token: str
    bot: str | None = None
    name: str = ""

    def to_json(self) -> JSON:
        return {"token": self.token, "bot": self.bot, "name": self.name}


@dataclass
class Listener:
    """A connection watching a room as a seat (or a spectator). Messages go out through a
    queue and a writer task of its own, in order, so a slow client never holds up the room."""

    seat: int | None
    send: Send
    alive: bool = True
    _queue: asyncio.Queue[str] = field(default_factory=asyncio.Queue)
    _writer: asyncio.Task[None] | None = None

    def push(self, text: str) -> None:
        if not self.alive:
            return
        if self._writer is None:
            self._writer = asyncio.create_task(self._write())
        self._queue.put_nowait(text)

    async def _write(self) -> None:
        while True:
            text = await self._queue.get()
            try:
                await self.send(text)
            except Exception:  # a dropped connection: forget it, the game goes on
                self.alive = False
                return

    def close(self) -> None:
        self.alive = False
        if self._writer is not None:
            self._writer.cancel()


@dataclass
class Room:
    """One table: its seats, its match and the hand in play."""

    id: str
    rules: str
    seats: list[SeatInfo]
    match: Match
    timer: float
    store: Store
    metrics: Metrics
    created: float = field(default_factory=time.time)
    bot_delay: float = 0.0
    game: Game | None = None
    listeners: list[Listener] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    bots: list[Bot | None] = field(default_factory=list)
    deadline: float | None = None
    _timer_task: asyncio.Task[None] | None = None

    def __post_init__(self) -> None:
        self.bots = [
            make_bot(s.bot, self.match.seed + i) if s.bot else None
            for i, s in enumerate(self.seats)
        ]

    # ------------------------------------------------------------------ persistence

    def stored(self) -> StoredRoom:
        m = self.match
        return StoredRoom(
            self.id,
            self.created,
            self.rules,
            m.seed,
            self.timer,
            [s.to_json() for s in self.seats],
            m.dealer,
            list(m.totals),
            m.hands,
            m.huangzhuang_streak,
        )

    def _deal(self) -> None:
        self.game = self.match.new_game()
        self.store.start_hand(
            self.id, self.match.hands, self.game.dealer, format_cards(self.game.deck, sort=False)
        )
        self.store.save_room(self.stored())

    # ------------------------------------------------------------------ seats

    def seat_of(self, token: str | None) -> int | None:
        """The seat a token opens; None for no token (a spectator). Raises KeyError."""
        if token is None:
            return None
        for seat, info in enumerate(self.seats):
            if info.bot is None and secrets.compare_digest(info.token, token):
                return seat
        raise KeyError("this token opens no seat of this room")

    # ------------------------------------------------------------------ views

    def view(self, seat: int | None) -> JSON:
        """Everything sent to a seat (or a spectator), from its observation only."""
        game = self.game
        assert game is not None
        obs = observe(game, seat)
        data = observation_json(obs)
        data.update(
            type="state",
            room=self.id,
            you=seat,
            hand_no=self.match.hands + (0 if game.is_over else 1),
            seq=len(game.history),
            events=[event_json(e) for e in obs.events],
            seats=[{"name": s.name or (s.bot or "player"), "bot": s.bot} for s in self.seats],
            totals=list(self.match.totals),
            over=game.is_over,
            result=result_json(game.result),
            deadline=(
                max(0.0, round(self.deadline - time.monotonic(), 1))
                if self.deadline is not None and obs.legal
                else None
            ),
        )
        return data

    def hint(self, seat: int) -> JSON:
        """The seat's current hu-xi and waits (听牌), for the hint button."""
        assert self.game is not None
        huxi, waits = observe(self.game, seat).hint()
        return {
            "type": "hint",
            "huxi": huxi,
            "waits": [{"win": KIND_NAMES[w.win], "huxi": w.huxi, "score": w.points} for w in waits],
        }

    async def broadcast(self) -> None:
        """Queue the new state for every listener (each seat's view built once)."""
        views: dict[int | None, str] = {}
        self.listeners = [li for li in self.listeners if li.alive]
        for listener in self.listeners:
            if listener.seat not in views:
                views[listener.seat] = json.dumps(self.view(listener.seat), ensure_ascii=False)
            listener.push(views[listener.seat])

    # ------------------------------------------------------------------ play

    async def start(self) -> None:
        async with self.lock:
            if self.game is None or self.game.is_over:
                self._deal()
            await self._advance()

    async def act(self, seat: int | None, action_text: Any, seq: Any) -> str | None:
        """A seat's action; returns an error message (nothing changes) or None."""
        started = time.perf_counter()
        async with self.lock:
            game = self.game
            if game is None or game.is_over:
                return "the hand is over"
            if seat is None:
                return "spectators cannot act"
            if game.to_act != seat:
                return "it is not your turn"
            if not isinstance(seq, int) or seq != len(game.history):
                return "stale action: the game has moved on (seq does not match)"
            if not isinstance(action_text, str):
                return "action must be a string like 'peng'"
            try:
                action = parse_action(action_text)
            except NotationError as error:
                return str(error)
            try:
                self._apply(seat, action)
            except IllegalAction as error:
                return str(error)
            await self._advance()
        self.metrics.add(time.perf_counter() - started)
        return None

    async def next_hand(self, seat: int | None) -> str | None:
        async with self.lock:
            if seat is None:
                return "spectators cannot deal"
            if self.game is not None and not self.game.is_over:
                return "the hand is not over"
            self._deal()
            await self._advance()
        return None

    def _apply(self, seat: int, action: Action) -> None:
        game = self.game
        assert game is not None
        game.apply(action)
        self.store.add_action(self.id, self.match.hands, len(game.history) - 1, f"{seat} {action}")

    async def _advance(self) -> None:
        """Let bots play until a person must decide or the hand ends; then tell everyone."""
        game = self.game
        assert game is not None
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            bot = self.bots[seat]
            if bot is None:
                break
            if self.bot_delay:
                await self.broadcast()
                await asyncio.sleep(self.bot_delay)
            obs = observe(game, seat)
            # A thinking bot (the expert searches for about a second) must not stop the server.
            action = (
                await asyncio.to_thread(bot.act, obs)
                if isinstance(bot, ExpertBot)
                else bot.act(obs)
            )
            self._apply(seat, action)
        if game.is_over:
            self._finish()
        self._arm_timer()
        await self.broadcast()

    def _finish(self) -> None:
        game = self.game
        assert game is not None
        self.store.finish_hand(self.id, self.match.hands, record_of(game).to_json())
        self.match.finish(game)
        self.store.save_room(self.stored())

    def _arm_timer(self) -> None:
        if self._timer_task is not None:
            self._timer_task.cancel()
            self._timer_task = None
        self.deadline = None
        game = self.game
        if game is None or game.is_over or not self.timer:
            return
        self.deadline = time.monotonic() + self.timer
        seq = len(game.history)
        self._timer_task = asyncio.create_task(self._expire(seq))

    async def _expire(self, seq: int) -> None:
        """On timeout the seat passes, or discards what the greedy bot would (issue 5)."""
        await asyncio.sleep(self.timer)
        async with self.lock:
            game = self.game
            if game is None or game.is_over or len(game.history) != seq:
                return
            seat = game.to_act
            assert seat is not None
            obs = observe(game, seat)
            self._timer_task = None
            self._apply(seat, PASS if PASS in obs.legal else GreedyBot().act(obs))
            await self._advance()

    def close(self) -> None:
        if self._timer_task is not None:
            self._timer_task.cancel()

    # ------------------------------------------------------------------ history

    def finished_hands(self) -> list[JSON]:
        found = []
        for hand in self.store.hands(self.id):
            if hand.record is None:
                continue
            result = hand.record.get("result") or {}
            found.append(
                {
                    "n": hand.n,
                    "dealer": hand.dealer,
                    "winner": result.get("winner"),
                    "score": result.get("score"),
                    "payments": result.get("payments"),
                }
            )
        return found

    def record(self, n: int) -> JSON | None:
        for hand in self.store.hands(self.id):
            if hand.n == n and hand.record is not None:
                return hand.record
        return None

    def frames(self, n: int) -> list[JSON] | None:
        """A finished hand step by step for the replay viewer: the referee's view after each
        action (the hand is over, so nothing is secret any more)."""
        data = self.record(n)
        if data is None:
            return None
        record = Record.from_json(data)
        game = record.new_game()
        frames: list[JSON] = [
            {
                "action": None,
                "events": [event_json(e) for e in game.log],
                "position": position_json(game),
            }
        ]
        for text in record.actions:
            before = len(game.log)
            game.apply_text(text)
            frames.append(
                {
                    "action": text,
                    "events": [event_json(e) for e in game.log[before:]],
                    "position": position_json(game),
                }
            )
        frames[-1]["result"] = result_json(game.result)
        return frames


class Rooms:
    """All rooms of a server, created fresh or restored from the database."""

    def __init__(self, store: Store, *, bot_delay: float = 0.0) -> None:
        self.store = store
        self.bot_delay = bot_delay
        self.metrics = Metrics()
        self.rooms: dict[str, Room] = {}

    async def create(
        self,
        bots: list[str | None],
        *,
        rules: str = "hunan",
        timer: float = 30.0,
        seed: int | None = None,
    ) -> Room:
        if len(bots) != 3:
            raise ValueError("a room has three seats")
        for level in bots:
            if level is not None:
                make_bot(level)  # raises for an unknown level
        if rules not in PRESETS:
            raise ValueError(f"unknown rules {rules!r}")
        seats = [SeatInfo(secrets.token_urlsafe(12), level) for level in bots]
        room = Room(
            secrets.token_hex(4),
            rules,
            seats,
            Match(PRESETS[rules], seed=seed),
            timer,
            self.store,
            self.metrics,
            bot_delay=self.bot_delay,
        )
        self.rooms[room.id] = room
        self.store.save_room(room.stored())
        await room.start()
        return room

    async def restore(self) -> None:
        """Pick up every room of the database where it was."""
        for stored in self.store.rooms():
            match = Match(PRESETS[stored.rules], seed=stored.seed, dealer=stored.dealer)
            match.totals = list(stored.totals)
            match.hands = stored.hands
            match.huangzhuang_streak = stored.streak
            seats = [SeatInfo(s["token"], s.get("bot"), s.get("name", "")) for s in stored.seats]
            room = Room(
                stored.id,
                stored.rules,
                seats,
                match,
                stored.timer,
                self.store,
                self.metrics,
                created=stored.created,
                bot_delay=self.bot_delay,
            )
            self.rooms[room.id] = room
            hands = self.store.hands(stored.id)
            if not hands:
                await room.start()
                continue
            last = hands[-1]
            outcome = replay(
                Record(stored.rules, last.dealer, parse_cards(last.deck), last.actions)
            )
            if outcome.error is not None:
                raise RuntimeError(
                    f"room {stored.id}: stored hand does not replay: {outcome.error}"
                )
            room.game = outcome.game
            if last.record is None:  # the hand in progress goes on: bots move, timers restart
                async with room.lock:
                    await room._advance()

    def close(self) -> None:
        for room in self.rooms.values():
            room.close()
