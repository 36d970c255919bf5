"""The native core's fast paths through the one face (issue 23, point 3; D93, D112) give what
the slow paths gave: a seeded deal shuffled inside the core is Python's ``random.Random(seed)``
deck for every int seed (negative, zero, beyond 64 bits, and past the core's 128 bits, where
Python shuffles); ``legal_actions()`` is a new list each call; the caches of a position keyed by
the core's count of moves stay right through clones; refusals raised by the extension carry
the Python core's words, on dealt, cloned, sampled and set-up games alike; ``is_over``, kept by
the extension as the game's own attribute, is the core's after every move, stop and clone, and
keeps no game alive. Skipped when the native core is not built."""

from __future__ import annotations

import gc
import random
import weakref

import pytest

from paohuzi import native
from paohuzi.bots.sampler import sample
from paohuzi.engine.actions import PASS, discard
from paohuzi.engine.cards import full_deck
from paohuzi.engine.game import Game, IllegalAction
from paohuzi.engine.observation import observe
from paohuzi.engine.rules import HUNAN, LUZHOU
from paohuzi.native.core import NativeCore

pytestmark = pytest.mark.skipif(not native.available, reason="the native core is not built")

SEEDS = [0, 1, -1, 7, -123_456_789, 2**32, 2**64 + 3, -(2**100), 2**128 - 1, 2**128, -(2**200)]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_seeded_native_deal_is_pythons_deck(seed: int) -> None:
    deck = full_deck()
    random.Random(seed).shuffle(deck)
    for rules in (HUNAN, LUZHOU):
        fast = Game(rules, dealer=1, seed=seed, core="native")
        slow = Game(rules, dealer=1, seed=seed, core="python")
        assert fast.deck == slow.deck == tuple(deck)
        assert fast.position() == slow.position()
        assert fast.log == slow.log


def test_legal_actions_is_a_new_list_each_call() -> None:
    game = Game(HUNAN, seed=5, core="native")
    first = game.legal_actions()
    first.clear()
    second = game.legal_actions()
    assert second and second is not game.legal_actions()
    assert second == Game(HUNAN, seed=5, core="python").legal_actions()


def test_clones_keep_their_caches_keyed_to_their_own_moves() -> None:
    rng = random.Random(4)
    slow = Game(HUNAN, seed=9, core="python")
    fast = Game(HUNAN, seed=9, core="native")
    for _ in range(6):
        action = rng.choice(slow.legal_actions())
        slow.apply(action)
        fast.apply(action)
    assert fast.position() == slow.position()  # fills the caches at this position
    copy, reference = fast.clone(), slow.clone()
    while not reference.is_over:
        action = rng.choice(reference.legal_actions())
        reference.apply(action)
        copy.apply(action)
        assert copy.phase == reference.phase and copy.seats == reference.seats
        assert copy.legal_actions() == reference.legal_actions()
    assert fast.position() == slow.position()  # the original did not move
    assert copy.result == reference.result and copy.log == reference.log


def _refusals(fast: Game, slow: Game) -> None:
    tries = [discard(k) for k in range(20)] + [PASS]
    for action in tries:
        if action in slow.legal_actions():
            continue
        with pytest.raises(IllegalAction) as a:
            slow.apply(action)
        with pytest.raises(IllegalAction) as b:
            fast.apply(action)
        assert str(a.value) == str(b.value)


def test_refusals_carry_the_python_words_on_every_kind_of_native_game() -> None:
    slow = Game(LUZHOU, seed=2, core="python")
    fast = Game(LUZHOU, seed=2, core="native")
    _refusals(fast, slow)
    _refusals(fast.clone(), slow.clone())
    position = slow.position()
    _refusals(
        Game.from_position(position, LUZHOU, core="native"),
        Game.from_position(position, LUZHOU, core="python"),
    )
    seat = fast.to_act
    assert seat is not None
    found = sample(observe(fast, seat), random.Random(3))
    assert found.core == "native"
    _refusals(found, Game.from_position(found.position(), LUZHOU, core="python"))
    while not fast.is_over:
        fast.apply(fast.legal_actions()[0])
    with pytest.raises(IllegalAction, match="over"):
        fast.apply(PASS)


def _agrees(game: Game) -> None:
    assert game.is_over is (game.result is not None)
    if not game.paused:  # a position stopped at an offer is not one to play on
        reference = Game.from_position(game.position(), game.rules, core="python")
        assert game.is_over is reference.is_over


def test_is_over_is_the_cores_after_every_move_stop_and_copy() -> None:
    rng = random.Random(11)
    for seed in range(40):
        game = Game(HUNAN, dealer=seed % 3, seed=seed, core="native", pause_at_offers=seed % 2 == 0)
        copies = []
        _agrees(game)
        while not game.is_over:
            if game.paused:
                game.resume()
            else:
                game.apply(rng.choice(game.legal_actions()))
            _agrees(game)
            if rng.random() < 0.1:
                copies.append(game.clone())
        for copy in copies:
            _agrees(copy)
            copy.resume_all()
            while not copy.is_over:
                copy.apply(copy.legal_actions()[0])
                copy.resume_all()
            _agrees(copy)
    core = NativeCore(HUNAN, seed=3)
    over = Game.of_core(core)
    core.play_greedy()
    _agrees(over)
    _agrees(over.clone())
    _agrees(Game.from_position(over.position(), HUNAN, core="native"))
    seat = Game(HUNAN, seed=3, core="native").to_act
    assert seat is not None
    found = sample(observe(Game(HUNAN, seed=3, core="native"), seat), random.Random(3))
    _agrees(found)


def test_a_game_dropped_mid_hand_is_freed() -> None:
    game = Game(HUNAN, seed=8, core="native")
    game.apply(game.legal_actions()[0])
    gone = weakref.ref(game)
    del game
    assert gone() is None  # no cycle through the core that keeps its is_over
    gc.collect()
    assert gone() is None
