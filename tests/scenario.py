"""Stacked-deck scenarios: deal the cards a test wants, then play F3 lines."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator

from paohuzi.actions import PASS
from paohuzi.cards import format_cards
from paohuzi.game import Game, Phase, stacked_deck
from paohuzi.rules import HUNAN, RuleSet


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
    deck = stacked_deck(hands, dealer=dealer, liang=liang, wall=wall, seed=seed)
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
        game.apply(game.legal_actions()[0] if game.phase is Phase.DISCARD else PASS)


def claiming(game: Game) -> bool:
    """Whether a claim window is open (a function, so type checkers do not narrow the phase)."""
    return game.phase is Phase.CLAIM


def random_decisions(seeds: Iterable[int]) -> Iterator[tuple[Game, int, random.Random]]:
    """Every decision of seeded games played by random legal choices: yields the game (to look
    at, not to change), the seat to act and the game's generator, then plays on."""
    for seed in seeds:
        game = Game(seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            yield game, seat, rng
            game.apply(rng.choice(game.legal_actions()))
