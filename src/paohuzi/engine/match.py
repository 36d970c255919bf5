"""A match of several hands: the running score and who deals (R11)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from paohuzi.engine.cards import Kind, full_deck
from paohuzi.engine.game import Game
from paohuzi.engine.rules import HUNAN, RuleSet

HUANGZHUANG_LIMIT = 3
"""After this many 荒庄 in a row the dealer's 下家 deals (R11)."""


class Match:
    """Deals hand after hand from a seeded generator and keeps the score (R10.5, R11), for a
    table of ``rules.players`` seats (R12: with four, the seat opposite the dealer sits each
    hand out, and the deal goes round all four)."""

    def __init__(
        self, rules: RuleSet = HUNAN, *, seed: int | None = None, dealer: int | None = None
    ) -> None:
        self.rules = rules
        self.seed = random.randrange(2**32) if seed is None else seed
        """Every deck of the match follows from it and the hand's number: a match can be
        stored as a few numbers and picked up again."""
        seats = rules.players
        self.dealer = random.Random(self.seed).randrange(seats) if dealer is None else dealer
        """The dealer of the next hand; the first is chosen at random (R2)."""
        rules.seating(self.dealer)  # a dealer who is no seat of the table: ValueError
        self.totals = [0] * seats
        self.hands = 0
        self.huangzhuang_streak = 0

    def new_game(self, deck: Sequence[Kind] | None = None) -> Game:
        """The next hand, dealt from ``deck`` (80 kinds, R2), or by default from a deck shuffled
        from the match's seed and the hand's number."""
        if deck is None:
            deck = full_deck()
            random.Random(self.seed * 1_000_003 + self.hands).shuffle(deck)
        return Game(self.rules, dealer=self.dealer, deck=deck)

    def finish(self, game: Game) -> None:
        """Count a finished hand and choose the next dealer (R11)."""
        result = game.result
        if result is None:
            raise ValueError("the hand is not over")
        self.hands += 1
        for seat, paid in enumerate(result.payments):
            self.totals[seat] += paid
        if result.winner is not None:
            self.dealer = result.winner
            self.huangzhuang_streak = 0
        else:
            self.huangzhuang_streak += 1
            if self.huangzhuang_streak == HUANGZHUANG_LIMIT:
                # The seat after the dealer at the table: round all four seats at a four-seat
                # table (R12), where that seat always plays.
                self.dealer = (self.dealer + 1) % self.rules.players
                self.huangzhuang_streak = 0
