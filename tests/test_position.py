"""The position model: a game set up from its own position plays on exactly as the game does,
and the position's JSON notation round-trips (issue 11)."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paohuzi.engine.actions import HU, PASS, PENG, discard
from paohuzi.engine.cards import parse_kind
from paohuzi.engine.game import Game, IllegalAction
from paohuzi.engine.position import ClaimWindow, Discarding, Over, Position, SelfHu, Source
from paohuzi.engine.rules import HUNAN, LUZHOU, RuleSet
from tests.scenario import deal, play, quiet, setup
from tests.test_game_win import DEALER, WAITING

RULES = [HUNAN, LUZHOU, replace(HUNAN, min_huxi=10, hu_on_discard=True), replace(HUNAN, players=4)]


def played(rules: RuleSet, seed: int, steps: int) -> tuple[Game, random.Random]:
    """A seeded random game after ``steps`` decisions (fewer if it ends first)."""
    game = Game(rules, dealer=seed % rules.players, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.is_over:
            break
        game.apply(rng.choice(game.legal_actions()))
    return game, rng


def notation_round_trip(position: Position) -> Position:
    return Position.from_json(json.loads(json.dumps(position.to_json(), ensure_ascii=False)))


@settings(max_examples=300, deadline=None)
@given(
    rules=st.sampled_from(RULES),
    seed=st.integers(0, 10**6),
    steps=st.integers(0, 60),
    choices=st.integers(0, 10**6),
)
def test_a_game_from_its_position_continues_identically(
    rules: RuleSet, seed: int, steps: int, choices: int
) -> None:
    game, _ = played(rules, seed, steps)
    position = game.position()
    assert notation_round_trip(position) == position
    copy = Game.from_position(notation_round_trip(position), rules)
    assert copy.position() == position
    start = len(game.log)
    rng = random.Random(choices)
    while not game.is_over:
        assert copy.legal_actions() == game.legal_actions()
        action = rng.choice(game.legal_actions())
        game.apply(action)
        copy.apply(action)
        assert copy.position() == game.position()
    assert copy.is_over and copy.result == game.result
    assert copy.log == game.log[start:]


def test_clone_copies_the_position_and_the_past() -> None:
    for seed in range(40):
        game, rng = played(HUNAN, seed, seed % 30)
        copy = game.clone()
        assert copy.position() == game.position()
        assert copy.history == game.history and copy.log == game.log
        if not game.is_over:
            copy.apply(rng.choice(copy.legal_actions()))
            assert len(game.history) == len(copy.history) - 1


def test_phases_say_who_acts_and_hold_the_result_once_over() -> None:
    seen: set[type] = set()
    for seed in range(200):
        game = Game(seed=seed)
        rng = random.Random(seed)
        while True:
            phase = game.phase
            seen.add(type(phase))
            assert game.to_act == phase.to_act
            if isinstance(phase, Over):
                assert game.result is phase.result and game.to_act is None
                break
            assert isinstance(phase, (ClaimWindow, Discarding, SelfHu))
            game.apply(rng.choice(game.legal_actions()))
    assert seen == {ClaimWindow, Discarding, SelfHu, Over}


def test_r8_a_claim_window_position_keeps_the_hidden_claims() -> None:
    # Seat 1 declares a 吃 that seat 2's 碰 outranks (R8): the window's claims hold it, and a
    # game set up from that position resolves as the game does.
    game = deal({0: "x5 x5 x4 x4 x6 x6", 1: "x4 x6 x1 x9", 2: "x5 x5 x1 x9"}, liang="d10", seed=1)
    play(game, "0 discard x5", "1 chi x4x5x6")
    phase = game.phase
    assert isinstance(phase, ClaimWindow) and phase.asking == (2,)
    assert [(s, str(a)) for s, a in phase.claims] == [(1, "chi x4x5x6")]
    assert phase.offered == (PENG,)
    copy = Game.from_position(game.position())
    play(copy, "2 peng")
    play(game, "2 peng")
    assert copy.position() == game.position()


def test_positions_the_rules_cannot_reach_are_refused() -> None:
    position = Game(seed=3).position()
    with pytest.raises(ValueError, match="the rules seat 4 players"):
        Game.from_position(position, replace(HUNAN, players=4))
    with pytest.raises(ValueError, match="places 79 cards"):
        Game.from_position(replace(position, wall=position.wall[1:]))
    with pytest.raises(ValueError, match="cannot be offered"):
        window = ClaimWindow(parse_kind("x1"), 0, Source.DISCARDED, (1,), (HU,))
        setup({}, window, offer="x1")
    with pytest.raises(ValueError, match="no complete hand"):
        setup({}, SelfHu(1, parse_kind("x1")))


def test_an_unchecked_position_is_taken_as_given() -> None:
    # For looking at, not playing: the seat to act is offered what the position says.
    window = ClaimWindow(parse_kind("x1"), 0, Source.DISCARDED, (1,), (HU,))
    position = setup({}, Discarding(0)).position()
    game = Game.from_position(replace(position, wall=position.wall[1:], phase=window), check=False)
    assert game.legal_actions() == [HU, PASS]
    with pytest.raises(IllegalAction, match="no winning hand"):
        game.apply(HU)
    assert game.history == []


def test_r4_1_a_self_hu_position_plays_on() -> None:
    hand = "d1 d1 d1 d2 d7 d10 x1 x2 x3 x5 x5 x5 d4 d5 d6 d8 d9 d10 x7 x7"
    game = deal({0: DEALER.replace("x1 x3", "x4 x1"), 1: hand}, liang="x4", wall="x7", seed=1)
    play(game, "0 discard x1")
    quiet(game, 18)
    assert game.phase == SelfHu(1, parse_kind("x7"))
    copy = Game.from_position(game.position())
    play(copy, "1 pass")
    play(game, "1 pass")
    assert copy.position() == game.position()
    assert dict(game.seats[1].chou_hu) == {parse_kind("x7"): 21}  # R9.3, for the drawn kind


def test_a_discarding_position_offers_the_same_discards() -> None:
    game = deal({0: DEALER, 1: WAITING}, liang="x4", seed=1)
    assert isinstance(game.phase, Discarding)
    copy = Game.from_position(game.position())
    assert copy.legal_actions() == game.legal_actions()
    with pytest.raises(IllegalAction, match="must discard"):
        copy.apply(PASS)
    copy.apply(discard(parse_kind("x1")))
