"""Stacked-deck scenarios: deal the cards a test wants, then play F3 lines."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator

from paohuzi.engine.actions import PASS, discard
from paohuzi.engine.cards import COPIES, NUM_KINDS, Kind, format_cards, full_deck, to_counts
from paohuzi.engine.game import Game, stacked_deck
from paohuzi.engine.groups import Group
from paohuzi.engine.position import ClaimWindow, Discarding, Phase, Position, SeatState
from paohuzi.engine.rules import HAND_SIZE, HUNAN, RuleSet
from tests.helpers import C, T


def deal(
    hands: dict[int, str],
    *,
    liang: str,
    wall: str = "",
    dealer: int = 0,
    rules: RuleSet = HUNAN,
    seed: int = 0,
) -> Game:
    """A game dealt from a deck with these hands, 亮张 and first wall cards (R2)."""
    deck = stacked_deck(hands, dealer=dealer, liang=liang, wall=wall, seed=seed, rules=rules)
    return Game(rules, dealer=dealer, deck=deck)


def play(game: Game, *lines: str) -> None:
    """Apply F3 lines ``SEAT ACTION`` in order."""
    for line in lines:
        game.apply_text(line)


def legal(game: Game) -> list[str]:
    """The legal actions as F3 lines."""
    return [f"{game.to_act} {a}" for a in game.legal_actions()]


def hand(game: Game, seat: int) -> str:
    return format_cards(game.hand_cards(seat))


def table(game: Game, seat: int) -> list[str]:
    return [str(g) for g in game.tables[seat]]


def quiet(game: Game, wall: int) -> None:
    """Pass every offer and discard the first legal card while more than ``wall`` cards are
    left to draw."""
    while not game.is_over and game.wall > wall:
        game.apply(game.legal_actions()[0] if discarding(game) else PASS)


def claiming(game: Game) -> bool:
    """Whether a claim window is open (a function, so type checkers do not narrow the phase)."""
    return isinstance(game.phase, ClaimWindow)


def discarding(game: Game, seat: int | None = None) -> bool:
    """Whether a seat (``seat``, if given) must discard now."""
    phase = game.phase
    return isinstance(phase, Discarding) and seat in (None, phase.seat)


def window(game: Game) -> ClaimWindow | None:
    """The claim window open now, if any."""
    phase = game.phase
    return phase if isinstance(phase, ClaimWindow) else None


def on_offer(game: Game) -> Kind | None:
    """The card on offer now, if any."""
    found = window(game)
    return found.card if found is not None else None


def passed(game: Game) -> tuple[Game, dict[int, list[str]]]:
    """A copy of the game after every seat still to answer on the card now on offer passed,
    and what each was offered: a pass outranks nothing, so each is offered all its options on
    the card (R8)."""
    copy = game.clone()
    first = window(copy)
    assert first is not None, "no card is on offer"
    offered: dict[int, list[str]] = {}
    while (now := window(copy)) is not None and now.to_act in first.asking:
        if (now.card, now.owner, now.source) != (first.card, first.owner, first.source):
            break
        if now.to_act in offered:
            break
        offered[now.to_act] = [str(a) for a in now.offered]
        copy.apply(PASS)
    return copy, offered


def setup(
    seats: dict[int, tuple[str, str]],
    phase: Phase,
    *,
    dealer: int = 0,
    wall: str = "",
    offer: str = "",
    rows: bool = False,
    rules: RuleSet = HUNAN,
) -> Game:
    """A game at a position with the given hands and tables (``{seat: (hand, table)}``, F1 and
    F2) and phase. Every other playing seat holds 20 cards, at most a pair of a kind, so that
    it holds no 坎 or 提 the test did not ask for; the wall starts with ``wall`` and holds the
    cards left — or, with ``rows``, is just ``wall`` and the cards left lie in front of the
    seats. ``offer``: the card on offer, kept out of all of them."""
    left = [COPIES] * NUM_KINDS
    given: dict[int, tuple[list[Kind], list[Group]]] = {}
    for seat, (hand_text, table_text) in seats.items():
        given[seat] = (C(hand_text), T(table_text))
    top = C(wall)
    for cards in [*(h + [k for g in t for k in g.cards] for h, t in given.values()), top, C(offer)]:
        for k in cards:
            left[k] -= 1
    assert min(left) >= 0, "more than four of a kind asked for"
    pool = [k for k in range(NUM_KINDS) for _ in range(left[k])]
    seating = rules.seating(dealer)
    hands: dict[int, list[Kind]] = {}
    for seat in seating.playing:
        if seat in given:
            continue
        hand: list[Kind] = []
        for k in list(pool):
            if len(hand) < HAND_SIZE and hand.count(k) < 2:
                hand.append(k)
                pool.remove(k)
        hands[seat] = hand
    in_rows: dict[int, list[Kind]] = {s: [] for s in seating.playing}
    if rows:
        for i, k in enumerate(pool):
            in_rows[seating.playing[i % len(seating.playing)]].append(k)
        pool = []
    states = []
    for seat in range(seating.seats):
        hand, groups = given.get(seat, (hands.get(seat, []), []))
        row = tuple(in_rows.get(seat, ()))
        states.append(SeatState(tuple(to_counts(hand)), tuple(groups), row))
    liang = next(k for k in range(NUM_KINDS) if left[k])
    position = Position(dealer, liang, (*top, *pool), tuple(states), phase)
    return Game.from_position(position, rules)


def random_decisions(
    seeds: Iterable[int], rules: RuleSet = HUNAN, *, rotate: bool = False
) -> Iterator[tuple[Game, int, random.Random]]:
    """Every decision of seeded games played by random legal choices: yields the game (to look
    at, not to change), the seat to act and the game's generator, then plays on. The dealer is
    seat 0, or with ``rotate`` the seed modulo the seats."""
    for seed in seeds:
        game = Game(rules, dealer=seed % rules.players if rotate else 0, seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            yield game, seat, rng
            game.apply(rng.choice(game.legal_actions()))


def sibling_decks(
    seed: int, dealer: int, seat: int, tries: int
) -> Iterator[tuple[list[int], list[int], int, Game, Game]]:
    """Pairs of decks alike but for one card of ``seat``'s hand, swapped with the last wall
    card (index 79, never drawn in the few moves a test watches), where the dealer may first
    discard that card and nothing public differs at the deal (no 提 changed): yields both
    decks, the card, and both games after that discard, for the caller to pick from."""
    rng = random.Random(seed)
    start = 20 * ((seat - dealer) % HUNAN.players)  # R2: seat (dealer + i) gets 20i..20i+19
    for _ in range(tries):
        deck = full_deck()
        rng.shuffle(deck)
        game = Game(dealer=dealer, deck=deck)
        if not isinstance(game.phase, Discarding) or game.to_act != dealer:
            continue
        for card in {a.card for a in game.legal_actions()}:
            assert card is not None
            where = [i for i in range(start, start + 20) if deck[i] == card]
            if len(where) != 2 or deck[79] == card:
                continue
            other = list(deck)
            other[where[0]], other[79] = other[79], other[where[0]]
            a, b = Game(dealer=dealer, deck=deck), Game(dealer=dealer, deck=other)
            if [e.type for e in a.log] != [e.type for e in b.log] or b.to_act != dealer:
                continue  # the swap changed something public at the deal (a 提)
            a.apply(discard(card))
            b.apply(discard(card))
            yield deck, other, card, a, b
