"""The learned bot (issue 15 item 4): legal, from its observation only, NumPy only, a built-in
name; the trainer's backpropagation, a tiny run that changes the weights and resumes."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Literal, cast

import numpy as np
import pytest

from paohuzi import native
from paohuzi.bots import is_bot_name, make_bot
from paohuzi.bots.learned import (
    CHECKPOINT,
    FIRST_FEATURES,
    NUM_FEATURES,
    LearnedBot,
    QNet,
    _growth_part,
    action_features,
    product,
    settle,
)
from paohuzi.bots.rollout import sampled_payments, weigh_losses
from paohuzi.cli import main
from paohuzi.engine.actions import HU, PASS
from paohuzi.engine.observation import Observation, observe
from paohuzi.engine.rules import HUNAN
from paohuzi.server.botrunner import _decide
from paohuzi.tools.dmc import (
    Buffer,
    State,
    gradients,
    paired_gradients,
    play_round,
    players,
    train,
    true_payments,
)
from paohuzi.tools.dmc_settings import Settings
from tests.scenario import deal, on_offer, play, quiet, random_decisions
from tests.test_game_invariants import hidden_reshuffle
from tests.test_game_win import DEALER, SEAT2, WAITING, pass_until

SHIPPED = Path(__file__).parent.parent / "src" / "paohuzi" / "bots" / CHECKPOINT


def test_the_networks_product_leaves_the_invalid_flag_to_the_values() -> None:
    # The suite turns warnings into errors; OpenBLAS sometimes flags finite products as
    # invalid (numpy#13173, #24067), which failed a CI run. The product ignores the flag,
    # and whatever is not a number still comes out as such.
    a = np.array([[np.inf, 1.0]], dtype=np.float32)
    b = np.array([[0.0], [2.0]], dtype=np.float32)
    with pytest.raises(RuntimeWarning, match="invalid value"):
        a @ b  # inf * 0: NumPy warns, the suite's filter makes it an error
    assert np.isnan(product(a, b)).all()
    x = np.array([[1.0, 2.0]], dtype=np.float32)
    assert product(x, b).tolist() == [[4.0]]
    with pytest.raises(RuntimeWarning, match="overflow"):
        product(np.array([[3e38, 3e38]], dtype=np.float32), np.ones((2, 1), np.float32))


def test_learned_acts_legally_and_the_same_when_hidden_cards_are_reshuffled() -> None:
    rng = random.Random(15)
    bot = LearnedBot(samples=0)
    checked = 0
    for game, seat, _ in random_decisions(range(15)):
        obs = observe(game, seat)
        action = bot.act(obs)
        assert action in obs.legal
        assert bot.act(observe(hidden_reshuffle(game, seat, rng), seat)) == action
        checked += 1
    assert checked > 200


needs_native = pytest.mark.skipif(
    native.evaluators is None, reason="the native core is not built (or PAOHUZI_NATIVE=0)"
)


@needs_native  # without it the bot plays the network alone (D156)
def test_the_search_sees_only_the_observation() -> None:
    # Two bots with one seed draw the same deals from the observation: what the seat cannot
    # see does not change the choice (D156).
    rng = random.Random(16)
    checked = 0
    for game, seat, _ in random_decisions(range(4)):
        obs = observe(game, seat)
        action = LearnedBot(5, samples=6).act(obs)
        assert action in obs.legal
        shuffled = observe(hidden_reshuffle(game, seat, rng), seat)
        assert LearnedBot(5, samples=6).act(shuffled) == action
        checked += 1
    assert checked > 50


def test_settle_weighs_the_network_as_samples_beside_the_rollouts() -> None:
    # Two samples each: means 1 and 2; the network says 5 and 0.
    rows = [[0.0, 2.0], [1.0, 3.0]]
    assert settle(rows, [5.0, 0.0], prior=0) == 1  # the rollouts alone
    assert settle(rows, [5.0, 0.0], prior=1) == 0  # (5 + 2) / 3 against (0 + 4) / 3
    assert settle([[1.0, 1.0], [2.0, 0.0]], [3.0, 3.0], prior=4) == 0  # a tie: the first
    assert settle(rows, [1.0, 0.0], prior=1) == 1  # (1 + 2) / 3 against (0 + 4) / 3
    # A candidate dropped from the race (a shorter row) is not played, whatever it promised;
    # nor one dropped at the race's last look, after its last sample (5 points behind on
    # each of 6 samples, no spread: clearly behind, though the network promised 100).
    assert settle([[0.0, 0.0, 0.0], [9.0]], [0.0, 9.0], prior=20) == 0
    assert settle([[5.0] * 6, [0.0] * 6], [0.0, 100.0], prior=20) == 0
    assert settle([[5.0] * 5, [0.0] * 5], [0.0, 100.0], prior=20) == 1  # before any drop


@needs_native
def test_the_network_alone_plays_its_favourite_and_the_search_departs_from_it() -> None:
    net = LearnedBot(samples=0)
    searched = LearnedBot(3, samples=64)
    departed = 0
    for game, seat, _ in random_decisions(range(6)):
        obs = observe(game, seat)
        legal = tuple(a for a in obs.legal if a != HU)
        if HU in obs.legal or len(legal) < 2:
            continue
        favourite = legal[int(np.argmax(net.net(action_features(obs, legal))))]
        assert net.act(obs) == favourite
        departed += searched.act(obs) != favourite
    assert departed  # 64 samples outweigh the network's 20 where they disagree


def test_learned_searches_within_its_budget_and_only_on_the_native_core(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import paohuzi.bots.learned as learned

    asked: list[tuple[int, float | None]] = []
    waited: set[object] = set()

    def spy(obs, candidates, samples, seed, deadline, beliefs, *, waits):  # type: ignore[no-untyped-def]
        asked.append((samples, deadline))
        waited.add(waits)
        return [[0.0] for _ in candidates]

    monkeypatch.setattr(learned, "race", spy)
    monkeypatch.setattr(learned, "serves", lambda rules: True)  # as on the native core
    monkeypatch.setattr(learned, "time", SimpleNamespace(monotonic=lambda: 100.0))
    decisions = [observe(g, s) for g, s, _ in random_decisions(range(2))]
    for obs in decisions:
        LearnedBot().act(obs)
        LearnedBot(samples=7).act(obs)
    assert asked and set(asked) == {(learned.UNBOUNDED, 100.0 + learned.SEARCH_BUDGET), (7, None)}
    assert waited == {"seat"}  # the seat deciding counts its waits in the rollouts (D158)
    asked.clear()
    # The server's bound holds whatever the level asks for (a client's learned@1000).
    for obs in decisions:
        _decide("learned@1000", 1, obs, 0.25)
    assert asked and set(asked) == {(1000, 100.25)}
    asked.clear()
    monkeypatch.setattr(learned, "serves", lambda rules: False)
    for obs in decisions:
        assert LearnedBot().act(obs) == LearnedBot(samples=0).act(obs)
    assert not asked


def test_learned_plays_a_four_seat_table_legally() -> None:
    bot = LearnedBot()
    for game, seat, _ in random_decisions(range(5), replace(HUNAN, players=4), rotate=True):
        obs = observe(game, seat)
        assert bot.act(obs) in obs.legal


def test_learned_always_wins_when_it_can() -> None:
    game = deal({0: DEALER, 1: WAITING, 2: SEAT2}, liang="x4", wall="x4 d10", seed=1)
    play(game, "0 discard x1")
    quiet(game, 18)
    while on_offer(game) == 3:
        game.apply(PASS)
    pass_until(game, 1)
    assert LearnedBot().act(observe(game, 1)) == HU


def test_features_describe_each_choice_in_bounds() -> None:
    checked = 0
    for game, seat, _ in random_decisions(range(3)):
        obs = observe(game, seat)
        legal = tuple(a for a in obs.legal if a != HU)
        if not legal:
            continue
        rows = action_features(obs, legal)
        assert rows.shape == (len(legal), NUM_FEATURES) and np.isfinite(rows).all()
        assert (rows[:, :4].sum(axis=1) == 1).all()  # one action type each
        assert rows[:, 5].max() == 0  # the greedy bot's choice is 0 below the best
        checked += 1
    assert checked > 50


def test_the_growth_features_say_what_one_more_card_would_do() -> None:
    """D185's features 37–44, worked out by hand from R3 for a hand of small 1, small 2, a
    pair of small 5 and big 9 (kinds 0, 1, 4, 4, 18), no table, two unseen copies of every
    kind."""
    hand = [0] * 20
    for kind in (0, 1, 4, 4, 18):
        hand[kind] += 1
    row = np.zeros(NUM_FEATURES, dtype=np.float32)
    obs = cast(Observation, SimpleNamespace(rules=HUNAN))
    _growth_part(row, hand, [], obs, [2] * 20)
    # a small 3 makes 1-2-3 (3 hu-xi), a small 5 a 坎 (3); a big 5 makes a 绞 (0 hu-xi)
    expected = (
        (2 * 3 + 2 * 3) / 40 / 3,  # hu-xi a drawn card adds, on average over 40 unseen cards
        3 / 6,  # the most one card adds
        4 / 20,  # unseen cards that add some
        6 / 30,  # unseen cards that make a group of three: small 3, small 5, big 5
        3 / 10,  # their kinds
        2 / 8,  # unseen copies of the pair's kind
        (3 + 6 + 4) * 2 / 40,  # partners: small 1 has 3, small 2 has 6, big 9 has 4
        2 / 8,  # the missing card of the 1-2-3 held two of
    )
    assert row[37:45] == pytest.approx(expected)
    assert hand == [1, 1, 0, 0, 2] + [0] * 13 + [1, 0]  # left as it was


def test_a_network_made_before_the_growth_features_reads_the_first_37() -> None:
    old = QNet.new((4,), seed=5)
    old.params["w0"] = old.params["w0"][:FIRST_FEATURES]
    old = QNet(old.params)
    rows = np.random.default_rng(2).standard_normal((3, NUM_FEATURES)).astype(np.float32)
    changed = rows.copy()
    changed[:, FIRST_FEATURES:] += 5
    assert old.inputs == FIRST_FEATURES
    assert (old(rows) == old(changed)).all()
    assert (old(rows) == old(rows[:, :FIRST_FEATURES])).all()


def test_the_shipped_checkpoint_is_small_and_loads_with_numpy_only() -> None:
    assert SHIPPED.stat().st_size < 2_000_000
    with np.load(SHIPPED, allow_pickle=False) as data:
        assert all(name[0] in "wb" for name in data.files)
    code = (
        "import sys; from paohuzi.bots import make_bot; make_bot('learned');"
        "heavy = {'torch', 'tensorflow', 'jax', 'sklearn', 'gymnasium'} & set(sys.modules);"
        "assert not heavy, heavy; assert 'numpy' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_learned_is_a_built_in_bot_name() -> None:
    assert make_bot("learned").name == "learned"
    assert is_bot_name("learned")
    assert make_bot("learned@0").samples == 0  # type: ignore[attr-defined]
    assert make_bot("learned@12", 3).samples == 12  # type: ignore[attr-defined]
    for bad in ("learned@1001", "learned@x", "learned@0.5s", "learned@-1", "learned@"):
        assert not is_bot_name(bad), bad


def test_tournament_accepts_learned(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--bots", "learned,greedy,greedy", "--deals", "2", "--json"]) == 0
    assert '"name": "learned"' in capsys.readouterr().out


def test_backpropagation_matches_finite_differences() -> None:
    net = QNet.new((5, 4), seed=3)
    net.params = {k: v.astype(np.float64) for k, v in net.params.items()}
    rng = np.random.default_rng(0)
    x = rng.standard_normal((7, NUM_FEATURES))
    y = rng.standard_normal(7)
    _, grads = gradients(net, x, y)  # type: ignore[arg-type]
    for name in ("w0", "b0", "w1", "w2", "b2"):
        param = net.params[name]
        for index in [(0,) * param.ndim, tuple(s - 1 for s in param.shape)]:
            old = param[index]
            param[index] = old + 1e-6
            up = float(np.mean((net(x) - y) ** 2))  # type: ignore[arg-type]
            param[index] = old - 1e-6
            down = float(np.mean((net(x) - y) ** 2))  # type: ignore[arg-type]
            param[index] = old
            assert grads[name][index] == pytest.approx((up - down) / 2e-6, rel=1e-4, abs=1e-8)


def test_paired_backpropagation_matches_finite_differences() -> None:
    """D155's loss: each estimate less its decision's mean, against its centred label."""
    net = QNet.new((5, 4), seed=4)
    net.params = {k: v.astype(np.float64) for k, v in net.params.items()}
    rng = np.random.default_rng(1)
    x = rng.standard_normal((9, NUM_FEATURES))
    owner = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2])
    y = rng.standard_normal(9)
    for d in range(3):
        y[owner == d] -= y[owner == d].mean()

    def loss() -> float:
        out = net(x)  # type: ignore[arg-type]
        means = np.bincount(owner, weights=out) / np.bincount(owner)
        return float(np.mean((out - means[owner] - y) ** 2))

    value, grads = paired_gradients(net, x, y, owner)  # type: ignore[arg-type]
    assert value == pytest.approx(loss(), rel=1e-5)
    for name in ("w0", "b0", "w1", "w2"):
        param = net.params[name]
        for index in [(0,) * param.ndim, tuple(s - 1 for s in param.shape)]:
            old = param[index]
            param[index] = old + 1e-6
            up = loss()
            param[index] = old - 1e-6
            down = loss()
            param[index] = old
            assert grads[name][index] == pytest.approx((up - down) / 2e-6, rel=1e-4, abs=1e-8)
    # the output's bias moves every estimate alike: no gradient under a paired loss
    assert grads["b2"] == pytest.approx(0, abs=1e-6)


def test_the_buffer_keeps_and_draws_whole_decisions() -> None:
    buffer = Buffer(limit=10)
    for first in range(0, 12, 4):  # three decisions of 4 rows: rows 0-3, 4-7, 8-11
        x = np.full((4, NUM_FEATURES), first, np.float32)
        buffer.add(x, np.arange(first, first + 4, dtype=np.float32), np.array([4]))
    # 12 rows over the limit of 10: the oldest whole decision went, not two rows of it
    assert list(buffer.y) == list(range(4, 12)) and list(buffer.starts) == [0, 4]
    x, y, owner = buffer.sample(np.random.default_rng(0), 16)
    for d in set(owner):
        rows = y[owner == d]
        assert len(rows) == 4 and rows[0] % 4 == 0 and list(np.diff(rows)) == [1, 1, 1]
        assert (x[owner == d, 0] == rows[0]).all()


def test_a_round_without_decisions_adds_none_to_the_buffer() -> None:
    """A round may give no decision with a choice (tiny rounds): it adds no empty decision,
    which a draw could pick and leave a batch without rows."""
    buffer = Buffer(limit=10)
    buffer.add(np.zeros((0, NUM_FEATURES), np.float32), np.zeros(0, np.float32), np.zeros(0, int))
    assert len(buffer.starts) == 0
    sizes = np.array([1, 3, 2])  # decisions of rows 0, 1-3, 4-5
    buffer.add(np.zeros((6, NUM_FEATURES), np.float32), np.arange(6, dtype=np.float32), sizes)
    buffer.add(np.zeros((0, NUM_FEATURES), np.float32), np.zeros(0, np.float32), np.zeros(0, int))
    assert list(buffer.starts) == [0, 1, 4]
    for seed in range(20):
        _, y, owner = buffer.sample(np.random.default_rng(seed), 3)
        assert len(y) > 0 and set(np.bincount(owner)) <= {1, 2, 3}
        for d in set(owner):
            assert list(y[owner == d]) in ([0], [1, 2, 3], [4, 5])


def test_sampled_labels_cover_every_action_and_two_workers_play_the_same(tmp_path: Path) -> None:
    settings = Settings(hands=6, round_hands=3, warmup=1, steps=3, batch=64, hidden=(6,), samples=2)
    rows, targets, sizes = play_round(None, settings, 40, 3)
    assert len(sizes) > 20 and (sizes > 1).all() and sizes.sum() == len(rows) == len(targets)
    at = 0
    for n in sizes:  # every decision's labels are centred
        assert abs(float(targets[at : at + n].sum())) < 1e-4
        at += n
    with players(2) as pool:
        shared = play_round(None, settings, 40, 3, pool)
    assert np.array_equal(rows, shared[0]) and np.array_equal(targets, shared[1])
    assert np.array_equal(sizes, shared[2])
    state = train(settings, tmp_path / "s.npz")
    start = QNet.new(settings.hidden, settings.seed)
    assert state.hands == 6 and np.isfinite(state.loss) and state.loss > 0
    assert any(not np.array_equal(start.params[k], state.net.params[k]) for k in start.params)


def test_the_labels_rollouts_count_the_waits_of_whom_the_settings_say() -> None:
    """D161: ``label_waits="seat"`` labels with the rollouts ``learned`` searches with (the
    deciding seat counting its waits, the others not): the same hands and rows, other labels."""
    settings = Settings(hands=3, round_hands=3, warmup=1, steps=1, batch=64, hidden=(6,), samples=2)
    rows, every, sizes = play_round(None, settings, 40, 3)
    seat = play_round(None, replace(settings, label_waits="seat"), 40, 3)
    assert np.array_equal(rows, seat[0]) and np.array_equal(sizes, seat[2])
    assert not np.array_equal(every, seat[1])
    assert np.isfinite(seat[1]).all()


@pytest.mark.parametrize("deals", ["drawn", "true"])
def test_the_labels_weigh_losses_as_the_settings_say(deals: Literal["drawn", "true"]) -> None:
    """D190: ``label_losses`` reaches the labels of a round, drawn (D155) or true (D180): the
    same hands and rows, other labels."""
    settings = Settings(
        hands=3,
        round_hands=3,
        warmup=1,
        steps=1,
        batch=64,
        hidden=(6,),
        samples=2,
        label_deals=deals,
    )
    rows, plain, sizes = play_round(None, settings, 40, 3)
    weighed = play_round(None, replace(settings, label_losses=1.5), 40, 3)
    assert np.array_equal(rows, weighed[0]) and np.array_equal(sizes, weighed[2])
    assert not np.array_equal(plain, weighed[1])
    assert np.isfinite(weighed[1]).all()


def test_the_command_line_keeps_label_losses_and_an_older_checkpoint_resumes_with_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """D190: ``--label-losses`` reaches the run and its checkpoint's options; a checkpoint
    written before the option resumes as made with 1, and refuses another value."""
    checkpoint = tmp_path / "run.npz"
    args = ["train", "--net", "mlp", "--samples", "1", "--round-hands", "2", "--warmup", "1"]
    args += ["--steps", "1", "--batch", "16", "--hidden", "6", "--eval-every", "0"]
    args += ["--checkpoint", str(checkpoint), "--out", str(tmp_path / "w.npz")]
    assert main([*args, "--hands", "2", "--label-losses", "1.5"]) == 0
    kept = json.loads(State.load(checkpoint, 1e-3).options)
    assert kept["label_losses"] == 1.5
    del kept["label_losses"]  # as a checkpoint written before D190 keeps its options
    arrays = dict(np.load(checkpoint))
    np.savez(checkpoint, **{**arrays, "options": np.array(json.dumps(kept))})
    capsys.readouterr()
    assert main([*args, "--hands", "4", "--label-losses", "1.5"]) == 2
    assert "was made with --label-losses 1.0, not 1.5" in capsys.readouterr().err
    assert main([*args, "--hands", "4"]) == 0
    assert State.load(checkpoint, 1e-3).hands == 4


def test_true_deal_labels_see_the_hidden_cards_drawn_ones_do_not() -> None:
    """D180: ``label_deals="true"`` labels an action by rollouts of the hand's true deal, the
    wall's order drawn again: the others' hands, which the seat cannot see, move the labels.
    The drawn labels of D155 depend on the observation alone."""
    rng = random.Random(18)
    moved = checked = 0
    for game, seat, _ in random_decisions(range(3)):
        legal = game.legal_actions()
        if len(legal) < 2 or HU in legal:
            continue
        other = hidden_reshuffle(game, seat, rng)
        true = [true_payments(g, legal, seat, 4, random.Random(3), True) for g in (game, other)]
        drawn = [
            sampled_payments(observe(g, seat), legal, 2, random.Random(3)) for g in (game, other)
        ]
        assert drawn[0] == drawn[1]
        moved += true[0] != true[1]
        checked += 1
    assert checked > 20 and moved > checked // 2


def test_weighed_losses_count_each_loss_so_many_times() -> None:
    """D190: a payment below zero counts ``losses`` times, a win or a draw as it is."""
    assert weigh_losses([6, -3, 0, -12], 1.5) == [6.0, -4.5, 0.0, -18.0]
    assert weigh_losses([4, -2], 1.0) == [4.0, -2.0]


def test_labels_with_weighed_losses_count_each_rollouts_loss_so_many_times() -> None:
    """D190: ``losses`` weighs each rollout's payment before the mean: with one sample a
    label is the payment, a loss doubled with ``losses=2``; the same deals are drawn."""
    changed = checked = 0
    for game, seat, _ in random_decisions(range(2)):
        legal = game.legal_actions()
        if len(legal) < 2 or HU in legal:
            continue
        obs = observe(game, seat, events=True)
        plain = sampled_payments(obs, legal, 1, random.Random(5))
        doubled = sampled_payments(obs, legal, 1, random.Random(5), losses=2.0)
        assert doubled == [2 * p if p < 0 else p for p in plain]
        changed += any(p < 0 for p in plain)
        checked += 1
    assert checked > 20 and changed > 0


def test_the_label_options_are_refused_where_nothing_is_labelled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["train", "--hands", "1", "--checkpoint", str(tmp_path / "c.npz")]
    for flag, value in (
        ("--label-waits", "seat"),
        ("--label-deals", "true"),
        ("--label-losses", "1.5"),
    ):
        for more in (["--net", "mlp"], ["--net", "deep", "--samples", "2"]):
            assert main([*base, flag, value, *more]) == 2
            assert flag in capsys.readouterr().err
    for value in ("0.5", "11", "nan", "inf"):  # D190: between 1 and 10
        assert main([*base, "--net", "mlp", "--samples", "2", "--label-losses", value]) == 2
        assert "--label-losses must be between 1 and 10" in capsys.readouterr().err
    assert not (tmp_path / "c.npz").exists()


def test_a_tiny_training_run_changes_the_weights_and_resumes(tmp_path: Path) -> None:
    settings = Settings(hands=12, round_hands=6, warmup=1, steps=5, batch=32, hidden=(8,))
    checkpoint = tmp_path / "run.npz"
    rounds: list[int] = []
    state = train(settings, checkpoint, on_round=lambda s: rounds.append(s.hands))
    assert rounds == [6, 12]
    start = QNet.new(settings.hidden, settings.seed)
    assert any(not np.array_equal(start.params[k], state.net.params[k]) for k in start.params)
    saved = State.load(checkpoint, settings.lr)
    assert (saved.hands, saved.rounds, saved.adam.t) == (12, 2, 10)
    more = train(replace(settings, hands=18), checkpoint)
    assert (more.hands, more.rounds) == (18, 3)
    assert any(not np.array_equal(saved.net.params[k], more.net.params[k]) for k in start.params)
    # a checkpoint made before D185 (37 inputs) resumes, and its network keeps reading 37
    with np.load(checkpoint) as data:
        arrays = dict(data)
    for name in ("w0", "m_w0", "v_w0"):
        arrays[name] = arrays[name][:FIRST_FEATURES]
    np.savez(checkpoint, **arrays)
    old = train(replace(settings, hands=24), checkpoint)
    assert (old.hands, old.net.inputs, old.net.params["w0"].shape) == (24, FIRST_FEATURES, (37, 8))


def test_a_resume_with_other_options_is_refused_naming_the_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = Settings(hands=3, round_hands=3, warmup=1, steps=1, batch=16, hidden=(6,))
    checkpoint = tmp_path / "run.npz"
    train(settings, checkpoint)
    before = checkpoint.read_bytes()
    for changed, said in (
        ({"steps": 2}, "--steps 1, not 2"),
        ({"samples": 2, "label_waits": "seat"}, "--label-waits all, not seat"),
        ({"samples": 2, "label_losses": 1.5}, "--label-losses 1.0, not 1.5"),
        ({"seed": 7}, "--seed 0, not 7"),
    ):
        with pytest.raises(ValueError, match=said):
            train(replace(settings, hands=6, **changed), checkpoint)
        assert checkpoint.read_bytes() == before
    # the command line says it in one line, and nothing is written
    args = ["train", "--net", "mlp", "--hands", "6", "--round-hands", "3", "--warmup", "1"]
    args += ["--steps", "1", "--batch", "16", "--hidden", "6", "--checkpoint", str(checkpoint)]
    args += ["--out", str(tmp_path / "w.npz")]
    assert main([*args, "--epsilon", "0.2"]) == 2
    assert capsys.readouterr().err == (
        f"paohuzi train: error: {checkpoint} was made with --epsilon 0.05, not 0.2: resume it "
        "with the options it was made with, or start afresh with --fresh\n"
    )
    assert checkpoint.read_bytes() == before
    assert not (tmp_path / "w.npz").exists()
    assert main(args) == 0  # the same options go on
    assert State.load(checkpoint, settings.lr).hands == 6
    with pytest.raises(ValueError, match=r"with learner_share 0\.5, not 0\.25"):  # no flag for it
        train(replace(settings, hands=9, learner_share=0.25), checkpoint)
    # options that are not a JSON object are refused in one line naming the file
    arrays = dict(np.load(checkpoint))
    for bad in ("{", "[]", "null"):
        np.savez(tmp_path / "bad.npz", **{**arrays, "options": np.array(bad)})
        with pytest.raises(
            ValueError, match=r"bad\.npz: not a checkpoint of this trainer \(bad options\)"
        ):
            State.load(tmp_path / "bad.npz", settings.lr)
    # a checkpoint written before options (and the learning curve) were kept resumes as it is
    del arrays["options"], arrays["curve"]
    np.savez(checkpoint, **arrays)
    assert train(replace(settings, hands=9, steps=2), checkpoint).hands == 9


def test_the_learning_curve_changes_nothing_of_the_run_and_is_kept(tmp_path: Path) -> None:
    """Issue 26 point 3: the trainer logs a learning curve. Its points measure the network
    on deals of their own, so a run with a curve makes the same weights as one without; the
    checkpoint keeps the curve, a resume goes on with it, and the curve's settings may change
    on a resume (they are not the run's options)."""
    settings = Settings(hands=6, round_hands=3, warmup=1, steps=2, batch=16, hidden=(6,), samples=2)
    plain = train(replace(settings, eval_every=0), tmp_path / "plain.npz")
    curved = replace(settings, eval_every=1, eval_deals=2, eval_expert_deals=1)
    checkpoint = tmp_path / "curve.npz"
    state = train(curved, checkpoint)
    for name, array in plain.net.params.items():
        assert np.array_equal(array, state.net.params[name])
    assert plain.curve == []
    assert [(p["round"], p["hands"]) for p in state.curve] == [(1, 3), (2, 6)]
    assert all({"alone", "vs_greedy", "vs_expert"} <= p.keys() for p in state.curve)
    assert State.load(checkpoint, settings.lr).curve == state.curve
    more = train(replace(curved, hands=9, eval_every=3, eval_expert_deals=0), checkpoint)
    assert more.curve[:2] == state.curve
    assert [(p["round"], "vs_expert" in p) for p in more.curve[2:]] == [(3, False)]
    arrays = dict(np.load(checkpoint))
    huge = '[{"hands": 1' + "0" * 400 + "}]"  # more than a float holds
    for bad in ("{", "{}", '[{"hands": "x"}]', '[{"round": 1}]', '[{"hands": NaN}]', huge):
        np.savez(tmp_path / "bad.npz", **{**arrays, "curve": np.array(bad)})
        with pytest.raises(ValueError, match=r"bad\.npz: not a checkpoint .* \(bad curve\)"):
            State.load(tmp_path / "bad.npz", settings.lr)


def test_a_curve_point_is_what_a_tournament_of_the_same_bots_gives(tmp_path: Path) -> None:
    """The curve's figure of the network alone against two greedy bots is the tournament's
    (``learned:PATH`` is the network alone) on the same seed's duplicate deals; and the same
    spread over worker processes."""
    from paohuzi.tools.dmc import evaluate
    from paohuzi.tools.tournament import run_deals, summarize

    net = QNet.new((6,), 4)
    path = tmp_path / "net.npz"
    np.savez(path, **net.params)  # type: ignore[arg-type]
    settings = Settings(eval_deals=12, eval_expert_deals=0, eval_seed=31)
    point = evaluate(net, settings)
    outcomes = list(run_deals([f"learned:{path}", "greedy", "greedy"], 12, 31))
    stats = {s.name: s.mean for s in summarize(outcomes)}
    assert point["alone"] == pytest.approx(stats[f"learned:{path}"], abs=1e-9)
    assert set(point) == {"alone", "alone_ci95", "vs_greedy", "vs_greedy_ci95"}
    with players(2) as pool:
        assert evaluate(net, settings, pool) == point


def test_train_command_writes_the_weights_the_bot_loads(tmp_path: Path) -> None:
    out = tmp_path / "w.npz"
    args = ["train", "--net", "mlp", "--hands", "4", "--round-hands", "4", "--warmup", "0"]
    args += ["--steps", "2"]
    args += ["--hidden", "6", "--checkpoint", str(tmp_path / "c.npz"), "--out", str(out)]
    plot = tmp_path / "curve.svg"
    more = ["--eval-every", "1", "--eval-deals", "1", "--eval-expert-deals", "0"]
    assert main([*args, *more, "--plot", str(plot)]) == 0
    net = QNet.load(out)
    assert net.params["w0"].shape == (NUM_FEATURES, 6)
    assert State.load(tmp_path / "c.npz", 1e-3).curve[0]["hands"] == 4
    assert plot.read_text().startswith("<?xml") and "learned@0 (the network" in plot.read_text()
    for game, seat, _ in random_decisions(range(1)):
        obs = observe(game, seat)
        assert LearnedBot(net=net).act(obs) in obs.legal


def test_the_curve_options_are_checked_before_a_hand_is_played(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["train", "--hands", "1", "--checkpoint", str(tmp_path / "c.npz")]
    for more, said in (
        (["--net", "deep", "--eval-expert-deals", "5"], "--eval-expert-deals measures --net mlp"),
        (["--net", "mlp", "--eval-deals", "-1"], "must be 0 or more"),
        (["--net", "mlp", "--plot", str(tmp_path / "c.txt")], "--plot draws a .png or .svg"),
    ):
        assert main([*base, *more]) == 2
        assert said in capsys.readouterr().err
    # without matplotlib (the train extra), --plot is refused before the run, not after it
    import importlib.util

    real = importlib.util.find_spec
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            importlib.util,
            "find_spec",
            lambda name, *a: None if name == "matplotlib" else real(name, *a),
        )
        assert main([*base, "--net", "mlp", "--plot", str(tmp_path / "c.svg")]) == 2
    assert "--plot needs matplotlib" in capsys.readouterr().err
    assert not (tmp_path / "c.npz").exists()


def test_train_help_explains_its_options() -> None:
    from tests.test_cli_commands import option_help, paohuzi

    result = paohuzi("train", "--help")
    assert result.returncode == 0
    helps = option_help(result.stdout)
    assert {"--hands", "--checkpoint", "--out", "--fresh", "--seed"} <= set(helps)
    assert [name for name, written in helps.items() if not written] == []
    assert "50000" in helps["--hands"]


def test_train_mlp_without_numpy_says_what_to_install_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "numpy", None)  # as in a core install, without NumPy
    monkeypatch.delitem(sys.modules, "paohuzi.tools.dmc", raising=False)
    checkpoint = tmp_path / "ckpt.npz"
    assert main(["train", "--net", "mlp", "--hands", "500", "--checkpoint", str(checkpoint)]) == 2
    assert capsys.readouterr().err == (
        "paohuzi train: error: --net mlp needs NumPy (numpy is not installed): "
        "pip install 'paohuzi[train]'\n"
    )
    assert not checkpoint.exists()
