"""Deep Monte-Carlo training of the learned bot (docs/learned.md), NumPy only.

Rounds alternate playing and fitting. Playing: hands on seeded decks, each seat played by the
current network (with ε-exploration) or by the greedy bot, the first rounds by greedy bots only;
every decision with a choice adds the feature row of the action taken and, once the hand ends,
the seat's payment as its target. Fitting: Adam steps on the mean squared error of the
network's estimate over minibatches from a buffer of the most recent rows. Every round ends
with a checkpoint that resumes the run (weights, Adam moments, counters).

Hand *i* of a run is a function of the seed, *i* and the weights it is played with (its deck
and its own generator, :func:`hand_rng`), so a round's hands may be played in several
processes (``workers``) and give the same rows, in the same order, as in one (D131).
"""

from __future__ import annotations

import multiprocessing
import os
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.pool import Pool
from pathlib import Path

import numpy as np

from paohuzi.bots.greedy import GreedyBot
from paohuzi.bots.learned import NUM_FEATURES, SCALE, Array, QNet, action_features
from paohuzi.engine.actions import HU
from paohuzi.engine.game import Game
from paohuzi.engine.observation import observe
from paohuzi.engine.position import Over
from paohuzi.engine.rules import HUNAN, RuleSet
from paohuzi.tools.distributed import batches
from paohuzi.tools.dmc_settings import Settings
from paohuzi.tools.tournament import deal_deck
from paohuzi.tools.workers import start_worker


class Adam:
    """Adam over a dict of parameter arrays, its moments kept by name."""

    def __init__(self, params: dict[str, Array], lr: float) -> None:
        self.lr = lr
        self.t = 0
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}

    def step(self, params: dict[str, Array], grads: dict[str, Array]) -> None:
        self.t += 1
        b1, b2 = 0.9, 0.999
        for k, g in grads.items():
            self.m[k] = b1 * self.m[k] + (1 - b1) * g
            self.v[k] = b2 * self.v[k] + (1 - b2) * g * g
            m = self.m[k] / (1 - b1**self.t)
            v = self.v[k] / (1 - b2**self.t)
            params[k] -= (self.lr * m / (np.sqrt(v) + 1e-8)).astype(np.float32)


def gradients(net: QNet, x: Array, y: Array) -> tuple[float, dict[str, Array]]:
    """The mean squared error of ``net`` on (x, y) and its gradient, by backpropagation."""
    out, inputs = net.forward(x)
    err = out - y
    loss = float(np.mean(err * err))
    delta = (2 / len(y)) * err[:, None]
    grads: dict[str, Array] = {}
    for i in reversed(range(net.layers)):
        grads[f"w{i}"] = inputs[i].T @ delta
        grads[f"b{i}"] = delta.sum(axis=0)
        if i:
            delta = (delta @ net.params[f"w{i}"].T) * (inputs[i] > 0)
    return loss, grads


def play(
    net: QNet | None,
    deck_seed: int,
    hand: int,
    rng: random.Random,
    settings: Settings,
    rules: RuleSet = HUNAN,
) -> tuple[list[Array], list[float]]:
    """One training hand: the feature rows of the actions taken and their targets (the taking
    seat's payment / SCALE). ``net`` None: greedy bots at every seat."""
    game = Game(rules, dealer=hand % rules.players, deck=deal_deck(deck_seed, hand))
    learner = [
        net is not None and rng.random() < settings.learner_share for _ in range(rules.players)
    ]
    greedy = GreedyBot()
    rows: list[Array] = []
    seats: list[int] = []
    while not isinstance(phase := game.phase, Over):
        seat = phase.to_act
        obs = observe(game, seat, events=False)
        legal = obs.legal
        if HU in legal or len(legal) == 1:
            game.apply(HU if HU in legal else legal[0])
            continue
        x = action_features(obs, legal)
        if net is not None and learner[seat]:
            if rng.random() < settings.epsilon:
                choice = rng.randrange(len(legal))
            else:
                choice = int(np.argmax(net(x)))
        else:
            choice = legal.index(greedy.act(obs))
        rows.append(x[choice])
        seats.append(seat)
        game.apply(legal[choice])
    payments = phase.result.payments
    return rows, [payments[s] / SCALE for s in seats]


@dataclass
class State:
    """A run in progress: what a checkpoint holds."""

    net: QNet
    adam: Adam
    hands: int = 0
    rounds: int = 0
    loss: float = 0.0

    def save(self, path: Path) -> None:
        arrays: dict[str, Array | int | float] = dict(self.net.params)
        arrays.update({f"m_{k}": v for k, v in self.adam.m.items()})
        arrays.update({f"v_{k}": v for k, v in self.adam.v.items()})
        counters = np.array([self.hands, self.rounds, self.adam.t], dtype=np.int64)
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, counters=counters, loss=np.float32(self.loss), **arrays)  # type: ignore[arg-type]
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path, lr: float) -> State:
        net = QNet.load(path)
        adam = Adam(net.params, lr)
        with np.load(path, allow_pickle=False) as data:
            for k in net.params:
                adam.m[k] = data[f"m_{k}"]
                adam.v[k] = data[f"v_{k}"]
            hands, rounds, adam.t = (int(c) for c in data["counters"])
            loss = float(data["loss"])
        return cls(net, adam, hands, rounds, loss)


def export(state: State, path: Path) -> None:
    """The weights alone: what the ``learned`` bot ships."""
    np.savez_compressed(path, **state.net.params)  # type: ignore[arg-type]


def hand_rng(seed: int, hand: int) -> random.Random:
    """The generator of training hand ``hand`` (which seats the network plays, its
    exploration): its own, so that the hand is the same in whichever process plays it."""
    return random.Random(f"dmc:{seed}:{hand}")


Job = tuple[dict[str, Array] | None, Settings, range]
JOB_HANDS = 25
"""Hands a worker process plays at a time (a round's 500 make 20 jobs to share out)."""


def play_hands(job: Job) -> tuple[Array, Array]:
    """The rows and targets of the job's hands (in order), played with its weights (None:
    greedy bots only); a job for a worker process."""
    params, settings, hands = job
    net = None if params is None else QNet(params)
    xs: list[Array] = []
    ys: list[float] = []
    for hand in hands:
        rows, targets = play(net, settings.seed, hand, hand_rng(settings.seed, hand), settings)
        xs += rows
        ys += targets
    x = np.array(xs, dtype=np.float32).reshape(len(xs), NUM_FEATURES)
    return x, np.array(ys, dtype=np.float32)


@contextmanager
def players(workers: int) -> Iterator[Pool | None]:
    """The processes that play a run's hands: none (this one) for ``workers`` ≤ 1, else a
    pool kept for the whole run, whose processes end with this one."""
    if workers <= 1:
        yield None
        return
    context = multiprocessing.get_context("spawn")
    with context.Pool(workers, start_worker, (os.getpid(),)) as pool:
        yield pool


def play_round(
    net: QNet | None, settings: Settings, first: int, count: int, pool: Pool | None = None
) -> tuple[Array, Array]:
    """The rows and targets of hands ``first … first + count − 1``, in hand order: in this
    process, or spread over ``pool``'s (the same arrays either way)."""
    params = None if net is None else net.params
    hands = range(first, first + count)
    if pool is None:
        return play_hands((params, settings, hands))
    jobs = [(params, settings, hands[r.start : r.stop]) for r in batches(count, JOB_HANDS)]
    done = pool.map(play_hands, jobs)
    return np.concatenate([x for x, _ in done]), np.concatenate([y for _, y in done])


def train(
    settings: Settings,
    checkpoint: Path,
    *,
    resume: bool = True,
    on_round: Callable[[State], None] | None = None,
    workers: int = 1,
    minutes: float | None = None,
) -> State:
    """Run (or resume, from ``checkpoint`` if it exists) until ``settings.hands`` are played,
    or until the round in progress when ``minutes`` have passed (the checkpoint then resumes
    the run); the checkpoint is rewritten after every round. ``workers`` processes play each
    round's hands, with the same result as one."""
    deadline = None if minutes is None else time.monotonic() + 60 * minutes
    if resume and checkpoint.exists():
        state = State.load(checkpoint, settings.lr)
    else:
        net = QNet.new(settings.hidden, settings.seed)
        state = State(net, Adam(net.params, settings.lr))
    # Rows are regenerated, not stored: a resumed run refills its buffer from fresh hands.
    xs = np.zeros((settings.buffer, NUM_FEATURES), dtype=np.float32)
    ys = np.zeros(settings.buffer, dtype=np.float32)
    filled = cursor = 0
    fit = np.random.default_rng(settings.seed + state.rounds)
    with players(workers) as pool:
        while state.hands < settings.hands:
            player = None if state.rounds < settings.warmup else state.net
            count = min(settings.round_hands, settings.hands - state.hands)
            rows, targets = play_round(player, settings, state.hands, count, pool)
            for row, target in zip(rows, targets, strict=True):
                xs[cursor] = row
                ys[cursor] = target
                cursor = (cursor + 1) % settings.buffer
                filled = min(filled + 1, settings.buffer)
            state.hands += count
            losses = []
            for _ in range(settings.steps):
                pick = fit.integers(0, filled, size=min(settings.batch, filled))
                loss, grads = gradients(state.net, xs[pick], ys[pick])
                state.adam.step(state.net.params, grads)
                losses.append(loss)
            state.loss = float(np.mean(losses)) if losses else 0.0
            state.rounds += 1
            state.save(checkpoint)
            if on_round is not None:
                on_round(state)
            if deadline is not None and time.monotonic() >= deadline:
                break
    return state
