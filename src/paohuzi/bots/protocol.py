"""The bot protocol (docs/protocol.md): an external program plays a seat over JSON lines.

The program reads one JSON object a line on its standard input — ``start`` when a hand
begins (with the hand's rule set and seed: one program plays hand after hand), ``event`` for
everything its seat sees happen, ``ask`` when it must decide, ``error`` when its last answer
was refused, ``end`` with the hand's result — and answers each ``ask`` with one line:
``{"action": "peng"}`` (or the bare F3 action, ``peng``). Everything it is sent comes from its
seat's observation. A missing, late, unreadable or illegal answer is logged and the seat plays
a safe default instead (pass if it may, else the first legal action), so a broken bot never
corrupts a game.
"""

from __future__ import annotations

import collections
import contextlib
import json
import logging
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import IO, Any

from paohuzi.engine.actions import PASS, Action, parse_action
from paohuzi.engine.cards import (
    KIND_NAMES,
    NotationError,
    format_cards,
    parse_cards,
    parse_kind,
    to_counts,
)
from paohuzi.engine.game import Event
from paohuzi.engine.groups import Group, GroupType, parse_group
from paohuzi.engine.observation import HIDDEN, Observation, SeenGroup
from paohuzi.engine.position import Source
from paohuzi.engine.record import loads, result_json
from paohuzi.engine.rules import HUNAN, RuleSet

PROTOCOL = "paohuzi-bot/1"
DEFAULT_TIMEOUT = 10.0
UNREAD = 10_000
"""Messages a program may leave unread before it is stopped as not reading its input (a hand
sends a few hundred)."""
UNASKED = 1_000
"""Lines a program may send that answer nothing (since its last legal answer) before it is stopped
as flooding its output: unread, they would fill the memory (a hand asks a few dozen questions;
with :data:`LONGEST`, at most 16 MB wait)."""
LONGEST = 16_384
"""Characters at most in a line from a program (an answer is a few dozen): a longer one ends
its output, as if it had exited."""
LOOK_EVERY = 0.25
"""Seconds between two looks, while an answer is awaited, at whether the program has ended."""
BEHIND = 2
"""Questions in a row that time out after a late answer without an ``id`` was dropped in their
wait before the program is stopped (D172): a program that answers without ``id``s and gave up
on a question that timed out is then one answer behind, and would lose every question after."""
log = logging.getLogger("paohuzi.protocol")

JSON = dict[str, Any]


def event_json(event: Event) -> JSON:
    """An event as the protocol sends it; a card the seat may not see is null."""
    return {
        "type": "event",
        "event": event.type.value,
        "seat": event.seat,
        "card": KIND_NAMES[event.card] if event.card is not None else None,
        "groups": [str(g) for g in event.groups],
    }


def observation_json(obs: Observation, public: JSON | None = None) -> JSON:
    """The state a bot needs to decide, from its observation only. ``public``: the
    :func:`observation_json` of the spectator's observation of the same moment, whose public
    parts are taken as they are (a server making every seat's state at once)."""
    if public is None:
        public = {
            "dealer": obs.dealer,
            "liang": KIND_NAMES[obs.liang],
            "hand_sizes": list(obs.hand_sizes),
            "tables": [[str(g) for g in t] for t in obs.tables],
            "discards": [format_cards(r, sort=False) for r in obs.rows],
            "discarded": [format_cards(d) for d in obs.discarded],
            "wall": obs.wall,
            "turn": obs.turn,
            "offer": KIND_NAMES[obs.offer] if obs.offer is not None else None,
            "offer_source": obs.offer_source.value if obs.offer_source is not None else None,
        }
        tables = public["tables"]
    else:
        tables = list(public["tables"])
        if obs.seat is not None:
            tables[obs.seat] = [str(g) for g in obs.tables[obs.seat]]
    return {
        **public,
        "seat": obs.seat,
        "hand": format_cards(k for k in range(len(obs.hand)) for _ in range(obs.hand[k])),
        "tables": tables,
        "chou": format_cards(obs.chou),
        "chou_hu": [[KIND_NAMES[k], huxi] for k, huxi in obs.chou_hu],
        "legal": sorted(str(a) for a in obs.legal),
    }


def observation_from_json(data: JSON, rules: RuleSet | None = None) -> Observation:
    """The :class:`Observation` a ``start`` or ``ask`` message describes (the inverse of
    :func:`observation_json`, events and result aside): what a protocol bot needs to use a
    policy written for observations, such as one on the encoded planes. ``rules`` are the
    table's: by default those of the message (a ``start`` carries them; keep them for the
    ``ask`` messages of its hand), else Hunan; its seat count follows the message.
    Raises ValueError for a message that is not one."""
    try:
        if rules is None:
            rules = RuleSet.from_json(data["rules"]) if "rules" in data else HUNAN
        seats = len(data["hand_sizes"])
        if rules.players != seats:
            rules = replace(rules, players=seats)
        source = data["offer_source"]
        return Observation(
            seat=int(data["seat"]),
            rules=rules,
            dealer=int(data["dealer"]),
            liang=parse_kind(data["liang"]),
            hand=tuple(to_counts(parse_cards(data["hand"]))),
            hand_sizes=tuple(int(n) for n in data["hand_sizes"]),
            tables=tuple(tuple(_seen_group(g) for g in table) for table in data["tables"]),
            rows=tuple(tuple(parse_cards(row)) for row in data["discards"]),
            discarded=tuple(frozenset(parse_cards(d)) for d in data["discarded"]),
            wall=int(data["wall"]),
            turn=None if data["turn"] is None else int(data["turn"]),
            offer=None if data["offer"] is None else parse_kind(data["offer"]),
            offer_source=None if source is None else Source(source),
            legal=tuple(parse_action(a) for a in data["legal"]),
            chou=frozenset(parse_cards(data["chou"])),
            chou_hu=tuple((parse_kind(k), int(h)) for k, h in data.get("chou_hu", ())),
            events=(),
            result=None,
        )
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"not an observation message: {error}") from None


def _seen_group(text: str) -> Group | SeenGroup:
    gtype, _, cards = text.partition(":")
    if cards == HIDDEN:
        return SeenGroup(GroupType(gtype), None)
    return parse_group(text)


def safe_default(legal: Sequence[Action]) -> Action:
    """What a seat plays when its bot fails to answer properly."""
    return PASS if PASS in legal else legal[0]


class SubprocessBot:
    """A bot that is another program speaking the protocol on its stdin and stdout.

    One program plays hand after hand (each begins with ``start``); a program that has exited
    (or closed its input) is started again at the next hand, so one crash costs the rest of a
    hand, not the run. ``errors`` lists every failure, in order."""

    def __init__(
        self, command: Sequence[str], *, name: str = "external", timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        self.name = name
        self.timeout = timeout
        self.errors: list[str] = []
        self.seed: int | None = None
        """The seed sent in the next ``start`` (set by whoever deals the hand)."""
        self.starts = 0
        """How many times the program was started."""
        self._command = list(command)
        self._closed = False
        self._start()

    def _start(self) -> None:
        self._process = subprocess.Popen(
            self._command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            encoding="utf-8",
            errors="replace",  # bytes that are not UTF-8 make an unreadable answer
            bufsize=1,
            # A group of its own: what it starts is stopped with it (a process it leaves
            # running would hold its output open, and the end of its output never come).
            start_new_session=os.name == "posix",
        )
        self.starts += 1
        # Room for the end of output after UNASKED lines: the reader never waits to put.
        self._lines: queue.Queue[str | None] = queue.Queue(UNASKED + 1)
        self._unasked = 0
        self._stopped_for: list[str] = []
        """Why the reader stopped the program, if it did."""
        assert self._process.stdout is not None and self._process.stdin is not None
        self._reader = threading.Thread(
            target=self._read, args=(self._process, self._lines, self._stopped_for), daemon=True
        )
        self._reader.start()
        # Messages are written by a thread of their own: a program that does not read its
        # input fills the pipe, and a write would then block the game for good.
        self._outbox: queue.Queue[str | None] = queue.Queue()
        self._unwritable = threading.Event()
        self._writer = threading.Thread(
            target=self._write, args=(self._process.stdin,), daemon=True
        )
        self._writer.start()
        self._sent_events = 0
        self._dead = False
        self._fresh = True
        self._asked = 0
        """The questions sent to this program: the next ``ask``'s ``id`` is one more."""
        self._owed: collections.deque[int] = collections.deque()
        """The ``id``s of the questions that timed out, their answers not read yet, oldest
        first: each such answer is dropped when it comes (one without an ``id`` pays off the
        oldest: answers are then taken in order, one a question)."""
        self._behind = 0
        """Questions in a row that timed out after an answer without an ``id`` was dropped
        as a late one in their wait."""

    @staticmethod
    def _read(
        process: subprocess.Popen[str], lines: queue.Queue[str | None], stopped_for: list[str]
    ) -> None:
        """Queue the program's lines, then None at their end; stop the program once UNASKED
        lines wait unread, or at a line longer than :data:`LONGEST` (read a piece at a time:
        one endless line would fill the memory), saying why in ``stopped_for``."""
        assert process.stdout is not None
        while line := process.stdout.readline(LONGEST + 1):
            if lines.qsize() >= UNASKED:
                stopped_for.append(f"{UNASKED:,} lines waiting unread")
                process.kill()
                break
            if len(line) > LONGEST:
                stopped_for.append(f"a line of more than {LONGEST:,} characters")
                process.kill()
                break
            lines.put(line)
        lines.put(None)
        # The reader's to close: a process that left the program's group may keep the pipe
        # open past the program's end, and the reader with it (it ends when that one does).
        with contextlib.suppress(OSError):
            process.stdout.close()

    def _write(self, stream: IO[str]) -> None:
        while (text := self._outbox.get()) is not None:
            try:
                stream.write(text)
                stream.flush()
            except (OSError, ValueError):  # the program closed its input, or was stopped
                self._unwritable.set()
                return

    def _send(self, message: JSON) -> None:
        if self._dead:
            return
        if self._unwritable.is_set():
            self._fail("the bot closed its input", gone=True)
        elif self._outbox.qsize() >= UNREAD:
            self._fail(f"the bot has not read its last {UNREAD} messages", gone=True)
            self._kill_group()
        else:
            self._outbox.put(json.dumps(message, ensure_ascii=False) + "\n")

    def _fail(self, message: str, *, gone: bool = False) -> None:
        self.errors.append(message)
        log.warning("bot %s: %s", self.name, message)
        if gone:
            self._dead = True

    def _ended(self) -> str:
        """How the end of the program's output is reported: why the reader stopped it, if it
        did; that it exited; or, still running a moment later, that it closed its output."""
        if self._stopped_for:
            return f"the bot was stopped: {self._stopped_for[0]}"
        for _ in range(10):
            if self._exited():
                return "the bot exited"
            time.sleep(0.01)
        return "the bot closed its output"

    def _exited(self) -> bool:
        """Whether the program has ended, without reaping it where the system allows (a
        process not reaped keeps its pid, and so its group's id, from being given to
        another: :meth:`_kill_group` may still be sent)."""
        if self._process.returncode is not None:
            return True
        if not hasattr(os, "waitid"):
            return self._process.poll() is not None
        try:
            flags = os.WEXITED | os.WNOHANG | os.WNOWAIT
            return os.waitid(os.P_PID, self._process.pid, flags) is not None
        except ChildProcessError:
            return True

    def _restart(self) -> None:
        """Start the program again for a new hand, if it is gone (and neither closed nor
        started for this very hand)."""
        if self._closed or self._fresh or (not self._dead and not self._exited()):
            return
        if not self._dead:
            self._fail(self._ended(), gone=True)
        self._stop()
        try:
            self._start()
        except OSError as error:
            self._fail(f"the bot could not be started again: {error.strerror}", gone=True)
            return
        log.warning("bot %s: started again for a new hand", self.name)

    def _sync(self, obs: Observation) -> None:
        """Send the start of a new hand, then every event not sent yet. ``start`` is the
        seat's state when it is sent; only the events after it follow (those before are in
        that state already: a program adding them to it would count them twice)."""
        if len(obs.events) < self._sent_events or self._sent_events == 0:
            self._restart()
            start = {"type": "start", "protocol": PROTOCOL, "seed": self.seed}
            state = {**observation_json(obs), "legal": []}  # the question comes as an ``ask``
            self._send({**start, "rules": obs.rules.to_json(), **state})
            self._fresh = False
            self._sent_events = max(1, len(obs.events))  # a hand's log opens with its deal
        for event in obs.events[self._sent_events :]:
            self._send(event_json(event))
        self._sent_events = len(obs.events)

    def begin(self, observation: Observation) -> None:
        """A hand is dealt: send its ``start`` now, for the seat's observation of the deal
        (without this, ``start`` waits for the seat's first question, or the hand's end for a
        seat that is never asked)."""
        self._sent_events = 0
        self._sync(observation)

    def _stale(self) -> None:
        """Drop the lines waiting before a question: answers that came too late for theirs
        (they would answer this one), and lines that answer nothing."""
        while not self._dead:
            try:
                line = self._lines.get_nowait()
            except queue.Empty:
                return
            if line is None:
                self._fail(self._ended(), gone=True)
                return
            if not self._drop_late(line, _answer_id(line)):
                self._answered_nothing()

    def _drop_late(self, line: str, said: int | None) -> bool:
        """Whether ``line`` is the late answer of a question that timed out, then paid off:
        one that says the ``id`` of such a question, or one without an ``id`` (it pays off the
        oldest) — an answer, not any line: a word of the program's own would otherwise let
        the late answer that follows it through."""
        if said is not None:
            if said not in self._owed:
                return False
            self._owed.remove(said)
            return True
        if not self._owed:
            return False
        try:
            _parse_answer(line)
        except ValueError:
            return False
        self._owed.popleft()
        return True

    def _answered_nothing(self) -> None:
        """Count a line that was no legal answer; stop a program that sends too many."""
        self._unasked += 1
        if self._unasked >= UNASKED:
            self._fail(f"the bot sent {UNASKED} lines that answer nothing", gone=True)
            self._kill_group()

    def act(self, observation: Observation) -> Action:
        self._sync(observation)
        self._stale()
        self._asked += 1
        asked = self._asked
        self._send({"type": "ask", "id": asked, **observation_json(observation)})
        legal = observation.legal
        if self._dead:
            return safe_default(legal)
        deadline = time.monotonic() + self.timeout
        dropped = False
        ended: float | None = None
        while True:
            left = deadline - time.monotonic()
            try:
                line = self._lines.get(timeout=max(0.0, min(left, LOOK_EVERY)))
            except queue.Empty:
                if left > LOOK_EVERY:
                    if self._unwritable.is_set():
                        self._fail("the bot closed its input", gone=True)
                        return safe_default(legal)
                    # Ended, its output may still be held open by what it started: stop
                    # those, so that the end of its output comes; a look later, what was
                    # written is read, and a process that left its group holds it in vain.
                    if self._exited():
                        self._kill_group()
                        if ended is not None and time.monotonic() - ended >= LOOK_EVERY:
                            self._fail(self._ended(), gone=True)
                            return safe_default(legal)
                        ended = ended or time.monotonic()
                    continue
                return self._timed_out(legal, dropped)
            if line is None:
                self._fail(self._ended(), gone=True)
                return safe_default(legal)
            said = _answer_id(line)
            if said == asked or (said is None and not self._owed):
                break  # this question's answer (read below)
            if self._drop_late(line, said):
                dropped |= said is None
                continue
            self._answered_nothing()  # a line that answers no question asked
            if self._dead:
                return safe_default(legal)
        self._behind = 0  # this question is answered
        try:
            action = _parse_answer(line)
        except ValueError as error:
            answer = line.strip()
            quoted = repr(answer[:80]) + ("…" if len(answer) > 80 else "")
            self._fail(f"unreadable answer {quoted}: {error}")
            self._answered_nothing()
            return self._refuse(legal, str(error))
        if action not in legal:
            self._fail(f"illegal answer {line.strip()!r}")
            self._answered_nothing()
            return self._refuse(legal, f"{action} is not legal now")
        self._unasked = 0
        return action

    def _timed_out(self, legal: Sequence[Action], dropped: bool) -> Action:
        """No answer in time: its answer is owed (dropped when it comes). A question that
        timed out after a late answer without an ``id`` was dropped in its wait may have lost
        its own answer (taken for the late one of a program that gave up on its question):
        after :data:`BEHIND` such in a row the program is stopped, and started again at the
        next hand with nothing owed, rather than losing every question after. Answers that
        say their ``id`` never count towards it."""
        self._fail(f"no answer within {self.timeout:g} s")
        self._owed.append(self._asked)
        self._behind = self._behind + 1 if dropped else 0
        if self._behind >= BEHIND:
            self._fail(
                f"the bot was stopped: {BEHIND} questions in a row lost to late answers "
                "without an id (an answer that says its ask's id is never taken for another)",
                gone=True,
            )
            self._kill_group()
            return safe_default(legal)
        return self._refuse(legal, "timeout")

    def _refuse(self, legal: Sequence[Action], message: str) -> Action:
        default = safe_default(legal)
        self._send({"type": "error", "message": message, "played": str(default)})
        return default

    def end(self, observation: Observation) -> None:
        """Tell the bot how the hand ended."""
        self._sync(observation)
        self._send({"type": "end", "result": result_json(observation.result)})
        self._sent_events = 0

    def new_hand(self) -> None:
        """Whatever was sent, the next message is a new hand's ``start`` (a hand left
        unfinished, as when a run stops, is not ended)."""
        self._sent_events = 0

    @property
    def alive(self) -> bool:
        """Whether the program is still running (as far as has been seen)."""
        return not self._dead and not self._exited()

    def close(self) -> None:
        self._closed = self._dead = True
        self._stop()

    def _stop(self) -> None:
        self._outbox.put(None)  # the writer ends once what was sent is written
        self._writer.join(timeout=2)
        if self._writer.is_alive():  # blocked on a full pipe: only the readers' end frees it
            self._kill_group()
            self._writer.join(timeout=2)
        if self._process.stdin is not None and not self._writer.is_alive():
            with contextlib.suppress(OSError):  # (under a blocked writer, close would wait)
                self._process.stdin.close()
        ends = time.monotonic() + 2  # the end of its input given 2 s to end it
        while not self._exited() and time.monotonic() < ends:
            time.sleep(0.02)
        self._kill_group()  # the program, if still running, and what it started
        try:
            self._process.wait(timeout=2)  # reaped only now
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._reader.join(timeout=0.5)  # a process that left its group may hold the output
        if self._process.stdout is not None and not self._reader.is_alive():
            self._process.stdout.close()  # (closed under a reader still reading, it would wait)

    def _kill_group(self) -> None:
        """Stop the program and every process left in its group (POSIX), while its pid is
        not reaped: after, the id could be another's."""
        if self._process.returncode is not None:
            return
        if os.name != "posix":
            with contextlib.suppress(OSError):
                self._process.kill()
            return
        with contextlib.suppress(OSError):
            os.killpg(self._process.pid, signal.SIGKILL)


def _answer_id(line: str) -> int | None:
    """The ``id`` of the question an answer says it answers (``{"action": …, "id": N}``),
    0 for an ``id`` that is not a whole number; None for an answer without one (answers are
    then matched to questions in order)."""
    text = line.strip()
    if not text.startswith("{"):
        return None
    try:
        data = loads(text)
    except ValueError:
        return None  # unreadable: refused as the answer it is taken for
    if not isinstance(data, dict) or "id" not in data:
        return None
    found = data["id"]
    if isinstance(found, float) and found.is_integer():
        return int(found)  # JSON does not tell 7.0 from 7
    # Any other id answers no question (ids count from 1): never one taken in order.
    return found if isinstance(found, int) and not isinstance(found, bool) else 0


def _parse_answer(line: str) -> Action:
    text = line.strip()
    if text.startswith("{"):
        try:
            data = loads(text)
        except ValueError as error:  # not JSON, nested too deep, a number of 5,000 digits…
            raise ValueError(f"bad JSON: {error}") from None
        if not isinstance(data, dict) or not isinstance(data.get("action"), str):
            raise ValueError('expected {"action": "…"}')
        text = data["action"]
    try:
        return parse_action(text)
    except NotationError as error:
        raise ValueError(str(error)) from None
