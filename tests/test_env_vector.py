"""Issue 23.5: the vector environments (``paohuzi.env.vector``) against Gymnasium's vector API
and, position by position, against the AEC environment and the Python engine's encoder."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers.vector import RecordEpisodeStatistics
from numpy.typing import NDArray

from paohuzi import native
from paohuzi.bots.greedy import GreedyBot
from paohuzi.engine.action_ids import NUM_ACTIONS, action_to_id, id_to_action
from paohuzi.engine.game import Game, IllegalAction
from paohuzi.engine.observation import observe
from paohuzi.engine.rules import HUNAN, RuleSet
from paohuzi.env import raw_env
from paohuzi.env import vector as vector_module
from paohuzi.env.encoding import action_mask, encode, planes
from paohuzi.env.vector import (
    NativeCoreMissing,
    SelfPlayVectorEnv,
    VectorEnv,
    _PythonBatch,
    make,
)

FOUR = replace(HUNAN, players=4)

needs_native = pytest.mark.skipif(
    native.evaluators is None, reason="the native core is not built (or PAOHUZI_NATIVE=0)"
)


def random_legal(rng: np.random.Generator, masks: NDArray[np.int8]) -> NDArray[np.int64]:
    """A uniformly random legal action id per row."""
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks], dtype=np.int64)


CORES = [pytest.param("native", marks=needs_native), "python"]


def test_without_the_native_core_auto_plays_in_python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vector_module, "evaluator_for", lambda rules: None)
    with pytest.raises(NativeCoreMissing, match="native core"):
        make(num_envs=2, core="native")
    assert make(num_envs=2).core == "python"
    with pytest.raises(ValueError, match="core is one of"):
        make(num_envs=2, core="rust")


@needs_native
def test_auto_is_the_native_core_where_it_serves() -> None:
    assert make(num_envs=2).core == "native"
    assert make(num_envs=2, self_play=True, rules=FOUR).core == "native"


@pytest.mark.parametrize("core", CORES)
def test_spaces_shapes_and_dtypes(core: str) -> None:
    env = make(num_envs=8, core=core)
    assert isinstance(env, VectorEnv) and env.core == core
    assert env.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert env.observation_space.shape == (8, planes(3), 20)
    assert env.single_action_space.n == NUM_ACTIONS
    assert env.action_space.shape == (8,)
    obs, info = env.reset(seed=3)
    assert obs.shape == (8, planes(3), 20) and obs.dtype == np.float32
    assert obs in env.observation_space
    mask = info["action_mask"]
    assert mask.shape == (8, NUM_ACTIONS) and mask.dtype == np.int8
    assert info["_action_mask"].all()
    rng = np.random.default_rng(0)
    obs, reward, terminated, truncated, info = env.step(random_legal(rng, mask))
    assert obs.shape == (8, planes(3), 20) and obs in env.observation_space
    assert reward.shape == (8,) and reward.dtype == np.float64
    assert terminated.shape == truncated.shape == (8,)
    assert terminated.dtype == truncated.dtype == np.bool_
    assert not truncated.any()
    four = make(num_envs=3, rules=FOUR, self_play=True, core=core)
    assert four.core == core
    obs, info = four.reset(seed=1)
    assert obs.shape == (3, planes(4), 20)
    assert info["seat"].shape == (3,)


@pytest.mark.parametrize("core", CORES)
def test_copy_false_hands_out_the_arrays_the_core_writes(core: str) -> None:
    env = make(num_envs=4, copy=False, core=core)
    obs, info = env.reset(seed=5)
    rng = np.random.default_rng(5)
    obs2, _, _, _, info2 = env.step(random_legal(rng, info["action_mask"]))
    assert obs2 is obs and info2["action_mask"] is info["action_mask"]
    copied = make(num_envs=4, core=core)
    obs, info = copied.reset(seed=5)
    obs2, _, _, _, _ = copied.step(random_legal(rng, info["action_mask"]))
    assert not np.shares_memory(obs, obs2)


@pytest.mark.parametrize("core", CORES)
def test_every_mask_is_legal_and_an_illegal_action_applies_nothing(core: str) -> None:
    env = make(num_envs=16, opponents="random", core=core)
    obs, info = env.reset(seed=11)
    rng = np.random.default_rng(11)
    ended = 0
    for _ in range(400):
        mask = info["action_mask"]
        assert (mask.sum(axis=1) >= 1).all()  # same-step autoreset: always a decision
        assert set(np.unique(mask)) <= {0, 1}
        actions = random_legal(rng, mask)
        # An action off the mask in one hand: an error, and no hand moves.
        bad = actions.copy()
        bad[3] = int(np.flatnonzero(mask[3] == 0)[0])
        with pytest.raises(IllegalAction, match="hand 3"):
            env.step(bad)
        again, still = env.observe(0, 0)
        assert np.array_equal(again, obs[0]) and np.array_equal(still, mask[0])
        obs, _, terminated, _, info = env.step(actions)
        ended += int(terminated.sum())
    assert ended > 50
    with pytest.raises(IllegalAction):
        env.step(np.full(16, NUM_ACTIONS))
    with pytest.raises(ValueError, match="16 integer action ids"):
        env.step(np.int64(0))  # type: ignore[arg-type]  # one id, broadcast to every hand
    with pytest.raises(ValueError, match="16 integer action ids"):
        env.step(np.zeros(16) + 0.5)  # type: ignore[arg-type]


@pytest.mark.parametrize("core", CORES)
def test_gymnasiums_episode_statistics_wrapper_counts_every_hand(core: str) -> None:
    env = RecordEpisodeStatistics(make(num_envs=8, core=core))
    _, info = env.reset(seed=6)
    rng = np.random.default_rng(6)
    ended = recorded = 0
    for _ in range(200):
        _, reward, terminated, _, info = env.step(random_legal(rng, info["action_mask"]))
        ended += int(terminated.sum())
        if "episode" in info:
            recorded += int(info["_episode"].sum())
            assert np.array_equal(info["episode"]["r"][terminated], reward[terminated])
    assert recorded == ended > 20


@pytest.mark.parametrize("core", CORES)
def test_same_step_autoreset_gives_the_final_observation_and_a_new_hand(core: str) -> None:
    env = make(num_envs=8, core=core)
    obs, info = env.reset(seed=2)
    rng = np.random.default_rng(2)
    decks = env.decks()
    checked = 0
    while checked < 20:
        obs, reward, terminated, _, info = env.step(random_legal(rng, info["action_mask"]))
        now = env.decks()
        for i in range(8):
            if terminated[i]:
                assert info["_final_obs"][i] and info["final_obs"][i].shape == obs[i].shape
                assert now[i] != decks[i]  # a new hand was dealt
                assert info["action_mask"][i].any()
                checked += 1
            else:
                assert reward[i] == 0 and now[i] == decks[i]
                if "_final_obs" in info:
                    assert not info["_final_obs"][i] and info["final_obs"][i] is None
        decks = now


@pytest.mark.parametrize("core", CORES)
def test_next_step_autoreset_ignores_the_action_after_the_end(core: str) -> None:
    env = make(num_envs=8, autoreset_mode="next_step", core=core)
    assert env.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    _, info = env.reset(seed=4)
    rng = np.random.default_rng(4)
    resets = 0
    ended = np.zeros(8, dtype=np.bool_)
    while resets < 10:
        mask = info["action_mask"]
        actions = np.zeros(8, dtype=np.int64)
        actions[~ended] = random_legal(rng, mask[~ended])
        actions[ended] = -1  # ignored: the hand is dealt again instead
        decks = env.decks()
        _, reward, terminated, _, info = env.step(actions)
        for i in np.flatnonzero(ended):
            assert not terminated[i] and reward[i] == 0
            assert env.decks()[i] != decks[i] and info["action_mask"][i].any()
            resets += 1
        for i in np.flatnonzero(terminated):
            assert not info["action_mask"][i].any()  # the final position: nothing to decide
            assert "final_obs" not in info
        ended = terminated.copy()


@pytest.mark.parametrize("core", CORES)
def test_seeds_reproduce_and_reset_mask_resets_only_those(core: str) -> None:
    def run(seed: int) -> list[NDArray[np.float32]]:
        env = make(num_envs=4, core=core)
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(0)
        seen = [obs]
        for _ in range(30):
            obs, _, _, _, info = env.step(random_legal(rng, info["action_mask"]))
            seen.append(obs)
        return seen

    first, second, other = run(9), run(9), run(10)
    assert all(np.array_equal(a, b) for a, b in zip(first, second, strict=True))
    assert not np.array_equal(first[0], other[0])
    env = make(num_envs=4, core=core)
    obs, _ = env.reset(seed=1)
    decks = env.decks()
    obs2, _ = env.reset(seed=50, options={"reset_mask": np.array([False, True, False, False])})
    now = env.decks()
    assert now[0] == decks[0] and now[2] == decks[2] and now[3] == decks[3]
    assert now[1] != decks[1]
    assert np.array_equal(obs[0], obs2[0]) and not np.array_equal(obs[1], obs2[1])


def _aec_at(rules: RuleSet, deck: list[int], dealer: int) -> Any:
    aec = raw_env(rules=rules)
    aec.reset(options={"deck": deck, "dealer": dealer})
    return aec


@pytest.mark.parametrize("core", CORES)
@pytest.mark.parametrize("rules", [HUNAN, FOUR], ids=["hunan", "four-seats"])
def test_self_play_matches_the_aec_env_and_the_python_encoder(rules: RuleSet, core: str) -> None:
    n = 6
    env = make(num_envs=n, rules=rules, self_play=True, core=core)
    assert isinstance(env, SelfPlayVectorEnv) and env.core == core
    obs, info = env.reset(seed=21)
    decks = env.decks()
    aecs = [_aec_at(rules, *decks[i]) for i in range(n)]
    pythons = [Game(rules, dealer=decks[i][1], deck=decks[i][0]) for i in range(n)]
    rng = np.random.default_rng(21)
    steps = ended = 0
    while steps < 1200:
        for i in range(n):
            aec, game = aecs[i], pythons[i]
            seat = int(info["seat"][i])
            assert aec.agent_selection == f"player_{seat}" and game.to_act == seat
            seen = aec.observe(aec.agent_selection)
            assert np.array_equal(obs[i], seen["observation"])
            assert np.array_equal(info["action_mask"][i], seen["action_mask"])
            reference = observe(game, seat, events=False)
            assert np.array_equal(obs[i], encode(reference))
            assert np.array_equal(info["action_mask"][i], action_mask(reference))
            for other in game.seating.playing:  # every seat sees its own view only
                view, mask = env.observe(i, other)
                assert np.array_equal(view, aec.observe(f"player_{other}")["observation"])
                assert np.array_equal(mask, aec.observe(f"player_{other}")["action_mask"])
        actions = random_legal(rng, info["action_mask"])
        last = info["seat"].copy()
        obs, reward, terminated, _, info = env.step(actions)
        steps += n
        now = env.decks()
        for i in range(n):
            aecs[i].step(int(actions[i]))
            pythons[i].apply(id_to_action(int(actions[i])))
            if terminated[i]:
                ended += 1
                aec = aecs[i]
                assert all(aec.terminations.values())
                for s in range(rules.players):
                    expected = aec.rewards.get(f"player_{s}", 0.0)
                    assert reward[i, s] == expected
                final = aec.observe(f"player_{int(last[i])}")["observation"]
                assert np.array_equal(info["final_obs"][i], final)
                aecs[i] = _aec_at(rules, *now[i])
                pythons[i] = Game(rules, dealer=now[i][1], deck=now[i][0])
            else:
                assert not any(aecs[i].terminations.values()) and not reward[i].any()
    assert ended >= 10


@pytest.mark.parametrize("core", CORES)
@pytest.mark.parametrize("rules", [HUNAN, FOUR], ids=["hunan", "four-seats"])
def test_single_seat_with_greedy_opponents_matches_the_aec_env(rules: RuleSet, core: str) -> None:
    n, learner = 4, 1
    env = make(num_envs=n, rules=rules, seat=learner, opponents="greedy", core=core)
    assert env.core == core
    obs, info = env.reset(seed=8)
    bot = GreedyBot()

    def start(deck: list[int], dealer: int) -> Any:
        aec = _aec_at(rules, deck, dealer)
        assert learner in aec.game.seating.playing  # a deal that sits it out is dealt again
        play_greedy(aec)
        return aec

    def play_greedy(aec: Any) -> None:
        game = aec.game
        while not game.is_over and game.to_act != learner:
            aec.step(action_to_id(bot.act(observe(game, game.to_act))))

    aecs = [start(*deck) for deck in env.decks()]
    rng = np.random.default_rng(8)
    steps = ended = 0
    while steps < 600:
        for i in range(n):
            assert aecs[i].agent_selection == f"player_{learner}"
            seen = aecs[i].observe(f"player_{learner}")
            assert np.array_equal(obs[i], seen["observation"])
            assert np.array_equal(info["action_mask"][i], seen["action_mask"])
        actions = random_legal(rng, info["action_mask"])
        obs, reward, terminated, _, info = env.step(actions)
        steps += n
        for i in range(n):
            aecs[i].step(int(actions[i]))
            play_greedy(aecs[i])
            if terminated[i]:
                ended += 1
                assert aecs[i].game.is_over
                assert reward[i] == aecs[i].rewards[f"player_{learner}"]
                aecs[i] = start(*env.decks()[i])
            else:
                assert not aecs[i].game.is_over and reward[i] == 0
    assert ended >= 10


@pytest.mark.parametrize("seat", [3, -1])
def test_a_learning_seat_outside_the_table_is_refused_by_name(seat: int) -> None:
    with pytest.raises(ValueError, match=f"seat is one of 0…2, not {seat}$"):
        VectorEnv(2, seat=seat, core="python")


@pytest.mark.parametrize("self_play", [False, True])
def test_core_python_plays_on_the_python_engine_even_where_the_native_core_serves(
    self_play: bool,
) -> None:
    env = make(num_envs=2, core="python", self_play=self_play)
    env.reset(seed=0)
    assert env.core == "python"
    batch = env._batch
    assert isinstance(batch, _PythonBatch)
    assert {game.core for game in batch.games} == {"python"}
