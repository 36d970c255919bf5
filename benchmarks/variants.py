"""The variants of `learned` and `expert` that D190 measured, kept so that its runs can be run
again from their commands (none is a shipped level), and the count of how often each bot picks
what the greedy bot picks.

Run the bots from this directory, as ``module:factory`` bots (the loader finds modules in the
current directory)::

    cd benchmarks
    paohuzi tournament --bots variants:greedy_claims,greedy,greedy --deals 3000 --seed 9002 \
        --workers 2
    paohuzi tournament --bots variants:learned_claims,expert,greedy --deals 1000 --seed 9005 \
        --workers 2 --minutes 38

* ``variants:greedy_claims`` is `learned` but for its claims (a 吃, 碰 or pass: every decision
  with a pass among its choices and no 胡), which are the greedy bot's;
* ``variants:learned_claims`` is `expert` but for its claims, which are `learned`'s;
* ``variants:losses`` is `learned` with the network of ``paohuzi train --net mlp …
  --label-losses 1.5 --out learned-losses.npz`` (read from this directory) and its search's
  rollouts weighed alike: a loss counts 1.5 times (:func:`paohuzi.bots.rollout.weigh_losses`).

``python variants.py --hands 60`` plays hands of greedy self-play (seed 4242) and prints, by
kind of decision (a discard or a claim), how often `learned` and `expert` pick what the greedy
bot picks and what each other picks, and on the claims where they differ, which took what.
Both searches are bounded by the clock, so the figures move a little from one run to the next.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from paohuzi.bots import expert
from paohuzi.bots.expert import ExpertBot
from paohuzi.bots.greedy import GreedyBot
from paohuzi.bots.learned import LearnedBot, QNet
from paohuzi.bots.rollout import sampled_rollout, weigh_losses
from paohuzi.engine.actions import HU, PASS, Action
from paohuzi.engine.game import Game
from paohuzi.engine.observation import Observation, observe
from paohuzi.engine.rules import HUNAN
from paohuzi.tools.tournament import deal_deck

LOSSES = 1.5
"""How many times a loss counts in ``variants:losses``'s rollouts (its network's labels too)."""
LOSSES_NET = "learned-losses.npz"
"""The network of ``variants:losses``, read from the current directory."""


def is_claim(legal: Sequence[Action]) -> bool:
    """A decision on a shown card (吃, 碰 or pass), with a choice and no 胡 among them."""
    return PASS in legal and HU not in legal and len(legal) > 1


class GreedyClaimsBot(LearnedBot):
    """`learned`, its claims the greedy bot's."""

    name = "greedy-claims"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.greedy = GreedyBot()

    def act(self, observation: Observation) -> Action:
        if is_claim(observation.legal):
            return self.greedy.act(observation)
        return super().act(observation)


class LearnedClaimsBot(ExpertBot):
    """`expert`, its claims `learned`'s."""

    name = "learned-claims"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.learned = LearnedBot(seed)

    def act(self, observation: Observation) -> Action:
        if is_claim(observation.legal):
            return self.learned.act(observation)
        return super().act(observation)


def _weighed(*args: Any, **kwargs: Any) -> list[float]:
    return weigh_losses(sampled_rollout(*args, **kwargs), LOSSES)


class LossesBot(LearnedBot):
    """`learned` whose search counts a rollout's loss :data:`LOSSES` times: the race reads
    the rollouts through :func:`_weighed` while this bot decides (a process runs one bot at
    a time; the expert's module is restored after)."""

    name = "losses"

    def act(self, observation: Observation) -> Action:
        setattr(expert, "sampled_rollout", _weighed)  # noqa: B010 (not exported)
        try:
            return super().act(observation)
        finally:
            setattr(expert, "sampled_rollout", sampled_rollout)  # noqa: B010


@cache
def _losses_net() -> QNet:
    return QNet.load(Path(LOSSES_NET))


def greedy_claims(seed: int | None = None) -> GreedyClaimsBot:
    """For ``--bots variants:greedy_claims``."""
    return GreedyClaimsBot(seed)


def learned_claims(seed: int | None = None) -> LearnedClaimsBot:
    """For ``--bots variants:learned_claims``."""
    return LearnedClaimsBot(seed)


def losses(seed: int | None = None) -> LossesBot:
    """For ``--bots variants:losses`` (needs :data:`LOSSES_NET` here)."""
    return LossesBot(seed, net=_losses_net())


def agreement(hands: int, seed: int) -> None:
    """Prints how often `learned` and `expert` pick the greedy bot's choice (module docstring;
    both searches are timed, so the figures vary a little between runs)."""
    greedy, learned, searcher = GreedyBot(), LearnedBot(1), ExpertBot(1)
    counts: dict[str, Counter[str]] = {}
    split: Counter[str] = Counter()
    for hand in range(hands):
        game = Game(HUNAN, dealer=hand % HUNAN.players, deck=deal_deck(seed, hand))
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            obs = observe(game, seat, events=True)
            pick = greedy.act(obs)
            legal = obs.legal
            if HU not in legal and len(legal) > 1:
                kind = "claim" if is_claim(legal) else "discard"
                mine, its = learned.act(obs), searcher.act(obs)
                count = counts.setdefault(kind, Counter())
                count.update(
                    decisions=1,
                    learned=mine == pick,
                    expert=its == pick,
                    both=mine == its,
                )
                if kind == "claim" and mine != its:
                    split[f"learned {mine.type.value}, expert {its.type.value}"] += 1
            game.apply(pick)
    for kind, count in counts.items():
        n = count["decisions"]
        print(
            f"{kind}: {n} decisions; learned picks greedy's choice {count['learned'] / n:.0%}, "
            f"expert {count['expert'] / n:.0%}; learned picks expert's {count['both'] / n:.0%}"
        )
    print("claims where learned and expert differ:")
    for key, n in sorted(split.items(), key=lambda kv: -kv[1]):
        print(f"  {key}: {n}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=60)
    parser.add_argument("--seed", type=int, default=4242)
    args = parser.parse_args()
    agreement(args.hands, args.seed)


if __name__ == "__main__":
    main()
