#!/usr/bin/env python3
"""Train a small learning agent for a few minutes, then compare it with `random` fairly.

A linear softmax policy over the observation planes (docs/env.md), masked to the legal
actions, trained by REINFORCE with a running-mean baseline on the Gymnasium single-seat
environment against two random opponents, with NumPy only. Afterwards it plays a duplicate
tournament (every deal once per seating) against two random bots.

    python examples/train_pg.py --minutes 3 --deals 300
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from paohuzi.bots import Bot, make_bot, play_hand
from paohuzi.engine.action_ids import NUM_ACTIONS, id_to_action
from paohuzi.engine.actions import Action
from paohuzi.engine.game import Game
from paohuzi.engine.observation import Observation
from paohuzi.engine.rules import HUNAN
from paohuzi.env import PLANES, SingleSeatEnv, encode
from paohuzi.env.encoding import action_mask
from paohuzi.tools.tournament import deal_deck, seatings

FEATURES = PLANES * 20 + 1


def features(planes: np.ndarray) -> np.ndarray:
    return np.append(planes.ravel(), 1.0).astype(np.float32)


class PolicyBot:
    """The trained policy as a bot: the most likely legal action."""

    name = "pg"

    def __init__(self, weights: np.ndarray) -> None:
        self.weights = weights

    def act(self, observation: Observation) -> Action:
        logits = self.weights @ features(encode(observation))
        mask = action_mask(observation)
        return id_to_action(int(np.argmax(np.where(mask > 0, logits, -np.inf))))


def train(minutes: float, seed: int, lr: float) -> tuple[np.ndarray, int]:
    rng = np.random.default_rng(seed)
    weights = np.zeros((NUM_ACTIONS, FEATURES), dtype=np.float32)
    env = SingleSeatEnv(seat=0, opponents=("random", "random"))
    baseline = 0.0
    episodes = 0
    stop = time.monotonic() + 60 * minutes
    while time.monotonic() < stop:
        observation, _ = env.reset(seed=int(rng.integers(2**31)))
        trajectory = []
        done = False
        reward = 0.0
        while not done:
            x = features(observation["observation"])
            legal = np.flatnonzero(observation["action_mask"])
            if len(legal) > 1:  # a forced move teaches nothing
                logits = weights[legal] @ x
                probs = np.exp(logits - logits.max())
                probs /= probs.sum()
                pick = int(rng.choice(len(legal), p=probs))
                trajectory.append((x, legal, probs, pick))
                action = int(legal[pick])
            else:
                action = int(legal[0])
            observation, reward, done, _, _ = env.step(action)
        advantage = reward - baseline
        baseline += 0.01 * (reward - baseline)
        for x, legal, probs, pick in trajectory:
            # The gradient of log π(a) for a softmax over the legal actions only.
            grad = -probs
            grad[pick] += 1.0
            weights[legal] += lr * advantage * np.outer(grad, x)
        episodes += 1
    return weights, episodes


def duplicate(bot: Bot, deals: int, seed: int) -> tuple[float, float, float]:
    """Mean score per hand of ``bot`` against two random bots, 95% CI half-width, win rate."""
    per_deal = []
    wins = hands = 0
    for deal in range(deals):
        scores = []
        for n, seating in enumerate(seatings(["pg", "random", "random"])):
            bots = [
                bot if name == "pg" else make_bot("random", seed + deal * 10 + n * 3 + s)
                for s, name in enumerate(seating)
            ]
            game = Game(dealer=deal % HUNAN.players, deck=deal_deck(seed, deal))
            play_hand(game, bots)
            assert game.result is not None
            seat = seating.index("pg")
            scores.append(game.result.payments[seat])
            wins += game.result.winner == seat
            hands += 1
        per_deal.append(sum(scores) / len(scores))
    mean = sum(per_deal) / len(per_deal)
    var = sum((v - mean) ** 2 for v in per_deal) / (len(per_deal) - 1)
    return mean, 1.96 * math.sqrt(var / len(per_deal)), wins / hands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--out", default="pg_policy.npz")
    args = parser.parse_args()
    weights, episodes = train(args.minutes, args.seed, args.lr)
    np.savez_compressed(args.out, weights=weights)
    print(f"trained {episodes} hands in {args.minutes:g} min; policy saved to {args.out}")
    mean, half, win = duplicate(PolicyBot(weights), args.deals, args.seed + 1)
    print(
        f"pg vs random, random over {args.deals} duplicate deals: {mean:+.3f} ± {half:.3f} "
        f"points/hand (95% CI), win rate {win:.1%}; a random bot in its place scores 0 on average"
    )


if __name__ == "__main__":
    main()
