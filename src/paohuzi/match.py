"""A match of several hands: the running score and who deals (R11)."""

from __future__ import annotations

import random

from paohuzi.cards import full_deck
from paohuzi.game import PLAYERS, Game
from paohuzi.rules import HUNAN, RuleSet

HUANGZHUANG_LIMIT = 3
"""After this many 荒庄 in a row the dealer's 下家 deals (R11)."""


class Match:
    """Deals hand after hand from a seeded generator and keeps the score (R10.5, R11)."""

    def __init__(
        self, rules: RuleSet = HUNAN, *, seed: int | None = None, dealer: int | None = None
    ) -> None:
        self.rules = rules
        self.seed = random.randrange(2**32) if seed is None else seed
        """Every deck of the match follows from it and the hand's number: a match can be
        stored as a few numbers and picked up again."""
        self.dealer = random.Random(self.seed).randrange(PLAYERS) if dealer is None else dealer
        """The dealer of the next hand; the first is chosen at random (R2)."""
        self.totals = [0] * PLAYERS
        self.hands = 0
        self.huangzhuang_streak = 0

    def new_game(self) -> Game:
        """The next hand, dealt from a freshly shuffled deck."""
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
                self.dealer = (self.dealer + 1) % PLAYERS
                self.huangzhuang_streak = 0
