"""Nothing public moves on a hidden event (issue 10, R8): whether a seat was asked about a
card, and what it answered when it passed, shows in no other seat's messages."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from paohuzi.engine.actions import PASS, discard
from paohuzi.engine.game import EventType
from paohuzi.engine.observation import Observation
from paohuzi.server.botrunner import BotRunner
from paohuzi.server.config import Config
from paohuzi.server.rooms import Listener, Room, Rooms
from paohuzi.server.store import open_store
from tests import clock, scenario
from tests.pgcluster import db_url
from tests.server.test_timing import Clock, run_virtual

DEALER = 0
ASKED = 1  # the dealer's 下家: the only seat that may 吃 the dealer's discard
OTHER = 2
LAST = 79  # the last wall card: never drawn in the few moves watched
SEED = 1  # a development room's seed whose first dealer is seat 0


def sibling_decks() -> tuple[list[int], list[int], int]:
    """Two decks alike but for one card of seat ``ASKED`` (swapped with the last wall card),
    and a kind the dealer may discard first: in the first deck seat ``ASKED`` is asked about
    it, in the second nobody is."""
    for deck, other, card, a, b in scenario.sibling_decks(10, DEALER, ASKED, 2000):
        if a.to_act == ASKED and b.to_act != ASKED and not b.is_over:
            return deck, other, card
    raise AssertionError("no pair of sibling decks found")


async def until(condition: Callable[[], bool], seconds: float = clock.PATIENCE) -> None:
    deadline = clock.deadline(seconds)
    while not condition():
        assert not clock.expired(deadline), "timed out"
        await asyncio.sleep(0.002)


async def watch(
    deck: list[int], card: int, tmp: Path, pace: float, bot: bool
) -> dict[int | None, list[str]]:
    """Deal ``deck``, the dealer discards ``card``, seat 1 (a person, or a bot) passes whenever
    it is asked; returns what every seat and a spectator were sent, with arrival times."""
    store = open_store(db_url(tmp))
    rooms = Rooms(store, Config(bot_delay=pace, dev_seeded_deals=True))
    Room.new_deck = lambda self: list(deck)  # type: ignore[method-assign]
    seats: list[str | None] = [None, "greedy" if bot else None, None]
    room = await rooms.create(seats, timer=0, seed=SEED)
    sent: dict[int | None, list[str]] = {s: [] for s in (0, 1, 2, None)}
    # Arrival times, in units of the pace, on the loop's clock: a virtual one (run_virtual),
    # so they are the rooms' release schedule itself, whatever the machine's load.
    now = asyncio.get_running_loop().time
    started = now()

    def sender(seat: int | None) -> Callable[[str], asyncio.Future[None]]:
        async def send(text: str) -> None:
            sent[seat].append(text)
            moment = now() - started
            sent[seat].append(f"@{round(moment / max(pace, 1e-9))}")

        return send  # type: ignore[return-value]

    async def close(code: int, reason: str) -> None:
        pass

    await until(lambda: room.frames.drained.is_set())
    listeners = []
    for seat in sent:
        if bot and seat == ASKED:
            continue
        listener = Listener(seat, sender(seat), close, 1000)
        listeners.append(listener)
        first = room.join(listener)
        assert first is not None
        listener.push(first)
    game = room.game
    assert game is not None and game.to_act == DEALER and room.match.dealer == DEALER
    assert await room.act(DEALER, str(discard(card)), room.seq(DEALER)) is None
    await until(lambda: room.frames.drained.is_set())
    # Seat 1 passes whenever it is asked (a hidden question: it thinks a moment first), until
    # the card after the discard is drawn and someone else must decide.
    drawn = False
    if bot:
        await until(lambda: any(e.type is EventType.DRAW for e in game.log[3:]))
        await until(lambda: room.frames.drained.is_set() and game.to_act != ASKED)
    while not bot and not (drawn and game.to_act != ASKED):
        await until(lambda: room.frames.drained.is_set())
        drawn = any(e.type is EventType.DRAW for e in game.log[3:])
        if game.to_act == ASKED and PASS in game.legal_actions():
            await asyncio.sleep(pace / 4)
            assert await room.act(ASKED, "pass", room.seq(ASKED)) is None
        elif not drawn or game.to_act == ASKED:
            break
    await until(lambda: room.frames.drained.is_set())
    await until(lambda: all(listener._queue.empty() for listener in listeners))  # all sent
    rooms.close()
    store.close()
    return sent


def _comparable(text: str) -> Any:
    """A message without what differs between two rooms anyway: the room's id, and the
    commitment to its deck (a digest, which reveals nothing of the deck)."""
    if text.startswith("@"):
        return None
    message = json.loads(text)
    del message["room"], message["commitment"]
    return message


@pytest.mark.parametrize("pace", [0.0, 0.5])
@pytest.mark.parametrize("bot", [False, True], ids=["person", "bot"])
def test_a_hidden_question_changes_no_other_seats_messages(
    pace: float, bot: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked_deck, unasked_deck, card = sibling_decks()
    decide = BotRunner.decide

    async def passing(self: BotRunner, name: str, seed: int, obs: Observation, **kw: Any) -> Any:
        if PASS in obs.legal:
            await asyncio.sleep(pace / 4)  # a bot that takes its time, within the pace
            return PASS, None
        return await decide(self, name, seed, obs, **kw)

    monkeypatch.setattr(BotRunner, "decide", passing)
    original = Room.new_deck
    try:
        asked = run_virtual(watch(asked_deck, card, tmp_path / "a.db", pace, bot), Clock())
        unasked = run_virtual(watch(unasked_deck, card, tmp_path / "b.db", pace, bot), Clock())
    finally:
        Room.new_deck = original  # type: ignore[method-assign]
    for seat in (DEALER, OTHER, None):
        messages = [_comparable(t) for t in asked[seat]]
        assert messages == [_comparable(t) for t in unasked[seat]], seat
        assert len(messages) >= 3  # the deal, the discard on offer, the next draw
        if pace:  # and at the same moments, in units of the pace
            assert [t for t in asked[seat] if t.startswith("@")] == [
                t for t in unasked[seat] if t.startswith("@")
            ]
    if bot:
        return
    # The asked seat itself was shown its question (and only it).
    assert any('"legal": ["' in t for t in asked[ASKED])
    assert not any('"legal": ["' in t for t in unasked[ASKED])
