"""Training of the ``learned-deep`` Q-network on JAX (docs/learned.md, D126).

A round: play ``round_hands`` hands on the native core, ``envs`` at a time, every call of the
network answering the pending decisions of all of them in one batched forward pass
(:func:`_q_batch`); each seat of a hand is the network (ε-greedy over its estimates) with
chance 1 − ``greedy_share``, else the greedy bot, at least one seat the network. Every legal
action of every network decision is labelled with the seat's payment (R10.5) when it takes it
and every seat then plays the greedy bot from the true deal (:meth:`Game.rollout`), or with
``samples`` by its mean over deals drawn from what the seat knows (:func:`labels_of`, D155); the
network is fitted to them by a paired loss (:func:`_loss`), with Adam (optax).

Everything is seeded: hand i of the run has the deck ``deal_deck(seed, i)``, dealer i mod the
seats, and draws its seats and exploration from ``Generator([seed, i])``, so the hands do not
depend on how they are spread over processes (``workers``); a round's decisions are used in that
round only and the checkpoint (network, Adam state, counters, the learning curve) is rewritten
atomically after every round, so a stopped run resumes exactly. JAX and optax are needed only
here (the ``train`` extra); :func:`export` writes the NumPy weights
:class:`paohuzi.bots.deep.DeepNet` plays.
"""

from __future__ import annotations

import json
import math
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax

from paohuzi.bots.base import Bot
from paohuzi.bots.deep import ACTION_FEATURES, LAYERS, SCALE, DeepBot, DeepNet, action_rows
from paohuzi.bots.greedy import GreedyBot
from paohuzi.bots.planes import observation_arrays, planes
from paohuzi.bots.rollout import sampled_payments
from paohuzi.engine.actions import HU, Action
from paohuzi.engine.cards import NUM_KINDS
from paohuzi.engine.game import Game
from paohuzi.engine.observation import observe
from paohuzi.engine.rules import HUNAN, RuleSet
from paohuzi.tools.deep_settings import FREE_FIELDS, Settings
from paohuzi.tools.dmc import arrays_of
from paohuzi.tools.tournament import deal_deck, seat_payments

Params = dict[str, dict[str, jax.Array]]


def init_params(settings: Settings, state_size: int, key: jax.Array) -> Params:
    """Fresh weights (He initialisation) of the layers :class:`DeepNet` reads."""
    s0, s1 = settings.state_hidden
    h0, h1 = settings.head_hidden
    a0 = settings.action_hidden
    sizes = {
        "s0": (state_size, s0),
        "s1": (s0, s1),
        "a0": (ACTION_FEATURES, a0),
        "h0": (s1 + a0, h0),
        "h1": (h0, h1),
        "out": (h1, 1),
    }
    params: Params = {}
    for layer, key_i in zip(LAYERS, jax.random.split(key, len(LAYERS)), strict=True):
        n_in, n_out = sizes[layer]
        w = jax.random.normal(key_i, (n_in, n_out), jnp.float32) * math.sqrt(2 / n_in)
        params[layer] = {"w": w, "b": jnp.zeros(n_out, jnp.float32)}
    return params


def _dense(p: dict[str, jax.Array], x: jax.Array) -> jax.Array:
    return x @ p["w"] + p["b"]


def _state_tower(params: Params, states: jax.Array) -> jax.Array:
    s = jax.nn.relu(_dense(params["s0"], states))
    return jax.nn.relu(_dense(params["s1"], s))


def _head(params: Params, s: jax.Array, actions: jax.Array) -> jax.Array:
    """Q of each action row beside its state's embedding ``s`` (the same leading shape)."""
    a = jax.nn.relu(_dense(params["a0"], actions))
    h = jax.nn.relu(_dense(params["h0"], jnp.concatenate([s, a], axis=-1)))
    h = jax.nn.relu(_dense(params["h1"], h))
    return _dense(params["out"], h)[..., 0]


def q_rows(params: Params, states: jax.Array, actions: jax.Array) -> jax.Array:
    """Q of each (state, action) row: states (N, S), actions (N, F) → (N,)."""
    return _head(params, _state_tower(params, states), actions)


@jax.jit
def _q_batch(params: Params, states: jax.Array, actions: jax.Array) -> jax.Array:
    """Q of every action of every pending decision: states (B, S), actions (B, A, F) → (B, A);
    the state tower runs once a decision."""
    s = _state_tower(params, states)
    s = jnp.broadcast_to(s[:, None, :], (*actions.shape[:2], s.shape[-1]))
    return _head(params, s, actions)


def _loss(
    params: Params,
    states: jax.Array,
    actions: jax.Array,
    owner: jax.Array,
    targets: jax.Array,
    mask: jax.Array,
    value_weight: float,
) -> jax.Array:
    """Paired: the squared error of each action's estimate less the decision's mean estimate
    against its label less the mean label (the true deal's luck, common to every action of a
    decision, cancels), plus ``value_weight`` × that of the means themselves. The actions of
    all decisions lie in one flat array, ``owner`` the decision of each (padding: mask 0)."""
    q = _head(params, _state_tower(params, states)[owner], actions)
    decisions = states.shape[0]
    n = jax.ops.segment_sum(mask, owner, decisions)
    q_mean = jax.ops.segment_sum(q * mask, owner, decisions) / n
    t_mean = jax.ops.segment_sum(targets * mask, owner, decisions) / n
    error = ((q - q_mean[owner]) - (targets - t_mean[owner])) ** 2 * mask
    advantage = jax.ops.segment_sum(error, owner, decisions) / n
    return jnp.mean(advantage) + value_weight * jnp.mean((q_mean - t_mean) ** 2)


@dataclass
class State:
    """What a checkpoint holds."""

    settings: Settings
    params: Params
    opt_state: Any
    rounds: int = 0
    hands: int = 0
    decisions: int = 0
    seconds: float = 0.0
    loss: float = 0.0
    curve: list[dict[str, float]] = field(default_factory=list)


def _optimizer(settings: Settings) -> optax.GradientTransformation:
    return optax.chain(optax.clip_by_global_norm(10.0), optax.adam(settings.lr))


def _make_step(settings: Settings) -> Callable[..., Any]:
    opt = _optimizer(settings)

    @jax.jit
    def step(
        params: Params,
        opt_state: Any,
        states: jax.Array,
        actions: jax.Array,
        owner: jax.Array,
        targets: jax.Array,
        mask: jax.Array,
    ) -> tuple[Params, Any, jax.Array]:
        loss, grads = jax.value_and_grad(_loss)(
            params, states, actions, owner, targets, mask, settings.value_weight
        )
        updates, opt_state = opt.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    return step


def new_state(settings: Settings, rules: RuleSet = HUNAN) -> State:
    size = planes(rules.players) * NUM_KINDS
    params = init_params(settings, size, jax.random.key(settings.seed))
    return State(settings, params, _optimizer(settings).init(params))


def _settings_json(settings: Settings) -> str:
    return json.dumps(asdict(settings), sort_keys=True)


def save(state: State, path: Path) -> None:
    """The checkpoint, written atomically (arrays only, no pickled objects)."""
    leaves, _ = jax.tree_util.tree_flatten((state.params, state.opt_state))
    meta = {
        "settings": asdict(state.settings),
        "rounds": state.rounds,
        "hands": state.hands,
        "decisions": state.decisions,
        "seconds": state.seconds,
        "loss": state.loss,
        "curve": state.curve,
    }
    arrays = {f"leaf{i}": np.asarray(leaf) for i, leaf in enumerate(leaves)}
    arrays.update(numpy_params(state.params))  # so `learned:CHECKPOINT` plays it as it is
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        np.savez(f, meta=np.array(json.dumps(meta)), **arrays)  # type: ignore[arg-type]
    os.replace(tmp, path)


def load(path: Path, settings: Settings, rules: RuleSet = HUNAN) -> State:
    """A checkpoint made with the same settings but those a resume may change
    (:data:`~paohuzi.tools.deep_settings.FREE_FIELDS`: ``--hands`` and the curve's; others are
    refused, naming the first: a resumed run must be the run it continues); ValueError in one
    line for any other file (the other trainer's checkpoint included)."""
    data = arrays_of(path)
    if "meta" not in data:
        if "m_w0" in data:
            raise ValueError(
                f"{path} is a checkpoint of the other trainer (--net mlp): "
                "use --checkpoint or --fresh"
            )
        raise ValueError(f"{path}: not a checkpoint of this trainer (missing meta)")
    meta = _meta(data["meta"])
    if meta is None:
        raise ValueError(f"{path}: not a checkpoint of this trainer (bad meta)")
    # settings added since: their defaults; both as JSON keeps them (tuples as lists)
    made = json.loads(json.dumps({**asdict(Settings()), **meta["settings"]}))
    now = json.loads(_settings_json(settings))
    for name in sorted(made.keys() | now.keys()):
        if name not in FREE_FIELDS and made.get(name) != now.get(name):
            raise ValueError(
                f"{path} was made with other settings ({name} {made.get(name)}, not "
                f"{now.get(name)}): resume it with the settings it was made with, "
                "or start afresh with --fresh"
            )
    fresh = new_state(settings, rules)
    expected, tree = jax.tree_util.tree_flatten((fresh.params, fresh.opt_state))
    leaves = []
    for i, like in enumerate(expected):
        leaf = data.get(f"leaf{i}")
        if leaf is None or leaf.shape != np.shape(like) or leaf.dtype != np.asarray(like).dtype:
            raise ValueError(f"{path}: not a checkpoint of this trainer (leaf{i} does not fit)")
        leaves.append(jnp.asarray(leaf))
    params, opt_state = jax.tree_util.tree_unflatten(tree, leaves)
    return State(
        settings,
        params,
        opt_state,
        meta["rounds"],
        meta["hands"],
        meta["decisions"],
        meta["seconds"],
        meta["loss"],
        meta["curve"],
    )


def _meta(array: np.ndarray) -> dict[str, Any] | None:
    """A checkpoint's ``meta`` (the settings, counters and curve), if it is one."""
    if array.shape != () or array.dtype.kind != "U":
        return None
    try:
        meta = json.loads(str(array))  # not the strict reader: a diverged run's loss is NaN
    except (ValueError, RecursionError):
        return None
    if not isinstance(meta, dict) or not isinstance(meta.get("settings"), dict):
        return None
    counts = [meta.get(name) for name in ("rounds", "hands", "decisions")]
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in counts):
        return None
    numbers = [meta.get(name) for name in ("seconds", "loss")]
    if not all(isinstance(x, int | float) and not isinstance(x, bool) for x in numbers):
        return None
    curve = meta.get("curve")
    if not isinstance(curve, list):
        return None
    if not all(isinstance(p, dict) and {"hands", "vs_greedy"} <= p.keys() for p in curve):
        return None
    return meta


def numpy_params(params: Params) -> dict[str, np.ndarray]:
    """The weights as :class:`DeepNet` reads them."""
    return {
        f"{layer}_{p}": np.asarray(params[layer][p], dtype=np.float32)
        for layer in LAYERS
        for p in "wb"
    }


def export(state: State, path: Path) -> None:
    """The weights alone, as the bot ships them."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        np.savez(f, **numpy_params(state.params))  # type: ignore[arg-type]
    os.replace(tmp, path)


@dataclass
class _Hand:
    game: Game
    net_seats: frozenset[int]
    index: int
    rng: np.random.Generator
    made: int = 0


@dataclass
class Decision:
    """One network decision of a round: the seat's state, a row per legal action and, per
    action, the seat's payment / :data:`SCALE` when it takes it and every seat then plays the
    greedy bot from the true deal (counting its waits unless ``rollout_waits`` is off)."""

    state: np.ndarray
    rows: np.ndarray
    targets: np.ndarray


_GREEDY = GreedyBot()


def _advance(hand: _Hand) -> tuple[int, Any, tuple[Action, ...]] | None:
    """Plays forced moves, 胡 and the greedy seats until a network seat has a choice;
    that seat, its observation and its legal actions (None once the hand is over)."""
    game = hand.game
    while not game.is_over:
        seat = game.to_act
        assert seat is not None
        legal = tuple(game.legal_actions())
        if HU in legal:
            game.apply(HU)
        elif len(legal) == 1:
            game.apply(legal[0])
        elif seat not in hand.net_seats:
            choice = game.greedy(count_waits=True)
            game.apply(choice if choice is not None else _GREEDY.act(observe(game, seat)))
        else:
            return seat, observe(game, seat, events=False), legal
    return None


def _bucket(n: int) -> int:
    return max(8, 1 << (n - 1).bit_length())


def play_hands(
    settings: Settings,
    params: Params,
    indices: Sequence[int],
    rules: RuleSet = HUNAN,
) -> list[tuple[int, int, Decision]]:
    """The hands of the run numbered ``indices``, ``envs`` at a time, each network call
    answering all their pending decisions: every network decision, labelled, as (hand,
    decision number in the hand, decision). Hand i's deck, seating and exploration come from
    the seed and i alone (:func:`_deal`), so any split of the hands plays the same hands."""
    seats = rules.players
    queue = list(reversed(indices))
    decisions: list[tuple[int, int, Decision]] = []
    live = [_deal(settings, queue.pop(), rules) for _ in range(min(settings.envs, len(queue)))]
    size = planes(seats) * NUM_KINDS
    while live:
        pending = []
        still = []
        for hand in live:
            step = _advance(hand)
            while step is None and queue:
                hand = _deal(settings, queue.pop(), rules)
                step = _advance(hand)
            if step is not None:
                still.append(hand)
                pending.append((hand, step))
        live = still
        if not pending:
            continue
        width = _bucket(max(len(legal) for _, (_, _, legal) in pending))
        batch = np.zeros((settings.envs, size), np.float32)
        rows = np.zeros((settings.envs, width, ACTION_FEATURES), np.float32)
        for j, (hand, (seat, obs, legal)) in enumerate(pending):
            batch[j] = observation_arrays(hand.game, seat)["observation"].reshape(-1)
            rows[j, : len(legal)] = action_rows(obs, legal)
        q = np.asarray(_q_batch(params, jnp.asarray(batch), jnp.asarray(rows)))
        for j, (hand, (seat, _, legal)) in enumerate(pending):
            n = len(legal)
            labels = labels_of(settings, hand, seat, legal)
            decisions.append(
                (hand.index, hand.made, Decision(batch[j].copy(), rows[j, :n].copy(), labels))
            )
            hand.made += 1
            if hand.rng.random() < settings.epsilon:
                choice = int(hand.rng.integers(n))
            else:
                choice = int(np.argmax(q[j, :n]))
            hand.game.apply(legal[choice])
    return decisions


def labels_of(settings: Settings, hand: _Hand, seat: int, legal: tuple[Action, ...]) -> np.ndarray:
    """Each legal action's label (payment / :data:`SCALE`): with ``settings.samples`` 0, the
    seat's payment when it takes the action and every seat then plays the rollout policy from
    the true deal; else the mean of that payment over ``samples`` deals drawn from what the
    seat knows, weighted by the others' play as the expert draws them (D155), the same deals
    for every action (what the seat cannot know averages out instead of adding noise)."""
    if not settings.samples:
        paid = hand.game.rollout(legal, seat, waits=settings.rollout_waits)
        if paid is None:
            raise ValueError("training needs the native core (paohuzi.native)")
        return np.asarray(paid, np.float32) / SCALE
    rng = random.Random(int(hand.rng.integers(2**63)))
    means = sampled_payments(
        observe(hand.game, seat), legal, settings.samples, rng, waits=settings.rollout_waits
    )
    return np.asarray(means, np.float32) / SCALE


def _deal(settings: Settings, index: int, rules: RuleSet) -> _Hand:
    """Hand ``index`` of the run: its deck, dealer, the seats the network plays (each with
    chance 1 − greedy_share, at least one) and its exploration generator."""
    seats = rules.players
    rng = np.random.default_rng([settings.seed, index])
    game = Game(rules, dealer=index % seats, deck=deal_deck(settings.seed, index), core="auto")
    while True:
        net = frozenset(s for s in range(seats) if rng.random() >= settings.greedy_share)
        if net:
            return _Hand(game, net, index, rng)


def _play_share(job: tuple[Settings, dict[str, np.ndarray], list[int]]) -> list[Any]:
    """A worker's share of a round (``--workers``)."""
    settings, weights, indices = job
    params = {layer: {p: jnp.asarray(weights[f"{layer}_{p}"]) for p in "wb"} for layer in LAYERS}
    return play_hands(settings, params, indices)


def play_round(state: State, pool: Any = None, workers: int = 1) -> tuple[list[Decision], int]:
    """One round's hands (on ``workers`` processes of ``pool`` if given): its decisions in
    the order of hands, then of decisions within a hand."""
    settings = state.settings
    base = state.rounds * settings.round_hands
    indices = list(range(base, base + settings.round_hands))
    if pool is None or workers == 1:
        found = play_hands(settings, state.params, indices)
    else:
        weights = numpy_params(state.params)
        shares = [(settings, weights, indices[w::workers]) for w in range(workers)]
        found = [d for share in pool.map(_play_share, shares) for d in share]
    found.sort(key=lambda item: (item[0], item[1]))
    return [d for _, _, d in found], len(indices)


def _minibatch(
    decisions: list[Decision], idx: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The decisions ``idx`` as :func:`_loss` takes them: their actions in one flat array,
    padded to a multiple of 256 rows (few shapes, few compilations)."""
    chosen = [decisions[i] for i in idx]
    total = sum(len(d.targets) for d in chosen)
    width = -(-total // 256) * 256
    states = np.stack([d.state for d in chosen])
    rows = np.zeros((width, ACTION_FEATURES), np.float32)
    owner = np.zeros(width, np.int32)
    targets = np.zeros(width, np.float32)
    mask = np.zeros(width, np.float32)
    at = 0
    for j, d in enumerate(chosen):
        n = len(d.targets)
        rows[at : at + n], owner[at : at + n], targets[at : at + n] = d.rows, j, d.targets
        mask[at : at + n] = 1
        at += n
    return states, rows, owner, targets, mask


def evaluate(params: Params, deals: int, seed: int, rules: RuleSet = HUNAN) -> float:
    """Points a hand of the network against two greedy bots over duplicate deals (the network
    at each seat of each deal in turn)."""
    net = DeepNet(numpy_params(params))

    def bots_for(seat: int) -> list[Bot]:
        return [DeepBot(net=net) if s == seat else GreedyBot() for s in range(rules.players)]

    total = sum(sum(seat_payments(seed, deal, bots_for, rules)) for deal in range(deals))
    return total / (deals * rules.players)


def train(
    settings: Settings,
    checkpoint: Path,
    *,
    resume: bool = True,
    minutes: float | None = None,
    stop_after: int | None = None,
    workers: int = 1,
    on_round: Callable[[State], None] | None = None,
) -> State:
    """Rounds until ``settings.hands`` hands, or ``minutes`` pass (the round in progress
    finishes and is saved), or ``stop_after`` rounds were played by this call. ``workers``
    processes play each round's hands (the main one fits)."""
    if workers == 1:
        return _train(settings, checkpoint, resume, minutes, stop_after, None, 1, on_round)
    from paohuzi.tools.workers import worker_pool

    # spawned (JAX's threads do not survive a fork), ending with this process and quietly on
    # a Ctrl-C
    with worker_pool(workers) as pool:
        return _train(settings, checkpoint, resume, minutes, stop_after, pool, workers, on_round)


def _train(
    settings: Settings,
    checkpoint: Path,
    resume: bool,
    minutes: float | None,
    stop_after: int | None,
    pool: Any,
    workers: int,
    on_round: Callable[[State], None] | None,
) -> State:
    state = load(checkpoint, settings) if resume and checkpoint.exists() else new_state(settings)
    step = _make_step(settings)
    started = time.monotonic()
    played_now = 0
    while state.hands < settings.hands:
        if minutes is not None and time.monotonic() - started >= minutes * 60:
            break
        if stop_after is not None and played_now >= stop_after:
            break
        played_now += 1
        t0 = time.monotonic()
        decisions, played = play_round(state, pool, workers)
        rng = np.random.default_rng([settings.seed, state.rounds, 1])
        steps = max(1, round(settings.passes * len(decisions) / settings.batch))
        order = np.concatenate(
            [rng.permutation(len(decisions)) for _ in range(math.ceil(settings.passes) + 1)]
        )
        losses = []
        for i in range(steps):
            batch = _minibatch(decisions, order[i * settings.batch : (i + 1) * settings.batch])
            state.params, state.opt_state, loss = step(
                state.params, state.opt_state, *map(jnp.asarray, batch)
            )
            losses.append(float(loss))
        state.rounds += 1
        state.hands += played
        state.decisions += len(decisions)
        state.loss = float(np.mean(losses))
        state.seconds += time.monotonic() - t0
        if settings.eval_every and state.rounds % settings.eval_every == 0:
            points = evaluate(state.params, settings.eval_deals, settings.eval_seed)
            state.curve.append({"round": state.rounds, "hands": state.hands, "vs_greedy": points})
        save(state, checkpoint)
        if on_round is not None:
            on_round(state)
    return state
