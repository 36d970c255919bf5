"""The learned bot: a small value network over hand-crafted features, played with NumPy only,
and a few milliseconds of search on top of it (D156).

For each legal choice the bot describes the hand it would leave (:func:`action_features`: the
greedy bot's hand-value components, hu-xi, live waits and what they would pay, the greedy score
itself, what one more card would do for the hand, D185) next to what the seat sees of the
table, and a multilayer perceptron (:class:`QNet`) estimates the payment the seat will end the
hand with (docs/learned.md). The choices within :data:`SEARCH_MARGIN` points of the network's
favourite (:data:`SEARCH_CANDIDATES` at most) are then raced as the expert races its own
(:func:`paohuzi.bots.expert.race`: deals drawn from what the seat knows, weighted by the others'
play, played out by the greedy bot, the seat counting its waits and the others not:
:data:`ROLLOUT_WAITS`) until :data:`SEARCH_BUDGET` is spent, and each one's mean payment is
pulled towards the network's estimate as if that were :data:`PRIOR_SAMPLES` samples
(:func:`settle`). The bot always wins when it can, like the greedy bot. Everything comes from
the seat's :class:`~paohuzi.engine.observation.Observation`.

``learned@N`` searches N samples a decision whatever the time (reproducible with a seed);
``learned@0`` is the network alone (deterministic, D56). Without the native core (or for a
rule set it does not serve) the bot plays the network alone: a rollout in Python costs more
than the whole budget.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from functools import cache
from importlib import resources
from itertools import pairwise
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from paohuzi.bots.beliefs import Beliefs
from paohuzi.bots.expert import RACE_FROM, race, survivors
from paohuzi.bots.greedy import GreedyBot
from paohuzi.engine.actions import HU, Action, ActionType
from paohuzi.engine.cards import NUM_KINDS, RED_KINDS, is_big
from paohuzi.engine.core import Waits
from paohuzi.engine.evaluator import current_huxi, prepare_counts
from paohuzi.engine.groups import PARTNERS, SCORING_SEQUENCES, SEQUENCES, Group, GroupType
from paohuzi.engine.observation import Observation
from paohuzi.engine.position import Source
from paohuzi.engine.rules import holding_limit
from paohuzi.native.core import serves

Array = NDArray[np.float32]

FEATURES = (
    "discard",
    "chi",
    "peng",
    "pass",
    "bi groups",
    "greedy score minus the best greedy score",
    "greedy score",
    "hu-xi after",
    "hu-xi gained",
    "pairs in hand",
    "singles with a partner",
    "isolated singles",
    "坎 in hand",
    "table groups",
    "听牌",
    "live winning cards",
    "live winning cards × points",
    "most points of a wait",
    "winning kinds",
    "red cards held",
    "big cards held",
    "a discard is still due",
    "the next player may 吃 the discard",
    "unseen copies of the discarded kind",
    "the discard is red",
    "passing makes a pair 臭",
    "the offer was drawn",
    "wall",
    "hu-xi now",
    "next player's table hu-xi",
    "the one after's table hu-xi",
    "next player's hand size",
    "the one after's hand size",
    "next player's table groups",
    "the one after's table groups",
    "dealer",
    "deciding a claim",
    "hu-xi a drawn card adds",
    "most hu-xi one card adds",
    "cards that add hu-xi",
    "cards that complete a group",
    "kinds that complete a group",
    "unseen copies of the pairs",
    "unseen partners of the singles",
    "cards that complete a 1-2-3 or 2-7-10",
)
"""What each input of the network means, in order (docs/learned.md). The last
:data:`NUM_FEATURES` − :data:`FIRST_FEATURES` (D185) describe what one more card would do for
the hand a choice leaves."""

NUM_FEATURES = len(FEATURES)
FIRST_FEATURES = 37
"""The features of the networks made before D185, the first of :data:`FEATURES`: such a
network reads those alone (:class:`QNet`), so that its checkpoint still plays as it did."""
INPUTS = (FIRST_FEATURES, NUM_FEATURES)
"""The inputs a network of this bot may have."""


def input_width(w0: Array) -> int:
    """The features a network whose first layer's weights are ``w0`` reads: its rows when they
    are one of :data:`INPUTS`, else :data:`NUM_FEATURES` (what a check of the layers then
    expects, and names)."""
    return int(w0.shape[0]) if w0.ndim == 2 and w0.shape[0] in INPUTS else NUM_FEATURES


_TYPES = {ActionType.DISCARD: 0, ActionType.CHI: 1, ActionType.PENG: 2, ActionType.PASS: 3}
SCALE = 10.0
"""The network predicts payments divided by this."""


def _hand_part(
    out: Array,
    hand: list[int],
    table: list[Group],
    obs: Observation,
    unseen: list[int],
    huxi_now: int,
) -> None:
    """Fill the hand-value components of the hand a choice leaves (features 7–21)."""
    prepared = prepare_counts(hand, table, obs.rules)
    huxi = prepared.current_huxi()
    pairs = partnered = isolated = kans = 0
    for k in range(NUM_KINDS):
        n = hand[k]
        if n == 3:
            kans += 1
        elif n == 2:
            pairs += 1
        elif n == 1:
            if any(hand[p] for p in PARTNERS[k]):
                partnered += 1
            else:
                isolated += 1
    held = sum(hand) + sum(len(g.cards) for g in table)
    limit = holding_limit(sum(g.is_four for g in table))
    live = worth = most = kinds = 0
    if isolated <= 2 and held == limit:
        for wait in prepared.waits():
            if unseen[wait.win]:
                live += unseen[wait.win]
                worth += unseen[wait.win] * wait.points
                most = max(most, wait.points)
                kinds += 1
    reds = sum(hand[k] for k in RED_KINDS) + sum(k in RED_KINDS for g in table for k in g.cards)
    bigs = sum(hand[k] for k in range(NUM_KINDS) if is_big(k))
    bigs += sum(is_big(k) for g in table for k in g.cards)
    out[7:22] = (
        huxi / 15,
        (huxi - huxi_now) / 5,
        pairs / 5,
        partnered / 5,
        isolated / 5,
        kans / 3,
        len(table) / 7,
        live > 0,
        live / 8,
        worth / 40,
        most / 10,
        kinds / 5,
        reds / 13,
        bigs / 20,
        held > limit,
    )


def _growth_part(
    out: Array, hand: list[int], table: list[Group], obs: Observation, unseen: list[int]
) -> None:
    """Fill features 37–44 (D185): what one more card would do for the hand a choice leaves,
    over the cards the seat has not seen. For each kind with unseen copies that the hand
    holds fewer than three of: the hu-xi its hand and table would then count
    (:meth:`~paohuzi.engine.evaluator.PreparedHand.current_huxi`) less what they count now —
    on average over the unseen cards, at most, and how many unseen cards add any — and
    whether it would make a group of three with two cards of the hand (a 坎 with a pair, a
    sequence, a 绞). Then the unseen copies of the pairs' kinds, of the singles' partners
    (:data:`~paohuzi.engine.groups.PARTNERS`, counted once a single), and of the missing card
    of each 1-2-3 or 2-7-10 the hand holds two cards of."""
    rules = obs.rules
    base = prepare_counts(hand, table, rules).current_huxi()
    gained = most = adding = completing = kinds = 0
    for k in range(NUM_KINDS):
        copies = unseen[k]
        if not copies or hand[k] >= 3:
            continue
        hand[k] += 1
        gain = prepare_counts(hand, table, rules).current_huxi() - base
        hand[k] -= 1
        gained += copies * gain
        most = max(most, gain)
        adding += copies if gain > 0 else 0
        if _completes(hand, k):
            completing += copies
            kinds += 1
    pairs = sum(unseen[k] for k in range(NUM_KINDS) if hand[k] == 2)
    partners = sum(unseen[p] for k in range(NUM_KINDS) if hand[k] == 1 for p in PARTNERS[k])
    scoring = 0
    for run in SCORING_SEQUENCES:
        missing = [k for k in run if not hand[k]]
        if len(missing) == 1:
            scoring += unseen[missing[0]]
    out[37:45] = (
        gained / max(1, sum(unseen)) / 3,
        most / 6,
        adding / 20,
        completing / 30,
        kinds / 10,
        pairs / 8,
        partners / 40,
        scoring / 8,
    )


def _completes(hand: list[int], kind: int) -> bool:
    """Whether a card of ``kind`` would make a group of three with two cards of ``hand``: a
    坎 with a pair, a sequence (R3), or a 绞 (R3: one rank, both sizes)."""
    if hand[kind] == 2:
        return True
    if any(all(hand[k] for k in run if k != kind) for run in _RUNS_WITH[kind]):
        return True
    other = (kind + 10) % NUM_KINDS
    return hand[other] >= 2 or (hand[kind] >= 1 and hand[other] >= 1)


_RUNS_WITH = tuple(tuple(run for run in SEQUENCES if k in run) for k in range(NUM_KINDS))
"""Per kind, the sequences (R3) it belongs to."""


def after_action(obs: Observation, action: Action) -> tuple[list[int], list[Group]]:
    """The seat's hand and table once ``action`` is taken (before any discard it obliges)."""
    hand = list(obs.hand)
    table = obs.own_table()
    card = obs.offer
    if action.type is ActionType.DISCARD:
        assert action.card is not None
        hand[action.card] -= 1
    elif action.type is ActionType.PENG:
        assert card is not None
        hand[card] -= 2
        table.append(Group(GroupType.PENG, (card,) * 3))
    elif action.type is ActionType.CHI:
        assert card is not None
        hand[card] += 1
        for cards in action.groups:
            for k in cards:
                hand[k] -= 1
            table.append(Group(GroupType.CHI, cards))
    return hand, table


def _table_huxi(groups: list[Group], obs: Observation) -> int:
    return current_huxi((), groups, obs.rules) if groups else 0


def action_features(obs: Observation, actions: tuple[Action, ...], *, growth: bool = True) -> Array:
    """One row of :data:`FEATURES` per action (none of them 胡), from ``obs`` alone; without
    ``growth`` D185's features (what one more card would do) are left 0, for a network made
    before them that does not read them."""
    assert obs.seat is not None
    unseen = obs.unseen()
    scores = GreedyBot().scores(obs)
    best = max(scores[a] for a in actions)
    huxi_now = prepare_counts(list(obs.hand), obs.own_table(), obs.rules).current_huxi()
    seating = obs.seating
    nxt = seating.next(obs.seat)
    after_next = seating.next(nxt)
    context = np.zeros(NUM_FEATURES, dtype=np.float32)
    for r, seat in enumerate((nxt, after_next)):
        shown = [g for g in obs.tables[seat] if isinstance(g, Group)]
        context[29 + r] = _table_huxi(shown, obs) / 15
        context[31 + r] = obs.hand_sizes[seat] / 21
        context[33 + r] = len(obs.tables[seat]) / 7
    context[26] = obs.offer_source is Source.DRAWN
    context[27] = obs.wall / 19
    context[28] = huxi_now / 15
    context[35] = obs.dealer == obs.seat
    context[36] = obs.offer is not None
    rows = np.tile(context, (len(actions), 1))
    for i, action in enumerate(actions):
        row = rows[i]
        row[_TYPES[action.type]] = 1
        row[4] = max(0, len(action.groups) - 1)
        row[5] = max(-4.0, (scores[action] - best) / 5)
        row[6] = scores[action] / 20
        hand, table = after_action(obs, action)
        _hand_part(row, hand, table, obs, unseen, huxi_now)
        if growth:
            _growth_part(row, hand, table, obs, unseen)
        if action.type is ActionType.DISCARD:
            assert action.card is not None
            row[22] = action.card not in obs.discarded[nxt]
            row[23] = unseen[action.card] / 4
            row[24] = action.card in RED_KINDS
        elif action.type is ActionType.PASS and obs.offer is not None:
            row[25] = obs.hand[obs.offer] == 2
    return rows


def product(a: Array, b: Array) -> Array:
    """``a @ b``, without NumPy's "invalid value encountered in matmul" warning: OpenBLAS's
    kernels sometimes leave the processor's invalid-operation flag set on finite operands
    (numpy/numpy#13173, #24067; seen once in CI on rows of 5 float32 columns, which
    made the suite's warnings-as-errors fail a test). NaN in the operands still comes out as
    NaN, and overflow still warns."""
    with np.errstate(invalid="ignore"):
        return a @ b


class QNet:
    """A multilayer perceptron with ReLU hidden layers and one output: the expected payment
    (divided by :data:`SCALE`) of taking an action, from its feature row."""

    def __init__(self, params: dict[str, Array]) -> None:
        self.params = params
        self.layers = sum(1 for name in params if name.startswith("w"))
        self.inputs = int(params["w0"].shape[0])
        """The features it reads: the first ones of a row (:data:`FIRST_FEATURES` for a
        network made before D185)."""

    @classmethod
    def new(cls, hidden: tuple[int, ...], seed: int) -> QNet:
        """Fresh weights (He initialisation)."""
        rng = np.random.default_rng(seed)
        sizes = (NUM_FEATURES, *hidden, 1)
        params: dict[str, Array] = {}
        for i, (n_in, n_out) in enumerate(pairwise(sizes)):
            params[f"w{i}"] = (rng.standard_normal((n_in, n_out)) * np.sqrt(2 / n_in)).astype(
                np.float32
            )
            params[f"b{i}"] = np.zeros(n_out, dtype=np.float32)
        return cls(params)

    @classmethod
    def load(cls, path: Path | str) -> QNet:
        """The weights of a checkpoint (.npz, no pickled objects)."""
        with np.load(path, allow_pickle=False) as data:
            params = {k: data[k].astype(np.float32) for k in data.files if k[0] in "wb"}
        if params["w0"].shape[0] not in INPUTS:
            raise ValueError(
                f"{path}: the checkpoint does not fit {FIRST_FEATURES} or {NUM_FEATURES} features"
            )
        return cls(params)

    def forward(self, x: Array) -> tuple[Array, list[Array]]:
        """The estimates of a batch of rows, and each layer's input (for backpropagation)."""
        inputs = []
        x = x[:, : self.inputs]
        for i in range(self.layers):
            inputs.append(x)
            x = product(x, self.params[f"w{i}"]) + self.params[f"b{i}"]
            if i < self.layers - 1:
                x = np.maximum(x, 0)
        return x[:, 0], inputs

    def __call__(self, x: Array) -> Array:
        return self.forward(x)[0]


CHECKPOINT = "learned.npz"
"""The shipped weights, next to this module."""


@cache
def shipped() -> QNet:
    """The network the built-in ``learned`` bot plays (loaded once)."""
    with resources.as_file(resources.files("paohuzi.bots") / CHECKPOINT) as path:
        return QNet.load(path)


SEARCH_BUDGET = 0.004
"""Seconds a decision of ``learned`` may take, the network's and the search's (issue 26: 5 ms)."""
SEARCH_CANDIDATES = 4
"""The network's best choices raced at most."""
SEARCH_MARGIN = 3.0
"""Points below the network's favourite within which a choice is raced."""
PRIOR_SAMPLES = 40.0
"""How many samples the network's estimate of a choice counts for beside its rollouts (20 until
the weights of D181, which are worth more)."""
UNBOUNDED = 1_000_000
"""Samples of a search bounded by its time only."""
ROLLOUT_WAITS: Waits = "seat"
"""Who counts their waits in the search's rollouts: the seat deciding, not the others, which
play the cheap rollout policy (twice the samples in the time of every seat counting them,
D158)."""


def settle(rows: list[list[float]], estimates: Sequence[float], prior: float) -> int:
    """The row (candidate) to play after a race (:func:`paohuzi.bots.expert.race`): among
    those still in it at its end, the best mean of its payments and its network
    ``estimates`` (points) counted as ``prior`` samples, the first on a tie. The same samples
    served every candidate still racing, so the deal's luck shifts them alike and the prior
    weighs their differences. A candidate the race dropped is not played, even one dropped
    after its last sample (its row then as long as the others')."""
    done = max(len(r) for r in rows)
    left = [i for i, r in enumerate(rows) if len(r) == done]
    if done >= RACE_FROM:  # the race's last look, after its last sample
        left = survivors(rows, left)
    return max(left, key=lambda i: ((prior * estimates[i] + sum(rows[i])) / (prior + done), -i))


class LearnedBot:
    """Wins when it can; otherwise races the network's best choices for a few milliseconds
    and takes the one whose estimated payment is highest (see the module docstring).
    ``samples``: None searches until ``budget`` seconds have passed since the question,
    N searches N samples, 0 plays the network alone; ``time_limit`` (seconds) bounds any
    search."""

    name = "learned"

    def __init__(
        self,
        seed: int | None = None,
        *,
        net: QNet | None = None,
        samples: int | None = None,
        budget: float = SEARCH_BUDGET,
    ) -> None:
        self.net = net if net is not None else shipped()
        self.samples = samples
        self.budget = budget
        self.time_limit: float | None = None
        """Seconds a search may take whatever ``samples`` says (set by the server)."""
        self._rng = random.Random(seed)

    def act(self, observation: Observation) -> Action:
        started = time.monotonic()
        legal = observation.legal
        if HU in legal:
            return HU
        if len(legal) == 1:
            return legal[0]
        growth = self.net.inputs > FIRST_FEATURES  # an older network reads none of them
        estimates = self.net(action_features(observation, legal, growth=growth))
        order = [int(i) for i in np.argsort(-estimates, kind="stable")]  # ties: F3 order
        values = SCALE * estimates.astype(np.float64)
        top = values[order[0]]
        shortlist = [i for i in order[:SEARCH_CANDIDATES] if values[i] >= top - SEARCH_MARGIN]
        if len(shortlist) == 1 or self.samples == 0 or not serves(observation.rules):
            return legal[order[0]]
        limit = self.budget if self.samples is None else None
        if self.time_limit is not None:
            limit = self.time_limit if limit is None else min(limit, self.time_limit)
        rows = race(
            observation,
            [legal[i] for i in shortlist],
            UNBOUNDED if self.samples is None else self.samples,
            self._rng.randrange(2**32),
            None if limit is None else started + limit,
            Beliefs(observation),
            waits=ROLLOUT_WAITS,
        )
        return legal[shortlist[settle(rows, [float(values[i]) for i in shortlist], PRIOR_SAMPLES)]]
