"""Issue 7: action ids, observation encoding, the PettingZoo AEC env, the Gymnasium wrapper,
the Ray backend."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from gymnasium.error import Error as GymnasiumError
from gymnasium.error import ResetNeeded
from pettingzoo.test import api_test

from paohuzi.engine.action_ids import ACTIONS, NUM_ACTIONS, action_to_id, id_to_action
from paohuzi.engine.actions import HU, PASS, PENG, discard
from paohuzi.engine.game import Game
from paohuzi.engine.observation import observe
from paohuzi.engine.record import Record, record_of, replay
from paohuzi.engine.rules import HUNAN
from paohuzi.env import SelfPlayEnv, SingleSeatEnv, encode, env, raw_env
from paohuzi.env.encoding import PLANES, action_mask
from tests.scenario import random_decisions
from tests.test_game_invariants import hidden_reshuffle


def test_action_ids_are_stable_and_round_trip() -> None:
    assert [id_to_action(i) for i in range(20)] == [discard(k) for k in range(20)]
    assert (id_to_action(20), id_to_action(21), id_to_action(22)) == (PENG, HU, PASS)
    chis = [str(a) for a in ACTIONS[23:]]
    assert chis == sorted(chis) and len(set(chis)) == len(chis) == NUM_ACTIONS - 23
    for i, action in enumerate(ACTIONS):
        assert action_to_id(action) == i
    with pytest.raises(IndexError):
        id_to_action(NUM_ACTIONS)


def test_every_legal_action_of_real_games_has_an_id() -> None:
    seen = 0
    for seed in range(300):
        game = Game(seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            for action in game.legal_actions():
                assert id_to_action(action_to_id(action)) == action
                seen += 1
            game.apply(rng.choice(game.legal_actions()))
    assert seen > 10000


def test_encoding_shape_mask_and_hidden_information() -> None:
    rng = random.Random(2)
    for game, seat, _ in random_decisions(range(40)):
        obs = observe(game, seat)
        planes = encode(obs)
        assert planes.shape == (PLANES, 20) and planes.dtype == np.float32
        assert planes.min() >= 0 and planes.max() <= 4
        mask = action_mask(obs)
        assert {id_to_action(int(i)) for i in np.flatnonzero(mask)} == set(game.legal_actions())
        for other in range(3):
            hidden = hidden_reshuffle(game, other, rng)
            assert np.array_equal(encode(observe(hidden, other)), encode(observe(game, other)))


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_pettingzoo_api_test_passes() -> None:
    api_test(env(), num_cycles=300, verbose_progress=False)


def play_env(seed: int) -> tuple[Game, dict[str, float]]:
    aec = raw_env()
    aec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rewards = {a: 0.0 for a in aec.possible_agents}
    for agent in aec.agent_iter():
        observation, reward, termination, truncation, _ = aec.last()
        rewards[agent] += reward
        if termination or truncation:
            aec.step(None)
        else:
            aec.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return aec.game, rewards


def test_a_seeded_rollout_through_the_env_reproduces_the_engine_record() -> None:
    for seed in range(10):
        game, rewards = play_env(seed)
        again, _ = play_env(seed)
        record = record_of(game)
        assert record.to_json() == record_of(again).to_json()
        replayed = replay(Record.from_json(record.to_json()))
        assert replayed.error is None and replayed.game.result == game.result
        assert game.result is not None
        assert [rewards[f"player_{s}"] for s in range(3)] == list(game.result.payments)


def test_an_illegal_action_ends_the_hand_with_a_penalty_if_asked() -> None:
    wrapped = env(illegal="penalty")
    wrapped.reset(seed=1)
    agent = wrapped.agent_selection
    observation, *_ = wrapped.last()
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    wrapped.step(illegal)
    assert all(wrapped.terminations.values())
    assert wrapped.rewards[agent] < -48  # issue 15: more than any payment (tests/test_research.py)


def test_single_seat_gymnasium_env_with_a_masked_policy() -> None:
    single = SingleSeatEnv(seat=0, opponents=("greedy", "random"))
    rng = np.random.default_rng(0)
    total = 0.0
    for episode in range(10):
        observation, _ = single.reset(seed=episode)
        assert single.observation_space.contains(observation)
        done = False
        while not done:
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            observation, reward, done, truncated, info = single.step(action)
            assert not truncated and "illegal" not in info
            total += reward
        assert single.game.is_over
    single = SingleSeatEnv(seat=0, opponents=("greedy", "random"), illegal="penalty")
    observation, _ = single.reset(seed=99)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    _, reward, done, _, info = single.step(illegal)
    assert done and reward < -48 and "illegal" in info


def test_ray_backend_matches_the_local_backend_bit_for_bit() -> None:
    import ray

    from paohuzi.tools.distributed import AHEAD
    from paohuzi.tools.simulation import simulate
    from paohuzi.tools.tournament import run_deals

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        local = list(simulate(60, 5, batch=20))
        remote = list(simulate(60, 5, batch=20, backend="ray"))
        assert len(local) == 60 and local == remote  # every hand came back, the same
        names = ["greedy", "random", "random"]
        deals = list(run_deals(names, 8, 3, batch=3))
        assert len(deals) == 8 and deals == list(run_deals(names, 8, 3, batch=3, backend="ray"))
        # Told to stop once 3 deals came back, Ray's tasks handed out by then (two a CPU, one
        # of them the 3rd) are finished and no other is begun.
        seen: list[object] = []
        for deal in run_deals(names, 30, 3, backend="ray", stop=lambda: len(seen) >= 3):
            seen.append(deal)
        assert seen == list(run_deals(names, 3 + 2 * AHEAD - 1, 3))
    finally:
        ray.shutdown()


# ---------------------------------------------------------------- refused arguments and misuse


@pytest.mark.parametrize("seat", [3, 7, -1])
def test_a_seat_outside_the_table_is_refused_by_name(seat: int) -> None:
    with pytest.raises(ValueError, match=f"seat .*not {seat}$"):
        SingleSeatEnv(seat=seat)
    with pytest.raises(ValueError, match=f"not {seat}$"):
        SelfPlayEnv(seat=seat)
    assert SingleSeatEnv(seat=3, rules=replace(HUNAN, players=4)).seat == 3


def test_an_action_is_what_the_action_space_holds_never_a_truncated_float() -> None:
    single = SingleSeatEnv(illegal="penalty")
    aec = raw_env(illegal="penalty")
    space = single.action_space
    refused: tuple[Any, ...] = (1.5, np.float32(2.0), "pass", None, np.array([22]), np.bool_(1))
    for bad in refused:
        assert not space.contains(bad)
        single.reset(seed=1)
        with pytest.raises(TypeError, match="an action is an integer id"):
            single.step(bad)
        aec.reset(seed=1)
        with pytest.raises(TypeError, match="an action is an integer id"):
            aec.step(bad)
        assert aec.terminations[aec.agent_selection] is False  # refused, not penalised
    # What the space holds is taken: Python and NumPy integers, a 0-d integer array (and a
    # bool, an int to Python and to the space).
    taken: tuple[Any, ...] = (22, np.int64(22), np.uint8(22), np.array(22), True)
    for good in taken:
        assert space.contains(good)
        single.reset(seed=1)
        single.step(good)


@pytest.mark.parametrize("penalty", [float("inf"), float("-inf"), float("nan")])
def test_a_penalty_that_is_not_a_finite_number_is_refused(penalty: float) -> None:
    with pytest.raises(ValueError, match=f"finite.*not {penalty}$"):
        SingleSeatEnv(illegal="penalty", illegal_penalty=penalty)
    with pytest.raises(ValueError, match=f"finite.*not {penalty}$"):
        raw_env(illegal="penalty", illegal_penalty=penalty)


def test_a_negative_history_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"history .*not -1$"):
        SingleSeatEnv(history=-1)
    with pytest.raises(ValueError, match=r"history .*not -1$"):
        raw_env(history=-1)


def test_stepping_before_reset_needs_a_reset() -> None:
    single = SingleSeatEnv()
    with pytest.raises(ResetNeeded, match=r"reset\(\)"):
        single.step(22)
    assert not single.action_masks().any()  # no hand dealt, no legal action
    observation, _ = single.reset(seed=0)
    assert (single.action_masks() == observation["action_mask"].astype(bool)).all()


def test_the_aec_env_refuses_a_negative_seed_as_the_gymnasium_env_does() -> None:
    with pytest.raises(GymnasiumError, match="greater or equal to zero") as single:
        SingleSeatEnv().reset(seed=-1)
    for aec in (raw_env(), env()):
        with pytest.raises(GymnasiumError) as refused:
            aec.reset(seed=-1)
        assert str(refused.value) == str(single.value)
    aec = raw_env()
    aec.reset(seed=2**70)  # as large as the Gymnasium env takes
    assert aec.agents


def test_an_illegal_action_with_the_penalty_ends_the_episode() -> None:
    single = SingleSeatEnv(illegal="penalty")
    observation, _ = single.reset(seed=5)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    legal = int(np.flatnonzero(observation["action_mask"])[0])
    observation, _, terminated, truncated, _ = single.step(illegal)
    assert terminated and not truncated
    assert not observation["action_mask"].any() and not single.action_masks().any()
    for action in (legal, illegal):  # neither plays on nor penalises again
        with pytest.raises(ResetNeeded, match=r"reset\(\)"):
            single.step(action)
    observation, _ = single.reset(seed=5)
    assert observation["action_mask"].any()


def test_a_step_after_the_hand_ended_needs_a_reset_in_either_mode() -> None:
    for illegal in ("raise", "penalty"):
        single = SingleSeatEnv(illegal=illegal)
        observation, _ = single.reset(seed=3)
        done = False
        while not done:
            action = int(np.flatnonzero(observation["action_mask"])[0])
            observation, _, done, _, _ = single.step(action)
        with pytest.raises(ResetNeeded, match=r"reset\(\)"):
            single.step(22)  # not a second penalty on a finished hand


def test_a_given_dealer_that_sits_the_agent_out_is_refused_not_dealt_for_ever(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from paohuzi.env.hand import deal

    deals = 0

    def counted(*args: Any, **kwargs: Any) -> Game:
        nonlocal deals
        deals += 1
        assert deals < 50, "the same dealer dealt again and again"
        return deal(*args, **kwargs)

    monkeypatch.setattr("paohuzi.env.single.deal", counted)  # the name single.py deals with
    four = replace(HUNAN, players=4)
    agent = SingleSeatEnv(seat=2, rules=four)
    with pytest.raises(ValueError, match="with dealer 0 seat 2 sits the hand out"):
        agent.reset(seed=0, options={"dealer": 0})  # dealer 0: seat 2 sits out (R12)
    observation, _ = agent.reset(seed=0, options={"dealer": 1})  # seat 3 sits out
    assert agent.game.dealer == 1 and observation["action_mask"].any()


def test_a_preset_name_in_reset_is_taken_at_the_tables_seat_count() -> None:
    aec = raw_env(rules=replace(HUNAN, players=4))
    aec.reset(seed=1, options={"rules": "hunan"})
    assert aec.game.rules == replace(HUNAN, players=4)
    with pytest.raises(ValueError, match="this environment has 4 seats; the rules have 3"):
        aec.reset(seed=1, options={"rules": HUNAN})  # a RuleSet is taken as it is
