"""Ratings: a player's skill per rule family, from the matches they finish (issue 25, D120).

Pure functions, no I/O: :func:`update` takes the ratings of a match's seats and their match
totals and gives the new ratings; the store keeps them (:mod:`paohuzi.server.store`), the
hook feeds them (:mod:`paohuzi.server.standing`). The model is openskill's Plackett-Luce (a
Bayesian rating of a ranking of any number of players: a 3- or 4-seat match's totals are a
ranking, ties tied). Each rating is a belief, ``mu`` ± ``sigma``; the computers sit at fixed
reference ratings measured by the tournament (``BOT_MU``) and are never updated, so a player
who only ever plays computers still gets a rating on the same scale as everyone else.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from openskill.models import PlackettLuce

from paohuzi.engine.rules import PRESETS, RuleSet

MU = 25.0
"""A new player's mean: the greedy computer's strength (``BOT_MU``), the lobby's default."""
SIGMA = MU / 3
"""A new player's uncertainty (openskill's default)."""
BETA = MU / 6
"""How much the result of a match of :data:`REFERENCE_HANDS` hands varies about the players'
skills (openskill's default); a match of L hands varies by ``BETA·√(REFERENCE_HANDS / L)``:
its totals are sums of L hands' payments, whose luck shrinks as 1/√L (D120)."""
REFERENCE_HANDS = 8
"""The match length :data:`BETA` is for (the lobby's middle choice)."""

BOT_SIGMA = 1.0
"""The computers' uncertainty: small, as their strength is measured; not zero, as the
measurement has its error (and the model needs a spread)."""
BOT_MU: dict[str, float] = {
    "random": 14.2,
    "greedy": 25.0,
    "learned": 28.3,
    "expert": 28.9,
}
"""Each built-in level's fixed mean, measured with ``benchmarks/bot_ratings.py`` (the
tournament's duplicate deals) and greedy as the anchor at :data:`MU` (D120). A level not
measured (``expert-v1``, a search setting, an operator's bot) has none: its seat is left out."""

DISPLAY_BASE = 1500
DISPLAY_SCALE = 50.0
"""Displayed points per unit of mu: a gap of 400 means about 10:1 odds of finishing a match
ahead of the other, as in Elo (the model's pairwise Φ(Δmu / √2β) ≈ 1/(1 + 10^(−Δ/400)) with
Δ = 50·Δmu)."""
PROVISIONAL_HANDS = 30
"""Hands before a rating is shown as settled (D120)."""
FAMILIES: tuple[str, ...] = tuple(sorted(PRESETS))
"""The rule families a rating is kept for: the presets (a house rule set belongs to its
preset's)."""


@dataclass(frozen=True)
class Rating:
    """A belief about a skill: mean ``mu`` and standard deviation ``sigma``."""

    mu: float = MU
    sigma: float = SIGMA


@dataclass(frozen=True)
class BotLevel:
    """A computer of a built-in level, at its fixed reference rating."""

    name: str

    def __post_init__(self) -> None:
        if self.name not in BOT_MU:
            raise ValueError(f"no reference rating for the bot {self.name!r}")

    @property
    def rating(self) -> Rating:
        return Rating(BOT_MU[self.name], BOT_SIGMA)


def bot_level(name: str | None) -> BotLevel | None:
    """The reference of a bot by its level's name; None for one without (an operator's own
    bot, a search setting): such a seat is left out of the rating."""
    return BotLevel(name) if name in BOT_MU else None


def family(rules: RuleSet) -> str | None:
    """The rule family a match under ``rules`` is rated in: its preset's (a house rule set
    keeps its preset's ``name``, however many seats); None for a rule set of a preset this
    server does not know (rated nowhere: its rules could be anything)."""
    return rules.name if rules.name in PRESETS else None


def model(hands: int = REFERENCE_HANDS) -> PlackettLuce:
    """The model for a match of ``hands`` hands (its luck, :data:`BETA`, scaled)."""
    return PlackettLuce(mu=MU, sigma=SIGMA, beta=BETA * math.sqrt(REFERENCE_HANDS / hands))


def update(
    players: list[Rating | BotLevel], totals: list[int], hands: int = REFERENCE_HANDS
) -> list[Rating]:
    """The ratings after a match of ``hands`` hands whose seats (``players``) ended with
    ``totals`` (higher is better, equal totals tie): a player's new rating, a bot's own fixed
    one. Raises ValueError for fewer than two seats, a count that does not match or no
    hands."""
    if len(players) != len(totals) or len(players) < 2:
        raise ValueError("a rated match needs two seats or more, each with its total")
    if hands < 1:
        raise ValueError("a rated match has one hand or more")
    before = [p.rating if isinstance(p, BotLevel) else p for p in players]
    rater = model(hands)
    teams = [[rater.create_rating([r.mu, r.sigma])] for r in before]
    after = rater.rate(teams, scores=[float(t) for t in totals])
    return [
        p.rating if isinstance(p, BotLevel) else Rating(team[0].mu, team[0].sigma)
        for p, team in zip(players, after, strict=True)
    ]


def display(rating: Rating) -> int:
    """The rating as shown: the mean on a familiar scale, 1500 for a new player (D120)."""
    value = DISPLAY_BASE + DISPLAY_SCALE * (rating.mu - MU)
    return math.floor(value + 0.5)


def provisional(hands: int) -> bool:
    """Whether a rating from this many hands is still provisional (shown with a ?)."""
    return hands < PROVISIONAL_HANDS
