"""Deep Monte-Carlo training of the learned bot (docs/learned.md), NumPy only.

Rounds alternate playing and fitting. Playing: hands on seeded decks, each seat played by the
current network (with ε-exploration) or by the greedy bot, the first rounds by greedy bots only;
every decision with a choice adds the feature row of the action taken and, once the hand ends,
the seat's payment as its target. Fitting: Adam steps on the mean squared error of the
network's estimate over minibatches from a buffer of the most recent rows. Every round ends
with a checkpoint that resumes the run (weights, Adam moments, counters, and the options it
was started with, so that a resume with other options is refused rather than mixed in).

With ``samples`` (D155) every decision with a choice, whoever plays it, gives a row for each
of its actions, labelled by the action's mean payment over ``samples`` deals drawn from what
the seat knows (:func:`paohuzi.bots.rollout.sampled_payments`, the expert's values) less the
decision's mean, and the fit is paired (:func:`paired_gradients`) over whole decisions
(:class:`Buffer`).

Hand *i* of a run is a function of the seed, *i* and the weights it is played with (its deck
and its own generator, :func:`hand_rng`), so a round's hands may be played in several
processes (``workers``) and give the same rows, in the same order, as in one (D131).
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import time
import zipfile
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from multiprocessing.pool import Pool
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from paohuzi.bots.base import Bot
from paohuzi.bots.expert import ExpertBot
from paohuzi.bots.greedy import GreedyBot
from paohuzi.bots.learned import (
    NUM_FEATURES,
    SCALE,
    Array,
    LearnedBot,
    QNet,
    action_features,
    input_width,
    product,
)
from paohuzi.bots.rollout import rollout_payments, sampled_payments, weigh_losses
from paohuzi.engine.actions import HU, Action
from paohuzi.engine.core import Waits
from paohuzi.engine.game import Game
from paohuzi.engine.observation import observe
from paohuzi.engine.position import Over
from paohuzi.engine.rules import HUNAN, RuleSet
from paohuzi.tools.distributed import batches
from paohuzi.tools.dmc_settings import EVAL_FIELDS, Settings
from paohuzi.tools.tournament import deal_deck, mean_ci, seat_payments
from paohuzi.tools.workers import worker_pool


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
    return float(np.mean(err * err)), backward(net, inputs, (2 / len(y)) * err[:, None])


def backward(net: QNet, inputs: list[Array], delta: Array) -> dict[str, Array]:
    """The gradient of a loss whose derivative by the outputs is ``delta``, by
    backpropagation through the layers' ``inputs``."""
    grads: dict[str, Array] = {}
    for i in reversed(range(net.layers)):
        grads[f"w{i}"] = product(inputs[i].T, delta)
        grads[f"b{i}"] = delta.sum(axis=0)
        if i:
            delta = product(delta, net.params[f"w{i}"].T) * (inputs[i] > 0)
    return grads


def true_payments(
    game: Game,
    legal: Sequence[Action],
    seat: int,
    samples: int,
    rng: random.Random,
    waits: Waits,
    losses: float = 1.0,
) -> list[float]:
    """For each action: ``seat``'s mean payment over ``samples`` rollouts of the hand's true
    position, the wall's order drawn again for each (the others' hands as they are), a loss
    counting ``losses`` times (:func:`paohuzi.bots.rollout.weigh_losses`)."""
    position = game.position()
    total = [0.0] * len(legal)
    for _ in range(samples):
        wall = list(position.wall)
        rng.shuffle(wall)
        copy = Game.from_position(replace(position, wall=tuple(wall)), game.rules, check=False)
        paid = weigh_losses(rollout_payments(copy, legal, seat, waits=waits), losses)
        total = [t + p for t, p in zip(total, paid, strict=True)]
    return [t / samples for t in total]


def play(
    net: QNet | None,
    deck_seed: int,
    hand: int,
    rng: random.Random,
    settings: Settings,
    rules: RuleSet = HUNAN,
) -> list[tuple[Array, Array]]:
    """One training hand's decisions, each as the feature rows of its actions and their
    targets: Deep Monte-Carlo, the row of the action taken and the taking seat's payment /
    SCALE; with ``settings.samples``, every action of every decision with a choice and its
    sampled value less the decision's mean (D155). ``net`` None: greedy bots at every seat."""
    game = Game(rules, dealer=hand % rules.players, deck=deal_deck(deck_seed, hand))
    learner = [
        net is not None and rng.random() < settings.learner_share for _ in range(rules.players)
    ]
    greedy = GreedyBot()
    taken: list[tuple[Array, int]] = []  # Deep Monte-Carlo: the row taken and its seat
    labelled: list[tuple[Array, Array]] = []
    while not isinstance(phase := game.phase, Over):
        seat = phase.to_act
        obs = observe(game, seat, events=settings.samples > 0)
        legal = obs.legal
        if HU in legal or len(legal) == 1:
            game.apply(HU if HU in legal else legal[0])
            continue
        x = action_features(obs, legal)
        if settings.samples:
            if settings.label_deals == "true":
                paid = true_payments(
                    game,
                    legal,
                    seat,
                    settings.samples,
                    rng,
                    settings.label_waits,
                    settings.label_losses,
                )
            else:
                paid = sampled_payments(
                    obs,
                    legal,
                    settings.samples,
                    rng,
                    waits=settings.label_waits,
                    losses=settings.label_losses,
                )
            values = np.array(paid) / SCALE
            labelled.append((x, (values - values.mean()).astype(np.float32)))
        if net is not None and learner[seat]:
            if rng.random() < settings.epsilon:
                choice = rng.randrange(len(legal))
            else:
                choice = int(np.argmax(net(x)))
        else:
            choice = legal.index(greedy.act(obs))
        if not settings.samples:
            taken.append((x[choice], seat))
        game.apply(legal[choice])
    if settings.samples:
        return labelled
    payments = phase.result.payments
    return [(row[None], np.array([payments[s] / SCALE], np.float32)) for row, s in taken]


@dataclass
class State:
    """A run in progress: what a checkpoint holds."""

    net: QNet
    adam: Adam
    hands: int = 0
    rounds: int = 0
    loss: float = 0.0
    options: str = ""
    """The run's settings but ``hands`` (:func:`run_options`); "" in a checkpoint written
    before they were kept."""
    curve: list[dict[str, float]] = field(default_factory=list)
    """The learning curve so far: a point every ``eval_every`` rounds (:func:`evaluate`)."""

    def save(self, path: Path) -> None:
        arrays: dict[str, Array | int | float] = dict(self.net.params)
        arrays.update({f"m_{k}": v for k, v in self.adam.m.items()})
        arrays.update({f"v_{k}": v for k, v in self.adam.v.items()})
        counters = np.array([self.hands, self.rounds, self.adam.t], dtype=np.int64)
        tmp = path.with_suffix(".tmp.npz")
        extra = {"options": np.array(self.options), "curve": np.array(json.dumps(self.curve))}
        np.savez(tmp, counters=counters, loss=np.float32(self.loss), **extra, **arrays)  # type: ignore[arg-type]
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path, lr: float) -> State:
        """The run a checkpoint of this trainer holds; ValueError in one line for any other
        file (the deep trainer's checkpoint included)."""
        data = arrays_of(path)
        if "meta" in data:
            raise ValueError(
                f"{path} is a checkpoint of the other trainer (--net deep): "
                "use --checkpoint or --fresh"
            )
        layers = sum(re.fullmatch(r"w\d+", k) is not None for k in data)
        names = [n for i in range(layers) for n in (f"w{i}", f"b{i}")]
        wanted = [*names, *(f"{m}_{n}" for m in "mv" for n in names), "counters", "loss"]
        missing = next((n for n in wanted if n not in data), None if names else "w0")
        if missing is not None:
            raise ValueError(f"{path}: not a checkpoint of this trainer (missing {missing})")
        problem = _problem(data, layers)
        if problem is not None:
            raise ValueError(f"{path}: not a checkpoint of this trainer ({problem})")
        net = QNet({n: data[n].astype(np.float32) for n in names})
        adam = Adam(net.params, lr)
        adam.m = {n: data[f"m_{n}"] for n in names}
        adam.v = {n: data[f"v_{n}"] for n in names}
        hands, rounds, adam.t = (int(c) for c in data["counters"])
        options = data.get("options", np.array(""))
        if options.shape != () or options.dtype.kind != "U" or not _options_ok(str(options)):
            raise ValueError(f"{path}: not a checkpoint of this trainer (bad options)")
        curve = _curve_of(data.get("curve", np.array("[]")))
        if curve is None:
            raise ValueError(f"{path}: not a checkpoint of this trainer (bad curve)")
        return cls(net, adam, hands, rounds, float(data["loss"]), str(options), curve)

    @property
    def hidden(self) -> tuple[int, ...]:
        """The network's hidden layer sizes."""
        return tuple(int(self.net.params[f"w{i}"].shape[1]) for i in range(self.net.layers - 1))


def run_options(settings: Settings) -> str:
    """The settings a run is made with, all but ``hands`` (a run may be resumed to play more)
    and the learning curve's (:data:`EVAL_FIELDS`, which change no weight), as the checkpoint
    keeps them: JSON."""
    fields = {k: v for k, v in asdict(settings).items() if k != "hands" and k not in EVAL_FIELDS}
    return json.dumps(fields, sort_keys=True)


def _curve_of(kept: Array) -> list[dict[str, float]] | None:
    """A checkpoint's learning curve (JSON: a list of points, each of numbers by name, with
    ``hands``), or None if it is not one."""
    if kept.shape != () or kept.dtype.kind != "U":
        return None
    try:
        curve = json.loads(str(kept))
    except ValueError:
        return None
    if not isinstance(curve, list):
        return None
    for point in curve:
        if not isinstance(point, dict) or "hands" not in point:
            return None
        if not all(_finite(v) for v in point.values()):
            return None
    return curve


def _finite(value: object) -> bool:
    """Whether ``value`` is a finite number as a float (JSON's integers are unbounded)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def _options_ok(kept: str) -> bool:
    """Whether a checkpoint's options are none (written before they were kept) or a JSON
    object of settings."""
    if not kept:
        return True
    try:
        return isinstance(json.loads(kept), dict)
    except ValueError:
        return False


def _changed(kept: str, settings: Settings) -> str | None:
    """The first option a resume changes from the checkpoint's, as its command line would say
    it, or None; a checkpoint that kept no options (written before they were) resumes as is."""
    if not kept:
        return None
    # options added since the checkpoint was written: their defaults, as the deep trainer does
    before = {**json.loads(run_options(Settings())), **json.loads(kept)}
    now = json.loads(run_options(settings))
    for name in sorted(before.keys() | now.keys()):
        if before.get(name) != now.get(name):
            was, is_ = (_spelt(name, v) for v in (before.get(name), now.get(name)))
            option = name if name in NO_FLAG else f"--{name.replace('_', '-')}"
            return f"{option} {was}, not {is_}"
    return None


NO_FLAG = frozenset({"learner_share"})
"""Settings the command line does not set (``train``'s API does)."""


def _spelt(name: str, value: object) -> str:
    """An option's value as the command line spells it."""
    if name == "label_waits":
        return "all" if value is True else str(value)
    if isinstance(value, list):
        return ",".join(map(str, value))
    return str(value)


def arrays_of(path: Path) -> dict[str, Array]:
    """The arrays of an .npz file; ValueError in one line for a file that is not one."""
    try:
        with np.load(path, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    except OSError as error:
        raise ValueError(f"{path}: {error.strerror or error}") from None
    except (ValueError, EOFError, TypeError, zipfile.BadZipFile, zlib.error):
        # TypeError: a .npy file loads as one array, which ``with`` does not take
        raise ValueError(f"{path}: not a checkpoint (not a NumPy .npz archive)") from None


def _problem(data: dict[str, Array], layers: int) -> str | None:
    """What does not fit in a checkpoint's arrays, if anything: weights that chain from the
    features to one output, moments of their shapes, finite numbers, three counters."""
    width = input_width(data["w0"])  # a network made before D185 reads the first 37 features
    for i in range(layers):
        w, b = data[f"w{i}"], data[f"b{i}"]
        if w.ndim != 2 or w.shape[0] != width or b.shape != (w.shape[1],):
            return f"layer {i} does not fit: w{i} {w.shape}, b{i} {b.shape}"
        width = w.shape[1]
        for name in (f"w{i}", f"b{i}"):
            for array in (data[name], data[f"m_{name}"], data[f"v_{name}"]):
                if array.dtype.kind != "f" or array.shape != data[name].shape:
                    return f"{name} or its moments are not {data[name].shape} arrays of numbers"
                if not np.isfinite(array).all():
                    return f"{name} or its moments are not finite"
    if width != 1:
        return f"the last layer has {width} outputs, not 1"
    counters, loss = data["counters"], data["loss"]
    if counters.shape != (3,) or counters.dtype.kind not in "iu" or (counters < 0).any():
        return "counters are not three counts"
    if loss.shape != () or loss.dtype.kind != "f":
        return "loss is not a number"
    return None


def export(state: State, path: Path) -> None:
    """The weights alone: what the ``learned`` bot ships (written to ``path`` as named, at
    once)."""
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "wb") as file:
        np.savez_compressed(file, **state.net.params)  # type: ignore[arg-type]
    os.replace(temporary, path)


def hand_rng(seed: int, hand: int) -> random.Random:
    """The generator of training hand ``hand`` (which seats the network plays, its
    exploration): its own, so that the hand is the same in whichever process plays it."""
    return random.Random(f"dmc:{seed}:{hand}")


IntArray = NDArray[np.int64]
Job = tuple[dict[str, Array] | None, Settings, range]
JOB_HANDS = 25
"""Hands a worker process plays at a time (a round's 500 make 20 jobs to share out)."""


def play_hands(job: Job) -> tuple[Array, Array, IntArray]:
    """The rows, targets and decision sizes (rows a decision) of the job's hands, in order,
    played with its weights (None: greedy bots only); a job for a worker process."""
    params, settings, hands = job
    net = None if params is None else QNet(params)
    found: list[tuple[Array, Array]] = []
    for hand in hands:
        found += play(net, settings.seed, hand, hand_rng(settings.seed, hand), settings)
    x = np.concatenate([f[0] for f in found]) if found else np.zeros((0, NUM_FEATURES))
    y = np.concatenate([f[1] for f in found]) if found else np.zeros(0)
    sizes: IntArray = np.array([len(f[1]) for f in found], dtype=np.int64)
    return x.astype(np.float32), y.astype(np.float32), sizes


@contextmanager
def players(workers: int) -> Iterator[Pool | None]:
    """The processes that play a run's hands: none (this one) for ``workers`` ≤ 1, else a
    pool kept for the whole run, whose processes end with this one."""
    if workers <= 1:
        yield None
        return
    with worker_pool(workers) as pool:
        yield pool


def play_round(
    net: QNet | None, settings: Settings, first: int, count: int, pool: Pool | None = None
) -> tuple[Array, Array, IntArray]:
    """The rows, targets and decision sizes of hands ``first … first + count − 1``, in hand
    order: in this process, or spread over ``pool``'s (the same arrays either way)."""
    params = None if net is None else net.params
    hands = range(first, first + count)
    if pool is None:
        return play_hands((params, settings, hands))
    jobs = [(params, settings, hands[r.start : r.stop]) for r in batches(count, JOB_HANDS)]
    done = pool.map(play_hands, jobs)
    rows = np.concatenate([x for x, _, _ in done])
    targets = np.concatenate([y for _, y, _ in done])
    return rows, targets, np.concatenate([sizes for _, _, sizes in done])


class Buffer:
    """The most recent ``limit`` rows and their targets, kept with the decision each belongs
    to, to fit on: single rows for Deep Monte-Carlo, whole decisions for D155's labels."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.x = np.zeros((0, NUM_FEATURES), dtype=np.float32)
        self.y = np.zeros(0, dtype=np.float32)
        self.starts = np.zeros(0, dtype=np.int64)
        """Each decision's first row."""

    def add(self, x: Array, y: Array, sizes: IntArray) -> None:
        starts = len(self.y) + np.concatenate([[0], np.cumsum(sizes)])[:-1].astype(np.int64)
        self.x = np.concatenate([self.x, x])
        self.y = np.concatenate([self.y, y])
        self.starts = np.concatenate([self.starts, starts])
        if len(self.y) > self.limit:  # drop the oldest whole decisions
            keep = int(np.searchsorted(self.starts, len(self.y) - self.limit))
            cut = int(self.starts[keep]) if keep < len(self.starts) else len(self.y)
            self.x, self.y = self.x[cut:], self.y[cut:]
            self.starts = self.starts[keep:] - cut

    def sample(self, rng: np.random.Generator, rows: int) -> tuple[Array, Array, IntArray]:
        """About ``rows`` rows of whole decisions drawn at random: rows, targets and the
        number (0, 1, …) of the decision of each row."""
        ends = np.append(self.starts[1:], len(self.y))
        per = max(1.0, len(self.y) / max(1, len(self.starts)))
        chosen = rng.integers(0, len(self.starts), size=max(1, round(rows / per)))
        sizes = ends[chosen] - self.starts[chosen]
        owner = np.repeat(np.arange(len(chosen)), sizes)
        # each chosen decision's rows in order: its start, then one further a row
        first = np.concatenate([[0], np.cumsum(sizes)])[:-1]
        index = self.starts[chosen][owner] + np.arange(len(owner)) - first[owner]
        return self.x[index], self.y[index], owner


def paired_gradients(
    net: QNet, x: Array, y: Array, owner: IntArray
) -> tuple[float, dict[str, Array]]:
    """The mean squared error of each estimate less its decision's mean against its target
    (already its decision's label less their mean, D155), and its gradient."""
    out, inputs = net.forward(x)
    counts = np.bincount(owner)
    centred = out - (np.bincount(owner, weights=out) / counts)[owner]
    err = (centred - y).astype(np.float32)
    # d/d out_j of mean (err²): the centring's own term vanishes (err sums to 0 a decision)
    return float(np.mean(err * err)), backward(net, inputs, (2 / len(y)) * err[:, None])


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
        if state.hidden != settings.hidden:
            kept = ",".join(map(str, state.hidden))
            raise ValueError(
                f"{checkpoint} has hidden layers {kept}: resume it with --hidden {kept}, "
                "or start afresh with --fresh"
            )
        changed = _changed(state.options, settings)
        if changed is not None:
            raise ValueError(
                f"{checkpoint} was made with {changed}: resume it with the options it was made "
                "with, or start afresh with --fresh"
            )
    else:
        net = QNet.new(settings.hidden, settings.seed)
        state = State(net, Adam(net.params, settings.lr), options=run_options(settings))
    # Rows are regenerated, not stored: a resumed run refills its buffer from fresh hands.
    # Deep Monte-Carlo's rows are decisions of one row each; D155's labels, whole decisions.
    decisions = Buffer(settings.buffer)
    fit = np.random.default_rng(settings.seed + state.rounds)
    with players(workers) as pool:
        while state.hands < settings.hands:
            player = None if state.rounds < settings.warmup else state.net
            count = min(settings.round_hands, settings.hands - state.hands)
            rows, targets, sizes = play_round(player, settings, state.hands, count, pool)
            decisions.add(rows, targets, sizes)
            state.hands += count
            losses = []
            for _ in range(settings.steps if len(decisions.y) else 0):
                x, y, owner = decisions.sample(fit, settings.batch)
                if settings.samples:
                    loss, grads = paired_gradients(state.net, x, y, owner)
                else:
                    loss, grads = gradients(state.net, x, y)
                state.adam.step(state.net.params, grads)
                losses.append(loss)
            state.loss = float(np.mean(losses)) if losses else 0.0
            state.rounds += 1
            state.save(checkpoint)  # the round is kept, whatever happens to its point
            measured = settings.eval_deals or settings.eval_expert_deals
            if measured and settings.eval_every and state.rounds % settings.eval_every == 0:
                point = evaluate(state.net, settings, pool)
                state.curve.append({"round": state.rounds, "hands": state.hands, **point})
                state.save(checkpoint)
            if on_round is not None:
                on_round(state)
            if deadline is not None and time.monotonic() >= deadline:
                break
    return state


EVAL_SAMPLES = 24
"""Samples a decision of the learning curve's searching bot, ``learned@24``: somewhat fewer
than the 4-ms search plays on a quiet machine (median 30, D159), about what it plays on a busy
one (D179), and fixed, so that a point does not move with the load."""
EVAL_EXPERT_SAMPLES = 32
"""The learning curve's experts: ``expert@32``, reproducible and far faster than the default
level (15 ms a decision in ``benchmarks/picks.py``, D155, against a budget of 0.5 s), so
weaker than it."""
EVAL_JOB_DEALS = 10
"""Deals of the learning curve a worker process plays at a time."""
EvalJob = tuple[dict[str, Array], str, int, range]


def evaluation_payments(job: EvalJob) -> list[float]:
    """The learned seat's mean payment on each of the job's ``deals`` of seed ``seed``, the
    seat at each place of the table in turn (:func:`paohuzi.tools.tournament.seat_payments`,
    dealt as a tournament deals them), for the measure ``kind``: ``"alone"`` (the network
    alone, ``learned@0``, against two greedy bots), ``"vs_greedy"`` (``learned@``
    :data:`EVAL_SAMPLES` against two greedy bots) or ``"vs_expert"`` (the same against two
    ``expert@`` :data:`EVAL_EXPERT_SAMPLES`); a job for a worker process."""
    params, kind, seed, deals = job
    net = QNet(params)
    players = HUNAN.players
    found = []
    for deal in deals:

        def bots_for(seat: int, deal: int = deal) -> list[Bot]:
            first = ((seed * 1_000_003 + deal) * players + seat) * players
            bots: list[Bot] = [
                ExpertBot(first + s, samples=EVAL_EXPERT_SAMPLES)
                if kind == "vs_expert"
                else GreedyBot()
                for s in range(players)
            ]
            samples = 0 if kind == "alone" else EVAL_SAMPLES
            bots[seat] = LearnedBot(first + seat, net=net, samples=samples)
            return bots

        found.append(sum(seat_payments(seed, deal, bots_for)) / players)
    return found


def evaluate(net: QNet, settings: Settings, pool: Pool | None = None) -> dict[str, float]:
    """A point of the learning curve: points a hand of the network on duplicate deals of
    ``settings.eval_seed`` — alone (``alone``) and searching (``vs_greedy``) against two
    greedy bots over ``eval_deals`` deals, searching against two experts (``vs_expert``) over
    ``eval_expert_deals`` (none if 0) — each deal played once with the network at each seat;
    with each, ``<measure>_ci95``, half its 95% confidence interval over the deals. The same
    figures in this process or spread over ``pool``'s, and nothing of the run changes."""
    point = {}
    measures = (
        ("alone", settings.eval_deals),
        ("vs_greedy", settings.eval_deals),
        ("vs_expert", settings.eval_expert_deals),
    )
    for key, deals in measures:
        if deals:
            jobs = [
                (net.params, key, settings.eval_seed, r) for r in batches(deals, EVAL_JOB_DEALS)
            ]
            done = pool.map(evaluation_payments, jobs) if pool else map(evaluation_payments, jobs)
            mean, (_, high) = mean_ci([v for values in done for v in values])
            point[key] = mean
            if deals > 1:  # one deal shows no spread
                point[f"{key}_ci95"] = high - mean
    return point


CURVE_LABELS = {
    "vs_greedy": f"learned@{EVAL_SAMPLES} vs greedy, greedy",
    "alone": "learned@0 (the network alone) vs greedy, greedy",
    "vs_expert": f"learned@{EVAL_SAMPLES} vs two expert@{EVAL_EXPERT_SAMPLES}",
}
"""What the learning curve's measures are, as its plot says."""
