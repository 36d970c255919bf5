"""Vector environments (issue 23): N hands stepped per call, inside the native core.

``make(num_envs=N)`` gives :class:`VectorEnv`, Gymnasium's ``VectorEnv``: seat ``seat`` of
every hand learns and the other seats are played inside the core, by uniformly random choices
(``opponents="random"``, as :class:`~paohuzi.env.single.SingleSeatEnv`'s default) or by the
greedy bot (``"greedy"``, ``GreedyBot()``). ``make(num_envs=N, self_play=True)`` gives
:class:`SelfPlayVectorEnv`, where every seat is an agent: each call answers, for every hand,
the seat to act (one at a time in Paohuzi, R8), PettingZoo ``ParallelEnv``-style, with every
seat's reward.

The observation is the array of :func:`paohuzi.env.encoding.encode` (the same array the AEC
environment gives for the same position and seat, from what that seat sees only), batched:
shape ``(N, planes, 20)`` float32; the legal-action masks are ``info["action_mask"]``, shape
``(N, NUM_ACTIONS)`` int8 (``paohuzi.engine.action_ids``). The core writes both straight into
preallocated NumPy arrays; with ``copy=False`` ``reset`` and ``step`` return those arrays
themselves, which the next call overwrites.

A finished hand is dealt again (autoreset, decision D95): by default in the same step
(``AutoresetMode.SAME_STEP``: the step that ends a hand returns its reward and
``terminated``, the new hand's observation and mask, and the finished hand's last observation
in ``info["final_obs"]``), so every mask returned has a legal action; or with
``autoreset_mode="next_step"`` Gymnasium's default, where the step after the end deals the new
hand and ignores that hand's action. Hands are dealt in the core from each hand's own seeded
generator (``reset(seed=s)`` seeds hand i with s + i). An illegal action raises
:class:`~paohuzi.engine.game.IllegalAction` and applies nothing.

The hands are played by the native core (``native/src/python/vector.rs``) where it serves the rule
set; ``core="python"`` (or ``"auto"``, the default, where the native core does not serve the
rules or is not built) plays them with the Python engine and encoder behind the same face, the
same arrays, far slower; ``core="native"`` insists, raising :class:`NativeCoreMissing`
(decision D96). ``env.core`` says which plays.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Literal, overload

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector import VectorEnv as GymVectorEnv
from gymnasium.vector.utils import batch_space
from numpy.typing import NDArray

from paohuzi import native
from paohuzi.bots.greedy import GreedyBot
from paohuzi.engine.action_ids import NUM_ACTIONS, id_to_action
from paohuzi.engine.cards import NUM_KINDS, full_deck
from paohuzi.engine.game import Game, IllegalAction
from paohuzi.engine.observation import observe
from paohuzi.engine.rules import HUNAN, RuleSet
from paohuzi.env.encoding import action_mask, encode, planes
from paohuzi.native.core import evaluator_for, kit

__all__ = ["CORES", "OPPONENTS", "NativeCoreMissing", "SelfPlayVectorEnv", "VectorEnv", "make"]

OPPONENTS = ("random", "greedy")
"""Who plays the seats that do not learn in :class:`VectorEnv`."""

_MODES = {"same_step": AutoresetMode.SAME_STEP, "next_step": AutoresetMode.NEXT_STEP}


class NativeCoreMissing(RuntimeError):
    """``core="native"`` was asked for, and the native core does not serve these rules (it is
    not built, ``PAOHUZI_NATIVE=0``, or the rule set is one only Python serves)."""


def _seeds(num_envs: int, seed: int | Sequence[int | None] | None) -> list[int | None]:
    if seed is None:
        entropy = random.SystemRandom()
        return [entropy.getrandbits(64) for _ in range(num_envs)]
    if isinstance(seed, int):
        found: list[int | None] = [seed + i for i in range(num_envs)]
    else:
        found = list(seed)
        if len(found) != num_envs:
            raise ValueError(f"{num_envs} seeds are needed, not {len(found)}")
    for s in found:
        if s is not None and not 0 <= s < 2**64:
            raise ValueError(f"a seed is an integer in 0…2**64 - 1, not {s}")
    return found


def _chosen(num_envs: int, options: dict[str, Any] | None) -> Sequence[int]:
    """The envs a reset deals: all, or those of ``options["reset_mask"]`` (Gymnasium's
    partial reset)."""
    mask = (options or {}).get("reset_mask")
    if mask is None:
        return range(num_envs)
    chosen = np.asarray(mask, dtype=np.bool_)
    if chosen.shape != (num_envs,):
        raise ValueError(f"reset_mask has one bool per env ({num_envs})")
    found: list[int] = np.flatnonzero(chosen).tolist()
    return found


class _Arrays:
    """The arrays a batch writes, and what both batches share."""

    def __init__(
        self,
        num_envs: int,
        rules: RuleSet,
        learner: int | None,
        opponents: str,
        autoreset_mode: str,
    ) -> None:
        if autoreset_mode not in _MODES:
            modes = ", ".join(_MODES)
            raise ValueError(f"autoreset_mode is one of {modes}, not {autoreset_mode!r}")
        if opponents not in OPPONENTS:
            raise ValueError(f"opponents is one of {', '.join(OPPONENTS)}, not {opponents!r}")
        if num_envs < 1:
            raise ValueError("num_envs is at least 1")
        seats = rules.players
        self.num_envs = num_envs
        self.seats = seats
        self.same_step = autoreset_mode == "same_step"
        shape = (num_envs, planes(seats), NUM_KINDS)
        self.obs = np.zeros(shape, dtype=np.float32)
        self.mask = np.zeros((num_envs, NUM_ACTIONS), dtype=np.int8)
        self.reward = np.zeros(num_envs if learner is not None else (num_envs, seats))
        self.done = np.zeros(num_envs, dtype=np.bool_)
        self.seat = np.zeros(num_envs, dtype=np.int64)
        self.final_obs = np.zeros(shape, dtype=np.float32)
        self.actions = np.zeros(num_envs, dtype=np.int64)

    def checked(self, actions: Any) -> NDArray[Any]:
        given = np.asarray(actions)
        if given.shape != (self.num_envs,) or given.dtype.kind not in "iu":
            raise ValueError(
                f"actions: {self.num_envs} integer action ids, not {given.dtype} {given.shape}"
            )
        return given

    def final_info(self) -> dict[str, Any]:
        """Gymnasium's same-step ``final_obs`` of the hands that ended, ``final_info``."""
        ended = self.done.copy()
        final_obs = np.empty(self.num_envs, dtype=object)
        final_info = np.empty(self.num_envs, dtype=object)
        for i in np.flatnonzero(ended):
            final_obs[i] = self.final_obs[i].copy()
            final_info[i] = {}
        return {
            "final_obs": final_obs,
            "_final_obs": ended,
            "final_info": final_info,
            "_final_info": ended.copy(),
        }


class _Batch(_Arrays):
    """The native batch of hands (``native/src/python/vector.rs``), writing into the arrays."""

    core_name = "native"

    def __init__(
        self,
        num_envs: int,
        rules: RuleSet,
        learner: int | None,
        opponents: str,
        autoreset_mode: str,
    ) -> None:
        super().__init__(num_envs, rules, learner, opponents, autoreset_mode)
        ev = evaluator_for(rules)
        if ev is None:
            raise NativeCoreMissing(
                "the native core does not serve these rules "
                f"({native.describe()}): make(core='python') plays them, slowly"
            )
        seats = rules.players
        self.core = native.extension().VecGames(
            ev,
            kit(),
            seats,
            rules.hu_on_discard,
            rules.take_needs_discard,
            rules.break_kan_when_stuck,
            num_envs,
            learner,
            opponents,
            self.same_step,
            self.obs,
            self.mask,
            self.reward,
            self.done.view(np.uint8),
            self.seat,
            self.final_obs,
            self.actions,
        )

    def reset(self, seed: int | Sequence[int | None] | None, indices: Sequence[int]) -> None:
        seeds = _seeds(self.num_envs, seed)
        self.core.reset(list(indices), [seeds[i] for i in indices])

    def step(self, actions: Any) -> None:
        self.actions[:] = self.checked(actions)
        refused = self.core.step()
        if refused is not None:
            env, action = refused
            raise IllegalAction(f"hand {env}: action id {action} is not legal now")

    def decks(self) -> list[tuple[list[int], int]]:
        """Each hand's deck as dealt (80 kinds) and its dealer."""
        found: list[tuple[list[int], int]] = self.core.decks()
        return found

    def observe(self, env: int, seat: int) -> tuple[NDArray[np.float32], NDArray[np.int8]]:
        out = np.zeros(self.obs.shape[1:], dtype=np.float32)
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self.core.observe(env, seat, out, mask)
        return out, mask


class _PythonBatch(_Arrays):
    """The same batch over the Python engine (:class:`~paohuzi.engine.game.Game`, :func:`encode`):
    any rule set, no native core, far slower. Each hand's generator is a ``random.Random``
    (so a seed deals other hands than the native batch's); the greedy opponents are
    ``GreedyBot()``."""

    core_name = "python"

    def __init__(
        self,
        num_envs: int,
        rules: RuleSet,
        learner: int | None,
        opponents: str,
        autoreset_mode: str,
    ) -> None:
        super().__init__(num_envs, rules, learner, opponents, autoreset_mode)
        self.rules = rules
        self.learner = learner
        self.greedy = GreedyBot() if opponents == "greedy" else None
        self.games = [Game(rules, seed=0, core="python") for _ in range(num_envs)]
        self.rngs = [random.Random(i) for i in range(num_envs)]
        self.pending = [False] * num_envs
        self.last_seat = [0] * num_envs
        self.legal: list[frozenset[int]] = [frozenset()] * num_envs

    def _deal(self, i: int) -> None:
        rng = self.rngs[i]
        while True:
            dealer = rng.randrange(self.rules.players)
            deck = full_deck()
            rng.shuffle(deck)
            game = self.games[i] = Game(self.rules, dealer=dealer, deck=deck, core="python")
            if self.learner is None:
                if not game.is_over:
                    return
            elif self.learner in game.seating.playing:
                self._play_others(i)
                if not game.is_over:
                    return

    def _play_others(self, i: int) -> None:
        if self.learner is None:  # self-play: every seat is an agent
            return
        game = self.games[i]
        while (seat := game.to_act) is not None and seat != self.learner:
            if self.greedy is None:
                game.apply(self.rngs[i].choice(game.legal_actions()))
            else:
                game.apply(self.greedy.act(observe(game, seat, events=False)))
            self.last_seat[i] = seat

    def _observer(self, i: int) -> int:
        if self.learner is not None:
            return self.learner
        to_act = self.games[i].to_act
        return self.last_seat[i] if to_act is None else to_act

    def _write(self, i: int) -> None:
        seat = self._observer(i)
        self.obs[i], self.mask[i] = self.observe(i, seat)
        self.legal[i] = frozenset(np.flatnonzero(self.mask[i]).tolist())
        self.seat[i] = seat

    def reset(self, seed: int | Sequence[int | None] | None, indices: Sequence[int]) -> None:
        seeds = _seeds(self.num_envs, seed)
        for i in indices:
            if seeds[i] is not None:
                self.rngs[i] = random.Random(seeds[i])
            self._deal(i)
            self.pending[i] = False
            self.reward[i] = 0
            self.done[i] = False
            self._write(i)

    def step(self, actions: Any) -> None:
        given = self.checked(actions)
        for i in range(self.num_envs):
            if not self.pending[i] and int(given[i]) not in self.legal[i]:
                raise IllegalAction(f"hand {i}: action id {given[i]} is not legal now")
        for i in range(self.num_envs):
            self.reward[i] = 0
            self.done[i] = False
            if self.pending[i]:
                self.pending[i] = False
                self._deal(i)
                self._write(i)
                continue
            game = self.games[i]
            acting = game.to_act
            assert acting is not None
            game.apply(id_to_action(int(given[i])))
            self.last_seat[i] = acting
            self._play_others(i)
            result = game.result
            if result is not None:
                if self.learner is None:
                    self.reward[i] = result.payments
                else:
                    self.reward[i] = result.payments[self.learner]
                self.done[i] = True
                if self.same_step:
                    self.final_obs[i] = self.observe(i, self._observer(i))[0]
                    self._deal(i)
                else:
                    self.pending[i] = True
            self._write(i)

    def decks(self) -> list[tuple[list[int], int]]:
        return [(list(game.deck), game.dealer) for game in self.games]

    def observe(self, env: int, seat: int) -> tuple[NDArray[np.float32], NDArray[np.int8]]:
        if seat not in self.games[env].seating.playing:
            raise ValueError("a game and a seat that plays its hand")
        obs = observe(self.games[env], seat, events=False)
        return encode(obs), action_mask(obs)


CORES = ("auto", "native", "python")
"""Which batch plays the hands: ``native`` (the native core, or :class:`NativeCoreMissing`),
``python`` (the Python engine, slowly), ``auto`` the native core where it serves the rules."""


def _batch(
    core: str,
    num_envs: int,
    rules: RuleSet,
    learner: int | None,
    opponents: str,
    autoreset_mode: str,
) -> _Batch | _PythonBatch:
    if core not in CORES:
        raise ValueError(f"core is one of {', '.join(CORES)}, not {core!r}")
    if core == "python" or (core == "auto" and evaluator_for(rules) is None):
        return _PythonBatch(num_envs, rules, learner, opponents, autoreset_mode)
    return _Batch(num_envs, rules, learner, opponents, autoreset_mode)


class _Stepped:
    """What both forms share: the batch, its spaces, reset and step (autoreset as the batch
    does it), copies or the buffers themselves, and a look at the deck or any seat."""

    _batch: _Batch | _PythonBatch
    num_envs: int
    copy: bool
    # Gymnasium's VectorEnv declares these with its own types; the other form has none.
    single_observation_space: Any
    single_action_space: Any
    observation_space: Any
    action_space: Any
    metadata: Any

    def _spaces(self, rules: RuleSet, num_envs: int, autoreset_mode: str) -> None:
        self.core = self._batch.core_name
        self.num_envs = num_envs
        self.rules = rules
        self.metadata = {"autoreset_mode": _MODES[autoreset_mode]}
        self.single_observation_space = spaces.Box(
            0.0, 4.0, (planes(rules.players), NUM_KINDS), dtype=np.float32
        )
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._started = False

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[NDArray[np.float32], dict[str, Any]]:
        """New hands for every env, or those of ``options["reset_mask"]`` (Gymnasium's
        partial reset); ``seed``: an int (hand i gets seed + i) or one seed per env."""
        self._batch.reset(seed, _chosen(self.num_envs, options))
        self._started = True
        return self._out(self._batch.obs), self._info()

    def step(
        self, actions: NDArray[np.int64] | Sequence[int]
    ) -> tuple[NDArray[np.float32], NDArray[Any], NDArray[Any], NDArray[Any], dict[str, Any]]:
        if not self._started:
            raise RuntimeError("reset the environment before stepping it")
        batch = self._batch
        batch.step(actions)
        info = self._info()
        if batch.same_step and batch.done.any():
            info.update(batch.final_info())
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        return (
            self._out(batch.obs),
            self._out(batch.reward),
            self._out(batch.done),
            truncated,
            info,
        )

    def _out(self, array: NDArray[Any]) -> NDArray[Any]:
        return array.copy() if self.copy else array

    def _info(self) -> dict[str, Any]:
        raise NotImplementedError

    def decks(self) -> list[tuple[list[int], int]]:
        """Privileged (the whole deck): each env's hand as dealt, its deck (80 kinds) and
        dealer, to replay it elsewhere (the AEC environment's ``reset(options={"deck",
        "dealer"})``), never for a policy."""
        return self._batch.decks()

    def observe(self, env: int, seat: int) -> tuple[NDArray[np.float32], NDArray[np.int8]]:
        """Any playing seat's observation and mask of hand ``env`` now (the AEC
        environment's ``observe``)."""
        return self._batch.observe(env, seat)


class VectorEnv(_Stepped, GymVectorEnv[NDArray[np.float32], NDArray[np.int64], NDArray[Any]]):
    """N hands; seat ``seat`` of each learns, ``opponents`` play the others inside the core.
    See the module docstring. An episode is one hand the learner plays in (a deal that sits it
    out or ends before its first decision is dealt again, as in ``SingleSeatEnv``); the reward
    is its R10 payment when the hand ends, 0 before."""

    def __init__(
        self,
        num_envs: int = 256,
        *,
        rules: RuleSet = HUNAN,
        seat: int = 0,
        opponents: str = "random",
        autoreset_mode: str = "same_step",
        copy: bool = True,
        core: str = "auto",
    ) -> None:
        if not 0 <= seat < rules.players:
            raise ValueError(f"seat is one of 0…{rules.players - 1}, not {seat!r}")
        self._batch = _batch(core, num_envs, rules, seat, opponents, autoreset_mode)
        self.seat = seat
        self.copy = copy
        self._spaces(rules, num_envs, autoreset_mode)
        self._all = np.ones(num_envs, dtype=np.bool_)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._out(self._batch.mask), "_action_mask": self._all}

    def action_masks(self) -> NDArray[np.bool_]:
        """The legal actions now, one row per env (as sb3-contrib's ``MaskablePPO`` asks)."""
        return self._batch.mask.astype(np.bool_)


class SelfPlayVectorEnv(_Stepped):
    """N hands, every seat an agent (PettingZoo ``ParallelEnv``-style over N hands at once).

    ``reset`` and ``step`` return, for each hand, the observation of the seat to act and its
    mask (``info["action_mask"]``), that seat in ``info["seat"]``; ``step(actions)`` takes
    one action id per hand, for its seat to act. Rewards are every seat's R10 payment (shape
    ``(N, seats)``; at four seats the seat sitting the hand out gets 0), given when the hand
    ends; ``terminations`` one per hand. Autoreset as :class:`VectorEnv` (default same step;
    the final observation is that of the seat that made the last decision)."""

    def __init__(
        self,
        num_envs: int = 256,
        *,
        rules: RuleSet = HUNAN,
        autoreset_mode: str = "same_step",
        copy: bool = True,
        core: str = "auto",
    ) -> None:
        self._batch = _batch(core, num_envs, rules, None, "random", autoreset_mode)
        self.copy = copy
        self._spaces(rules, num_envs, autoreset_mode)
        self.possible_agents = [f"player_{s}" for s in range(rules.players)]

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._out(self._batch.mask), "seat": self._out(self._batch.seat)}

    def close(self) -> None:
        pass


@overload
def make(
    num_envs: int = ...,
    *,
    self_play: Literal[False] = ...,
    rules: RuleSet = ...,
    seat: int = ...,
    opponents: str = ...,
    autoreset_mode: str = ...,
    copy: bool = ...,
    core: str = ...,
) -> VectorEnv: ...


@overload
def make(
    num_envs: int = ...,
    *,
    self_play: Literal[True],
    rules: RuleSet = ...,
    seat: int = ...,
    opponents: str = ...,
    autoreset_mode: str = ...,
    copy: bool = ...,
    core: str = ...,
) -> SelfPlayVectorEnv: ...


@overload
def make(
    num_envs: int = ...,
    *,
    self_play: bool,
    rules: RuleSet = ...,
    seat: int = ...,
    opponents: str = ...,
    autoreset_mode: str = ...,
    copy: bool = ...,
    core: str = ...,
) -> VectorEnv | SelfPlayVectorEnv: ...


def make(
    num_envs: int = 256,
    *,
    self_play: bool = False,
    rules: RuleSet = HUNAN,
    seat: int = 0,
    opponents: str = "random",
    autoreset_mode: str = "same_step",
    copy: bool = True,
    core: str = "auto",
) -> VectorEnv | SelfPlayVectorEnv:
    """A vector environment of ``num_envs`` hands: :class:`VectorEnv` (``seat`` learns,
    ``opponents`` play the rest) or, with ``self_play``, :class:`SelfPlayVectorEnv`; ``core``
    one of :data:`CORES`."""
    if self_play:
        return SelfPlayVectorEnv(
            num_envs, rules=rules, autoreset_mode=autoreset_mode, copy=copy, core=core
        )
    return VectorEnv(
        num_envs,
        rules=rules,
        seat=seat,
        opponents=opponents,
        autoreset_mode=autoreset_mode,
        copy=copy,
        core=core,
    )
