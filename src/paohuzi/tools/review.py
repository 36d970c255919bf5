"""The expert's review of a hand (like a chess engine's game review): for each decision of a
seat, the choice made, the expert's choice and the estimated points lost with its standard
error; a loss is called a mistake only when it is clear of the noise of the samples (D115).

Each decision is judged on its own (:func:`judge`), with the sample seed the reviewing
expert's generator gives it in order (:func:`seeds`), so a review split over processes finds
the same figures as one made in a row (``paohuzi review``, the server's background reviews).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from paohuzi.bots.expert import ExpertBot, paired
from paohuzi.bots.expert_v1 import estimates
from paohuzi.engine.actions import Action
from paohuzi.engine.cards import KIND_NAMES, NotationError
from paohuzi.engine.game import IllegalAction
from paohuzi.engine.observation import Observation, observe
from paohuzi.engine.record import Record, RecordError

JSON = dict[str, Any]
MISTAKE_Z = 3.0
"""Standard errors of its paired loss beyond which a decision is a mistake (D115)."""
MISTAKE_SAMPLES = 20
"""Samples below which no loss is called a mistake: too few to measure their spread (D115)."""


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
    """The expert's opinion of one decision: its preferred action, the loss of the one played
    in points with its standard error, and whether that loss is a mistake (:func:`clear`)."""
    obs = decision.observation
    candidates = expert.shortlist(obs)
    if decision.played not in candidates:
        candidates.append(decision.played)
    rows = expert.payments(obs, candidates, seed=seed)
    found = estimates(candidates, rows)
    best = max(range(len(found)), key=lambda i: found[i].mean)
    played = candidates.index(decision.played)
    samples = found[best].samples
    loss = round(found[best].mean - found[played].mean, 3)
    # The same samples for both actions: the error of their difference, not of each mean.
    error = round(paired(rows[best], rows[played])[1], 3) if samples > 1 else None
    return {
        "index": decision.index,
        "offer": obs.offer,
        "played": str(decision.played),
        "best": str(found[best].action),
        "loss": loss,
        "loss_se": error,
        "mistake": clear(loss, error, samples),
        "estimates": {str(e.action): round(e.mean, 3) for e in found},
        "samples": samples,
    }


def clear(loss: float, error: float | None, samples: int) -> bool:
    """Whether a loss is a mistake, not the noise of the samples: more than
    :data:`MISTAKE_Z` standard errors, measured on :data:`MISTAKE_SAMPLES` samples at least."""
    return (
        error is not None and samples >= MISTAKE_SAMPLES and loss > 0 and loss > MISTAKE_Z * error
    )


def offer_name(found: JSON) -> JSON:
    """A judged decision as JSON for the web: the card on offer by its F1 name."""
    offer = found["offer"]
    return found | {"offer": KIND_NAMES[offer] if offer is not None else None}


def rule() -> JSON:
    """What a review calls a mistake, for its JSON (the web page words it)."""
    return {"mistake_z": MISTAKE_Z, "mistake_samples": MISTAKE_SAMPLES}


def mistakes(found: list[JSON], top: int) -> list[int]:
    """The indices of the ``top`` mistakes that lost most, the biggest first."""
    lost = sorted((d for d in found if d["mistake"]), key=lambda d: -d["loss"])
    return [d["index"] for d in lost[:top]]
