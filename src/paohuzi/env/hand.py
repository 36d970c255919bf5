"""What both environments share: checking their arguments, dealing a hand from ``reset``
options, the illegal-action rule (docs/env.md) and the privileged full state."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from gymnasium.utils import seeding
from numpy.typing import NDArray

from paohuzi.engine.action_ids import NUM_ACTIONS
from paohuzi.engine.cards import NUM_KINDS, parse_cards
from paohuzi.engine.game import CoreName, Game
from paohuzi.engine.rules import PRESETS, RuleSet
from paohuzi.engine.scoring import largest_payment
from paohuzi.env.encoding import observation_arrays, planes

ILLEGAL_RULES = ("raise", "penalty")
"""What an environment does with an illegal action: raise ``IllegalAction`` (the default), or
end the hand with the offender paying a penalty to each other seat of the hand."""


def illegal_penalty(rules: RuleSet, illegal: str, penalty: float | None) -> float:
    """The penalty an env charges (0 when it raises); ValueError for an unknown rule or a
    penalty below the largest payment of a hand, which would make an illegal action a cheap
    way out of a bad hand."""
    if illegal not in ILLEGAL_RULES:
        raise ValueError(f"illegal must be one of {', '.join(ILLEGAL_RULES)}, not {illegal!r}")
    if illegal == "raise":
        return 0.0
    least = largest_payment(rules)
    if penalty is None:
        return float(least)
    if not math.isfinite(penalty):
        raise ValueError(f"an illegal-action penalty must be a finite number, not {penalty}")
    if not penalty >= least:
        raise ValueError(
            f"an illegal-action penalty must be at least {least}, the most a seat can pay, "
            f"not {penalty}"
        )
    return float(penalty)


def history_length(history: int) -> int:
    """The events of the ``"history"`` observation; ValueError for a negative count."""
    if not (isinstance(history, int) and history >= 0):
        raise ValueError(f"history is a number of events, 0 or more, not {history!r}")
    return history


def check_seed(seed: int | None) -> None:
    """Refuse a seed as Gymnasium's ``Env.reset`` does (``gymnasium.error.Error``, its
    message): a Python int, 0 or more."""
    seeding.np_random(seed)


def action_id(action: object) -> int:
    """The id of a stepped action: what ``Discrete(NUM_ACTIONS).contains`` takes (a Python
    int, a NumPy integer scalar or 0-d array); TypeError for anything else, so that a float
    is never truncated to a move."""
    if isinstance(action, int | np.integer) or (
        isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu"
    ):
        return int(action)
    raise TypeError(f"an action is an integer id, 0–{NUM_ACTIONS - 1}, not {action!r}")


def penalty_payments(offender: int, playing: Sequence[int], penalty: float) -> dict[int, float]:
    """Zero-sum: the offender pays ``penalty`` to each other seat playing the hand."""
    paid = {seat: penalty for seat in playing if seat != offender}
    paid[offender] = -penalty * len(paid)
    return paid


def deal(
    rules: RuleSet,
    rng: random.Random,
    options: Mapping[str, Any] | None,
    core: CoreName = "auto",
) -> Game:
    """A new hand: ``options`` may give ``deck`` (80 kinds, or F1 text), ``dealer`` and
    ``rules`` (a RuleSet with the table's seat count, or a preset name, taken at the table's
    seat count); the rest comes from ``rng``; other keys are ignored (as PettingZoo's api_test
    expects). Raises ValueError for a bad value."""
    options = dict(options or {})
    given = options.get("rules", rules)
    if isinstance(given, str):
        if given not in PRESETS:
            raise ValueError(f"unknown rules {given!r} ({', '.join(sorted(PRESETS))})")
        given = replace(PRESETS[given], players=rules.players)  # a name, at this table
    if not isinstance(given, RuleSet):
        raise ValueError("the rules option takes a RuleSet or a preset name")
    if given.players != rules.players:
        raise ValueError(
            f"this environment has {rules.players} seats; the rules have {given.players}"
        )
    deck = options.get("deck")
    if isinstance(deck, str):
        deck = parse_cards(deck)
    dealer = options.get("dealer")
    if dealer is None:
        dealer = rng.randrange(rules.players)
    elif not (isinstance(dealer, int) and 0 <= dealer < rules.players):
        raise ValueError(f"dealer must be a seat, 0–{rules.players - 1}")
    seed = rng.randrange(2**63)
    return Game(given, dealer=dealer, deck=deck, seed=None if deck is not None else seed, core=core)


def state_planes(seats: int) -> int:
    """Rows of the full-state array of a table of ``seats`` seats."""
    return seats * planes(seats) + 2


def full_state(game: Game) -> NDArray[np.float32]:
    """Privileged: every seat's observation array (as that seat would see it, in seat order),
    then the wall's cards by kind and the next card to draw (one-hot). Shape
    (state_planes(seats), 20). For centralised critics in training, never for a policy that
    must play by the rules of hidden information."""
    seats = game.rules.players
    out = np.zeros((state_planes(seats), NUM_KINDS), dtype=np.float32)
    size = planes(seats)
    for seat in range(seats):
        out[seat * size : (seat + 1) * size] = observation_arrays(game, seat)["observation"]
    wall = game.position().wall
    for k in wall:
        out[-2, k] += 1
    if wall:
        out[-1, wall[0]] = 1
    return out
