"""The deep learned bot and its JAX trainer (issue 26 point 3, D126): inputs from the seat's
observation only, the NumPy network the trainer's network, a resumed run the run it continues."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import jax.numpy as jnp
import numpy as np
import pytest

from paohuzi.bots.deep import (
    ACTION_FEATURES,
    LAYERS,
    WAIT_SCALE,
    DeepBot,
    DeepNet,
    action_rows,
    state_vector,
)
from paohuzi.bots.planes import observation_arrays
from paohuzi.engine.actions import HU, Action, ActionType
from paohuzi.engine.cards import NUM_KINDS
from paohuzi.engine.evaluator import prepare_counts
from paohuzi.engine.game import Game
from paohuzi.engine.observation import observe
from paohuzi.engine.rules import HUNAN, holding_limit
from paohuzi.tools import deep_train
from paohuzi.tools.deep_settings import Settings
from tests.scenario import random_decisions
from tests.test_game_invariants import hidden_reshuffle

TINY = Settings(
    hands=40,
    round_hands=20,
    envs=7,
    batch=16,
    passes=1.0,
    state_hidden=(8, 8),
    action_hidden=4,
    head_hidden=(8, 4),
    eval_every=0,
)


def _choices(seeds: range) -> list[tuple[Game, int]]:
    out = []
    for game, seat, _ in random_decisions(seeds):
        if len([a for a in game.legal_actions() if a != HU]) > 1:
            out.append((game.clone(), seat))
    return out


def test_the_bot_sees_the_planes_the_trainer_sees() -> None:
    checked = 0
    for game, seat in _choices(range(3)):
        native = observation_arrays(game, seat)["observation"].reshape(-1)
        assert np.array_equal(state_vector(observe(game, seat)), native)
        checked += 1
    assert checked > 30


def test_action_rows_say_what_each_action_does() -> None:
    checked = 0
    for game, seat in _choices(range(4)):
        obs = observe(game, seat)
        legal = tuple(a for a in obs.legal if a != HU)
        rows = action_rows(obs, legal)
        assert rows.shape == (len(legal), ACTION_FEATURES) and np.isfinite(rows).all()
        assert (rows[:, :4].sum(axis=1) == 1).all()
        for action, row in zip(legal, rows, strict=True):
            taken, after = row[5:25], row[25:45]
            # what the hand gives up plus what it keeps is the hand (a 吃's card on offer goes
            # into its group, not the hand)
            assert np.array_equal(taken + after, np.array(obs.hand))
            if action.type is ActionType.DISCARD:
                assert action.card is not None and taken[action.card] == 1 and taken.sum() == 1
                # the waits after a discard, as the evaluator of the Python core says them
                hand = list(obs.hand)
                hand[action.card] -= 1
                table = obs.own_table()
                held = sum(hand) + sum(len(g.cards) for g in table)
                want = np.zeros(NUM_KINDS, np.float32)
                if held == holding_limit(sum(g.is_four for g in table)):
                    for w in prepare_counts(hand, table, obs.rules, native=False).waits():
                        want[w.win] = max(want[w.win], w.points / WAIT_SCALE)
                assert np.array_equal(row[45:65], want)
            checked += 1
    assert checked > 100


def test_deep_acts_legally_and_the_same_when_hidden_cards_are_reshuffled() -> None:
    rng = random.Random(26)
    net = DeepNet(deep_train.numpy_params(deep_train.new_state(TINY).params))
    bot = DeepBot(net=net)
    checked = 0
    for game, seat, _ in random_decisions(range(8)):
        obs = observe(game, seat)
        action = bot.act(obs)
        assert action in obs.legal
        assert bot.act(observe(hidden_reshuffle(game, seat, rng), seat)) == action
        checked += 1
    assert checked > 100


def test_the_numpy_network_is_the_trainers_network() -> None:
    state = deep_train.new_state(replace(TINY, seed=5))
    net = DeepNet(deep_train.numpy_params(state.params))
    for game, seat in _choices(range(2))[:20]:
        obs = observe(game, seat)
        legal = tuple(a for a in obs.legal if a != HU)
        s, a = state_vector(obs), action_rows(obs, legal)
        ours = net(s, a)
        theirs = np.asarray(deep_train._q_batch(state.params, s[None], a[None]))[0]
        rows = np.asarray(deep_train.q_rows(state.params, jnp.tile(s, (len(a), 1)), jnp.asarray(a)))
        assert np.allclose(ours, theirs, atol=1e-5) and np.allclose(ours, rows, atol=1e-5)


def test_a_stopped_run_resumes_to_the_same_weights(tmp_path: Path) -> None:
    straight = deep_train.train(TINY, tmp_path / "a.npz", resume=False)
    first = deep_train.train(replace(TINY), tmp_path / "b.npz", resume=False, minutes=0.0)
    assert first.rounds == 0  # a time limit already spent: nothing played, nothing lost
    # stopped by its --hands, resumed with more and a learning curve: the same run (D185)
    half = deep_train.train(replace(TINY, hands=20), tmp_path / "b.npz", resume=False)
    assert half.rounds == 1
    resumed = deep_train.train(replace(TINY, eval_every=2, eval_deals=1), tmp_path / "b.npz")
    assert (resumed.rounds, resumed.hands) == (straight.rounds, straight.hands) == (2, 40)
    assert [point["round"] for point in resumed.curve] == [2] and not straight.curve
    fresh = deep_train.new_state(TINY).params
    for layer in LAYERS:
        assert np.array_equal(straight.params[layer]["w"], resumed.params[layer]["w"])
        assert not np.array_equal(straight.params[layer]["w"], fresh[layer]["w"])


def _labels(settings: Settings, game: Game, seat: int, legal: tuple[Action, ...]) -> np.ndarray:
    hand = deep_train._Hand(game, frozenset({seat}), 0, np.random.default_rng(9))
    return deep_train.labels_of(settings, hand, seat, legal)


def test_sampled_labels_depend_only_on_what_the_seat_knows() -> None:
    """D155: labels averaged over deals drawn from the seat's observation are the same
    whatever the hidden cards are; one rollout from the true deal is not."""
    rng = random.Random(155)
    sampled, true_deal = replace(TINY, samples=3), replace(TINY, samples=0)
    checked = differ = 0
    for game, seat in _choices(range(2))[:25]:
        legal = tuple(a for a in game.legal_actions() if a != HU)
        other = hidden_reshuffle(game, seat, rng)

        ours = _labels(sampled, game, seat, legal)
        assert ours.shape == (len(legal),) and np.isfinite(ours).all()
        assert np.array_equal(ours, _labels(sampled, other, seat, legal))
        truth = _labels(true_deal, game, seat, legal)
        differ += not np.array_equal(truth, _labels(true_deal, other, seat, legal))
        checked += 1
    assert checked == 25 and differ > 0


def test_a_run_labelled_by_samples_trains_and_resumes_old_checkpoints(tmp_path: Path) -> None:
    state = deep_train.train(replace(TINY, hands=20, samples=2), tmp_path / "s.npz")
    assert state.decisions > 0 and np.isfinite(state.loss)
    # a checkpoint written before the setting existed resumes as the run it was (samples 0)
    deep_train.train(TINY, tmp_path / "old.npz", resume=False, stop_after=1)
    with np.load(tmp_path / "old.npz") as data:
        arrays = dict(data)
    meta = json.loads(str(arrays["meta"]))
    del meta["settings"]["samples"]
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(tmp_path / "old.npz", **arrays)
    assert deep_train.train(TINY, tmp_path / "old.npz").hands == 40
    with pytest.raises(ValueError, match="other settings"):
        deep_train.train(replace(TINY, samples=2), tmp_path / "old.npz")


def test_a_checkpoint_of_other_settings_is_refused(tmp_path: Path) -> None:
    deep_train.train(replace(TINY, hands=20), tmp_path / "c.npz", resume=False)
    with pytest.raises(ValueError, match=r"other settings \(lr 0.0005, not 0.1\)"):
        deep_train.train(replace(TINY, lr=0.1), tmp_path / "c.npz")


def test_exported_weights_load_with_numpy_only(tmp_path: Path) -> None:
    state = deep_train.new_state(TINY)
    deep_train.export(state, tmp_path / "w.npz")
    net = DeepNet.load(tmp_path / "w.npz")
    assert net.state_size == observation_arrays(Game(HUNAN, seed=1), 0)["observation"].size
    np.savez(tmp_path / "bad.npz", w0=np.zeros(3))
    with pytest.raises(ValueError, match="not a deep network"):
        DeepNet.load(tmp_path / "bad.npz")


def test_two_workers_train_the_same_run(tmp_path: Path) -> None:
    one = deep_train.train(TINY, tmp_path / "one.npz", resume=False)
    two = deep_train.train(TINY, tmp_path / "two.npz", resume=False, workers=2)
    assert two.hands == one.hands == TINY.hands
    for layer in LAYERS:
        assert np.array_equal(one.params[layer]["w"], two.params[layer]["w"])


def test_the_train_command_makes_weights_a_tournament_can_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from paohuzi.cli import main

    out, plot = tmp_path / "w.npz", tmp_path / "curve.svg"
    args = ["train", "--hands", "12", "--round-hands", "6", "--envs", "4", "--batch", "8"]
    args += ["--eval-every", "1", "--eval-deals", "1", "--plot", str(plot)]
    args += ["--checkpoint", str(tmp_path / "c.npz"), "--out", str(out)]
    assert main(args) == 0
    assert "<svg" in plot.read_text()
    capsys.readouterr()
    for weights in (out, tmp_path / "c.npz"):  # the export, or the checkpoint as it is
        bots = f"learned:{weights},greedy,greedy"
        assert main(["tournament", "--bots", bots, "--deals", "1", "--json"]) == 0
        assert f'"name": "learned:{weights}"' in capsys.readouterr().out


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--greedy-share", "1"),
        ("--lr", "nan"),
        ("--envs", "0"),
        ("--passes", "-1"),
        ("--samples", "-1"),
        ("--samples", "1001"),
        ("--seed", "-1"),
        ("--plot", "curve"),
        ("--plot", "/nonexistent-directory/curve.svg"),
        ("--out", "/nonexistent-directory/deep.npz"),
    ],
)
def test_bad_training_settings_are_refused_in_one_line(
    flag: str, value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from paohuzi.cli import main

    args = ["train", flag, value, "--checkpoint", str(tmp_path / "c.npz")]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("paohuzi train: error:") and flag in err and err.count("\n") == 1
    assert not (tmp_path / "c.npz").exists()


def test_a_checkpoint_the_deep_trainer_cannot_resume_is_named_in_one_line_and_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from paohuzi.bots.learned import QNet
    from paohuzi.cli import main
    from paohuzi.tools.dmc import Adam
    from paohuzi.tools.dmc import State as MlpState

    empty = tmp_path / "empty.npz"
    empty.write_bytes(b"")
    mlp = tmp_path / "mlp.npz"
    net = QNet.new((6,), 0)
    MlpState(net, Adam(net.params, 1e-3)).save(mlp)
    weights = tmp_path / "weights.npz"
    deep_train.export(deep_train.new_state(TINY), weights)
    broken, meta = tmp_path / "broken.npz", tmp_path / "meta.npz"
    deep_train.save(deep_train.new_state(TINY), broken)
    with np.load(broken) as data:
        arrays = dict(data)
    np.savez(meta, **(arrays | {"meta": np.array("[]")}))
    np.savez(broken, **(arrays | {"leaf0": np.zeros(3, np.float32)}))
    cases = {
        empty: f"{empty}: not a checkpoint (not a NumPy .npz archive)",
        mlp: f"{mlp} is a checkpoint of the other trainer (--net mlp): use --checkpoint or --fresh",
        weights: f"{weights}: not a checkpoint of this trainer (missing meta)",
        meta: f"{meta}: not a checkpoint of this trainer (bad meta)",
        broken: f"{broken}: not a checkpoint of this trainer (leaf0 does not fit)",
    }
    for path, problem in cases.items():
        with pytest.raises(ValueError) as caught:
            deep_train.load(path, TINY)
        assert str(caught.value) == problem
    kept = empty.read_bytes()
    assert main(["train", "--checkpoint", str(empty), "--out", str(tmp_path / "w.npz")]) == 2
    assert capsys.readouterr().err == f"paohuzi train: error: {cases[empty]}\n"
    assert empty.read_bytes() == kept
