"""The ladder: every bot against every other on the same duplicate deals (docs/leaderboard.md).

A match between bots A and B plays each deal (:func:`paohuzi.tools.tournament.deal_deck`, dealer =
deal modulo the seats) at a table of A, B, B and again of A, A, B, once per distinct seating
of each (six hands a deal at the three-seat table). Payments are zero-sum, so what A's seats
won is what B's seats lost: A's *score* on the deal is the sum of its seats' payments over
those hands divided by their number, points per hand.

* **Points per hand** of a bot: its mean score over its matches (each opponent weighs the
  same), per deal, averaged over the deals; the 95% confidence interval is 1.96 standard
  errors of that per-deal mean, deals being the independent samples.
* **Rating** (Elo-like): a Bradley–Terry model on the 400-point logistic scale fitted by
  maximum likelihood (the minorise–maximise iteration) to the deals each bot won against each
  other (score > 0: a win, 0: half, < 0: a loss), with one drawn deal added to every pair so
  that a bot winning every deal keeps a finite rating. The first bot listed is anchored at
  1000. A difference of 200 means the higher bot is expected to win about 76% of the deals.

The table is ordered by points per hand, what the game pays; the rating, which counts deals
won and not by how much, can order two close bots the other way.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from paohuzi.engine.rules import HUNAN, RuleSet
from paohuzi.tools.tournament import HandOutcome, ci_json, ci_text, mean_ci, run

ANCHOR = 1000.0
"""The first bot's rating."""
SCALE = 400.0
"""Rating points for a factor of ten in the odds of winning a deal."""


@dataclass(frozen=True)
class Standing:
    """One bot's line in the table."""

    name: str
    rating: float
    mean: float
    """Points per hand, over its matches."""
    ci95: tuple[float, float]
    deals_won: float
    """Share of its deals against each opponent it won (a drawn deal counts half)."""


@dataclass(frozen=True)
class LadderResult:
    bots: tuple[str, ...]
    deals: int
    seed: int
    hands: int
    standings: tuple[Standing, ...]
    """Best first, by points per hand (the rating breaks ties)."""
    pairs: dict[tuple[str, str], float]
    """(A, B) → A's points per hand against B (−B's against A)."""
    pair_ci95: dict[tuple[str, str], tuple[float, float]] | None = None
    """(A, B) → the 95% CI of A's points against B, deal by deal (paired on the same deals)."""
    errors: dict[str, int] | None = None
    """Decisions at which a bot raised and greedy chose for it (D124)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "bots": list(self.bots),
            "deals": self.deals,
            "seed": self.seed,
            "hands": self.hands,
            "method": "docs/leaderboard.md",
            "standings": [
                {
                    "rank": i + 1,
                    "name": s.name,
                    "rating": round(s.rating, 1),
                    "points_per_hand": round(s.mean, 4),
                    "ci95": ci_json(s.ci95, self.deals),
                    "deals_won": round(s.deals_won, 4),
                }
                for i, s in enumerate(self.standings)
            ],
            "pairs": [
                {
                    "bot": a,
                    "opponent": b,
                    "points_per_hand": round(v, 4),
                    "ci95": ci_json((self.pair_ci95 or {}).get((a, b), (v, v)), self.deals),
                }
                for (a, b), v in sorted(self.pairs.items())
            ],
            "errors": dict(sorted((self.errors or {}).items())),
        }

    def to_markdown(self) -> str:
        lines = [
            f"{self.deals} duplicate deals (seed {self.seed}), {self.hands} hands.",
            "",
            "| rank | bot | rating | points / hand | 95% CI | deals won |",
            "|---:|---|---:|---:|---|---:|",
        ]
        for i, s in enumerate(self.standings):
            lines.append(
                f"| {i + 1} | `{s.name}` | {s.rating:.0f} | {s.mean:+.3f} | "
                f"{ci_text(s.ci95, self.deals)} | {s.deals_won:.1%} |"
            )
        order = [s.name for s in self.standings]
        lines += ["", "Head to head (row's points per hand against the column):", ""]
        lines.append("| | " + " | ".join(f"`{n}`" for n in order) + " |")
        lines.append("|---|" + "---:|" * len(order))
        for a in order:
            cells = ["" if a == b else f"{self.pairs[a, b]:+.3f}" for b in order]
            lines.append(f"| `{a}` | " + " | ".join(cells) + " |")
        if self.pair_ci95:
            lines += ["", "Paired per-deal differences (95% CI):", ""]
            for a, b in combinations(self.bots, 2):
                ci = ci_text(self.pair_ci95[a, b], self.deals)
                lines.append(f"* {a} − {b}: {self.pairs[a, b]:+.3f} {ci}")
        if self.errors:
            covered = "greedy chose instead, or for a `cmd:` program the protocol's default"
            lines += ["", f"Bot errors ({covered}): "]
            lines.append(", ".join(f"`{n}` {c}" for n, c in sorted(self.errors.items())))
        return "\n".join(lines) + "\n"


def match_tables(a: str, b: str, players: int) -> list[tuple[str, ...]]:
    """The tables of a match: A with B in every other seat, and B with A in every other."""
    return [(a,) + (b,) * (players - 1), (a,) * (players - 1) + (b,)]


def deal_score(hands: Sequence[HandOutcome], name: str) -> float:
    """What the seats of ``name`` won over these hands, per hand (seats sitting out aside)."""
    won = sum(
        paid
        for hand in hands
        for seat, (who, paid) in enumerate(zip(hand.seating, hand.payments, strict=True))
        if who == name and seat != hand.sitting_out
    )
    return won / len(hands)


def ladder(
    bots: Sequence[str],
    deals: int,
    seed: int,
    *,
    rules: RuleSet = HUNAN,
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    on_deal: Callable[[list[HandOutcome]], None] | None = None,
    done: Sequence[list[HandOutcome]] = (),
    minutes: float | None = None,
) -> LadderResult:
    """Play every pair of ``bots`` (bot specs) over deals 0 … deals − 1: each deal at every
    table of every match, so that a run stopped after ``minutes`` (or resumed with the deals
    ``done``) has whole deals; the result is over the deals played."""
    if len(bots) < 2 or len(set(bots)) != len(bots):
        raise ValueError("a ladder needs at least two different bots")
    if deals < 1:
        raise ValueError("a ladder needs at least one deal")
    tables = [t for a, b in combinations(bots, 2) for t in match_tables(a, b, rules.players)]
    played = run(
        bots,
        deals,
        seed,
        rules=rules,
        workers=workers,
        backend=backend,
        address=address,
        on_deal=on_deal,
        done=done,
        minutes=minutes,
        tables=tables,
    )
    return result_of(bots, seed, played)


def result_of(bots: Sequence[str], seed: int, played: Sequence[list[HandOutcome]]) -> LadderResult:
    """The ladder's table over these deals (each with the hands of every match)."""
    count = len(played)
    # scores[(a, b)][deal]: a's score against b on that deal.
    scores: dict[tuple[str, str], list[float]] = {}
    for a, b in combinations(bots, 2):
        scores[a, b] = [deal_score([h for h in d if set(h.seating) == {a, b}], a) for d in played]
        scores[b, a] = [-s for s in scores[a, b]]
    hands = sum(len(d) for d in played)
    errors: dict[str, int] = {}
    for deal in played:
        for hand in deal:
            for error in hand.errors:
                errors[error.bot] = errors.get(error.bot, 0) + 1
    ratings = bradley_terry(bots, scores)
    standings = []
    for name in bots:
        opponents = [o for o in bots if o != name]
        values = [sum(scores[name, o][d] for o in opponents) / len(opponents) for d in range(count)]
        mean, ci = mean_ci(values)
        won = sum(_won(s) for o in opponents for s in scores[name, o]) / (count * len(opponents))
        standings.append(Standing(name, ratings[name], mean, ci, won))
    standings.sort(key=lambda s: (-s.mean, -s.rating, s.name))
    pairs = {key: sum(v) / count for key, v in scores.items()}
    pair_ci = {key: mean_ci(v)[1] for key, v in scores.items()}
    return LadderResult(tuple(bots), count, seed, hands, tuple(standings), pairs, pair_ci, errors)


def _won(score: float) -> float:
    return 1.0 if score > 0 else 0.5 if score == 0 else 0.0


def bradley_terry(
    bots: Sequence[str], scores: dict[tuple[str, str], list[float]], iterations: int = 2000
) -> dict[str, float]:
    """Ratings from the deals won head to head (see the module docstring)."""
    wins = {(a, b): sum(_won(s) for s in scores[a, b]) + 0.5 for a in bots for b in bots if a != b}
    games = {(a, b): wins[a, b] + wins[b, a] for a, b in wins}
    strength = dict.fromkeys(bots, 1.0)
    for _ in range(iterations):
        new = {}
        for a in bots:
            total = sum(wins[a, b] for b in bots if b != a)
            denominator = sum(games[a, b] / (strength[a] + strength[b]) for b in bots if b != a)
            new[a] = total / denominator
        scale = new[bots[0]]
        new = {a: v / scale for a, v in new.items()}
        done = max(abs(new[a] - strength[a]) for a in bots) < 1e-12
        strength = new
        if done:
            break
    return {a: ANCHOR + SCALE * math.log10(strength[a]) for a in bots}
