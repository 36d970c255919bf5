"""The deep learned bot: a Deep Monte-Carlo Q-network over the observation planes, NumPy only.

``Q(s, a)`` estimates the payment (R10.5) the seat ends the hand with if it takes action ``a``
in state ``s`` (Deep Monte-Carlo, as DouZero; docs/learned.md, D126). Its inputs are not scores
picked by hand but what the seat sees and what each action does:

* the state: the seat's observation array (``paohuzi.env.encoding``, the environments'
  planes: its hand, every table, the rows, unseen and 臭 kinds, discards, the offer, the scalars);
* each action (:func:`action_rows`): its type, the cards it takes from the hand, the hand it
  leaves, and what the evaluator says of that hand — its hu-xi (R10.6) and, per kind, the points
  a win on that kind would make (its waits, 听牌); for a 吃 or 碰 that obliges a discard, the
  best over the discards.

The network (:class:`DeepNet`) has a state tower run once a decision and a head run once an
action. Training (JAX, ``paohuzi.tools.deep_train``) exports the same arrays this module reads;
the bot plays without JAX. It wins when it can (胡), like the greedy bot.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paohuzi.bots.base import Bot
from paohuzi.bots.learned import after_action
from paohuzi.engine.actions import HU, Action, ActionType
from paohuzi.engine.cards import NUM_KINDS
from paohuzi.engine.evaluator import Prepared, prepare_counts
from paohuzi.engine.observation import Observation
from paohuzi.engine.rules import holding_limit

Array = NDArray[np.float32]

LAYERS = ("s0", "s1", "a0", "h0", "h1", "out")
"""The dense layers: state tower, action tower, head (arrays ``{layer}_w``, ``{layer}_b``)."""

ACTION_FEATURES = 4 + 1 + 3 * NUM_KINDS + 4
"""Inputs per action: type one-hot (discard, 吃, 碰, pass), 比 groups, the cards it takes from
the hand (20), the hand it leaves (20), the points of a win on each kind after it (20), then
hu-xi after / 20, table groups after / 7, a discard still due, 听牌."""

_TYPES = {ActionType.DISCARD: 0, ActionType.CHI: 1, ActionType.PENG: 2, ActionType.PASS: 3}
SCALE = 10.0
"""The network predicts payments divided by this."""
WAIT_SCALE = 10.0
"""Wait points are divided by this."""


def _waits_into(out: Array, prepared: Prepared) -> None:
    """``out[k]`` = max(``out[k]``, points / WAIT_SCALE) of a win on kind k of this holding."""
    for wait in prepared.waits():
        out[wait.win] = max(out[wait.win], wait.points / WAIT_SCALE)


def action_rows(obs: Observation, actions: tuple[Action, ...]) -> Array:
    """One row of :data:`ACTION_FEATURES` per action (none of them 胡), from ``obs`` alone."""
    rows = np.zeros((len(actions), ACTION_FEATURES), dtype=np.float32)
    before = obs.hand
    for i, action in enumerate(actions):
        row = rows[i]
        row[_TYPES[action.type]] = 1
        row[4] = max(0, len(action.groups) - 1)
        hand, table = after_action(obs, action)
        for k in range(NUM_KINDS):
            row[5 + k] = before[k] - hand[k]  # never negative: a 吃's card goes to its group
            row[25 + k] = hand[k]
        waits = row[45:65]
        held = sum(hand) + sum(len(g.cards) for g in table)
        limit = holding_limit(sum(g.is_four for g in table))
        prepared = prepare_counts(hand, table, obs.rules)
        if held > limit:  # a 吃 or 碰 obliges a discard: the best over the discards
            for k in range(NUM_KINDS):
                if 0 < hand[k] < 3:
                    hand[k] -= 1
                    _waits_into(waits, prepare_counts(hand, table, obs.rules))
                    hand[k] += 1
        elif held == limit:
            _waits_into(waits, prepared)
        row[65] = prepared.current_huxi() / 20
        row[66] = len(table) / 7
        row[67] = held > limit
        row[68] = waits.any()
    return rows


def state_vector(obs: Observation) -> Array:
    """The seat's observation planes, flattened (the environments' array, D39)."""
    from paohuzi.bots.planes import encode

    return encode(obs).reshape(-1)


def _relu(x: Array) -> Array:
    return np.maximum(x, 0)


def real_array(path: Path | str, name: str, array: NDArray[Any]) -> NDArray[np.float32]:
    """A checkpoint's array as float32, refusing one that is not of finite real numbers (a
    network with NaN weights would play its first choice every time, silently)."""
    if array.dtype.kind not in "fiu":
        raise ValueError(f"{path}: {name} holds {array.dtype} values, not real numbers")
    found = np.asarray(array, dtype=np.float32)
    if not np.isfinite(found).all():
        raise ValueError(f"{path}: {name} holds values that are not finite numbers")
    return found


class DeepNet:
    """``Q(s, a)``: a state tower (``s0``, ``s1``), an action tower (``a0``) and a head
    (``h0``, ``h1``, ``out``) over both, dense layers with ReLU. ``params`` holds
    ``{layer}_w`` and ``{layer}_b`` arrays, as ``paohuzi.tools.deep_train`` exports them."""

    STATE = ("s0", "s1")
    ACTION = ("a0",)
    HEAD = ("h0", "h1")

    def __init__(self, params: dict[str, Array]) -> None:
        self.params = params
        self.state_size = int(params["s0_w"].shape[0])

    @classmethod
    def load(cls, path: Path | str) -> DeepNet:
        """The weights of an exported checkpoint (.npz, no pickled objects)."""
        with np.load(path, allow_pickle=False) as data:
            return cls.of({k: data[k] for k in data.files}, path)

    @classmethod
    def of(cls, arrays: dict[str, NDArray[Any]], path: Path | str) -> DeepNet:
        """The network of a checkpoint's arrays (others, like a training checkpoint's state,
        are ignored); ValueError saying what does not fit."""
        names = [f"{layer}_{p}" for layer in LAYERS for p in "wb"]
        missing = [name for name in names if name not in arrays]
        if missing:
            raise ValueError(f"{path}: not a deep network's weights (no {', '.join(missing)})")
        params = {name: real_array(path, name, arrays[name]) for name in names}
        shapes = {name: params[name].shape for name in names}
        if any(len(shapes[f"{layer}_w"]) != 2 for layer in LAYERS):
            raise ValueError(f"{path}: the deep network's weights are not matrices")
        s1, a0, h1 = shapes["s1_w"][1], shapes["a0_w"][1], shapes["h1_w"][1]
        from paohuzi.bots.planes import planes

        # the inputs of the state tower: one seat's observation array at three or four seats
        fits = (
            shapes["s0_w"][0] in (planes(3) * NUM_KINDS, planes(4) * NUM_KINDS)
            and shapes["a0_w"][0] == ACTION_FEATURES
            and shapes["s1_w"][0] == shapes["s0_w"][1]
            and shapes["h0_w"][0] == s1 + a0
            and shapes["h1_w"][0] == shapes["h0_w"][1]
            and shapes["out_w"] == (h1, 1)
            and all(shapes[f"{layer}_b"] == (shapes[f"{layer}_w"][1],) for layer in LAYERS)
        )
        if not fits:
            raise ValueError(f"{path}: the deep network's layers do not fit together")
        return cls(params)

    def _dense(self, layer: str, x: Array) -> Array:
        # einsum's own loop, not BLAS: a few rows a decision, and OpenBLAS's threads cost
        # 20 times the product on a busy machine (6.8 ms against 0.24 ms at load 4, 2 cores)
        product: Array = np.einsum("ij,jk->ik", x, self.params[f"{layer}_w"], optimize=False)
        return product + self.params[f"{layer}_b"]

    def __call__(self, state: Array, actions: Array) -> Array:
        """The estimates (payments / :data:`SCALE`) of each action row in one state."""
        s = state[None, :]
        for layer in self.STATE:
            s = _relu(self._dense(layer, s))
        a = actions
        for layer in self.ACTION:
            a = _relu(self._dense(layer, a))
        h = np.concatenate([np.repeat(s, len(actions), axis=0), a], axis=1)
        for layer in self.HEAD:
            h = _relu(self._dense(layer, h))
        return self._dense("out", h)[:, 0]


CHECKPOINT = "deep.npz"
"""The shipped weights, next to this module."""


@cache
def shipped() -> DeepNet:
    """The network the built-in bot plays (loaded once)."""
    with resources.as_file(resources.files("paohuzi.bots") / CHECKPOINT) as path:
        return DeepNet.load(path)


class DeepBot:
    """Wins when it can; otherwise takes the choice whose estimated payment is highest. At a
    table whose observation has another number of planes than the network was trained on (the
    shipped one: the three-seat table), it plays as ``learned@0``, the learned bot's network
    alone (:class:`~paohuzi.bots.learned.LearnedBot`, D129, D156)."""

    name = "learned-deep"

    def __init__(self, seed: int | None = None, *, net: DeepNet | None = None) -> None:
        del seed  # deterministic
        self.net = net if net is not None else shipped()
        self._fallback: Bot | None = None

    def act(self, observation: Observation) -> Action:
        legal = observation.legal
        if HU in legal:
            return HU
        if len(legal) == 1:
            return legal[0]
        state = state_vector(observation)
        if state.shape[0] != self.net.state_size:  # another table size (R12): D126
            if self._fallback is None:
                from paohuzi.bots.learned import LearnedBot

                self._fallback = LearnedBot(samples=0)
            return self._fallback.act(observation)
        values = self.net(state, action_rows(observation, legal))
        return legal[int(np.argmax(values))]
