"""A state's events, built once each (:mod:`paohuzi.server.views`), are what the seat's own
observation says, at every step of a hand, for every seat and the spectators, game after game."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from paohuzi.bots.protocol import event_json, observation_json
from paohuzi.engine.game import Game
from paohuzi.engine.groups import GroupType
from paohuzi.engine.observation import HIDDEN_WEI, observe, seen_event
from paohuzi.engine.rules import HUNAN
from paohuzi.server.rooms import Room
from paohuzi.server.views import SeatEvents, events_text
from tests.server.harness import FAST, PERSON, app_client, new_room, receive, room_of


def test_the_kept_events_are_each_seats_observation_at_every_step() -> None:
    kept = SeatEvents()
    seats: list[int | None] = [0, 1, 2, None]
    hidden = 0
    for seed in range(3):  # a new game starts afresh
        game = Game(HUNAN, dealer=0, seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            for seat in seats:
                expected = [event_json(e) for e in observe(game, seat).events]
                assert json.loads(kept.text(game, seat)) == expected
                assert json.loads(events_text(game, seat)) == expected
                hidden += sum(1 for e in expected if e["card"] is None)
            game.apply(rng.choice(game.legal_actions()))
    assert hidden  # the others' private cards were hidden somewhere


def _compare(live: Room) -> None:
    """In the room's own event loop, so that nothing changes meanwhile: each viewer's state
    made with the others, alone, as a dict and from the seat's observation."""
    game = live.dealt
    viewers: list[int | None] = [0, 1, 2, None]
    texts = live.view_texts(viewers)
    for seat in viewers:
        made = json.loads(texts[seat])
        assert made == json.loads(live.view_text(seat)) == live.view(seat)
        expected = observation_json(observe(game, seat, events=False))
        assert {k: made[k] for k in expected} == expected
        assert made["events"] == [event_json(e) for e in observe(game, seat).events]
        assert made["you"] == seat


def test_every_seats_state_made_at_once_is_its_own_observation(tmp_path: Path) -> None:
    """A frame's states are made together, what every viewer is shown alike once for all
    (``Room.view_texts``): each is still exactly what that seat's own observation says, and
    the same as the state made for that seat alone."""
    with app_client(tmp_path / "db", **FAST) as client:
        data = new_room(client, PERSON)
        room, token = data["room"], data["seats"][0]["token"]
        with client.websocket_connect(f"/ws/{room}") as ws:
            ws.send_json({"type": "hello", "token": token})
            compared = 0
            for _ in range(2):
                state: dict[str, Any] = {"over": False}
                while not state["over"]:
                    state = receive(ws)
                    if state["type"] != "state":
                        continue
                    ws.portal.call(_compare, room_of(client, room))
                    compared += 4
                    if state["legal"]:
                        action = state["legal"][-1]
                        ws.send_json({"type": "act", "action": action, "seq": state["seq"]})
                ws.send_json({"type": "ready"})
    assert compared > 100


def test_a_seats_observation_is_the_public_one_with_its_own_parts() -> None:
    """``observe`` (``seat_observation`` over ``public_observation``) against the fields read
    off the game one by one, on the Python core and the default one (the native core where it
    is built; CI's PostgreSQL run of this suite goes without it)."""
    for core in ("python", "auto"):
        for seed in range(4):
            game = Game(HUNAN, dealer=seed % 3, seed=seed, core=core)
            rng = random.Random(seed)
            while not game.is_over:
                seats = game.seats
                public = observe(game, None)
                for seat in range(3):
                    obs = observe(game, seat)
                    assert obs.hand == seats[seat].hand
                    assert obs.chou == seats[seat].chou and obs.chou_hu == seats[seat].chou_hu
                    assert obs.legal == (tuple(game.legal_actions()) if game.to_act == seat else ())
                    for s, table in enumerate(obs.tables):
                        for seen, group in zip(table, seats[s].table, strict=True):
                            hidden = s != seat and group.type is GroupType.WEI
                            assert seen == (HIDDEN_WEI if hidden else group)
                    assert obs.events == tuple(seen_event(e, seat) for e in game.log)
                    for name in ("hand_sizes", "rows", "discarded", "wall", "turn", "offer"):
                        assert getattr(obs, name) == getattr(public, name)
                assert public.hand == (0,) * 20 and public.legal == () and public.seat is None
                assert all(
                    seen == (HIDDEN_WEI if g.type is GroupType.WEI else g)
                    for s, table in enumerate(public.tables)
                    for seen, g in zip(table, seats[s].table, strict=True)
                )
                game.apply(rng.choice(game.legal_actions()))
