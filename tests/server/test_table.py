"""The table's own messages (issue 12): the ready step between hands, and 托管 — the server
playing for a person who asks it to or whose time ran out, without showing the other seats
whether that person was asked a hidden question (R8)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from paohuzi.bots.greedy import GreedyBot
from paohuzi.engine.actions import discard
from paohuzi.engine.cards import KIND_NAMES
from paohuzi.engine.game import EventType, Game
from paohuzi.engine.observation import observe
from paohuzi.server.app import create_app
from paohuzi.server.config import Config
from paohuzi.server.rooms import Listener, Room, Rooms
from paohuzi.server.store import open_store
from tests import clock
from tests.pgcluster import db_url
from tests.server.harness import seated
from tests.server.test_hidden import ASKED, DEALER, SEED, sibling_decks

until = clock.until


def over(room: Room) -> bool:
    return room.game is not None and room.game.is_over


def moves(room: Room) -> int:
    """The moves of the hand in play: a progress mark (:class:`clock.Progress`)."""
    return 0 if room.game is None else len(room.game.history)


async def play_out(room: Room, people: set[int]) -> None:
    """The people answer with their first legal action until the hand is over."""
    game = room.game
    assert game is not None
    while True:
        await until(lambda: game.is_over or game.to_act in people)
        if game.is_over:
            return
        seat = game.to_act
        assert seat is not None
        assert await room.act(seat, str(game.legal_actions()[0]), room.seq(seat)) is None


def test_the_next_hand_deals_when_every_person_is_ready(tmp_path: Path) -> None:
    db = str(tmp_path / "ready.db")

    async def first() -> str:
        store = open_store(db_url(db))
        rooms = Rooms(store, Config(bot_delay=0, dev_seeded_deals=True))
        room = await rooms.create([None, None, "greedy"], timer=0, seed=4)
        await play_out(room, {0, 1})
        assert room.view(1)["ready"] == [False, False, True]  # bots are always ready
        assert await room.next_hand(None) == "spectators cannot deal"
        assert await room.next_hand(0) is None
        assert over(room) and room.hand_no == 0  # one person is not ready yet: no deal
        assert room.view(1)["ready"] == [True, False, True]
        assert room.view(None)["ready"] == [True, False, True]
        rooms.close()
        store.close()
        return room.id

    async def second(room_id: str) -> None:
        store = open_store(db_url(db))
        rooms = Rooms(store, Config(bot_delay=0, dev_seeded_deals=True))
        await rooms.load()
        room = await rooms.get(room_id)  # restarted: readiness is not stored, each says it again
        assert room is not None and over(room)
        assert room.view(0)["ready"] == [False, False, True]
        assert await room.next_hand(1) is None
        assert over(room)
        assert await room.next_hand(0) is None
        assert room.hand_no == 1 and not over(room)
        assert room.view(0)["ready"] == [False, False, True]
        rooms.close()
        store.close()

    asyncio.run(second(asyncio.run(first())))


def test_a_timeout_puts_the_seat_on_tuoguan_and_it_plays_on(tmp_path: Path) -> None:
    async def run() -> None:
        store = open_store(db_url(tmp_path / "timeout.db"))
        rooms = Rooms(store, Config(bot_delay=0, dev_seeded_deals=True))
        room = await rooms.create([None, "greedy", "greedy"], timer=0.05, seed=3)
        room.listeners = [Listener(s, _ignore, _closed, 1000) for s in (0, 1, None)]
        game = room.game
        assert game is not None
        await until(lambda: game.to_act == 0)
        assert room.view(0)["deadline"] == pytest.approx(0.05, abs=0.05)
        await until(lambda: room.seats[0].auto)
        played = room.view(0)["timed_out"][0]
        assert played["n"] == 1 and played["action"].split()[0] in ("pass", "discard")
        assert room.view(0)["deadline"] is None  # on 托管 nobody waits for the seat
        # The server plays every later decision of the seat at once: the hand ends by itself.
        await until(lambda: over(room), "the hand stopped", progress=lambda: moves(room))
        assert sum(1 for s, _ in game.history if s == 0) > 1
        assert room.view(1)["auto"] == [True, False, False]  # the end opens it to all
        assert room.view(0)["timed_out"][0]["n"] == 1  # one timeout, then 托管 played
        rooms.close()
        store.close()

    asyncio.run(run())


def test_a_person_hands_over_and_takes_back_control(tmp_path: Path) -> None:
    async def run() -> None:
        store = open_store(db_url(tmp_path / "auto.db"))
        rooms = Rooms(store, Config(bot_delay=0, dev_seeded_deals=True))
        room = await rooms.create([None, "greedy", "greedy"], timer=0, seed=5)
        game = room.game
        assert game is not None
        assert await room.set_auto(None, True) == "spectators have no seat to hand over"
        assert await room.set_auto(0, "yes") == "auto takes on: true or false"
        assert await room.set_auto(0, True) is None
        assert room.view(0)["auto"][0] and not room.view(1)["auto"][0]
        await until(lambda: over(room), "the hand stopped", progress=lambda: moves(room))
        assert await room.next_hand(0) is None
        game = room.game
        assert game is not None and not game.is_over
        assert await room.set_auto(0, False) is None
        await until(lambda: game.to_act == 0 or game.is_over)
        if not game.is_over:
            acted = len(game.history)
            await asyncio.sleep(0.2)
            assert len(game.history) == acted  # the person decides again: nobody plays for it
            assert await room.act(0, str(game.legal_actions()[0]), room.seq(0)) is None
        rooms.close()
        store.close()

    asyncio.run(run())


def test_acting_takes_back_control(tmp_path: Path) -> None:
    async def run() -> None:
        store = open_store(db_url(tmp_path / "act.db"))
        rooms = Rooms(store, Config(bot_delay=0, dev_seeded_deals=True))
        room = await rooms.create([None, "greedy", "greedy"], timer=0, seed=5)
        game = room.game
        assert game is not None
        await until(lambda: game.to_act == 0)
        room.seats[0].auto = True  # as if 托管 had been asked for while the seat decides
        assert await room.act(0, str(game.legal_actions()[0]), room.seq(0)) is None
        assert not room.seats[0].auto
        rooms.close()
        store.close()

    asyncio.run(run())


async def answer_until(room: Room, people: set[int], seat: int) -> None:
    """The people but ``seat`` answer with their first legal action until ``seat`` is asked
    or the hand is over."""
    game = room.game
    assert game is not None
    while True:
        await until(lambda: game.is_over or game.to_act in people)
        if game.is_over or game.to_act == seat:
            return
        other = game.to_act
        assert other is not None
        assert await room.act(other, str(game.legal_actions()[0]), room.seq(other)) is None


def test_saying_ready_ends_tuoguan_for_the_next_hand_and_the_rematch(tmp_path: Path) -> None:
    """托管 does not outlive the hand: a person who says ready (准备, 再来一场) is at the
    table, and the next hand waits for that person's decisions (D116)."""

    async def run() -> None:
        store = open_store(db_url(tmp_path / "ready-auto.db"))
        rooms = Rooms(store, Config(bot_delay=0, dev_seeded_deals=True))
        room = await rooms.create([None, None, "greedy"], timer=0, seed=4, hands=2)
        for hand in range(2):
            assert await room.set_auto(0, True) is None
            await play_out(room, {1})  # seat 0's decisions are 托管's
            assert room.seats[0].auto and room.view(1)["auto"][0]  # the end shows it to all
            assert await room.next_hand(0) is None
            # Ready is being at the table: 托管 ends at once, for the seat and the others.
            assert not room.seats[0].auto and room.hand_no == hand
            assert not room.view(0)["auto"][0] and not room.view(1)["auto"][0]
            assert room.view(1)["ready"] == [True, False, True]
            assert await room.next_hand(1) is None
            assert room.hand_no == hand + 1 and room.match_no == 1 + hand  # then a rematch
            await answer_until(room, {0, 1}, 0)
            game = room.game
            assert game is not None and not game.is_over
            # The new hand asks seat 0 itself: nobody plays for it.
            assert game.to_act == 0 and not room.seats[0].auto and room.view(0)["legal"]
            assert await room.act(0, str(game.legal_actions()[0]), room.seq(0)) is None
        rooms.close()
        store.close()

    asyncio.run(run())


def test_a_timeout_is_shown_to_its_seat_until_it_takes_back_control(tmp_path: Path) -> None:
    async def run() -> None:
        store = open_store(db_url(tmp_path / "told.db"))
        rooms = Rooms(store, Config(bot_delay=0, dev_seeded_deals=True))
        room = await rooms.create([None, None, "greedy"], timer=0.05, seed=4)
        room.listeners = [Listener(s, _ignore, _closed, 1000) for s in (0, 1, None)]
        await until(lambda: room.seats[0].auto or room.seats[1].auto)
        seat = 0 if room.seats[0].auto else 1
        told = room.view(seat)["timed_out"][seat]
        assert told is not None and told["n"] == 1
        assert await room.set_auto(seat, False) is None  # taken back: nothing more to say
        assert room.view(seat)["timed_out"][seat] is None
        assert room.seats[seat].timed_out == (1, told["action"])  # the next one is number 2
        rooms.close()
        store.close()

    asyncio.run(run())


async def _ignore(text: str) -> None:
    pass


async def _closed(code: int, reason: str) -> None:
    pass


async def _watch(deck: list[int], card: int, tmp: Path) -> dict[int | None, list[Any]]:
    """Seat 1 is a person who lets its time run out; the dealer discards ``card``. Returns
    the states every seat and a spectator were sent until the next card is shown."""
    store = open_store(db_url(tmp))
    rooms = Rooms(store, Config(bot_delay=0.01, dev_seeded_deals=True))
    room = await rooms.create([None, None, "greedy"], timer=0.2, seed=SEED)
    sent: dict[int | None, list[Any]] = {s: [] for s in (0, 1, None)}

    def sender(seat: int | None) -> Callable[[str], Any]:
        async def send(text: str) -> None:
            message = json.loads(text)
            if message["type"] == "saving":  # told everyone alike when a commit is slow (load)
                return
            for differs in ("room", "commitment", "deadline"):  # ids, and the clock's reading
                message.pop(differs, None)
            sent[seat].append(message)

        return send

    for seat in sent:
        listener = Listener(seat, sender(seat), _closed, 1000)
        first = room.join(listener)
        assert first is not None
        listener.push(first)
    game = room.game
    assert game is not None and game.to_act == DEALER
    assert await room.act(DEALER, str(discard(card)), room.seq(DEALER)) is None
    await until(lambda: any(e.type is EventType.SHOW for e in game.log[3:]))
    shows = 1 + sum(e.type is EventType.SHOW for e in game.log[:3])

    def shown(message: Any) -> bool:
        events = message.get("events", [])
        count: int = sum(e["event"] == EventType.SHOW.value for e in events)
        return count >= shows

    # Up to the first state that shows the next card: after it a seat on 托管 plays on by
    # itself (the asked deal's seat 1), as far as a loaded machine gives it time to.
    await until(lambda: all(any(shown(m) for m in sent[s]) for s in sent))
    rooms.close()
    store.close()
    return {
        s: messages[: 1 + next(i for i, m in enumerate(messages) if shown(m))]
        for s, messages in sent.items()
    }


def test_tuoguan_after_a_hidden_question_shows_nobody_the_question(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked_deck, other_deck, card = sibling_decks()

    def watch(deck: list[int], name: str) -> dict[int | None, list[Any]]:
        monkeypatch.setattr(Room, "new_deck", lambda self: list(deck))
        return asyncio.run(_watch(deck, card, tmp_path / name))

    asked = watch(asked_deck, "asked.db")
    quiet = watch(other_deck, "quiet.db")
    # Seat 1 timed out on the hidden question and is on 托管: it alone is told so, at once,
    # on its question as it was put (the card still on offer), before the table moves on.
    mine = [m for m in asked[ASKED] if m["auto"][ASKED]]
    assert mine and mine[-1]["timed_out"][ASKED] == {"n": 1, "action": "pass"}
    assert mine[0]["offer"] == KIND_NAMES[card] and mine[0]["legal"]
    assert mine[0]["timed_out"][ASKED] == {"n": 1, "action": "pass"}
    assert not any(m["auto"][ASKED] for m in quiet[ASKED])
    # Every other seat and a spectator were sent the very same states in both deals.
    for seat in (DEALER, None):
        assert asked[seat] == quiet[seat]
        assert all(not m["auto"][ASKED] and m["timed_out"][ASKED] is None for m in asked[seat])


def test_ready_and_auto_messages(tmp_path: Path) -> None:
    app = create_app(db_url(tmp_path / "db.sqlite"), bot_delay=0, dev_seeded_deals=True)
    with TestClient(app) as client:
        data = client.post(
            "/api/rooms", json={"bots": [None, "greedy", "greedy"], "timer": 0, "seed": 2}
        ).json()
        with client.websocket_connect(f"/ws/{data['room']}") as watcher:
            watcher.receive_json()
            watcher.send_json({"type": "auto", "on": True})
            assert "spectators" in watcher.receive_json()["message"]
            watcher.send_json({"type": "ready"})
            assert "spectators" in watcher.receive_json()["message"]
        with seated(client, data, 0) as ws:
            state = ws.receive_json()
            ws.send_json({"type": "auto", "on": 1})
            assert ws.receive_json() == {"type": "error", "message": "auto takes on: true or false"}
            ws.send_json({"type": "auto", "on": True})
            while not state["over"]:  # 托管 plays the whole hand
                state = ws.receive_json()
                assert state["type"] == "state" and state["auto"][0]
            assert state["reveal"]["wall"] is not None and len(state["reveal"]["hands"]) == 3
            if state["result"]["winner"] is not None:
                assert len(state["reveal"]["group_huxi"]) == len(state["result"]["groups"])
            ws.send_json({"type": "ready"})
            state = ws.receive_json()
            # Saying ready is being at the table: 托管 ended with it (D116).
            assert state["hand_no"] == 2 and not state["over"] and not state["auto"][0]
            ws.send_json({"type": "fly"})
            while state["type"] == "state":  # the bots play on meanwhile
                state = ws.receive_json()
            assert "ready, auto" in state["message"]


def test_the_hint_counts_the_winning_cards_you_have_not_seen(tmp_path: Path) -> None:
    async def run() -> None:
        store = open_store(db_url(tmp_path / "hint.db"))
        rooms = Rooms(store, Config(bot_delay=0, dev_seeded_deals=True))
        room = await rooms.create([None, "greedy", "greedy"], timer=0, seed=1)
        for seed in range(200):  # a hand where seat 0 comes to wait (听牌)
            game = Game(seed=seed, dealer=0)
            while not game.is_over and not observe(game, 0).hint()[1]:
                seat = game.to_act
                assert seat is not None
                game.apply(GreedyBot().act(observe(game, seat)))
            if not game.is_over:
                break
        else:
            raise AssertionError("nobody waits")
        room.game = game
        hint = room.hint(0)
        unseen = observe(game, 0).unseen()
        assert hint["waits"]
        for wait in hint["waits"]:
            assert wait["left"] == unseen[KIND_NAMES.index(wait["win"])]
            assert wait["huxi"] >= 15 and wait["score"] >= 1
        rooms.close()
        store.close()

    asyncio.run(run())
