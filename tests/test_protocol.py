"""The bot protocol: a bot in another process plays full hands; a broken one cannot corrupt a
game."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from paohuzi.bots import GreedyBot, RandomBot, play_hand
from paohuzi.bots.base import Bot, bot_choice
from paohuzi.bots.protocol import (
    BEHIND,
    PROTOCOL,
    UNASKED,
    SubprocessBot,
    event_json,
    observation_json,
)
from paohuzi.engine.actions import PASS, Action, parse_action
from paohuzi.engine.game import Game
from paohuzi.engine.observation import Observation, observe
from paohuzi.engine.record import Record, record_of, replay
from paohuzi.engine.rules import HUNAN
from tests.clock import PATIENCE, wait_until

EXAMPLE = Path(__file__).parent.parent / "examples" / "bots" / "random_bot.py"


def test_a_subprocess_bot_plays_fifty_hands_without_an_illegal_move() -> None:
    bot = SubprocessBot([sys.executable, str(EXAMPLE), "3"], name="example")
    try:
        decisions = 0
        for i in range(50):
            game = Game(seed=i, dealer=i % 3)
            play_hand(game, [bot, GreedyBot(), RandomBot(i)])
            assert game.is_over
            decisions += sum(1 for seat, _ in game.history if seat == 0)
        assert bot.errors == []
        assert decisions > 200
    finally:
        bot.close()


def _broken(code: str, timeout: float = 5.0) -> SubprocessBot:
    return SubprocessBot([sys.executable, "-c", code], name="broken", timeout=timeout)


def _check_game_survives(bot: SubprocessBot, hands: int = 3) -> None:
    try:
        for i in range(hands):
            game = Game(seed=100 + i)
            play_hand(game, [bot, RandomBot(i), RandomBot(i + 1)])
            assert game.is_over
            again = replay(Record.from_json(record_of(game).to_json()))
            assert again.error is None and again.game.result == game.result
        assert bot.errors
    finally:
        bot.close()


def test_garbage_answers_fall_back_and_are_logged() -> None:
    bot = _broken("import sys\nfor line in sys.stdin: print('garbage {', flush=True)")
    _check_game_survives(bot)
    assert any("unreadable" in e for e in bot.errors)


def test_answers_no_json_reader_agrees_on_fall_back_and_are_logged() -> None:
    # nesting that exhausts Python's recursion, a number of 5,000 digits, NaN: each a bad
    # answer (the protocol's default is played), none an exception out of the bot
    program = """
import itertools, sys
answers = itertools.cycle([
    '{"action": ' + "[" * 10000,
    '{"action": "pass", "n": 1' + "0" * 5000 + "}",
    '{"action": NaN}',
])
for line in sys.stdin:
    if '"ask"' in line:
        print(next(answers), flush=True)
"""
    bot = _broken(program)
    _check_game_survives(bot)
    for reason in ("nested too deeply", "a number of thousands of digits", "NaN is not"):
        assert any(f"bad JSON: {reason}" in e for e in bot.errors), (reason, bot.errors[:3])
    assert max(map(len, bot.errors)) < 300  # the answer quoted short


def test_a_bot_that_never_reads_its_input_does_not_block_the_game() -> None:
    # It answers "pass" again and again and never reads: the pipe to it fills, and a write
    # that waited for room would have stopped the game for good.
    program = "import sys, time\nwhile True:\n    print('pass', flush=True)\n    time.sleep(0.01)"
    bot = _broken(program, timeout=0.5)
    _check_game_survives(bot)  # three hands to their end, and the bot closed


def test_answers_that_are_not_utf8_are_unreadable_not_silence() -> None:
    # Bytes that are not UTF-8 killed the reading thread (with a traceback), and every later
    # question then waited out its timeout.
    program = """
import sys
for line in sys.stdin:
    if '"ask"' in line:
        sys.stdout.buffer.write(b"\\xff\\xfe pass\\n")
        sys.stdout.flush()
"""
    bot = _broken(program)
    _check_game_survives(bot)
    assert bot.errors and all("unreadable answer" in e for e in bot.errors), bot.errors[:3]


def test_illegal_answers_fall_back_and_are_logged() -> None:
    bot = _broken(
        'import sys\nfor line in sys.stdin: print(\'{"action": "hu"}\', flush=True) if \'"ask"\' in line else None'
    )
    _check_game_survives(bot)
    assert any("illegal" in e for e in bot.errors)


def test_a_silent_bot_times_out() -> None:
    bot = _broken("import sys, time\nfor line in sys.stdin: pass", timeout=0.05)
    _check_game_survives(bot, hands=1)
    assert any("no answer" in e for e in bot.errors)


BYE = "'bye': unknown action 'bye' (discard, chi, peng, hu, pass)"
_GONE = ("the bot exited", "the bot closed its input")
"""How a bot's exit is seen: at the next answer read, or the next message written."""


class _Watched:
    """A bot whose every decision is kept: what it was offered, what it chose, and whether its
    program had been seen to exit by then in this hand."""

    def __init__(self, bot: SubprocessBot) -> None:
        self.bot = bot
        self.name = bot.name
        self.decisions: list[tuple[tuple[Action, ...], Action, bool]] = []
        self.hand_start = 0
        """Where this hand's errors begin in the bot's list."""

    def act(self, observation: Observation) -> Action:
        action = self.bot.act(observation)
        exited = any(e in _GONE for e in self.bot.errors[self.hand_start :])
        self.decisions.append((tuple(observation.legal), action, exited))
        return action

    def end(self, observation: Observation) -> None:
        self.bot.end(observation)
        self.hand_start = len(self.bot.errors)


def test_a_bot_that_exits_plays_the_default_and_is_started_again_next_hand() -> None:
    bot = _broken("print('bye')")
    watched = _Watched(bot)
    try:
        for i in range(5):
            game = Game(seed=100 + i)
            play_hand(game, [watched, RandomBot(i), RandomBot(i + 1)])
            assert game.is_over
            assert replay(Record.from_json(record_of(game).to_json())).error is None
        # Each hand starts the program again (D130); each time its one line is read as an
        # answer, or not if it is gone before the first message, and then it is gone.
        assert bot.starts == 5
        gone = [e for e in bot.errors if e in _GONE]
        assert len(gone) == 5 and set(bot.errors) - set(_GONE) <= {f"unreadable answer {BYE}"}
        after = [(legal, action) for legal, action, exited in watched.decisions if exited]
        # Every decision from the exit to the end of its hand is the default's
        # (docs/protocol.md): pass when the seat may, else the first legal action.
        assert len(after) >= 40, len(after)
        for legal, action in after:
            assert action in legal and action == (PASS if PASS in legal else legal[0])
        assert any(action != PASS for _, action in after)  # it discards too, not only passes
    finally:
        bot.close()
    assert bot._process.returncode == 0  # the program did exit (after its one line)


def test_a_bot_that_floods_its_output_is_stopped_with_its_lines_bounded() -> None:
    """``cmd:yes`` grew the memory without end: lines that answer nothing wait in a queue that
    holds at most UNASKED of them; the program is stopped, the seat plays the default."""
    flood = f"import sys\nfor _ in range({3 * UNASKED}): print('y')\nsys.stdout.flush()\n"
    bot = _broken(flood)
    try:
        bot._reader.join()  # at the program's end, or once it stopped the program
        assert bot._lines.qsize() <= UNASKED + 1  # not its 30,000 lines
        game = Game(seed=1)
        play_hand(game, [bot, RandomBot(1), RandomBot(2)])
        assert game.is_over
        assert f"the bot sent {UNASKED} lines that answer nothing" in bot.errors
        assert not bot.alive
    finally:
        bot.close()


def test_a_bot_that_prints_for_ever_is_given_up_on_each_hand() -> None:
    """The tester's ``cmd:yes``: the program never stops printing."""
    bot = _broken("while True: print('y')")
    try:
        for i in range(2):
            game = Game(seed=i)
            bot.begin(observe(game, 0))  # the hand's start, the program started again if gone
            bot._reader.join()  # it stops reading (and stops the program) at UNASKED lines
            assert bot._lines.qsize() <= UNASKED + 1
            bots: list[Bot] = [bot, RandomBot(1), RandomBot(2)]
            while (seat := game.to_act) is not None:  # play_hand, but begun already
                game.apply(bot_choice(bots[seat], game, seat))
            bot.end(observe(game, 0))
            assert game.is_over
        assert bot.errors.count(f"the bot sent {UNASKED} lines that answer nothing") == 2
        assert bot.starts == 2
    finally:
        bot.close()


LOGGER = """
import json, sys
log = open(sys.argv[1], "a", encoding="utf-8")
for line in sys.stdin:
    log.write(line)
    log.flush()
    message = json.loads(line)
    if message["type"] == "ask":
        print(message["legal"][0], flush=True)
"""


def test_start_is_the_deals_state_and_only_the_events_after_it_follow(tmp_path: Path) -> None:
    """A program that adds the events to ``start``'s state must get the hand's state, every
    event once: ``start`` came at a seat's first question (at the end for the seat sitting
    out, R12) and was followed by every event of the hand, the ones already in it too."""
    four = replace(HUNAN, players=4)
    script = tmp_path / "logger.py"
    script.write_text(LOGGER, encoding="utf-8")
    for dealer in (0, 1):
        game = Game(four, dealer=dealer, seed=dealer + 5)
        dealt = game.clone()
        out = game.seating.sitting_out
        assert out is not None
        # The seat sitting out, the last to play, and the dealer (asked to discard at once).
        seats = (out, game.seating.playing[-1], dealer)
        logs = {seat: tmp_path / f"seat{seat}-{dealer}.jsonl" for seat in seats}
        programs = {
            seat: SubprocessBot([sys.executable, str(script), str(logs[seat])]) for seat in seats
        }
        try:
            play_hand(game, [programs.get(s) or GreedyBot() for s in range(4)])
        finally:
            for program in programs.values():
                program.close()
        for seat in seats:
            messages = [json.loads(line) for line in logs[seat].read_text().splitlines()]
            start = observe(dealt, seat)
            assert messages[0] == {
                "type": "start",
                "protocol": PROTOCOL,
                "seed": None,
                "rules": four.to_json(),
                **observation_json(start),
                "legal": [],  # the dealer's first question comes as an ``ask``
            }
            events = [m for m in messages if m["type"] == "event"]
            after = observe(game, seat).events[len(start.events) :]
            assert events == [event_json(e) for e in after]
            assert messages[-1]["type"] == "end"


LATE = """
import json, sys, time
how, late, asked = sys.argv[2], float(sys.argv[1]), 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] != "ask":
        continue
    asked += 1
    answer = {"action": message["legal"][-1]}
    if how.startswith("never") and asked == 1:
        continue  # gives up on the first question, never answering it
    if how == "late" and asked == 1:
        time.sleep(late)  # the first question answered after its time limit
        print("thinking took too long", flush=True)  # and words of its own before it
        print(json.dumps({"action": "pass", "id": 0}), flush=True)
    if how == "always late, saying the id":
        time.sleep(late)
    if "saying the id" in how:
        answer["id"] = float(message["id"]) if "float" in how else message["id"]
    print(json.dumps(answer), flush=True)
"""


@pytest.mark.parametrize(
    "how",
    ["late", "never, saying the id", "never, saying the id as a float", "never"],
)
def test_an_answer_after_the_time_limit_is_dropped_not_taken_for_the_next_question(
    how: str,
) -> None:
    """Answers without an ``id`` are taken in order, one a question: a late one answered the
    next question, and every answer after it the question after its own, legal ones played
    silently. An answer with the ``id`` of its ``ask`` answers that question only (7.0 is 7):
    a program that never answers a question that timed out loses nothing after it. One that
    says no ``id`` and never answers it is stopped after BEHIND more questions lost (it would
    lose every one after) and started again at the next hand."""
    timeout = 2.0
    bot = SubprocessBot([sys.executable, "-c", LATE, str(1.5 * timeout), how], timeout=timeout)
    played: list[tuple[Action, Action, bool]] = []  # played, answered, timed out

    class Seat:
        name = "late"

        def act(self, observation: Observation) -> Action:
            known = len(bot.errors)
            action = bot.act(observation)
            answer = parse_action(observation_json(observation)["legal"][-1])
            late = any("no answer" in e for e in bot.errors[known:])
            played.append((action, answer, late))
            return action

    try:
        for i in range(1 if how == "never" else 2):
            play_hand(Game(seed=40 + i, dealer=0), [Seat(), GreedyBot(), GreedyBot()])
    finally:
        bot.close()
    assert played[0][2], "the first question timed out"
    assert bot.errors[0] == f"no answer within {timeout:g} s"
    stopped = [e for e in bot.errors if e.startswith("the bot was stopped")]
    if how == "never":  # it would skip the first question of the next hand too: one hand
        assert stopped == [
            f"the bot was stopped: {BEHIND} questions in a row lost to late answers without "
            "an id (an answer that says its ask's id is never taken for another)"
        ]
        assert sum("no answer" in e for e in bot.errors) == 1 + BEHIND  # not every question
        assert len(played) > 1 + BEHIND  # the rest of the hand played by default
        return
    assert not stopped
    # Every question answered in time (under load another may time out) was played as
    # answered, and no answer was refused.
    in_time = [(action, answer) for action, answer, late in played[1:] if not late]
    assert len(in_time) > 10
    assert all(action == answer for action, answer in in_time)
    assert not [e for e in bot.errors if e.startswith(("illegal", "unreadable"))]


def test_a_program_always_late_but_saying_the_id_is_never_stopped_nor_misread() -> None:
    """Every answer after its time limit: each question played by default, each late answer
    dropped, the program kept (a first version stopped it after BEHIND questions, as if it
    answered without ids and had given up on one)."""
    timeout = 0.5
    how = "always late, saying the id"
    bot = SubprocessBot([sys.executable, "-c", LATE, str(1.5 * timeout), how], timeout=timeout)
    try:
        game = Game(seed=40, dealer=0)
        play_hand(game, [bot, GreedyBot(), GreedyBot()])
    finally:
        bot.close()
    assert bot.starts == 1 and bot.errors
    assert all(e == f"no answer within {timeout:g} s" for e in bot.errors)
    own = [action for seat, action in game.history if seat == 0]
    assert len(own) >= len(bot.errors) > BEHIND  # asked again and again, never stopped


def _wait_gone(pid: int, what: str) -> None:
    """Wait until process ``pid`` has ended (a zombie not yet reaped by its new parent is)."""

    def gone() -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"

    wait_until(gone, what)


GRANDCHILD = """
import json, subprocess, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "ask":
        print(json.dumps({"action": message["legal"][0], "id": message["id"]}), flush=True)
        child = subprocess.Popen(["sleep", "300"])  # holds this program's output open
        open(sys.argv[1], "w").write(str(child.pid))
        sys.exit()
"""


ESCAPES = """
import json, os, sys, time
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "ask":
        print(json.dumps({"action": message["legal"][0], "id": message["id"]}), flush=True)
        if os.fork() == 0:  # a process that leaves the group, holding the output open
            os.setsid()
            open(sys.argv[1], "w").write(str(os.getpid()))
            time.sleep(300)
            os._exit(0)
        os._exit(0)
"""


@pytest.mark.parametrize("leaves", ["in its group", "outside its group"])
def test_a_program_that_ends_leaving_a_process_holding_its_output_is_seen_to_end(
    leaves: str, tmp_path: Path
) -> None:
    """The end of the program's output never came while a process it started held it open:
    every question waited out its time limit, and closing the bot waited on that process.
    One in its group is stopped with it; one that left it (docs/protocol.md) cannot be, but
    the program's end is seen a look after."""
    pid_file = tmp_path / "child.pid"
    script = GRANDCHILD if leaves == "in its group" else ESCAPES
    bot = SubprocessBot([sys.executable, "-c", script, str(pid_file)], timeout=30.0)
    try:
        game = Game(seed=40, dealer=0)
        play_hand(game, [bot, GreedyBot(), GreedyBot()])
        assert game.is_over
        assert "the bot exited" in bot.errors
        assert not [e for e in bot.errors if e.startswith("no answer")]
    finally:
        bot.close()
        wait_until(pid_file.exists, "no process started")
    child = int(pid_file.read_text())
    if leaves == "outside its group":
        os.kill(child, signal.SIGKILL)
        # Its end ends the reader, which closes the output it held.
        wait_until(lambda: not bot._reader.is_alive(), "the reader still reads")
    _wait_gone(child, "the program's own process still runs")


STUCK = """
import fcntl, os, sys, time
fcntl.fcntl(0, 1031, 4096)  # F_SETPIPE_SZ: a small pipe, filled by the first questions
if os.fork() == 0:  # a process it started, holding its input open, reading nothing
    open(sys.argv[1], "w").write(str(os.getpid()))
    time.sleep(300)
    os._exit(0)
time.sleep(300)  # the program itself reads nothing either
"""


def test_closing_a_program_whose_input_is_full_and_held_by_its_child_ends(
    tmp_path: Path,
) -> None:
    """``close()`` waited for ever: the writer blocked on the full pipe, closing the input
    waited on the writer, and killing the program alone left its child holding the pipe."""
    pid_file = tmp_path / "child.pid"
    bot = SubprocessBot([sys.executable, "-c", STUCK, str(pid_file)], timeout=0.05)
    # Hands until the unread messages fill the pipe and wait for the writer (a hand sends a
    # few dozen kilobytes, a pipe holds 64).
    for hand in range(30):
        play_hand(Game(seed=hand, dealer=0), [bot, GreedyBot(), GreedyBot()])
        if bot._outbox.qsize() > 20:
            break
    assert bot._outbox.qsize() > 20, "the pipe never filled"
    closing = threading.Thread(target=bot.close, daemon=True)
    closing.start()
    closing.join(timeout=PATIENCE)  # progress awaited: a bound, not a speed
    assert not closing.is_alive(), "close() did not return"
    _wait_gone(int(pid_file.read_text()), "the program's child still runs")


def test_a_reaped_programs_group_is_never_signalled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once the program is reaped its pid may be another process's, and its group id too:
    ``killpg`` then could stop an unrelated session."""
    bot = _broken("import sys\nfor line in sys.stdin: pass")
    bot.close()
    assert bot._process.returncode is not None
    sent: list[int] = []
    monkeypatch.setattr(os, "killpg", lambda pgid, sig: sent.append(pgid))
    bot._kill_group()
    bot._stop()
    assert sent == []


def test_one_endless_line_ends_the_programs_output_with_memory_bounded() -> None:
    """A program printing one line that never ends: the reader takes at most LONGEST
    characters of it, then stops the program; the seat plays the default."""
    bot = _broken("import sys\nwhile True: sys.stdout.write('y' * 4096)")
    try:
        game = Game(seed=1)
        play_hand(game, [bot, RandomBot(1), RandomBot(2)])
        assert game.is_over
        bot._reader.join()
        assert bot._lines.qsize() <= 1
        assert bot._process.wait(timeout=30) < 0  # stopped by a signal (a bound, not a speed)
        assert "the bot was stopped: a line of more than 16,384 characters" in bot.errors
    finally:
        bot.close()
