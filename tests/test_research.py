"""Issue 15: illegal actions, policies as bots, training ergonomics, the ladder."""

from __future__ import annotations

import json
import random
import sys
from dataclasses import replace
from pathlib import Path

import gymnasium
import numpy as np
import pytest

from paohuzi import native
from paohuzi.bots import GreedyBot, RandomBot, play_hand
from paohuzi.bots.loader import check_spec, load_bot
from paohuzi.bots.protocol import observation_from_json, observation_json
from paohuzi.cli import main
from paohuzi.engine.action_ids import id_to_action
from paohuzi.engine.cards import full_deck
from paohuzi.engine.game import Game, IllegalAction
from paohuzi.engine.observation import observe
from paohuzi.engine.rules import HUNAN, PRESETS
from paohuzi.engine.scoring import largest_payment
from paohuzi.env import ENV_IDS, PolicyBot, SelfPlayEnv, SingleSeatEnv, env, raw_env
from paohuzi.env.encoding import CHOU_HU, HISTORY_WIDTH, action_mask, encode, encode_history
from paohuzi.env.hand import full_state, state_planes
from paohuzi.env.policy import first_legal
from paohuzi.tools.ladder import bradley_terry, ladder
from paohuzi.tools.tournament import tournament
from tests.scenario import random_decisions

ROOT = Path(__file__).resolve().parent.parent
FOUR = replace(HUNAN, players=4)
CMD_BOT = f"cmd:{sys.executable} {ROOT / 'examples' / 'bots' / 'random_bot.py'} 7"


def _illegal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask == 0)[0])


# ---------------------------------------------------------------- 1. illegal actions


def test_largest_payment_bounds_every_hand() -> None:
    # Worked by hand for Hunan (R3, R10): six 提 of a big kind (12 hu-xi each) fill a winning
    # holding of 21 + 5 = 26 cards: 72 hu-xi, doubled as for a 天胡: 144 → 等 1 + (144 − 15) // 3
    # = 44, + 1 for 自摸 = 45. 番: 26 small cards (小字胡 8 + 10), no red (乌胡 5), 对对胡 4, 海底 1
    # = 28. 45 × 28 = 1260.
    assert largest_payment(HUNAN) == 1260
    bound = largest_payment(HUNAN)
    for seed in range(300):
        game = Game(HUNAN, dealer=seed % 3, seed=seed)
        result = play_hand(game, [GreedyBot(), RandomBot(seed), GreedyBot()])
        assert max(abs(p) for p in result.payments) <= 2 * bound
        assert min(result.payments) >= -bound


def test_an_illegal_action_raises_by_default() -> None:
    aec = env()
    aec.reset(seed=1)
    observation, *_ = aec.last()
    with pytest.raises(IllegalAction, match="seat"):
        aec.step(_illegal(observation["action_mask"]))
    single = SingleSeatEnv()
    observation, _ = single.reset(seed=1)
    with pytest.raises(IllegalAction):
        single.step(_illegal(observation["action_mask"]))


@pytest.mark.parametrize("rules", [HUNAN, FOUR], ids=["three", "four"])
def test_the_illegal_penalty_is_zero_sum_and_at_least_the_largest_payment(rules: object) -> None:
    assert rules is HUNAN or rules is FOUR
    aec = env(rules=rules, illegal="penalty")
    aec.reset(seed=2)
    agent = aec.agent_selection
    observation, *_ = aec.last()
    aec.step(_illegal(observation["action_mask"]))
    assert all(aec.terminations.values())
    rewards = aec.unwrapped.rewards
    assert len(rewards) == 3 and sum(rewards.values()) == 0
    bound = largest_payment(rules)
    assert rewards[agent] == -2 * bound
    assert all(r == bound for a, r in rewards.items() if a != agent)
    single = SingleSeatEnv(rules=rules, illegal="penalty")
    observation, _ = single.reset(seed=3)
    _, reward, done, _, info = single.step(_illegal(observation["action_mask"]))
    assert done and reward == -2 * bound and sum(info["payments"].values()) == 0


def test_a_penalty_below_the_largest_payment_or_an_unknown_rule_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1260"):
        raw_env(illegal="penalty", illegal_penalty=48)
    with pytest.raises(ValueError, match="illegal must be"):
        SingleSeatEnv(illegal="ignore")
    assert SingleSeatEnv(illegal="penalty", illegal_penalty=5000).penalty == 5000


def test_playing_illegal_cannot_beat_legal_play() -> None:
    # The exploit: resign by an illegal action whenever the hand looks bad. Against
    # greedy opponents a random legal player loses, but never as much as the resigner.
    resigner = SingleSeatEnv(opponents=("greedy", "greedy"), illegal="penalty")
    player = SingleSeatEnv(opponents=("greedy", "greedy"), illegal="penalty")
    rng = np.random.default_rng(0)
    resigned, played = [], []
    for episode in range(30):
        observation, _ = resigner.reset(seed=episode)
        resigned.append(resigner.step(_illegal(observation["action_mask"]))[1])
        observation, _ = player.reset(seed=episode)
        total, done = 0.0, False
        while not done:
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            observation, reward, done, _, _ = player.step(action)
            total += reward
        played.append(total)
    assert max(resigned) < min(played)


# ---------------------------------------------------------------- 2. policies as bots


def test_bot_specs_name_builtin_module_and_program_bots() -> None:
    assert load_bot("greedy").name == "greedy"
    bot = load_bot("tests.policy_bots:first_legal_bot", 3)
    assert isinstance(bot, PolicyBot)
    for bad in ("tests.policy_bots:missing", "no_such_module:make", "tests.policy_bots:", "cmd:"):
        with pytest.raises(ValueError):
            check_spec(bad)
    with pytest.raises(ValueError, match="no act"):
        load_bot("tests.policy_bots:not_a_bot")
    program = load_bot(CMD_BOT)
    try:
        game = Game(HUNAN, seed=5)
        play_hand(game, [program, GreedyBot(), RandomBot(1)])
        assert game.is_over and not getattr(program, "errors", None)
    finally:
        program.close()  # type: ignore[attr-defined]


def test_the_policy_adapter_plays_what_the_policy_chooses() -> None:
    seen: list[tuple[np.ndarray, np.ndarray]] = []

    def policy(planes: np.ndarray, mask: np.ndarray) -> int:
        seen.append((planes, mask))
        return first_legal(planes, mask)

    game = Game(HUNAN, seed=8)
    assert game.to_act is not None
    obs = observe(game, game.to_act)
    action = PolicyBot(policy).act(obs)
    planes, mask = seen[-1]
    assert action == id_to_action(int(np.flatnonzero(mask)[0])) and action in obs.legal
    assert (planes == encode(obs)).all()
    with pytest.raises(IllegalAction, match="not legal"):
        PolicyBot(lambda p, m: _illegal(m)).act(obs)


def test_protocol_json_parses_back_to_the_observation() -> None:
    checked = 0
    for rules in (HUNAN, FOUR, PRESETS["luzhou"]):
        for game, _, _ in random_decisions(range(6), rules):
            for seat in range(rules.players):
                obs = observe(game, seat, events=False)
                back = observation_from_json(json.loads(json.dumps(observation_json(obs))), rules)
                assert (encode(back) == encode(obs)).all()
                assert (action_mask(back) == action_mask(obs)).all()
                assert replace(back, legal=()) == replace(obs, legal=())
                assert sorted(map(str, back.legal)) == sorted(map(str, obs.legal))
                checked += 1
    assert checked > 1000
    with pytest.raises(ValueError, match="not an observation"):
        observation_from_json({"type": "ask"})


MIXED = ["tests.policy_bots:first_legal_bot", CMD_BOT, "random"]


@pytest.mark.xdist_group("workers")
def test_module_and_program_bots_in_a_tournament_with_two_workers() -> None:
    one = tournament(MIXED, 6, 4)
    two = tournament(MIXED, 6, 4, workers=2)
    assert one == two
    assert {s.name for s in one[1]} == set(MIXED)
    assert main(["tournament", "--bots", ",".join(MIXED), "--deals", "2", "--json"]) == 0


@pytest.mark.xdist_group("ray")
def test_module_and_program_bots_on_ray_match_one_worker() -> None:
    import ray

    names = ["paohuzi.env.policy:first_legal_bot", CMD_BOT, "greedy"]
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        assert tournament(names, 4, 9) == tournament(names, 4, 9, backend="ray")
    finally:
        ray.shutdown()


def test_single_seat_opponents_may_be_bot_objects_and_default_to_random() -> None:
    default = SingleSeatEnv()
    assert default.opponents == ["random", "random"]
    objects = SingleSeatEnv(opponents=(GreedyBot(), PolicyBot(first_legal)))
    observation, _ = objects.reset(seed=4)
    done = False
    while not done:
        observation, _, done, _, _ = objects.step(first_legal(*observation.values()))
    assert objects.game.is_over


# ---------------------------------------------------------------- 3. training ergonomics


def test_registered_envs_make_and_give_action_masks() -> None:
    for env_id in ENV_IDS:
        made = gymnasium.make(env_id)
        observation, _ = made.reset(seed=0)
        masks = made.unwrapped.action_masks()  # type: ignore[attr-defined]
        assert masks.dtype == np.bool_ and (masks == observation["action_mask"].astype(bool)).all()
        made.close()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_registered_envs_pass_gymnasiums_check_env_as_registered(env_id: str) -> None:
    # check_env steps a random element of the action space: as registered, an illegal one ends
    # the hand with the penalty (D132); the classes still raise by default. Its warnings (a
    # missing render_fps among them) are errors here.
    from gymnasium.utils.env_checker import check_env

    made = gymnasium.make(env_id)
    try:
        check_env(made.unwrapped)
        assert made.unwrapped.illegal == "penalty"  # type: ignore[attr-defined]
    finally:
        made.close()
    observation, _ = made.unwrapped.reset(seed=4)
    _, reward, done, _, _ = made.unwrapped.step(_illegal(observation["action_mask"]))
    assert done and reward == -2 * largest_payment(HUNAN)
    raising = gymnasium.make(env_id, illegal="raise")
    observation, _ = raising.unwrapped.reset(seed=4)
    with pytest.raises(IllegalAction):
        raising.unwrapped.step(_illegal(observation["action_mask"]))


def test_reset_options_deal_the_given_deck_and_dealer() -> None:
    deck = full_deck()
    random.Random(11).shuffle(deck)
    expected = Game(HUNAN, dealer=2, deck=deck)
    aec = raw_env()
    aec.reset(seed=0, options={"deck": deck, "dealer": 2})
    assert aec.game.deck == tuple(deck) and aec.game.dealer == 2
    assert aec.game.hands == expected.hands and aec.game.liang == expected.liang
    single = SingleSeatEnv(seat=2)
    single.reset(options={"deck": deck, "dealer": 2, "rules": "hunan"})
    assert single.game.deck == tuple(deck) and single.game.dealer == 2
    assert single.game.hands[2] == observe(single.game, 2).hand
    with pytest.raises(ValueError, match="seats"):
        aec.reset(options={"rules": FOUR})
    with pytest.raises(ValueError, match="dealer"):
        aec.reset(options={"dealer": 3})


def test_state_is_every_seats_view_and_the_wall() -> None:
    aec = raw_env()
    aec.reset(seed=6)
    state = aec.state()
    assert state.shape == aec.state_space.shape == (state_planes(3), 20)
    size = encode(observe(aec.game, 0)).shape[0]
    for seat in range(3):
        assert (state[seat * size : (seat + 1) * size] == encode(observe(aec.game, seat))).all()
    wall = aec.game.position().wall
    assert state[-2].sum() == len(wall) == aec.game.wall
    assert state[-1, wall[0]] == 1


@pytest.mark.parametrize(
    "core",
    [
        "python",
        pytest.param(
            "native",
            marks=pytest.mark.skipif(native.evaluators is None, reason="no native core"),
        ),
    ],
)
def test_state_at_four_seats_encodes_the_seat_sitting_out_too(core: str) -> None:
    game = Game(FOUR, dealer=0, seed=3, core=core)  # type: ignore[arg-type]
    assert game.seating.playing == (0, 1, 3)  # seat 2, opposite the dealer, sits out (R12)
    state = full_state(game)
    assert state.shape == (state_planes(4), 20)
    size = encode(observe(game, 0)).shape[0]
    for seat in range(4):
        assert (state[seat * size : (seat + 1) * size] == encode(observe(game, seat))).all()


def test_self_play_pool_draws_opponents_and_takes_snapshots() -> None:
    pool = SelfPlayEnv(pool=["random", GreedyBot()])
    pool.add(first_legal, name="me-0")
    assert len(pool.pool) == 3 and isinstance(pool.pool[2], PolicyBot)
    seen: set[str] = set()
    for episode in range(12):
        observation, _ = pool.reset(seed=episode)
        seen.update(b.name for b in pool._bots if b is not None)
        done = False
        while not done:
            observation, _, done, _, _ = pool.step(first_legal(*observation.values()))
    assert seen == {"random", "greedy", "me-0"}
    with pytest.raises(ValueError, match="empty"):
        SelfPlayEnv(pool=[])


def test_history_encodes_the_seats_last_events() -> None:
    aec = raw_env(history=6)
    aec.reset(seed=3)
    observation = aec.observe(aec.agent_selection)
    assert observation["history"].shape == (6, HISTORY_WIDTH)
    assert aec.observation_space(aec.agent_selection).contains(observation)
    # Seat 0's events over whole random games: another seat's face-down draw (a 偎 or 提
    # from the wall) has no card in its row, every other event its one card.
    hidden = shown = 0
    for game, _, _ in random_decisions(range(20)):
        obs = observe(game, 0)
        rows = encode_history(obs, 400)
        assert rows.sum(axis=1).max() <= 3
        assert int((rows.sum(axis=1) > 0).sum()) == len(obs.events)
        for event, row in zip(obs.events, rows[-len(obs.events) :], strict=True):
            assert (row[-20:].sum() == 1) == (event.card is not None)
            hidden += event.card is None
            shown += event.card is not None
    assert hidden > 20 and shown > 200, (hidden, shown)


def test_r9_3_chou_hu_marks_are_in_the_observation() -> None:
    found = 0
    for game, _, _ in random_decisions(range(150)):
        for s in range(3):
            obs = observe(game, s, events=False)
            plane = encode(obs)[CHOU_HU]
            assert sorted(np.flatnonzero(plane)) == sorted({k for k, _ in obs.chou_hu})
            found += bool(obs.chou_hu)
    assert found > 0


def test_maskable_ppo_runs_on_the_registered_env() -> None:
    # Needs the rl extra (sb3-contrib, torch): not installed by CI (docs/env.md).
    sb3_contrib = pytest.importorskip("sb3_contrib")
    made = gymnasium.make("paohuzi/SingleSeat-v0")
    model = sb3_contrib.MaskablePPO("MultiInputPolicy", made, n_steps=64, batch_size=32, seed=0)
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256


# ---------------------------------------------------------------- 5. the ladder


def test_bradley_terry_ratings_follow_the_wins() -> None:
    scores = {("a", "b"): [1.0] * 30 + [-1.0] * 10, ("b", "a"): [-1.0] * 30 + [1.0] * 10}
    ratings = bradley_terry(["a", "b"], scores)
    assert ratings["a"] == 1000
    # 30.5 wins to 10.5: odds 61/21, 400 · log10(61/21) ≈ 185 points.
    assert ratings["b"] == pytest.approx(1000 - 400 * np.log10(30.5 / 10.5))


def test_a_small_ladder_regenerates_the_committed_ranking(tmp_path: Path) -> None:
    committed = json.loads((ROOT / "docs" / "leaderboard" / "ladder.json").read_text())
    rank = {s["name"]: s["rank"] for s in committed["standings"]}
    bots = ["random", "greedy"]
    assert main(["ladder", "--bots", ",".join(bots), "--deals", "40", "--out", str(tmp_path)]) == 0
    small = json.loads((tmp_path / "ladder.json").read_text())
    order = [s["name"] for s in small["standings"]]
    assert order == sorted(bots, key=rank.__getitem__)
    assert (tmp_path / "ladder.md").read_text().count("`greedy`") == 3
    # Zero-sum head to head.
    pairs = {(p["bot"], p["opponent"]): p["points_per_hand"] for p in small["pairs"]}
    assert pairs["greedy", "random"] == -pairs["random", "greedy"]


def test_the_ladder_is_the_same_on_two_workers() -> None:
    bots = ["random", "greedy", "tests.policy_bots:first_legal_bot"]
    assert ladder(bots, 5, 2) == ladder(bots, 5, 2, workers=2)
    with pytest.raises(ValueError, match="two different"):
        ladder(["random", "random"], 5, 2)


def test_a_bot_that_cannot_be_made_is_one_line_before_a_deal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A module that does not compile, a factory of the wrong signature or one that raises or
    # exits, checkpoints whose arrays are not matrices, not numbers, not finite, or a state
    # tower no table has: each refused by name before a deal is played (no traceback, and no
    # other bot silently playing in its place: a deep network of another input size played
    # as learned@0).
    (tmp_path / "lab_bots_broken.py").write_text("def make(seed:\n")
    (tmp_path / "lab_bots.py").write_text(
        "import sys\n\n\ndef raises(seed):\n    raise RuntimeError('boom')\n\n\n"
        "def noargs():\n    return None\n\n\ndef exits(seed):\n    sys.exit(3)\n"
    )
    from paohuzi.bots.deep import shipped

    weights = {k: np.asarray(v) for k, v in shipped().params.items()}
    bad = {
        "flat": dict(weights, s1_w=weights["s1_w"].ravel()),
        "scalar": dict(weights, h1_w=np.float32(1.0)),
        "wrong-size": dict(weights, s0_w=weights["s0_w"][:20]),
        "nan": dict(weights, out_w=np.full_like(weights["out_w"], np.nan)),
        "text": dict(weights, s0_w=np.full(weights["s0_w"].shape, "a")),
    }
    for name, arrays in bad.items():
        np.savez(tmp_path / f"{name}.npz", **arrays)  # type: ignore[arg-type]
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "lab_bots", raising=False)
    cases = {
        "lab_bots_broken:make": "importing lab_bots_broken raised SyntaxError",
        "lab_bots:raises": "raises(seed) raised RuntimeError: boom",
        "lab_bots:noargs": "noargs(seed) raised TypeError",
        "lab_bots:exits": "exits(seed) raised SystemExit: 3",
        "learned:flat.npz": "the deep network's weights are not matrices",
        "learned:scalar.npz": "the deep network's weights are not matrices",
        "learned:wrong-size.npz": "the deep network's layers do not fit together",
        "learned:nan.npz": "out_w holds values that are not finite numbers",
        "learned:text.npz": "s0_w holds <U1 values, not real numbers",
    }
    for spec, problem in cases.items():
        assert main(["tournament", "--bots", f"{spec},greedy,greedy", "--deals", "1"]) == 2
        _, err = capsys.readouterr()
        assert err.count("\n") == 1 and problem in err, (spec, err)
