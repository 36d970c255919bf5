"""Rooms: the seats, a match of hands, bots, turn timers and what each seat is shown.

The server is authoritative: a seat acts only for itself, only when asked, only with a legal
action, and every message to a seat is built from that seat's observation (a spectator's from
the public one). All changes of a room happen under its lock, in the server's event loop.

Three promises shape this module (docs/security.md):

* **Durable before visible.** An action is stored before it is applied; a deal is stored
  before any seat sees it. A failed write is an error to the one who acted, and changes
  nothing.
* **Nothing public moves on a hidden event.** Who is asked in a claim window is hidden (R8).
  Seats are shown *frames*: one at every public moment — a card put on offer (whether or not
  anyone may claim it), a seat that must discard, the end of the hand — and, privately, a
  question to the one person it is put to. A hidden answer makes no frame; every seat's
  ``seq`` counts only what it may see. Frames are paced (``bot_delay`` apart: :mod:`pacing`),
  and bots answer hidden questions within that pace, so timing tells nothing either. A claim
  window that asks two seats or more asks at its opening every seat whose question no earlier
  answer can change (:class:`Window`, D69): the engine takes their answers in its order, but
  nobody waits for such a seat to *start* thinking, so when the window ends tells the others
  nothing of it; a person who thinks longer than the pace (and than everyone else asked) is
  seen to think, as at any table. A seat's 托管 (the server playing for it, D33) shows to the
  others only at its discards and at the end of the hand.
* **Unpredictable deals.** Every deck comes from the operating system's CSPRNG, and each seat
  is shown a commitment to it at the deal (:mod:`paohuzi.engine.fairdeal`); the record reveals the
  salt. Seeded decks exist only behind ``Config.dev_seeded_deals``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import random
import secrets
import time
import unicodedata
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any

from paohuzi.bots.greedy import GreedyBot
from paohuzi.bots.protocol import event_json, observation_json
from paohuzi.engine.actions import PASS, Action, ActionType, parse_action
from paohuzi.engine.cards import (
    KIND_NAMES,
    Kind,
    NotationError,
    format_cards,
    full_deck,
    parse_cards,
)
from paohuzi.engine.fairdeal import SCHEME, SCHEME_TERMS, commitment, deal_terms
from paohuzi.engine.game import Game, IllegalAction
from paohuzi.engine.groups import Group, GroupType
from paohuzi.engine.match import Match
from paohuzi.engine.observation import (
    Observation,
    observe,
    public_observation,
    seat_observation,
    seen_event,
)
from paohuzi.engine.position import ClaimWindow, Discarding
from paohuzi.engine.record import record_of, result_json
from paohuzi.engine.rules import RuleSet
from paohuzi.server import ratings, standing
from paohuzi.server.botrunner import BotRunner, searches
from paohuzi.server.config import Config
from paohuzi.server.database import READ_DEADLINE, Database
from paohuzi.server.limits import Bucket, Histogram
from paohuzi.server.pacing import Frame, Pacer
from paohuzi.server.players import Player
from paohuzi.server.roomrules import room_rules
from paohuzi.server.roomstate import RoomState, RoomStateError, Stage
from paohuzi.server.store import (
    CLOSED,
    QUARANTINED,
    LeaseLost,
    Store,
    StoredHand,
    StoredRoom,
    StoreError,
)
from paohuzi.server.views import SeatEvents, StateParts, StateText, events_text

JSON = dict[str, Any]
Send = Callable[[str], Awaitable[None]]
Close = Callable[[int, str], Coroutine[Any, Any, None]]
log = logging.getLogger("paohuzi.server")

RETRY = 1.0
"""Seconds before a room tries again a write that failed (a bot's move, a timeout)."""
STANDING_TRIES = 8
"""How often players' standing is tried again (:meth:`Room.keep_standing`), RETRY, 2 RETRY,
4 RETRY … apart: about four minutes in all."""
SAVING_NOTICE = 1.0
"""Seconds a room's write may wait before its clients are told that saving is delayed."""
SAVE_FAILED = "the server could not save this move; nothing changed, try again"
CLOSED_NOW = "the room closed meanwhile: reconnect"
QUICK = "quick"
"""A room's ``listed`` when the quick-play queue made it (its seats are its players')."""
TOO_SLOW = 4008
"""WebSocket close code for a connection that fell too far behind: reconnect for the state."""
GONE = 4410
"""WebSocket close code for a room that closed."""
MOVED = 4503
"""WebSocket close code for a room another process of the hall holds now: reconnect."""
RANK = {ActionType.HU: 3, ActionType.PENG: 2, ActionType.CHI: 1}
"""Claims, highest first (R8); a claim outranks a later one of its rank or lower."""
HAND_SEQ = 1_000_000
"""``seq`` of hand *n* starts at n × this (a hand has a few hundred events at most)."""
ELSEWHERE = 4409
"""WebSocket close code for a seat's connection another one took the seat from (issue 22):
the seat has one live connection, the newest; the old one's page offers to take it back."""


class RoomError(ValueError):
    """A request for a room that cannot be met; its message says why, for the client."""


class Closed(RoomError):
    """The room closed (idle, moved to another process of the hall) while a connection came."""


class Full(RoomError):
    """The server holds as many rooms (or a room as many connections) as it may."""


class Elsewhere(Exception):
    """The room is held by another live process of the hall, at ``address`` (D61)."""

    def __init__(self, address: str) -> None:
        super().__init__(address)
        self.address = address


_OWN_KEYS = ("seat", "hand", "tables", "chou", "chou_hu", "legal")
"""The keys of :func:`observation_json` that differ from one viewer to another."""
_encode = json.JSONEncoder(ensure_ascii=False).encode
"""``json.dumps(…, ensure_ascii=False)`` without making an encoder at each call."""


def _same_log(game: Game, hand: Game) -> bool:
    """Whether ``game`` (a look ahead of ``hand``) has logged nothing more than ``hand``: the
    same count of events, the last one the same object."""
    n = game.event_count
    if n == 0 or n != hand.event_count:
        return False
    return game.events_since(n - 1)[0] is hand.events_since(n - 1)[0]


def reveal_of(game: Game) -> JSON:
    """The end of a hand opens everything (the record shows the deck): every hand, every table
    face up, the wall left, and the winner's hu-xi group by group (R10.6)."""
    hu = game.result.hu if game.result is not None else None
    rules = game.rules
    return {
        "hands": [format_cards(game.hand_cards(s)) for s in range(len(game.hands))],
        "tables": [[str(g) for g in t] for t in game.tables],
        "wall": format_cards(game.position().wall, sort=False),
        "group_huxi": list(hu.group_huxi) if hu is not None else [],
        "winning_group": winning_group(game),
        "self_draw_deng": rules.self_draw_bonus if hu and hu.score.self_drawn else 0,
        "deng_base": rules.deng_base,
        "deng_step": rules.deng_step,
        "haidi_fan": rules.haidi_fan if hu and hu.score.haidi else 0,
    }


def winning_group(game: Game) -> int | None:
    """Which of the winning arrangement's groups holds the winning card (the settlement marks
    that one card, not every card of its kind): the first group made at the win (not one the
    winner had on the table) that holds its kind and is no 坎, which was held whole before;
    else the last group that holds it. None for no winning card (荒庄, a forced 天胡)."""
    result = game.result
    hu = result.hu if result is not None else None
    if result is None or hu is None or result.win is None or result.winner is None:
        return None
    laid = Counter(str(g) for g in game.tables[result.winner])
    made: list[int] = []
    for i, group in enumerate(hu.groups):
        if laid[str(group)]:
            laid[str(group)] -= 1
        else:
            made.append(i)
    holding = [i for i in range(len(hu.groups)) if result.win in hu.groups[i].cards]
    first = [i for i in made if i in holding and hu.groups[i].type is not GroupType.KAN]
    return first[0] if first else (holding[-1] if holding else None)


@dataclass(eq=False)
class Seat:
    """One seat of a room: who sits in it (a person with a secret token, or a bot of a level),
    what is stored of it, and what the room keeps of it while it runs (not stored)."""

    token: str
    bot: str | None = None
    name: str = ""
    joined: bool = False
    """A person who has opened the seat's link at least once: dealing waits for every one."""
    listener: Listener | None = None
    """The seat's one live connection, the newest (:meth:`Room.join`)."""
    auto: bool = False
    """托管: the server plays greedy for the seat until its person takes back control: acts,
    says ready, or asks (the page asks at a touch of a card or a button; D116)."""
    auto_shown: bool = False
    """托管 as the other seats see it: it changes only when the seat discards or the hand
    ends, so a timeout on a hidden question shows nobody that the seat was asked (R8)."""
    timed_out: tuple[int, str] | None = None
    """The last action the timer played for the seat, numbered, for the table to say so."""
    by_timer: bool = False
    """The seat's 托管 began with :attr:`timed_out`: until its person takes back control the
    seat is shown what the timer played (the others, as ever, only a discard)."""
    own_actions: int = 0
    """The seat's actions in the hand in play (part of its ``seq``)."""
    ready: bool = False
    """A person who said they are ready for the next hand (after a restart, says it again)."""
    bot_trouble: bool = False
    """The seat's bot failed once and was replaced by greedy (logged once)."""
    hint: tuple[tuple[int, int], JSON] | None = None
    """The last hint worked out for the seat, with the state it was for."""
    player: str | None = None
    """The player (:mod:`players`) who sits here, if a known one took the seat: their
    public id, never their secret (issue 25)."""
    avatar: int | None = None
    """That player's avatar, an index into the shipped set."""
    left_hand: int = -1
    """The last hand the seat's player was counted as leaving (once a hand)."""

    @classmethod
    def from_json(cls, data: JSON) -> Seat:
        """A seat as stored (``joined`` missing: stored before it was, so come)."""
        seat = cls(
            data["token"], data.get("bot"), data.get("name", ""), bool(data.get("joined", True))
        )
        seat.player, seat.avatar = data.get("player"), data.get("avatar")
        return seat

    def time_out(self, action: str) -> None:
        """The timer played ``action`` for the seat, and put it on 托管 (D33)."""
        count = self.timed_out[0] + 1 if self.timed_out is not None else 1
        self.auto, self.by_timer, self.timed_out = True, True, (count, action)

    def take_back(self) -> None:
        """The seat's person takes back control: 托管 ends (D116)."""
        self.auto = self.by_timer = False

    def control(self) -> tuple[bool, bool, tuple[int, str] | None]:
        """Who plays the seat, as :meth:`restore` puts it back when a change is not stored."""
        return self.auto, self.by_timer, self.timed_out

    def restore(self, control: tuple[bool, bool, tuple[int, str] | None]) -> None:
        self.auto, self.by_timer, self.timed_out = control

    def to_json(self) -> JSON:
        found: JSON = {
            "token": self.token,
            "bot": self.bot,
            "name": self.name,
            "joined": self.joined,
        }
        if self.player is not None:
            found |= {"player": self.player, "avatar": self.avatar}
        return found

    def public(self) -> JSON:
        """What everyone may know of the seat: a player's public profile (id, name, avatar),
        never a secret."""
        return {
            "name": self.name,
            "bot": self.bot,
            "joined": self.joined or self.bot is not None,
            "player": self.player,
            "avatar": self.avatar,
        }


NAME_LENGTH = 16
"""Longest nickname, in characters."""
PHRASES = ("hello", "hurry", "nice", "luck", "sorry", "again", "thanks", "bye")
"""Quick phrases (常用语) a seat may say: the page holds their words in each language."""
EMOJI = ("like", "laugh", "wow", "cry", "angry", "flower")
"""Reactions a seat may show: the page draws each."""
SAYINGS = frozenset(PHRASES + EMOJI)
MATCH_LENGTHS = range(0, 100)
"""Hands in a match: 0 for no end, else 1–99."""


def clean_name(value: Any) -> str:
    """A nickname as shown to everyone: printable characters only (no control, format or
    direction marks), spaces collapsed, at most :data:`NAME_LENGTH`; raises ValueError."""
    if not isinstance(value, str):
        raise ValueError("a name is a string")
    kept = "".join(
        " " if ch.isspace() else ch
        for ch in unicodedata.normalize("NFC", value[: 4 * NAME_LENGTH])
        if ch.isspace() or unicodedata.category(ch)[0] not in "CZ"
    )
    name = " ".join(kept.split())
    if not name:
        raise ValueError("a name needs at least one visible character")
    if len(name) > NAME_LENGTH:
        raise ValueError(f"a name has at most {NAME_LENGTH} characters")
    return name


class Listener:
    """A connection watching a room as a seat (or a spectator). Messages go out through a
    bounded queue and a writer task of its own, in order; a connection that falls more than
    the queue behind is dropped (it reconnects to the full state), so it costs the server
    no more than the queue."""

    def __init__(
        self,
        seat: int | None,
        send: Send,
        close: Close,
        limit: int,
        *,
        new_events: bool = False,
        send_times: Histogram | None = None,
    ) -> None:
        self.seat = seat
        self.alive = True
        self._send = send
        self._close = close
        self._queue: asyncio.Queue[tuple[str, float]] = asyncio.Queue(limit)
        self._send_times = send_times
        """Where the time from a message's push to the end of its send is counted."""
        self._writer: asyncio.Task[None] | None = None
        self._last: str | None = None
        self.new_events = new_events
        """Whether the client asked for only the events it was not sent yet (D100)."""
        self._events: tuple[list[str], int] | None = None
        """The events list of the last state sent and how many of them it held."""
        self.sayings = Bucket(0.5, 3)
        """Quick phrases and reactions: one every two seconds, bursts of three."""

    def push(self, text: str, *, state: bool = True) -> None:
        """Queue a message; the same state twice in a row is sent once."""
        if not self.alive or (state and text == self._last):
            return
        if state:
            self._last = text
            if self.new_events:
                text = self._new_events(text)
        if self._writer is None:
            self._writer = asyncio.create_task(self._write())
        try:
            self._queue.put_nowait((text, time.perf_counter()))
        except asyncio.QueueFull:
            self.drop(TOO_SLOW, "too far behind: reconnect")

    def _new_events(self, text: str) -> str:
        """The state with only the events this connection was not sent: those of the same
        hand's list after the ones the last state held (anything else is sent whole)."""
        sent, self._events = self._events, None
        if not isinstance(text, StateText):
            return text
        self._events = (text.parts, text.held)
        if sent is not None and sent[0] is text.parts and sent[1] <= text.held:
            return text.since(sent[1])
        return text

    async def _write(self) -> None:
        while True:
            text, pushed = await self._queue.get()
            try:
                await self._send(text)
            except Exception:  # a dropped connection: forget it, the game goes on
                self.alive = False
                return
            if self._send_times is not None:
                self._send_times.add(time.perf_counter() - pushed)

    def close(self) -> None:
        self.alive = False
        if self._writer is not None:
            self._writer.cancel()

    def drop(self, code: int, reason: str) -> None:
        """Stop sending and close the connection with ``code``."""
        self.close()
        task = asyncio.create_task(self._close(code, reason))
        task.add_done_callback(lambda t: t.cancelled() or t.exception())


@dataclass
class Window:
    """A claim window that asks two seats or more (R8), every one of them asked when it opens
    (D69). The engine asks in turn; an answer given before the engine's turn comes waits here
    and is played (stored, then applied) when it does: one outranked meanwhile is a pass, one
    the engine no longer asks for is dropped. Computer seats decide at the opening too."""

    key: tuple[int, int]
    """The hand and the length of its log when the window opened (answers log nothing)."""
    questions: dict[int, Observation]
    """Each asked seat's question as if everyone before it passed: its widest options."""
    views: dict[int | None, str]
    """The states that put them to the people asked (for one who reconnects meanwhile)."""
    asked: dict[int, Game]
    """The hand as the engine will ask each of those people (the first one's is the hand in
    play, unchanged until it answers): the state that tells one whose time ran out is made
    from it, so it shows nothing of how far the others' answers took the engine (R8)."""
    answers: dict[int, Action] = field(default_factory=dict)
    done: set[int] = field(default_factory=set)
    """Seats whose answers the engine has taken."""
    pending: dict[int, asyncio.Task[tuple[Action, str | None]]] = field(default_factory=dict)
    """Computer seats' decisions, under way or done."""

    def cancel(self) -> None:
        for task in self.pending.values():
            task.cancel()


@dataclass
class Room:
    """One table: its seats (:class:`Seat`), its match, the hand in play and its state
    (:class:`~paohuzi.server.roomstate.RoomState`, changed only along the allowed transitions);
    what it shows goes out through its :class:`~paohuzi.server.pacing.Pacer` (D80)."""

    id: str
    rules_text: str
    """The rules as stored: a preset's name, or a rule set's JSON (:mod:`roomrules`); the
    :class:`RuleSet` is :attr:`ruleset`."""
    seats: list[Seat]
    match: Match
    timer: float
    db: Database
    config: Config
    runner: BotRunner
    metrics: Histogram
    seeded: bool = False
    length: int = 0
    """Hands in a match (0: no end)."""
    match_start: int = 0
    """Number of the first hand of the match in play (hands before it belong to earlier
    matches of the room)."""
    match_no: int = 1
    awaits_everyone: bool = False
    """Created to deal only when its people have come."""
    listed: str = ""
    """Shown in the open-table list: "quick", "public", or "" (invites only)."""
    hooks: RoomHooks = field(default_factory=lambda: RoomHooks())
    """What the hall is told of the room (a finished match, a player who left)."""
    creator: str = ""
    """Who created the room (a client address), for the per-address limit; not stored."""
    created: float = field(default_factory=time.time)
    active: float = field(default_factory=time.time)
    game: Game | None = None
    """The hand dealt last (None while :attr:`RoomState.WAITING`)."""
    stage: Stage = field(default_factory=Stage)
    hand_no: int = 0
    salt: str = ""
    commitment: str = ""
    watchers: list[Listener] = field(default_factory=list)
    """Spectators' connections (a seat's is its :attr:`Seat.listener`)."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    deadline: float | None = None
    finishing: bool = False
    """The hand is over but its record is not stored yet (a write failed): retried."""
    _driver: asyncio.Task[None] | None = None
    _timer_task: asyncio.Task[None] | None = None
    _retries: set[asyncio.TimerHandle | asyncio.Task[None]] = field(default_factory=set)
    """Retries waiting or under way (:meth:`_retry`). A closed room keeps them (a finished
    hand is still stored); the process's end cancels them (:meth:`Rooms.stop_retries`)."""
    _rng: random.Random = field(default_factory=lambda: random.Random(secrets.randbits(64)))
    _window: Window | None = None
    _delayed: int = 0
    """Writes of the room waiting longer than :data:`SAVING_NOTICE` (its clients are told)."""
    _seat_events: SeatEvents = field(default_factory=SeatEvents)
    _parts: StateParts = field(default_factory=StateParts)

    def __post_init__(self) -> None:
        self.ruleset: RuleSet = room_rules(self.rules_text)[1]
        self.frames = Pacer(self.config.bot_delay, self._deliver)
        """What the seats are shown, in order and at the room's pace (:mod:`pacing`)."""
        if self.seeded:
            self._rng = random.Random(self.match.seed)

    # ------------------------------------------------------------------ state

    @property
    def state(self) -> RoomState:
        return self.stage.state

    @property
    def dealing(self) -> bool:
        """A deal is in ``game`` whose write is in flight: nothing of it may be shown yet."""
        return self.stage.state is RoomState.DEALING

    @property
    def closed(self) -> bool:
        return self.stage.state is RoomState.CLOSED

    @property
    def dealt(self) -> Game:
        """The hand dealt last; only once one is (past :attr:`RoomState.WAITING`)."""
        game = self.game
        if game is None:
            raise RoomStateError(f"room {self.id}: nothing is dealt ({self.state.value})")
        return game

    # ------------------------------------------------------------------ seats and views

    @property
    def listeners(self) -> list[Listener]:
        """Every connection of the room: the seats' and the spectators'."""
        return [s.listener for s in self.seats if s.listener is not None] + self.watchers

    @listeners.setter
    def listeners(self, found: list[Listener]) -> None:
        for seat in self.seats:
            seat.listener = None
        self.watchers = []
        for listener in found:
            if listener.seat is None:
                self.watchers.append(listener)
            else:
                self.seats[listener.seat].listener = listener

    def _seats_json(self) -> list[JSON]:
        return [s.to_json() for s in self.seats]

    def seat_of(self, token: str | None) -> int | None:
        """The seat a token opens; None for no token (a spectator). Raises KeyError."""
        if token is None:
            return None
        given = token.encode("utf-8", "replace")
        for seat, info in enumerate(self.seats):
            if info.bot is None and secrets.compare_digest(info.token.encode(), given):
                return seat
        raise KeyError("this token opens no seat of this room")

    def seq(self, seat: int | None, game: Game | None = None) -> int:
        """The number of a seat's state: the hand, the events it has seen and the decisions it
        made. Hidden answers of the others do not count, so ``seq`` reveals none of them; the
        hand does, so an answer sent during one hand is stale in every later one."""
        game = game or self.dealt
        own = self.seats[seat].own_actions if seat is not None else 0
        return self.hand_no * HAND_SEQ + game.event_count + own

    def view_text(self, seat: int | None, game: Game | None = None) -> str:
        """:meth:`view` as the JSON text sent (:meth:`view_texts` of one seat)."""
        return self.view_texts((seat,), game)[seat]

    def view_texts(
        self, seats: Sequence[int | None], game: Game | None = None
    ) -> dict[int | None, str]:
        """:meth:`view` of each of ``seats`` as the JSON text sent. What every viewer is shown
        alike is observed and turned into JSON once for all of them, each part of a state
        only when it has changed since the last (:class:`views.StateParts`), the events once
        each (:mod:`views`): a :class:`StateText` for the hand in play and for a look ahead
        of it that has logged nothing more (a claim window's question: the log is the
        hand's)."""
        game = game or self.dealt
        parts = self._parts
        public = public_observation(game, events=False)
        tables = parts.tables(game, public)
        facts = parts.facts(self._room_facts(game))
        tail = ", " + parts.public(public) + ", " + facts
        hand = self.game
        same_log = hand is not None and (game is hand or _same_log(game, hand))
        texts: dict[int | None, str] = {}
        for seat in seats:
            own, table_huxi, choosing = parts.own(game, seat, tables)
            mine = _encode(self._own_facts(game, seat, choosing))[1:-1]
            head = "{" + own + ', "table_huxi": ' + table_huxi + ", " + mine + tail
            if same_log:
                assert hand is not None
                texts[seat] = StateText.of(head, *self._seat_events.joined(hand, seat))
            else:
                texts[seat] = head + ', "events": ' + events_text(game, seat) + "}"
        return texts

    def view(self, seat: int | None, game: Game | None = None, *, events: bool = True) -> JSON:
        """Everything sent to a seat (or a spectator), from its observation only (``events``
        False: all but the log, which :meth:`view_texts` adds): the seat's own part
        (:meth:`_own_view`), then what every viewer is shown alike (:meth:`_shared_view`)."""
        game = game or self.dealt
        shared, public, public_json = self._shared_view(game)
        data = {**self._own_view(game, seat, public, public_json), **shared}
        if events:
            data["events"] = [event_json(seen_event(e, seat)) for e in game.log]
        return data

    def _shared_view(self, game: Game) -> tuple[JSON, Observation, JSON]:
        """What every viewer of ``game`` is shown alike, with the public observation and its
        JSON it was made from (:func:`observation_json`'s public part)."""
        public = public_observation(game, events=False)
        public_json = observation_json(public)
        data = {k: v for k, v in public_json.items() if k not in _OWN_KEYS}
        data.update(self._room_facts(game))
        return data, public, public_json

    def _room_facts(self, game: Game) -> JSON:
        """The room's part of what every viewer is shown alike."""
        return {
            "type": "state",
            "room": self.id,
            "hand_no": self.hand_no + 1,
            "seats": [s.public() for s in self.seats],
            # The rule family its seats' ratings are in (the page shows each player's).
            "family": ratings.family(self.ruleset),
            "host": self.host,
            "match": self.match_info(game),
            "totals": list(self.match.totals),
            "over": game.is_over,
            "result": result_json(game.result),
            "commitment": self.commitment,
            "timer": self.timer,
            "ready": [s.ready or s.bot is not None for s in self.seats],
            "reveal": reveal_of(game) if game.is_over else None,
        }

    def _own_view(
        self, game: Game, seat: int | None, public: Observation, public_json: JSON
    ) -> JSON:
        """What ``seat`` is shown that another viewer may be shown otherwise: its observation's
        own parts (hand, tables, 臭, choices), the hu-xi of the tables as it sees them, and
        :meth:`_own_facts`."""
        obs = public if seat is None else seat_observation(public, game, seat, events=False)
        data = observation_json(obs, public_json)
        own = {k: data[k] for k in _OWN_KEYS}
        own["table_huxi"] = [
            [game.rules.huxi.group(g) if isinstance(g, Group) else None for g in table]
            for table in obs.tables
        ]
        own.update(self._own_facts(game, seat, bool(obs.legal)))
        return own

    def _own_facts(self, game: Game, seat: int | None, choosing: bool) -> JSON:
        """The room's part of what ``seat`` is shown alone: its number, its timer (while it
        has a choice to make), who is on 托管 and what the timer played as it may know them."""
        deciding = choosing and seat is not None and not self.seats[seat].auto
        return {
            "you": seat,
            "seq": self.seq(seat, game),
            "deadline": self._remaining() if deciding and self.timer else None,
            "auto": [s.auto if n == seat else s.auto_shown for n, s in enumerate(self.seats)],
            "timed_out": [self._timed_out_for(seat, s) for s in range(len(self.seats))],
        }

    @property
    def host(self) -> int | None:
        """The seat that may start the hand before everyone has come: the first person's; at
        a quick-play table, of strangers, the first person's that has come (one who never
        comes must not leave the others with nobody able to start)."""
        people = [s for s, info in enumerate(self.seats) if info.bot is None]
        if self.listed == QUICK:
            return next((s for s in people if self.seats[s].joined), people[0] if people else None)
        return people[0] if people else None

    def match_info(self, game: Game | None = None) -> JSON:
        """The match in play: its length, the hands played in it, and whether it is over."""
        game = game if game is not None else self.game
        played = self.match.hands - self.match_start
        over = (
            bool(self.length)
            and played >= self.length
            and game is not None
            and game.is_over
            and not self.finishing
        )
        return {"length": self.length, "played": played, "no": self.match_no, "over": over}

    def lobby(self, seat: int | None) -> JSON:
        """The waiting room, before the first deal: who has come, what will be played."""
        return {
            "type": "lobby",
            "room": self.id,
            "you": seat,
            "host": self.host,
            "seats": [s.public() for s in self.seats],
            "rules": self.rules_text,
            "timer": self.timer,
            "match": self.match_info(),
        }

    def _show_lobby(self) -> None:
        for listener in self.listeners:
            listener.push(json.dumps(self.lobby(listener.seat), ensure_ascii=False))

    async def arrive(self, seat: int | None) -> bool:
        """A connection opened: a person's seat has come. The first hand is dealt when every
        person has come (stored first: a seat that is not stored as come is not counted).
        Whether the room showed everyone something new (the waiting room, the deal)."""
        if seat is None or self.state is not RoomState.WAITING or self.seats[seat].joined:
            # Nothing to do, and no wait for the lock (a write in flight holds it): the
            # connection's first state goes out before any frame that write brings.
            return False
        async with self.lock:
            if seat is None or self.state is not RoomState.WAITING or self.seats[seat].joined:
                return False
            self.seats[seat].joined = True
            try:
                await self._save("set_seats", self._seats_json())
            except StoreError as error:
                self.seats[seat].joined = False
                log.warning("room %s: could not store a seat's arrival: %s", self.id, error)
                return False
            if self.closed:
                return False  # closed while the write was stored: whoever opens it next deals
            if all(s.joined or s.bot is not None for s in self.seats):
                await self._first_deal()
                return self.state is not RoomState.WAITING
            self._show_lobby()
            return True

    async def rename(self, seat: int | None, value: Any) -> str | None:
        """A person's nickname; shown in the waiting room now, at the table from the next
        moment on (a frame is never made for it: it could run ahead of the table)."""
        if seat is None:
            return "spectators have no name at the table"
        try:
            name = clean_name(value)
        except ValueError as error:
            return str(error)
        async with self.lock:
            before = self.seats[seat].name
            if before == name:
                return None
            self.seats[seat].name = name
            try:
                await self._save("set_seats", self._seats_json())
            except StoreError as error:
                self.seats[seat].name = before
                log.warning("room %s: could not store a name: %s", self.id, error)
                return SAVE_FAILED
            if self.state is RoomState.WAITING:
                self._show_lobby()
        return None

    async def start(self, seat: int | None, level: Any) -> str | None:
        """The host deals now: every person's seat not yet come is played by a bot."""
        if seat is None or seat != self.host:
            return "only the host may start before everyone has come"
        if not isinstance(level, str) or len(level) > 32:
            return "start takes a bot level for the empty seats"
        try:
            self.config.bot_spec(level)
        except ValueError as error:
            return str(error)
        async with self.lock:
            if self.state is not RoomState.WAITING:
                return "the hand is dealt already"
            before = [s.bot for s in self.seats]
            for info in self.seats:
                if info.bot is None and not info.joined:
                    info.bot = level
            try:
                await self._save("set_seats", self._seats_json())
            except StoreError as error:
                for info, bot in zip(self.seats, before, strict=True):
                    info.bot = bot
                log.warning("room %s: could not store the seats: %s", self.id, error)
                return SAVE_FAILED
            # Links of seats a bot took now open nothing: those listeners watch instead.
            for info in self.seats:
                if info.bot is not None and info.listener is not None:
                    info.listener.drop(4403, "a bot took this seat")
                    info.listener = None
            await self._first_deal()
        return None

    async def _first_deal(self) -> None:
        """Deal the first hand, stored before anyone sees it; a failed write is tried again."""
        if self.closed:
            return  # closed while the seats were stored: whoever opens it next deals
        hand = self.deal()
        try:
            await self._save("start_hand", hand, None)
        except StoreError as error:
            log.warning("room %s: could not store the first deal: %s", self.id, error)
            if self.closed:
                return
            self.game = None
            self.stage.to(RoomState.WAITING)
            self.frames.captured.clear()
            self._retry(self._retry_first_deal, RETRY)
            return
        await self.shown_deal()
        if any(s.bot is not None and self._searches(s.bot) for s in self.seats):
            self.runner.warm()

    def _searches(self, name: str) -> bool:
        return _searches(self.config, name)

    def _retry(self, work: Callable[[], Awaitable[None]], delay: float = 0.0) -> None:
        """Run ``work`` under the room's lock after ``delay`` seconds; kept until done, so
        that the process's end cancels it (no task is left to a closed event loop)."""

        async def locked() -> None:
            async with self.lock:
                await work()

        def start() -> None:
            self._retries.discard(handle)
            self._track(locked())

        handle = asyncio.get_running_loop().call_later(delay, start)
        self._retries.add(handle)

    def _track(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` as one of the room's retries (:attr:`_retries`) until it is done."""
        task = asyncio.get_running_loop().create_task(work)
        self._retries.add(task)
        task.add_done_callback(self._retries.discard)

    async def _retry_first_deal(self) -> None:
        if self.state is RoomState.WAITING and all(s.joined or s.bot for s in self.seats):
            await self._first_deal()

    def say(self, listener: Listener, what: Any) -> str | None:
        """A quick phrase or a reaction from a seat, shown to everyone in the room."""
        if listener.seat is None:
            return "spectators watch in silence"
        if not isinstance(what, str) or what not in SAYINGS:
            return "say one of the phrases or reactions the table offers"
        if not listener.sayings.take():
            return "too many reactions: wait a moment"
        text = json.dumps({"type": "said", "seat": listener.seat, "what": what})
        for other in self.listeners:
            other.push(text, state=False)
        return None

    def _timed_out_for(self, viewer: int | None, seat: int) -> JSON | None:
        """What the timer played for ``seat``, if ``viewer`` may know: its own while the 托管
        it began lasts (the table says so, and offers control back), or a discard (public); a
        pass on a hidden question is the seat's own business (R8)."""
        info = self.seats[seat]
        found = info.timed_out
        if found is None or (viewer == seat and not info.by_timer):
            return None
        if viewer != seat and not found[1].startswith("discard"):
            return None
        return {"n": found[0], "action": found[1]}

    def _remaining(self) -> float:
        if self.deadline is None:
            return float(self.timer)
        return max(0.0, round(self.deadline - time.monotonic(), 1))

    def hint(self, seat: int) -> JSON:
        """The seat's current hu-xi and waits (听牌), for the hint button: worked out once for
        each state of the seat (it takes the event loop up to milliseconds), however often a
        client asks."""
        key = (self.hand_no, self.seq(seat))
        known = self.seats[seat].hint
        if known is not None and known[0] == key:
            return known[1]
        obs = observe(self.dealt, seat, events=False)
        huxi, waits = obs.hint()
        unseen = obs.unseen()
        found = {
            "type": "hint",
            "huxi": huxi,
            "waits": [
                {"win": KIND_NAMES[w.win], "huxi": w.huxi, "score": w.points, "left": unseen[w.win]}
                for w in waits
            ],
        }
        self.seats[seat].hint = (key, found)
        return found

    async def enter(self, listener: Listener, token: str | None = None) -> str | None:
        """:meth:`join` under the room's lock: a write in flight has changed the room (a deal,
        a finished hand) before it is stored, and a newcomer is shown only what is stored. If
        the room waits for its database, the newcomer is told so at once. ``token``, the
        secret that opened the listener's seat, is checked again under the lock (raises
        KeyError): the host may have revoked it, or a bot taken the seat, meanwhile."""
        waiting = self._delayed > 0
        if waiting:
            listener.push(json.dumps({"type": "saving", "delayed": True}), state=False)
        async with self.lock:
            if self.seat_of(token) != listener.seat:
                raise KeyError("this token opens no seat of this room")
            first = self.join(listener)
        if waiting and not self._delayed:
            listener.push(json.dumps({"type": "saving", "delayed": False}), state=False)
        return first

    def join(self, listener: Listener) -> str | None:
        """Add a connection; returns its first state (None: the next frame brings it).
        Watchers are limited, so they cannot keep the players out; a seat has one connection,
        the newest: one that had it is closed (:data:`ELSEWHERE`), its page told. A closed
        room raises :class:`Closed` (the connection reconnects and finds the room anew)."""
        if self.closed:
            raise Closed(CLOSED_NOW)
        self.watchers = [li for li in self.watchers if li.alive]
        if listener.seat is None:
            if len(self.watchers) >= self.config.listeners_per_room:
                raise Full("this room has as many watchers as it takes; try again later")
            self.watchers.append(listener)
        else:
            seat = self.seats[listener.seat]
            if seat.listener is not None:
                seat.listener.drop(ELSEWHERE, "this seat was opened elsewhere")
            seat.listener = listener
        if self.state is RoomState.WAITING:
            return json.dumps(self.lobby(listener.seat), ensure_ascii=False)
        # While frames wait to be shown, a newcomer starts from the last one shown, as everyone
        # else does: the state now may be ahead of what the table has seen.
        shown = self.frames.last_shown(listener.seat)
        window = self._window_now(self.dealt)
        if (
            shown is None
            and window is not None
            and listener.seat not in window.answers
            and listener.seat not in window.done
        ):
            shown = window.views.get(listener.seat)  # its question, asked at the opening
        return shown or self.view_text(listener.seat)

    def leave(self, listener: Listener) -> None:
        listener.close()
        if listener.seat is None:
            if listener in self.watchers:
                self.watchers.remove(listener)
        elif self.seats[listener.seat].listener is listener:
            self.seats[listener.seat].listener = None

    # ------------------------------------------------------------------ frames

    def _offers(self, game: Game) -> None:
        """Go on through the cards the game put on offer (it stops at each, D101): each is a
        public moment, captured as it was, before anyone is asked (R8)."""
        while game.paused:
            self.frames.capture(self._frame(game, public=True))
            game.resume()

    def _frame(self, game: Game, *, public: bool, only: int | None = None) -> Frame:
        if not any(li.alive for li in self.listeners):
            return Frame({}, public)  # nobody watches: nothing to build, nothing to pace
        seats: list[int | None] = [only] if only is not None else [*range(len(self.seats)), None]
        return Frame(self.view_texts(seats, game), public)

    async def _settle(self) -> None:
        """After a change: the frame of the moment reached, then show what was captured. Under
        the room's lock: an answer given ahead of its turn is stored and played here."""
        game = self.dealt
        seat = game.to_act
        person = seat is not None and not self._computer(seat)
        window = self._window_now(game, opening=True)
        if window is not None and seat is not None and seat in window.questions:
            if seat in window.answers and await self._play_answered(game, seat, window):
                return  # played: that settled the room
            if person or window.pending.get(seat) is not None:
                self.frames.show()  # asked at the opening already: nothing new to show
                self._kick()
                return
        if game.is_over or isinstance(game.phase, Discarding):
            frame = self._frame(game, public=True)
        elif person:
            frame = self._frame(game, public=False, only=seat)  # a hidden question
        else:
            frame = None  # a bot's (or 托管's) hidden question: nothing to show
        if frame is not None:
            if person:
                frame.decider = seat
            self.frames.capture(frame)
        self.frames.show()

    def _window_now(self, game: Game, *, opening: bool = False) -> Window | None:
        """The claim window in play; with ``opening`` (only when the room settles) opened now
        if it is a new one that asks two seats or more while anyone watches. None for any
        other moment."""
        phase = game.phase
        if not isinstance(phase, ClaimWindow):
            return None
        key = (self.hand_no, game.event_count)
        window = self._window
        if window is not None and window.key == key:
            return window
        if not opening:
            return None
        if window is not None:
            window.cancel()
            self._window = None
        if len(phase.asking) < 2 or not any(li.alive for li in self.listeners):
            return None
        return self._open_window(game, key)

    def _open_window(self, game: Game, key: tuple[int, int]) -> Window:
        """Ask the seats of the window at once: each is shown (or, a computer seat, decides
        on) what the engine will ask it. A seat is asked now only if no option of it can be
        outranked by an option of a seat before it, so the engine asks it exactly that
        question whatever the others answer; the others are asked in turn, as before."""
        questions: dict[int, Observation] = {}
        views: dict[int | None, str] = {}
        asked: dict[int, Game] = {}
        ahead = game
        above = 0  # the highest rank an earlier seat may claim
        while isinstance(ahead.phase, ClaimWindow) and ahead.event_count == key[1]:
            seat = ahead.phase.to_act
            ranks = [RANK[a.type] for a in ahead.phase.offered]
            if seat in questions or not ranks:
                break
            if min(ranks) > above:
                questions[seat] = observe(ahead, seat)
                if not self._computer(seat):
                    views[seat] = self.view_text(seat, ahead)
                    asked[seat] = ahead
            above = max(above, *ranks)
            ahead = ahead.clone()
            ahead.apply(PASS)
        window = Window(key, questions, views, asked)
        self._window = window
        for seat, obs in questions.items():
            if self._computer(seat) and seat != game.to_act:
                window.pending[seat] = asyncio.create_task(self._decide(seat, obs))
        if views:
            self.frames.capture(Frame(views, public=False, window=True))
        return window

    async def _decide(self, seat: int, obs: Observation) -> tuple[Action, str | None]:
        """A computer seat's answer to a hidden question, within the room's pace."""
        name = self.seats[seat].bot or "greedy"
        limit = self.config.bot_delay if self.config.bot_delay else None
        return await self.runner.decide(name, self._rng.randrange(2**32), obs, limit=limit)

    async def _play_answered(self, game: Game, seat: int, window: Window) -> bool:
        """Play the answer the seat gave ahead of its turn (a pass if it is outranked now).
        False when it could not be stored: it waits, and is tried again."""
        action = window.answers[seat]
        if action not in game.legal_actions():
            action = PASS
        try:
            await self._commit(seat, action)
        except StoreError as error:
            log.warning("room %s: could not store an answer: %s", self.id, error)
            self._retry(self._retry_settle, RETRY)
            return False
        window.answers.pop(seat, None)
        return True

    async def _retry_settle(self) -> None:
        if self.state in (RoomState.PLAYING, RoomState.SETTLING):
            await self._settle()

    def _computer(self, seat: int) -> bool:
        """Whether the server decides for the seat: a bot, or a person on 托管."""
        return self.seats[seat].bot is not None or self.seats[seat].auto

    def _deliver(self, frame: Frame) -> None:
        """A frame's time has come (:class:`Pacer`): each connection gets its view, and the
        timer of whoever it asks starts."""
        if frame.views:
            for listener in self.listeners:
                text = frame.views.get(listener.seat)
                if text is not None:
                    listener.push(text)
        if frame.decider is not None:
            self._arm_timer(frame.decider)
        if frame.window:
            self._arm_window_timer()

    # ------------------------------------------------------------------ play

    async def act(self, seat: int | None, action_text: Any, seq: Any) -> str | None:
        """A seat's action; returns an error message (nothing changes) or None."""
        started = time.perf_counter()
        async with self.lock:
            if self.state is not RoomState.PLAYING:
                return "the hand is over"
            game = self.dealt
            if seat is None:
                return "spectators cannot act"
            window = self._window_now(game)
            early = (
                window is not None
                and game.to_act != seat
                and seat in window.questions
                and seat not in window.answers
                and seat not in window.done
                and bool(window.questions[seat].legal)
            )
            # Stale first: an action sent twice (two tabs, a retry) waits for the lock while
            # the first is stored and the bots move on; it is the same stale one whoever is
            # to act by then.
            if type(seq) is not int or seq != self.seq(seat):
                return "stale action: the game has moved on (seq does not match)"
            if game.to_act != seat and not early:
                return "it is not your turn"
            if not isinstance(action_text, str) or len(action_text) > 64:
                return "action must be a string like 'peng'"
            try:
                action = parse_action(action_text)
            except NotationError as error:
                return f"unreadable action: {error}"
            if early:
                assert window is not None
                if action not in window.questions[seat].legal:
                    return f"illegal action {action}: not one of your options"
                # Kept until the engine asks this seat; the seat's question is withdrawn.
                window.answers[seat] = action
                self.seats[seat].take_back()
                self.frames.capture(self._frame(game, public=False, only=seat))
                self.frames.show()
                self.metrics.add(time.perf_counter() - started)
                return None
            control = self.seats[seat].control()
            self.seats[seat].take_back()  # a person who acts has taken back control
            try:
                await self._commit(seat, action)
            except IllegalAction as error:
                self.seats[seat].restore(control)
                return f"illegal action: {error}"
            except StoreError as error:
                self.seats[seat].restore(control)
                log.warning("room %s: could not store an action: %s", self.id, error)
                return SAVE_FAILED
        self.metrics.add(time.perf_counter() - started)
        return None

    async def _save(self, kind: str, *args: Any) -> Any:
        """Store one write of the room (:meth:`Database.write`), under the room's lock: the
        room changes and shows nothing meanwhile. A write the database keeps waiting for is
        kept, not refused: after :data:`SAVING_NOTICE` the room's clients are told that
        saving is delayed and their moves are kept, and told again once it is stored."""
        # A timer, not a wait_for around the write: each layer of futures costs the write a
        # turn of the event loop, and a busy loop's turn takes milliseconds.
        told = False

        def late() -> None:
            nonlocal told
            told = True
            self._saving(+1)

        notice = asyncio.get_running_loop().call_later(SAVING_NOTICE, late)
        try:
            return await self.db.write(kind, self.id, *args)
        finally:
            notice.cancel()
            if told:
                self._saving(-1)

    def _saving(self, change: int) -> None:
        before = self._delayed
        self._delayed += change
        if (before == 0) != (self._delayed == 0):
            text = json.dumps({"type": "saving", "delayed": self._delayed > 0})
            for listener in self.listeners:
                listener.push(text, state=False)

    async def _commit(self, seat: int, action: Action) -> None:
        """Store, then apply, then show. Raises IllegalAction or StoreError: nothing changed."""
        game = self.dealt
        if action not in game.legal_actions():
            game.clone().apply(action)  # raises IllegalAction, saying why
        index = len(game.history)
        await self._save("add_action", self.hand_no, index, f"{seat} {action}")
        if self.closed:
            return  # closed while it was stored: the stored log has it, whoever opens it next
        try:
            self.active = time.time()
            window = self._window_now(game)
            if window is not None:
                window.done.add(seat)
            if window is None or all(s in window.answers for s in self._waiting(window, seat)):
                self._cancel_timer()  # else the window's timer runs on for the others asked
            self.seats[seat].own_actions += 1  # first: frames built during the action count it
            if action.type is ActionType.DISCARD:  # a public move: the table sees its 托管 now
                self.seats[seat].auto_shown = self.seats[seat].auto
            game.apply(action)
            self._offers(game)
            if window is not None and self._window_now(game) is not window:
                self._cancel_timer()  # the window is over
            if game.is_over:
                self.stage.to(RoomState.SETTLING)
                for info in self.seats:  # the record opens every answer anyway
                    info.auto_shown = info.auto
                await self._finish()
            await self._settle()
            self._kick()
        except Exception:
            # A bug: the rule sets that reach a room are checked (issue 22), so nothing should
            # fail once the action is stored. Never silently: whoever asked gets an error too.
            log.exception(
                "room %s: hand %d action %d (%s %s) was stored, then failed",
                self.id,
                self.hand_no,
                index,
                seat,
                action,
            )
            raise

    def _waiting(self, window: Window, answering: int) -> list[int]:
        """People asked in ``window`` whose answers the engine has not had yet, but
        ``answering``'s: those the window's timer still runs for."""
        phase = self.dealt.phase
        asking = phase.asking if isinstance(phase, ClaimWindow) else ()
        return [
            s for s in asking if s != answering and s in window.questions and not self._computer(s)
        ]

    def new_deck(self) -> list[Kind]:
        """The next hand's deck: from the CSPRNG, or the match's seed in development."""
        if self.seeded:
            return list(self.match.new_game().deck)
        deck = full_deck()
        secrets.SystemRandom().shuffle(deck)
        return deck

    def deal(self) -> StoredHand:
        """Deal the next hand in memory (shown to nobody yet); returns what must be stored
        before it may be shown (:meth:`shown_deal`). Raises :class:`IllegalTransition`, having
        changed nothing, in a room that may not deal (a closed one)."""
        self.stage.to(RoomState.DEALING)
        deck = self.new_deck()
        self.salt = secrets.token_hex(32)
        self.hand_no = self.match.hands
        self.commitment = commitment(deck, self.salt, self._terms(self.match.dealer))
        for info in self.seats:
            info.own_actions, info.ready = 0, False
        self.frames.captured.clear()
        if self._window is not None:
            self._window.cancel()
            self._window = None
        self.game = Game(self.ruleset, dealer=self.match.dealer, deck=deck, pause_at_offers=True)
        self._offers(self.game)
        return StoredHand(
            self.hand_no,
            self.match.dealer,
            format_cards(deck, sort=False),
            [],
            None,
            self.salt,
            self.commitment,
        )

    async def shown_deal(self) -> None:
        """The dealt hand is stored: show it, let bots and timers go."""
        if self.closed:
            return  # closed while the deal was stored: whoever opens the room next shows it
        over = self.dealt.is_over  # a forced 天胡 (R2)
        self.stage.to(RoomState.SETTLING if over else RoomState.PLAYING)
        if over:
            await self._finish()
        await self._settle()
        self._kick()

    async def next_hand(self, seat: int | None) -> str | None:
        """The seat is ready for the next hand, which is dealt once every person at the table
        is (bots always are). At the end of a match, ready is for a rematch: a new match of
        the same length, the same seats and the same links, its score from zero. A person who
        says ready is at the table: the seat's 托管 ends (D116)."""
        async with self.lock:
            if seat is None:
                return "spectators cannot deal"
            if self.state is RoomState.WAITING:
                return "the first hand waits for everyone to come"
            if self.state is not RoomState.SETTLING:
                return "the hand is not over"
            info = self.seats[seat]
            info.ready = True
            info.take_back()
            info.auto_shown = False  # the hand is over: 托管 shows to all, as readiness does
            if not all(info.ready for info in self.seats if info.bot is None):
                await self._settle()  # show the table who is ready
                return None
            if self.finishing:
                await self._finish()
                if self.finishing:
                    return SAVE_FAILED
            if self.closed:
                return CLOSED_NOW
            rematch = self.match_info()["over"]
            previous = (
                self.game,
                self.salt,
                self.commitment,
                self.hand_no,
                [(info.own_actions, info.ready) for info in self.seats],
                self.match.totals,
                self.match_start,
                self.match_no,
            )
            if rematch:
                self.match.totals = [0] * len(self.seats)
                self.match_start = self.match.hands
                self.match_no += 1
            hand = self.deal()
            try:
                await self._save("start_hand", hand, self.stored() if rematch else None)
            except StoreError as error:
                log.warning("room %s: could not store a deal: %s", self.id, error)
                if self.closed:
                    return SAVE_FAILED
                self.stage.to(RoomState.SETTLING)
                (
                    self.game,
                    self.salt,
                    self.commitment,
                    self.hand_no,
                    counts,
                    self.match.totals,
                    self.match_start,
                    self.match_no,
                ) = previous
                for info, (own, ready) in zip(self.seats, counts, strict=True):
                    info.own_actions, info.ready = own, ready
                self.frames.captured.clear()
                return SAVE_FAILED
            self.active = time.time()
            await self.shown_deal()
        return None

    async def _finish(self) -> None:
        """Store the finished hand's record and the new score; on failure, try again later."""
        game = self.dealt
        assert game.result is not None
        match = self.match
        before = (match.totals[:], match.hands, match.dealer, match.huangzhuang_streak)
        match.finish(game)
        stored = self.stored()
        after = (match.totals[:], match.hands, match.dealer, match.huangzhuang_streak)
        # The match counts the hand once it is stored, not while its write waits.
        match.totals, match.hands, match.dealer, match.huangzhuang_streak = before
        try:
            await self._save("finish_hand", stored, self.hand_no, self.record())
        except StoreError as error:
            log.warning("room %s: could not store a finished hand: %s", self.id, error)
            self.finishing = True
            if not isinstance(error, LeaseLost):  # another process holds the room: it finishes
                self._retry(self._retry_finish, RETRY)
            return
        match.totals, match.hands, match.dealer, match.huangzhuang_streak = after
        self.finishing = False
        await self.keep_standing(game)

    async def keep_standing(self, game: Game) -> None:
        """The finished hand, stored, in its known players' profiles, and the match rated if
        the hand ends it and the quick-play queue seated the room (:mod:`standing`; each
        once, however often this is called). A table whose seats its host chose is not rated:
        a host could seat players of their own making to lose to them (D121)."""
        players = [s.player for s in self.seats]
        if all(p is None for p in players):
            return
        family = ratings.family(self.ruleset)
        db, room, hand_no = self.db, self.id, self.hand_no
        rate: Callable[[], Awaitable[bool]] | None = None
        if self.listed == QUICK and self.match_info(game)["over"]:
            rate = functools.partial(
                standing.on_match_over,
                db,
                room,
                self.match_no,
                family,
                players,
                [self._bot_level(s.bot) for s in self.seats],
                list(self.match.totals),
                self.match.hands - self.match_start,
            )

        async def keep() -> bool:
            kept = await standing.on_hand_over(db, room, hand_no, family, players, game)
            return (await rate() if rate is not None else True) and kept

        if not await keep():
            self._keep_later(keep)

    def _keep_later(self, keep: Callable[[], Awaitable[bool]]) -> None:
        """Try ``keep`` (players' standing the database did not take) again, after 1, 2, 4 …
        seconds, :data:`STANDING_TRIES` times at most; apart from the room's lock (the table
        plays on) and kept when the room closes (nobody else would store it); the process's
        end cancels it (a restart keeps the last hand's standing, :meth:`Rooms._restore`; D173)."""

        async def again() -> None:
            for attempt in range(STANDING_TRIES):
                await asyncio.sleep(RETRY * 2**attempt)
                if await keep():
                    return
            log.warning("room %s: players' standing of a hand given up", self.id)

        self._track(again())

    def _bot_level(self, name: str | None) -> str | None:
        """The bot spec a seat's bot name stands for (its rating's reference), if offered."""
        if name is None:
            return None
        try:
            return self.config.bot_spec(name)
        except ValueError:
            return None

    async def _retry_finish(self) -> None:
        # Also once the room closed meanwhile (idle): nobody else would store it.
        if self.finishing and self.game is not None and self.game.is_over:
            await self._finish()

    def record(self) -> JSON:
        """The hand's F4 record, with the opened deal commitment once it is over."""
        game = self.dealt
        data = record_of(game).to_json()
        data["hand"] = self.hand_no
        terms = self._terms(game.dealer)
        deal: JSON = {"scheme": SCHEME_TERMS, "commitment": self.commitment, "terms": terms}
        if self.commitment == commitment(game.deck, self.salt):  # dealt before issue 22
            deal = {"scheme": SCHEME, "commitment": self.commitment}
        if game.is_over:
            deal["salt"] = self.salt
        data["deal"] = deal
        return data

    def _terms(self, dealer: int) -> str:
        """What the deal of the hand in play commits to beside its deck (paohuzi-deal/2)."""
        return deal_terms(self.hand_no, dealer, self.ruleset.to_json())

    # ------------------------------------------------------------------ bots and timers

    def _kick(self) -> None:
        """Let the bots play, in the background, if one is to act."""
        if self.state is not RoomState.PLAYING:
            return
        seat = self.dealt.to_act
        if seat is None or not self._computer(seat):
            return
        if self._driver is None or self._driver.done():
            self._driver = asyncio.create_task(self._drive())

    async def _drive(self) -> None:
        """Bots move until a person must decide or the hand ends."""
        while True:
            await self.frames.drained.wait()  # decide on what the table has been shown
            game = self.game
            if self.state is not RoomState.PLAYING or game is None or game.to_act is None:
                return
            seat = game.to_act
            name = self.seats[seat].bot or ("greedy" if self.seats[seat].auto else None)
            if name is None:
                return
            key = self.seq(seat)
            obs = observe(game, seat)
            # A hidden question (a claim, a win on one's own draw) is answered within the
            # room's pace, so how long it took shows nothing (R8).
            hidden = PASS in obs.legal
            window = self._window_now(game)
            early = window.pending.pop(seat, None) if window is not None else None
            if early is not None:  # decided when the window opened, on its widest question
                action, trouble = await early
                if action not in obs.legal:
                    action = PASS  # outranked meanwhile
            else:
                action, trouble = await self.runner.decide(
                    name,
                    self._rng.randrange(2**32),
                    obs,
                    limit=self.config.bot_delay if hidden and self.config.bot_delay else None,
                )
            if trouble is not None and not self.seats[seat].bot_trouble:
                self.seats[seat].bot_trouble = True
                log.warning(
                    "room %s: bot %s (seat %d) replaced by greedy: %s", self.id, name, seat, trouble
                )
            async with self.lock:
                if self.game is not game or game.to_act != seat or self.seq(seat) != key:
                    continue
                if not self._computer(seat):
                    continue  # the person took back control meanwhile
                try:
                    await self._commit(seat, action)
                except StoreError as error:
                    log.warning("room %s: could not store a bot's move: %s", self.id, error)
                    await asyncio.sleep(RETRY)

    def _arm_timer(self, seat: int) -> None:
        self._cancel_timer()
        if self.state is not RoomState.PLAYING or not self.timer or self.dealt.to_act != seat:
            return
        self.deadline = time.monotonic() + self.timer
        self._timer_task = asyncio.create_task(self._expire(seat, self.seq(seat), self.timer))

    def _arm_window_timer(self) -> None:
        """One timer for every person a claim window asked at its opening."""
        self._cancel_timer()
        window = self._window
        if window is None or self.state is not RoomState.PLAYING or not self.timer:
            return
        self.deadline = time.monotonic() + self.timer
        self._timer_task = asyncio.create_task(self._expire_window(window, self.timer))

    async def _expire_window(self, window: Window, after: float) -> None:
        """On timeout every person still to answer passes, and is put on 托管 (D33)."""
        await asyncio.sleep(after)
        async with self.lock:
            if self.state is not RoomState.PLAYING or self._window is not window:
                return
            game = self.dealt
            if self._window_now(game) is not window:
                return
            self._timer_task = None
            assert isinstance(game.phase, ClaimWindow)
            late = [
                s
                for s in game.phase.asking
                if s in window.asked and s not in window.answers and not self._computer(s)
            ]
            for seat in late:
                self.seats[seat].time_out("pass")
                window.answers[seat] = PASS
                # Told at once, on its question as it was put (D116).
                self.frames.capture(self._frame(window.asked[seat], public=False, only=seat))
            self.deadline = None
            await self._settle()

    def _cancel_timer(self) -> None:
        if self._timer_task is not None:
            self._timer_task.cancel()
            self._timer_task = None
        self.deadline = None

    async def _expire(self, seat: int, key: int, after: float) -> None:
        """On timeout the seat passes, or discards what the greedy bot would (D18), and is
        put on 托管 until it takes back control (D33)."""
        await asyncio.sleep(after)
        async with self.lock:
            if self.state is not RoomState.PLAYING:
                return
            game = self.dealt
            if game.to_act != seat or self.seq(seat) != key:
                return
            obs = observe(game, seat, events=False)
            self._timer_task = None
            action = PASS if PASS in obs.legal else GreedyBot().act(obs)
            info = self.seats[seat]
            before = info.control()
            info.time_out(str(action))
            if (
                info.player is not None
                and (info.listener is None or not info.listener.alive)
                and info.left_hand != self.hand_no
            ):
                info.left_hand = self.hand_no  # gone past the timer: left the hand (issue 25)
                self.hooks.left(self, info.player)
            if action == PASS:
                # A hidden question: the seat is told at once, on its question as it was put
                # (next the table may wait for another seat's answer, which it may not see);
                # a discard tells everyone itself (D116).
                self.frames.capture(self._frame(game, public=False, only=seat))
            try:
                await self._commit(seat, action)
            except StoreError as error:
                info.restore(before)
                self.frames.captured.clear()
                log.warning("room %s: could not store a timeout: %s", self.id, error)
                self._timer_task = asyncio.create_task(self._expire(seat, key, RETRY))

    async def revoke(self, host_token: str, seat: int) -> str:
        """The host gives a person's seat a new secret: the old one opens nothing from now on,
        and the seat's connection is closed (4403). Returns the new secret; raises KeyError
        (not the host) or RoomError (no such person's seat) or StoreError."""
        host = self.host
        if host is None or self.seat_of(host_token) != host:
            raise KeyError("only the host may give a seat a new link")
        if not 0 <= seat < len(self.seats) or self.seats[seat].bot is not None:
            raise RoomError("no person's seat with that number")
        if self.listed == QUICK:
            raise RoomError("a quick-play table's seats are its players': no new links")
        async with self.lock:
            info = self.seats[seat]
            before = (info.token, info.player, info.avatar)
            # The seat is no longer its player's: the host, who gets the new secret, must not
            # play a known player's rated match in their name.
            info.token, info.player, info.avatar = secrets.token_urlsafe(16), None, None
            try:
                await self._save("set_seats", self._seats_json())
            except StoreError:
                info.token, info.player, info.avatar = before
                raise
            listener = self.seats[seat].listener
            if listener is not None:
                listener.drop(4403, "this invite was revoked: ask the host for the new link")
                self.seats[seat].listener = None
            return self.seats[seat].token

    async def set_auto(self, seat: int | None, on: Any) -> str | None:
        """托管 on or off for a person's seat; returns an error message or None. Only the seat
        itself is shown the change now; the table sees it at the seat's next discard."""
        if seat is None:
            return "spectators have no seat to hand over"
        if type(on) is not bool:
            return "auto takes on: true or false"
        async with self.lock:
            if self.closed:
                return CLOSED_NOW
            info = self.seats[seat]
            if info.auto == on:
                return None
            if on:
                info.auto = True
            else:
                info.take_back()
            if self.state is RoomState.WAITING:
                return None
            game = self.dealt
            window = self._window_now(game)
            if (
                window is not None
                and seat != game.to_act
                and seat in window.questions
                and seat not in window.answers
                and seat not in window.done
            ):
                # 托管 answers a question put to the seat ahead of its turn; and one its
                # computer began on while it was on 托管 is still answered so when its person
                # takes back control (never shown the question, nobody would ask it: D116).
                pending = window.pending.pop(seat, None)
                if pending is not None:
                    pending.cancel()
                if on or pending is not None:
                    window.answers[seat] = GreedyBot().act(window.questions[seat])
            deciding = game.to_act == seat and not game.is_over
            if on and deciding:
                self._cancel_timer()
            frame = self._frame(game, public=False, only=seat)
            if deciding and not on:
                frame.decider = seat  # the question again, with the timer from the start
            self.frames.capture(frame)
            self.frames.show()
            self._kick()
        return None

    def close(self, code: int | None = None) -> None:
        """Stop every task of the room (and, with ``code``, close its connections)."""
        if not self.closed:
            self.stage.to(RoomState.CLOSED)
        if self._window is not None:
            self._window.cancel()
        for task in (self._timer_task, self._driver):
            if task is not None:
                task.cancel()
        self.frames.close()
        for listener in self.listeners:
            if code is None:
                listener.close()
            else:
                listener.drop(code, "the room closed")
        self.listeners = []

    # ------------------------------------------------------------------ persistence

    def stored(self) -> StoredRoom:
        m = self.match
        return StoredRoom(
            self.id,
            self.created,
            self.rules_text,
            m.seed if self.seeded else None,
            self.timer,
            self._seats_json(),
            m.dealer,
            list(m.totals),
            m.hands,
            m.huangzhuang_streak,
            self.active,
            length=self.length,
            match_start=self.match_start,
            match_no=self.match_no,
            awaits_everyone=self.awaits_everyone,
            listed=self.listed,
        )

    async def seat_player(self, seat: int, player: str, name: str, avatar: int) -> bool:
        """A known player opened ``seat``: the seat records them (their name becomes the
        seat's) while the room waits for its people, or if nobody had it; once dealt, a seat
        stays its first player's (the hand's results are theirs). Whether it changed."""
        async with self.lock:
            info = self.seats[seat]
            if info.bot is not None or (
                info.player not in (None, player) and self.state is not RoomState.WAITING
            ):
                return False
            before = (info.player, info.name, info.avatar)
            if before == (player, name, avatar):
                return False
            info.player, info.name, info.avatar = player, name, avatar
            try:
                await self._save("set_seats", self._seats_json())
            except StoreError as error:
                info.player, info.name, info.avatar = before
                log.warning("room %s: could not store a seat's player: %s", self.id, error)
                return False
            if self.state is RoomState.WAITING:
                self._show_lobby()
            return True

    async def take_seat(self, player: Player, seat: int | None, avoid: set[str]) -> int:
        """A player takes a free seat of a listed room waiting for its people (``seat``, or
        the first free one): the seat is theirs from now on, with a new secret that only they
        are given (the room's creator was given the old one with the room, and must not keep
        a way into a stranger's seat). The host's seat is never free: its secret is the
        creator's. Refused (RoomError) when the room is not listed, is dealt, has no such free
        seat, or seats a player in ``avoid`` (blocks, either way)."""
        async with self.lock:
            if not self.listed or self.state is not RoomState.WAITING:
                raise RoomError("this table takes nobody now")
            if avoid & {s.player for s in self.seats if s.player is not None}:
                raise RoomError("you cannot sit at this table")
            mine = [n for n, s in enumerate(self.seats) if s.player == player.id]
            if mine:
                return mine[0]
            free = [
                n
                for n, s in enumerate(self.seats)
                if s.bot is None and s.player is None and not s.joined and n != self.host
            ]
            if seat is not None and seat not in free:
                raise RoomError("that seat is not free")
            if not free:
                raise RoomError("this table has no free seat")
            chosen = free[0] if seat is None else seat
            info = self.seats[chosen]
            before = info.token
            info.player, info.name, info.avatar = player.id, player.name, player.avatar
            info.token = secrets.token_urlsafe(16)
            try:
                await self._save("set_seats", self._seats_json())
            except StoreError:
                info.player, info.name, info.avatar, info.token = None, "", None, before
                raise RoomError(SAVE_FAILED) from None
            if info.listener is not None:  # an old link's connection (it had not arrived)
                info.listener.drop(4403, "this seat was taken from the open-table list")
                info.listener = None
            self._show_lobby()
            return chosen


class RoomHooks:
    """What a room tells the hall: a player who left mid-hand (:meth:`left`). Called in the
    event loop; it must return at once (start a task for any database work). A finished hand
    and match go to the players' standing (:meth:`Room.keep_standing`, D121)."""

    def left(self, room: Room, player: str) -> None:
        """``player`` left a hand in play: their seat timed out with no connection."""


def family_of(rules: RuleSet) -> str:
    """The kind of table the quick-play queue matches and the open-table list shows: the
    preset a rule set is named after and its number of seats (``hunan/3``); a rating is kept
    per preset alone (:func:`ratings.family`, D120)."""
    return f"{rules.name}/{rules.players}"


class Rooms:
    """All open rooms of a server: created fresh, or restored from the database on demand."""

    def __init__(self, store: Store, config: Config) -> None:
        self.store = store
        self.db = Database(store)
        """Every database call of the rooms, off the event loop (:mod:`database`)."""
        self.config = config
        self.runner = BotRunner(config.bot_workers, config.bot_deadline, config.bot_spec)
        self.metrics = Histogram()
        """Actions: from a move's arrival to its states queued."""
        self.sends = Histogram()
        """Messages: from queued for a connection to handed to its socket (the wait for the
        connection's writer task, a turn of the event loop or more, and the send)."""
        self.hooks = RoomHooks()
        """Given to every room: the hall's (ratings, leaves) once the application sets it."""
        self.rooms: dict[str, Room] = {}
        self._gone: dict[int, Room] = {}
        """Rooms no longer served (closed, moved, quarantined) whose retries still run: the
        process's end cancels them too (:meth:`stop_retries`); dropped once they are done."""
        self._stored: dict[str, StoredRoom] = {}
        """Open rooms of the database not restored yet."""
        self.quarantined = 0
        self._opening: dict[str, asyncio.Future[Room | None]] = {}
        """Rooms being restored now: a second request for one waits for the first."""

    def count(self) -> int:
        return len(self.rooms) + len(self._stored)

    async def create(
        self,
        bots: list[str | None],
        *,
        rules: Any = "hunan",
        timer: float = 30,
        seed: int | None = None,
        creator: str = "",
        hands: int = 0,
        wait: bool = False,
        listed: str = "",
    ) -> Room:
        """A new room, stored with its first deal before anyone sees it; with ``wait`` (the
        lobby's tables of friends) a room with people is stored without one and deals when
        they have all come (:meth:`Room.arrive`). Raises RoomError (the request is wrong) or
        StoreError (the server could not store it)."""
        try:
            text, ruleset = room_rules(rules)
        except ValueError as error:
            raise RoomError(str(error)) from None
        if len(bots) != ruleset.players:
            raise RoomError(f"a table of these rules has {ruleset.players} seats, not {len(bots)}")
        for level in bots:
            if level is not None:
                self.config.bot_spec(level)  # ValueError: unknown, not offered, bad setting
        if hands not in MATCH_LENGTHS:
            raise RoomError("hands: 0 (no end) or a match of 1–99 hands")
        if seed is not None and not self.config.dev_seeded_deals:
            raise RoomError("seeded deals are for development servers only")
        if self.count() >= self.config.max_rooms:
            raise Full("the server has as many rooms as it can hold; try again later")
        seats = [Seat(secrets.token_urlsafe(16), level) for level in bots]
        for _ in range(5):
            room = self._room(
                secrets.token_hex(16),
                text,
                seats,
                Match(ruleset, seed=seed),
                timer,
                seeded=seed is not None,
            )
            room.length, room.awaits_everyone, room.listed = hands, wait, listed
            hand = None if wait and any(s.bot is None for s in seats) else room.deal()
            if await self.db.write(
                "create_room", room.id, room.stored(), hand, deadline=READ_DEADLINE
            ):
                break
        else:  # pragma: no cover - five collisions of 128 random bits
            raise StoreError("no free room id")
        room.creator = creator
        self.rooms[room.id] = room
        if hand is not None:
            async with room.lock:
                await room.shown_deal()
            self._warm(room)
        return room

    def created_by(self, creator: str) -> int:
        """Open rooms created by this client (since the server started)."""
        return sum(room.creator == creator for room in self.rooms.values())

    def _warm(self, room: Room) -> None:
        if any(s.bot is not None and _searches(self.config, s.bot) for s in room.seats):
            self.runner.warm()

    def _room(
        self,
        room_id: str,
        rules: str,
        seats: list[Seat],
        match: Match,
        timer: float,
        *,
        seeded: bool,
        created: float | None = None,
    ) -> Room:
        room = Room(
            room_id,
            rules,
            seats,
            match,
            timer,
            self.db,
            self.config,
            self.runner,
            self.metrics,
            seeded=seeded,
        )
        if created is not None:
            room.created = created
        room.hooks = self.hooks
        return room

    def adopt(self, stored: StoredRoom) -> None:
        """A room this process has just stored by other means (the quick-play queue, which
        seats its players in the room's own transaction): known here at once, so a request
        for it finds it (SQLite; a hall reads it from the database), restored at the first
        request or by :meth:`get`."""
        if not self.store.hall and stored.id not in self.rooms:
            self._stored.setdefault(stored.id, stored)

    # ------------------------------------------------------------------ restore

    async def load(self) -> None:
        """Note every open room of the database; each is restored on first use, or by
        :meth:`restore_all` in the background. Quick: nothing is replayed here. In a hall the
        rooms are other processes' too: :meth:`keep_leases` takes those nobody holds."""
        if not self.store.hall:
            found = await self.db.read(self.store.open_rooms, deadline=60)
            self._stored = {r.id: r for r in found}
        self.quarantined = len(await self.db.read(self.store.quarantined, deadline=60))

    async def keep_leases(self) -> None:
        """In a hall, for ever: the heartbeat (a third of the lease's time apart), letting go
        of the rooms another process took meanwhile (this one was thought dead: its writes
        are refused since, D60), then taking the rooms of processes that died (D62). While
        the heartbeat fails, the writes of this process's rooms wait (:meth:`Database.lease_ok`)."""
        ttl = self.db.lease_ttl
        while True:
            started = time.monotonic()
            try:
                await self.keep_leases_now()
            except StoreError as error:
                log.warning("hall: the heartbeat failed: %s", error)
            # A third of the lease apart from start to start, however long the last took.
            await asyncio.sleep(max(0.05, ttl / 3 - (time.monotonic() - started)))

    async def keep_leases_now(self) -> None:
        before = set(self.rooms)  # a room created while the heartbeat runs is not judged by it
        held = await self.db.heartbeat()
        if held is not None:
            for room_id in (before & set(self.rooms)) - held:
                log.warning("room %s: another process holds it now; its connections move", room_id)
                moved = self._forget(room_id)
                if moved is not None:
                    moved.close(MOVED)
        for room_id in await self.db.orphans(100):
            if room_id not in self.rooms and self.count() < self.config.max_rooms:
                with contextlib.suppress(Elsewhere):
                    if await self.get(room_id) is not None:
                        log.info("room %s: taken over from the stored log", room_id)

    async def restore_all(self) -> None:
        """Restore the noted rooms one by one, letting the server answer in between."""
        for room_id in list(self._stored):
            with contextlib.suppress(StoreError):
                await self.get(room_id)
            await asyncio.sleep(0)

    async def get(self, room_id: str) -> Room | None:
        """An open room by id, restored now if it was not yet (in a hall: when no live process
        holds it; else raises :class:`Elsewhere`). Raises :class:`StoreError` when the
        database does not answer in time."""
        room = self.rooms.get(room_id)
        if room is not None:
            return room
        opening = self._opening.get(room_id)
        if opening is None:
            opening = asyncio.ensure_future(self._open(room_id))
            self._opening[room_id] = opening
            opening.add_done_callback(lambda _: self._opening.pop(room_id, None))
        return await asyncio.shield(opening)

    async def _open(self, room_id: str) -> Room | None:
        if not self.store.hall:
            stored = self._stored.pop(room_id, None)
        else:
            held = await self.db.claim(room_id)
            if isinstance(held, str):
                raise Elsewhere(held)
            stored = await self.db.read(self.store.room, room_id) if held else None
            if held and stored is None:
                await self.db.release(room_id)
        if stored is None:
            return None
        try:
            return await self._restore(stored)
        except StoreError:
            if not self.store.hall:
                self._stored[room_id] = stored  # tried again at the next request
            raise
        except Exception as error:  # any fault: keep the room on disk, start the others
            note = f"{type(error).__name__}: {error}"[:500]
            log.error("room %s quarantined: its stored game does not replay: %s", room_id, note)
            self._forget(room_id)
            with contextlib.suppress(StoreError):
                await self.db.write("set_state", room_id, QUARANTINED, note, deadline=READ_DEADLINE)
            self.quarantined += 1
            return None

    async def _restore(self, stored: StoredRoom) -> Room:
        """Replay the room's hand in progress from its stored actions (no bot is asked)."""
        ruleset = room_rules(stored.rules_text)[1]
        match = Match(ruleset, seed=stored.seed or 0, dealer=stored.dealer)
        match.totals = list(stored.totals)
        match.hands = stored.hands
        match.huangzhuang_streak = stored.streak
        seats = [Seat.from_json(s) for s in stored.seats]
        room = self._room(
            stored.id,
            stored.rules_text,
            seats,
            match,
            stored.timer,
            seeded=stored.seed is not None,
            created=stored.created,
        )
        room.active = stored.active or time.time()
        room.length, room.match_start, room.match_no, room.awaits_everyone = (
            stored.length,
            stored.match_start,
            stored.match_no,
            stored.awaits_everyone,
        )
        room.listed = stored.listed
        hand = await self.db.read(self.store.last_hand, stored.id)
        if hand is None and not room.awaits_everyone:
            raise ValueError("the room has no hand")
        if hand is None:  # still waiting for its people
            self.rooms[room.id] = room
            if all(s.joined or s.bot is not None for s in room.seats):
                room._retry(room._retry_first_deal)  # killed between the last arrival and the deal
            return room
        # The stored actions replayed, through the offers met on the way, which nobody is
        # shown (D101).
        game = Game(ruleset, dealer=hand.dealer, deck=parse_cards(hand.deck), pause_at_offers=True)
        for text in hand.actions:
            game.resume_all()
            game.apply_text(text)
        game.resume_all()
        room.stage.to(RoomState.DEALING)  # dealt again, from the stored deck and log
        room.game = game
        room.stage.to(RoomState.SETTLING if game.is_over else RoomState.PLAYING)
        room.hand_no = hand.n
        room.salt = hand.salt or ""
        room.commitment = hand.commitment or ""
        for seat, _ in game.history:
            room.seats[seat].own_actions += 1
        self.rooms[room.id] = room
        async with room.lock:
            if game.is_over and hand.record is None and hand.n == match.hands:
                # Killed between the last action and storing the result: finish it now. The
                # match's score was not stored either, so it counts the hand once.
                await room._finish()
            elif game.is_over and hand.record is not None:
                # Perhaps killed before its players' standing was kept: kept now (once).
                await room.keep_standing(game)
            await room._settle()
            room._kick()
        self._warm(room)
        return room

    # ------------------------------------------------------------------ expiry

    async def expire(self) -> None:
        """Close rooms idle longer than the configured time, now and then, for ever."""
        every = max(1.0, min(60.0, self.config.room_ttl / 10))
        while True:
            await asyncio.sleep(every)
            await self.expire_now()

    def _forget(self, room_id: str) -> Room | None:
        """Serve room ``room_id`` no more; kept aside while its retries run."""
        room = self.rooms.pop(room_id, None)
        if room is not None and room._retries:
            self._gone[id(room)] = room
        return room

    async def expire_now(self) -> None:
        cutoff = time.time() - self.config.room_ttl
        self._gone = {k: room for k, room in self._gone.items() if room._retries}
        for room_id, stored in list(self._stored.items()):
            if stored.active < cutoff:
                del self._stored[room_id]
                with contextlib.suppress(StoreError):
                    await self.db.write("set_state", room_id, CLOSED)
        for room in list(self.rooms.values()):
            if room.active < cutoff and not any(li.alive for li in room.listeners):
                try:
                    await self.db.write("set_state", room.id, CLOSED)
                except StoreError:
                    continue
                room.close(GONE)
                self._forget(room.id)
                with contextlib.suppress(StoreError):
                    await self.db.release(room.id)

    async def stop_retries(self) -> None:
        """Cancel the rooms' retries and wait for those under way to end (the process ends: a
        restore finishes what they would have, from the stored log)."""
        running = []
        for room in [*self.rooms.values(), *self._gone.values()]:
            for retry in room._retries:
                retry.cancel()
                if isinstance(retry, asyncio.Task):
                    running.append(retry)
            room._retries.clear()
        await asyncio.gather(*running, return_exceptions=True)

    def close(self) -> None:
        for room in self.rooms.values():
            room.close()
        self.runner.close()
        self.db.close()


def _searches(config: Config, name: str) -> bool:
    """Whether a room's bot runs in a worker process (an unknown name: it falls back)."""
    try:
        return searches(config.bot_spec(name))
    except ValueError:
        return False
