"""The expert's review of a hand (like a chess engine's game review): for each decision of a
seat, the choice made, the expert's choice and the estimated points lost.

Each decision is judged on its own (:func:`judge`), with the sample seed the reviewing
expert's generator gives it in order (:func:`seeds`), so a review split over processes finds
the same figures as one made in a row (``paohuzi review``, the server's background reviews).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from paohuzi.bots.expert import ExpertBot
from paohuzi.engine.actions import Action
from paohuzi.engine.cards import KIND_NAMES, NotationError
from paohuzi.engine.game import IllegalAction
from paohuzi.engine.observation import Observation, observe
from paohuzi.engine.record import Record, RecordError

JSON = dict[str, Any]


@dataclass(frozen=True)
class Decision:
    """A decision of the reviewed seat with more than one choice: where, what it knew, what it
    played."""

    index: int
    """The action's place in the record (0 is the first action)."""
    observation: Observation
    played: Action


def decisions(record: Record, seat: int) -> Iterator[Decision]:
    """Every decision of ``seat`` in the record that had more than one choice; raises
    RecordError for an action that does not replay."""
    game = record.new_game()
    for index, text in enumerate(record.actions):
        if game.to_act == seat and len(game.legal_actions()) > 1:
            obs = observe(game, seat)
            chosen = next((a for a in obs.legal if f"{seat} {a}" == text), None)
            if chosen is None:
                raise RecordError(f"action {index} {text!r} is illegal")
            yield Decision(index, obs, chosen)
        try:
            game.apply_text(text)
        except (IllegalAction, NotationError) as error:
            raise RecordError(f"action {index} {text!r}: {error}") from None


def seeds(seed: int, count: int) -> list[int]:
    """The sample seed of each decision in order, as a reviewing expert made with ``seed``
    draws them."""
    rng = random.Random(seed)
    return [rng.randrange(2**32) for _ in range(count)]


def judge(decision: Decision, expert: ExpertBot, seed: int) -> JSON:
    """The expert's opinion of one decision: its preferred action and the loss of the one
    played, in points."""
    obs = decision.observation
    candidates = expert.shortlist(obs)
    if decision.played not in candidates:
        candidates.append(decision.played)
    estimates = {e.action: e for e in expert.evaluate(obs, candidates, seed=seed)}
    best = max(estimates.values(), key=lambda e: e.mean)
    return {
        "index": decision.index,
        "offer": obs.offer,
        "played": str(decision.played),
        "best": str(best.action),
        "loss": round(best.mean - estimates[decision.played].mean, 3),
        "estimates": {str(a): round(e.mean, 3) for a, e in estimates.items()},
        "samples": best.samples,
    }


def offer_name(found: JSON) -> JSON:
    """A judged decision as JSON for the web: the card on offer by its F1 name."""
    offer = found["offer"]
    return found | {"offer": KIND_NAMES[offer] if offer is not None else None}


def mistakes(found: list[JSON], top: int) -> list[int]:
    """The indices of the ``top`` decisions that lost most, the biggest first."""
    lost = sorted((d for d in found if d["loss"] > 0), key=lambda d: -d["loss"])
    return [d["index"] for d in lost[:top]]
