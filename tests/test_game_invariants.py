"""Random-simulation invariants over thousands of seeded random hands (R1, R5, R6, R10)."""

from __future__ import annotations

import pickle
import random
import weakref
from dataclasses import replace

import pytest

from paohuzi.engine.actions import Action
from paohuzi.engine.cards import DECK_SIZE, to_counts
from paohuzi.engine.game import CoreName, EventType, Game
from paohuzi.engine.observation import observe
from paohuzi.engine.position import Discarding, SelfHu
from paohuzi.engine.record import Record, record_of, replay
from paohuzi.engine.rules import HUNAN, holding_limit
from tests.scenario import (
    discarding,
    random_decisions,
    window,
)


def cards_in_play(game: Game) -> int:
    """Every card accounted for: hands, tables, rows, the wall and the card on offer; after a
    win, the winner's cards are those of his winning groups (and a 天胡's leftovers)."""
    winner = game.result.winner if game.result is not None else None
    total = 0
    for seat, state in enumerate(game.seats):
        if seat == winner:
            assert game.result is not None and game.result.hu is not None
            hu = game.result.hu
            total += sum(len(g.cards) for g in hu.groups) + len(hu.leftover)
        else:
            total += sum(state.hand) + sum(len(g.cards) for g in state.table)
        total += len(state.row)
    total += game.wall
    if window(game) is not None:
        total += 1
    return total


def discard_pending(game: Game, seat: int) -> bool:
    """The seat took a card and has not yet discarded: it is to discard, or to decide on a
    win after a forced 偎/提 (R4.1 step 3), or that take was on the last card (荒庄) — a forced
    跑 on it too (R5.2) —, or the hand ended during the deal before the dealer's first discard
    (R2: the 亮张 is his 21st card)."""
    if game.to_act == seat and isinstance(game.phase, (Discarding, SelfHu)):
        return True
    if seat == game.dealer and game.is_over and not dealt(game):
        return True
    last = game.log[-2] if len(game.log) > 1 else None
    return (
        bool(game.log)
        and game.log[-1].type is EventType.HUANGZHUANG
        and last is not None
        and last.seat == seat
        and last.type in (EventType.WEI, EventType.CHOUWEI, EventType.TI, EventType.PAO)
    )


def dealt(game: Game) -> bool:
    """The 亮张 offers are over and every dealt four of a kind has been laid down (R2)."""
    return any(e.type in (EventType.DRAW, EventType.DISCARD) for e in game.log) or (
        discarding(game)
    )


def check_step(game: Game) -> None:
    assert cards_in_play(game) == DECK_SIZE
    winner = game.result.winner if game.result is not None else None
    for seat in game.seating.playing:
        limit = holding_limit(game.fours(seat))
        if seat != winner and not discard_pending(game, seat):
            if sum(game.hands[seat]):
                assert game.holding(seat) <= limit  # R6
            else:
                # A forced 偎/提 that empties the hand leaves nothing to discard [decision].
                assert game.holding(seat) <= limit + 1
        if dealt(game):
            assert max(game.hands[seat]) <= 3  # no four of a kind in hand after the first 提
    if not game.is_over:
        assert game.legal_actions()
        assert game.to_act is not None


def random_game(seed: int) -> tuple[Game, list[Action]]:
    rng = random.Random(seed)
    game = Game(dealer=seed % 3, seed=seed)
    actions = []
    while not game.is_over:
        check_step(game)
        action = rng.choice(game.legal_actions())
        actions.append(action)
        game.apply(action)
    check_step(game)
    return game, actions


@pytest.mark.parametrize("block", range(8))
def test_random_games_keep_the_invariants(block: int) -> None:
    outcomes = {"win": 0, "huangzhuang": 0}
    for seed in range(block * 250, block * 250 + 250):
        game, _ = random_game(seed)
        result = game.result
        assert result is not None
        assert sum(result.payments) == 0  # R10.5
        outcomes["win" if result.winner is not None else "huangzhuang"] += 1
        if result.winner is not None:
            assert result.hu is not None and result.hu.points > 0
            assert result.payments[result.winner] == 2 * result.hu.points
            assert set(result.other_huxi) == {0, 1, 2} - {result.winner}
        # Replaying the record reproduces the game and its result.
        record = Record.from_json(record_of(game).to_json())
        again = replay(record)
        assert again.error is None and again.status == "finished"
        assert again.game.result == result
        assert again.game.log == game.log
    assert outcomes["win"] > 0 and outcomes["huangzhuang"] > 0


def test_clone_then_the_same_actions_gives_the_same_game() -> None:
    for seed in range(60):
        rng = random.Random(seed)
        game = Game(seed=seed)
        for _ in range(rng.randrange(1, 25)):
            if game.is_over:
                break
            game.apply(rng.choice(game.legal_actions()))
        copy = game.clone()
        choices = random.Random(seed + 1000)
        while not game.is_over:
            action = choices.choice(game.legal_actions())
            game.apply(action)
            copy.apply(action)
            assert copy.hands == game.hands and copy.tables == game.tables
            assert copy.legal_actions() == game.legal_actions()
        assert copy.result == game.result and copy.log == game.log


def test_clone_is_independent() -> None:
    game = Game(seed=5)
    copy = game.clone()
    copy.apply(copy.legal_actions()[0])
    assert game.history == [] and len(copy.history) == 1
    assert [sum(h) for h in game.hands] != [sum(h) for h in copy.hands] or game.log != copy.log


def hidden_reshuffle(game: Game, seat: int, rng: random.Random) -> Game:
    """A copy of the game with every card hidden from ``seat`` dealt again at random: the
    other hands and the wall, keeping each hand's size (another's face-down 偎 keeps its place
    but may change kind). The phase is kept as it is, whether or not the seat to act could
    face it with its new hand: the copy is for looking at."""
    position = game.position()
    pool = list(position.wall)
    others = [s for s in range(len(position.seats)) if s != seat]
    for s in others:
        pool += position.seats[s].hand_cards()
    rng.shuffle(pool)
    seats = list(position.seats)
    for s in others:
        size = sum(seats[s].hand)
        seats[s] = replace(seats[s], hand=tuple(to_counts(pool[:size])))
        del pool[:size]
    position = replace(position, wall=tuple(pool), seats=tuple(seats))
    return Game.from_position(position, game.rules, log=game.log, check=False)


def test_observation_does_not_change_when_hidden_cards_are_reshuffled() -> None:
    rng = random.Random(7)
    checked = 0
    for game, _, _ in random_decisions(range(150)):
        for seat in range(3):
            seen = observe(game, seat)
            assert observe(hidden_reshuffle(game, seat, rng), seat) == seen
            checked += 1
    assert checked > 5000


def test_observation_hides_other_wei_and_draws() -> None:
    checked = {"own wei": 0, "other wei": 0, "other draw or wei event": 0}
    for seed in range(200):
        game = Game(seed=seed)
        choices = random.Random(seed)
        while not game.is_over:
            game.apply(choices.choice(game.legal_actions()))
            for seat in range(3):
                seen = observe(game, seat)
                for other in range(3):
                    for group in seen.tables[other]:
                        if group.type.value == "wei":
                            assert (group.cards is None) == (other != seat)
                            checked["other wei" if other != seat else "own wei"] += 1
                for event in seen.events:
                    if event.type.value in ("draw", "wei") and event.seat != seat:
                        assert event.card is None
                        checked["other draw or wei event"] += 1
    assert min(checked.values()) > 1000, checked


@pytest.mark.parametrize("core", ["python", "auto"])
def test_is_over_is_kept_through_every_move_stop_text_and_pickle(core: CoreName) -> None:
    """``is_over`` is an attribute of the game (D112), set by its core or by the game itself:
    it says what the result says after every move, stop and F3 line, and in a copy."""
    for seed in range(6):
        game = Game(seed=seed, core=core, pause_at_offers=seed % 2 == 0)
        while not game.is_over:
            assert game.result is None
            if game.paused:
                game.resume()
            else:
                game.apply_text(f"{game.to_act} {game.legal_actions()[0]}")
        assert game.result is not None
    game = Game(seed=4, core=core)
    gone = weakref.ref(game)
    del game
    assert gone() is None  # freed at once: no cycle through what keeps is_over
    if core == "python":  # the native core's games do not pickle
        copy = pickle.loads(pickle.dumps(Game(seed=4, core=core)))
        while not copy.is_over:
            copy.apply(copy.legal_actions()[0])
        assert copy.result is not None


@pytest.mark.parametrize("core", ["python", "auto"])
@pytest.mark.parametrize("players", [3, 4])
def test_a_seat_outside_the_table_observes_nothing(core: CoreName, players: int) -> None:
    game = Game(replace(HUNAN, players=players), dealer=1, seed=1, core=core)
    for seat in (-1, -players, players):
        with pytest.raises(ValueError, match="seat must be"):
            observe(game, seat)  # -1 read the last seat's hand, labelled seat -1


@pytest.mark.parametrize("core", ["python", "auto"])
@pytest.mark.parametrize("dealer", [-1, 3, 2**70, True])
def test_a_dealer_outside_the_table_is_the_same_error_on_either_core(
    core: CoreName, dealer: int
) -> None:
    with pytest.raises(ValueError, match="dealer must be 0, 1 or 2, not"):
        Game(dealer=dealer, seed=1, core=core)
