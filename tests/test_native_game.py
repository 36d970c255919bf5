"""The native core agrees with the Python core (issues 14, 23): R2–R11, whole hands.

Differential: the same deal played by ``Game(core="python")`` and ``Game(core="native")`` with
the same choices; after **every** action both give
the same legal actions (in the same order) and the same :class:`~paohuzi.engine.position.Position`
(hands, tables, rows, 臭 and 臭胡 marks, the wall, the phase with its offers and hidden claims,
and once over the :class:`~paohuzi.engine.position.GameResult` with its ``HuResult`` and ``Score``);
at the end the same log and history. 10,000 seeded games over Hunan, Luzhou, a house rule and
four seats, half of the choices biased towards taking (so that 吃, 碰, 跑 and wins are frequent),
every golden record, games from positions (``from_position``), Hypothesis over positions whose
hidden cards are dealt anew (as the sampler makes them), and illegal actions refused alike.
Then the greedy bot (both ``count_waits`` settings: the Python bot, the native bot on the same
observation and the native core's own greedy choose alike at every decision) and the rollouts
of ``rollout_payments`` (the same payments on both cores); last the places the native core is
used (D37–D39, D84): simulation, tournaments, the environments and their arrays.

``Game(core="python")`` is the reference in pure Python throughout, its evaluator too (D86); one
test plays the Python core on the native evaluator (D86). Skipped when the native core is not built, unless ``PAOHUZI_NATIVE=1`` (CI).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paohuzi import native
from paohuzi.bots.greedy import GreedyBot
from paohuzi.bots.rollout import rollout_payments
from paohuzi.bots.sampler import is_consistent, sample
from paohuzi.engine.actions import PASS, Action, discard, parse_action
from paohuzi.engine.cards import full_deck
from paohuzi.engine.core import Waits
from paohuzi.engine.game import CoreName, Game, IllegalAction, PythonCore
from paohuzi.engine.observation import observe
from paohuzi.engine.position import Over, Position
from paohuzi.engine.record import Record
from paohuzi.engine.rules import HUNAN, LUZHOU, FanCombine, RuleSet
from paohuzi.env import SingleSeatEnv, raw_env
from paohuzi.env.encoding import observation_arrays
from paohuzi.native.core import serves
from paohuzi.tools.simulation import simulate_hand
from paohuzi.tools.tournament import play_deal

pytestmark = pytest.mark.skipif(not native.available, reason="the native core is not built")

GOLDEN = Path(__file__).parent / "golden"
HOUSE = replace(
    HUNAN,
    min_huxi=10,
    hu_on_discard=True,
    fan_combine=FanCombine.PRODUCT,
    take_needs_discard=False,
    break_kan_when_stuck=False,
)
"""A house rule changing every option the game (not only the evaluator) reads."""
FOUR = replace(HUNAN, players=4)
FOUR_LUZHOU = replace(LUZHOU, players=4)
RULE_SETS = {"hunan": HUNAN, "luzhou": LUZHOU, "house": HOUSE, "four": FOUR}
SHARDS = 4
PER_SHARD = 625
"""10,000 games in all: 2,500 per rule set."""


def _choose(rng: random.Random, legal: list[Action]) -> Action:
    """Uniform half the time; else anything but pass when there is something to take."""
    if rng.random() < 0.5:
        taking = [a for a in legal if a != PASS]
        if taking:
            return rng.choice(taking)
    return rng.choice(legal)


def _same(slow: Game, fast: Game, where: str) -> None:
    assert (slow.core, fast.core) == ("python", "native"), where
    assert fast.legal_actions() == slow.legal_actions(), where
    assert fast.position() == slow.position(), where
    assert fast.to_act == slow.to_act, where
    assert fast.result == slow.result, where


def _play_both(slow: Game, fast: Game, rng: random.Random, where: str) -> int:
    """Play both to the end with the same choices, comparing after every action; how many
    actions were played."""
    _same(slow, fast, where)
    played = 0
    while not slow.is_over:
        action = _choose(rng, slow.legal_actions())
        slow.apply(action)
        fast.apply(action)
        played += 1
        _same(slow, fast, f"{where}, after {len(slow.history)} actions")
    assert fast.is_over
    assert fast.log == slow.log, where
    assert fast.history == slow.history, where
    return played


def _games(rules: RuleSet, seeds: range) -> dict[str, int]:
    """Seeded games in both engines; how many ended how (the test's own coverage)."""
    ends = {"win": 0, "draw": 0}
    for seed in seeds:
        dealer = seed % rules.players
        slow = Game(rules, dealer=dealer, seed=seed, core="python")
        fast = Game(rules, dealer=dealer, seed=seed, core="native")
        _play_both(slow, fast, random.Random(seed), f"{rules.name}/{rules.players} seed {seed}")
        result = slow.result
        assert result is not None
        ends["win" if result.winner is not None else "draw"] += 1
    return ends


@pytest.mark.xdist_group("native_game")
@pytest.mark.parametrize("shard", range(SHARDS))
@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_random_games_agree_after_every_action(name: str, shard: int) -> None:
    rules = RULE_SETS[name]
    ends = _games(rules, range(shard * PER_SHARD, (shard + 1) * PER_SHARD))
    assert ends["win"] > PER_SHARD // 10, ends  # the games do reach wins


def test_random_games_agree_with_the_python_core_on_the_native_evaluator() -> None:
    """The Python core on the native evaluator (a ``core="auto"`` game of a rule set only the
    native evaluator serves, D86) plays every hand alike."""
    for rules in (HUNAN, LUZHOU, HOUSE, FOUR_LUZHOU):
        for seed in range(50_000, 50_060):
            deck = full_deck()
            random.Random(seed).shuffle(deck)
            dealer = seed % rules.players
            slow = Game.of_core(PythonCore(rules, dealer=dealer, deck=deck, native_evaluator=True))
            fast = Game(rules, dealer=seed % rules.players, seed=seed, core="native")
            rng = random.Random(seed)
            where = f"{rules.name} seed {seed}"
            while True:
                legal = slow.legal_actions()
                assert slow.core == "python" and fast.legal_actions() == legal, where
                assert fast.position() == slow.position(), where
                if slow.is_over:
                    break
                action = _choose(rng, legal)
                slow.apply(action)
                fast.apply(action)


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.phz.json")), ids=lambda p: p.name)
def test_golden_records_agree_after_every_action(path: Path) -> None:
    record = Record.from_json(json.loads(path.read_text(encoding="utf-8")))
    slow = Game(record.rule_set, dealer=record.dealer, deck=record.deck, core="python")
    fast = Game(record.rule_set, dealer=record.dealer, deck=record.deck, core="native")
    assert record.new_game().position() == slow.position()
    _same(slow, fast, path.name)
    for text in record.actions:
        slow.apply_text(text)
        fast.apply_text(text)
        _same(slow, fast, f"{path.name}: {text}")
    assert slow.is_over and fast.log == slow.log and fast.history == slow.history


def _position_after(rules: RuleSet, seed: int, steps: int) -> Position:
    game = Game(rules, dealer=seed % rules.players, seed=seed, core="python")
    rng = random.Random(seed)
    for _ in range(steps):
        if game.is_over:
            break
        game.apply(_choose(rng, game.legal_actions()))
    return game.position()


def _redealt(position: Position, rng: random.Random) -> Position:
    """The position with the wall and the other seats' hands dealt anew from their cards (as a
    sampler's determinization is), the seat to act keeping its own."""
    me = position.to_act
    pool = list(position.wall)
    for seat, state in enumerate(position.seats):
        if seat != me:
            pool += state.hand_cards()
    rng.shuffle(pool)
    seats = []
    for seat, state in enumerate(position.seats):
        if seat == me:
            seats.append(state)
            continue
        n = sum(state.hand)
        hand = [0] * len(state.hand)
        for k in pool[:n]:
            hand[k] += 1
        del pool[:n]
        seats.append(replace(state, hand=tuple(hand)))
    return replace(position, wall=tuple(pool), seats=tuple(seats))


@pytest.mark.xdist_group("native_game")
def test_games_from_positions_agree() -> None:
    # A finished position is compared as it is (its result); the others are played on.
    counts = {"finished": 0, "played on": 0, "actions": 0}
    for i in range(400):
        rules = list(RULE_SETS.values())[i % len(RULE_SETS)]
        position = _position_after(rules, 70_000 + i, i % 60)
        slow = Game.from_position(position, rules, core="python")
        fast = Game.from_position(position, rules, core="native")
        played = _play_both(slow, fast, random.Random(i), f"position {i}")
        counts["finished" if isinstance(position.phase, Over) else "played on"] += 1
        counts["actions"] += played
    # What was compared (seeded, so fixed: 209 finished, 191 played on for 2,900 actions).
    assert counts["played on"] >= 150 and counts["actions"] >= 2000, counts
    assert counts["finished"] >= 100, counts


@settings(max_examples=150, deadline=None)
@given(
    name=st.sampled_from(sorted(RULE_SETS)),
    seed=st.integers(0, 10**6),
    steps=st.integers(0, 80),
    redeal=st.integers(0, 10**6),
)
def test_hypothesis_positions_agree(name: str, seed: int, steps: int, redeal: int) -> None:
    rules = RULE_SETS[name]
    position = _position_after(rules, seed, steps)
    if not isinstance(position.phase, Over):
        position = _redealt(position, random.Random(redeal))
    try:
        slow = Game.from_position(position, rules, core="python")
    except ValueError as error:
        # A redealt hand may not face the phase (the offered claim, the pending win): the
        # native game refuses it alike, with the same words.
        with pytest.raises(ValueError) as refused:
            Game.from_position(position, rules, core="native")
        assert str(refused.value) == str(error)
        return
    fast = Game.from_position(position, rules, core="native")
    _play_both(slow, fast, random.Random(seed), f"{name} seed {seed} step {steps}")


def test_illegal_actions_are_refused_alike() -> None:
    slow = Game(HUNAN, seed=3, core="python")
    fast = Game(HUNAN, seed=3, core="native")
    rng = random.Random(3)
    tries = [discard(k) for k in range(20)] + [parse_action(a) for a in ("peng", "hu", "pass")]
    tries.append(parse_action("chi x1x2x3"))
    while not slow.is_over:
        for action in tries:
            if action in slow.legal_actions():
                continue
            with pytest.raises(IllegalAction) as a:
                slow.apply(action)
            with pytest.raises(IllegalAction) as b:
                fast.apply(action)
            assert str(a.value) == str(b.value)
            assert fast.why_illegal(action) == slow.why_illegal(action)
        action = _choose(rng, slow.legal_actions())
        slow.apply(action)
        fast.apply(action)
    with pytest.raises(IllegalAction, match="over"):
        fast.apply(PASS)


def test_a_native_game_from_a_python_game_plays_on_alike() -> None:
    game = Game(LUZHOU, seed=21, core="python")
    rng = random.Random(21)
    for _ in range(9):
        game.apply(_choose(rng, game.legal_actions()))
    fast = Game.from_position(game.position(), LUZHOU, log=game.log, core="native")
    assert fast.log == game.log
    slow = Game.from_position(game.position(), LUZHOU, log=game.log, core="python")
    _play_both(slow, fast, rng, "from a Python game")


@pytest.mark.parametrize("core", ["python", "native"])
def test_clone_is_independent(core: str) -> None:
    game = Game(LUZHOU, seed=11, core=core)  # type: ignore[arg-type]
    copy = game.clone()
    assert copy.core == core
    copy.apply(copy.legal_actions()[0])
    assert game.position() == Game(LUZHOU, seed=11, core="python").position()
    assert copy.position() != game.position()


def test_auto_picks_the_native_core_where_it_serves() -> None:
    assert serves(HUNAN) and serves(FOUR)
    assert Game(HOUSE, seed=1).core == "native"
    position = Game(HUNAN, seed=1).position()
    assert Game.from_position(position, HUNAN).core == "native"
    # Both cores pause at offers (D101): a pausing game stays on the native core.
    assert Game(HUNAN, seed=1, pause_at_offers=True).core == "native"
    with pytest.raises(ValueError, match="core is 'auto', 'native' or 'python'"):
        Game(HUNAN, seed=1, core="rust")  # type: ignore[arg-type]
    rules = replace(HUNAN, mingtang=(*HUNAN.mingtang, _Unknown()))
    assert not serves(rules) and Game(rules, seed=1).core == "python"
    with pytest.raises(ValueError, match="does not serve"):
        Game(rules, seed=1, core="native")


class _Unknown:
    """A 名堂 of a shape the native core does not know (it serves no rule set holding one)."""

    name = "未知"

    def fan(self, win: object) -> int:
        return 0


def test_a_seeded_game_deals_the_same_deck_on_both_cores() -> None:
    for seed in range(20):
        decks = {Game(FOUR, dealer=1, seed=seed, core=c).deck for c in ("python", "native")}
        assert len(decks) == 1


# ----------------------------------------------------------------------------- greedy, rollouts


def _greedy_reference(game: Game, count_waits: bool) -> Action:
    """The Python greedy bot's choice for the seat to act (the native evaluator aside)."""
    seat = game.to_act
    assert seat is not None
    return GreedyBot(count_waits=count_waits).python_choice(observe(game, seat))


@pytest.mark.xdist_group("native_game")
@pytest.mark.parametrize("count_waits", [False, True])
@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_greedy_choices_agree(name: str, count_waits: bool) -> None:
    """Greedy play at every seat: at each decision the Python bot, the native bot on the same
    observation and the native game's own greedy choose the same action."""
    rules = RULE_SETS[name]
    bot = GreedyBot(count_waits=count_waits)
    decisions = 0
    for seed in range(60 if count_waits else 120):
        slow = Game(rules, dealer=seed % rules.players, seed=seed, core="python")
        fast = Game(rules, dealer=seed % rules.players, seed=seed, core="native")
        rng = random.Random(seed)
        while not slow.is_over:
            seat = slow.to_act
            assert seat is not None
            expected = _greedy_reference(slow, count_waits)
            assert bot.act(observe(slow, seat)) == expected, (name, seed, len(slow.history))
            assert fast.greedy(count_waits=count_waits) == expected, (name, seed, len(slow.history))
            assert (
                slow.greedy(count_waits=count_waits) is None
            )  # the Python core's fallback is the bot
            assert bot.game_act(slow) == expected and bot.game_act(fast) == expected
            decisions += 1
            # Now and then another choice, to reach positions greedy play alone does not.
            action = expected if rng.random() < 0.8 else rng.choice(slow.legal_actions())
            slow.apply(action)
            fast.apply(action)
    assert decisions > 1000


def _rollout_reference(
    game: Game, candidates: list[Action], seat: int, waits: Waits = False
) -> list[int]:
    found = []
    for action in candidates:
        copy = game.clone()
        copy.apply(action)
        while not copy.is_over:
            counts = waits is True or (waits == "seat" and copy.to_act == seat)
            copy.apply(_greedy_reference(copy, counts))
        result = copy.result
        assert result is not None
        found.append(result.payments[seat])
    return found


@pytest.mark.xdist_group("native_game")
def test_rollouts_agree() -> None:
    """``rollout_payments`` gives the payments of the Python rollout on both cores (inside the
    native core on a native game)."""
    compared = 0
    for i in range(240):
        rules = list(RULE_SETS.values())[i % len(RULE_SETS)]
        game = Game.from_position(_position_after(rules, 90_000 + i, i % 50), rules, core="python")
        if game.is_over:
            continue
        seat = game.to_act
        assert seat is not None
        candidates = game.legal_actions()[:4]
        expected = _rollout_reference(game, candidates, seat)
        assert rollout_payments(game, candidates, seat) == expected, i
        native_game = Game.from_position(game.position(), rules, core="native")
        assert native_game.rollout(candidates, seat) == expected, i
        assert rollout_payments(native_game, candidates, seat) == expected, i
        assert native_game.position() == game.position()  # neither game is changed
        compared += len(candidates)
    assert compared > 300


@pytest.mark.xdist_group("native_game")
@pytest.mark.parametrize("waits", [True, "seat"])
def test_rollouts_of_the_greedy_bot_counting_waits_agree(waits: Waits) -> None:
    """``Game.rollout(…, waits=True)`` (the deep trainer's labels, D126; the expert's rollouts,
    D154): every seat plays ``GreedyBot(count_waits=True)`` inside the native core, as the
    Python bot plays it; ``waits="seat"`` (learned's search, D158): the seat asked about does,
    the others play the rollout policy."""
    compared = differ = 0
    for i in range(60):
        rules = list(RULE_SETS.values())[i % len(RULE_SETS)]
        game = Game.from_position(_position_after(rules, 91_000 + i, i % 50), rules, core="python")
        if game.is_over:
            continue
        seat = game.to_act
        assert seat is not None
        candidates = game.legal_actions()[:3]
        expected = _rollout_reference(game, candidates, seat, waits=waits)
        # In Python on a Python game, inside the core on a native one.
        assert rollout_payments(game, candidates, seat, waits=waits) == expected, i
        native_game = Game.from_position(game.position(), rules, core="native")
        assert native_game.rollout(candidates, seat, waits=waits) == expected, i
        assert rollout_payments(native_game, candidates, seat, waits=waits) == expected, i
        compared += len(candidates)
        other: Waits = "seat" if waits is True else True
        differ += native_game.rollout(candidates, seat, waits=other) != expected
    assert compared > 60
    assert differ > 0  # who counts their waits changes some hands


def test_rollouts_agree_with_the_pure_python_engine() -> None:
    compared = 0
    for i in range(6):
        rules = (HUNAN, LUZHOU, HOUSE)[i % 3]
        position = _position_after(rules, 95_000 + i, 10 + i)
        if isinstance(position.phase, Over):
            continue
        seat = position.to_act
        assert seat is not None
        game = Game.from_position(position, rules, core="python")  # pure Python (D86)
        candidates = game.legal_actions()[:3]
        expected = rollout_payments(game, candidates, seat)
        fast = Game.from_position(position, rules, core="native")
        assert rollout_payments(fast, candidates, seat) == expected
        compared += len(candidates)
    assert compared >= 12  # 17 (six positions, up to three candidates each)


# ----------------------------------------------------------------------------- where it is used


def test_simulate_plays_the_same_hands_natively() -> None:
    for rules in (HUNAN, FOUR_LUZHOU):
        fast = [simulate_hand(5, i, rules, True, "native") for i in range(40)]
        slow = [simulate_hand(5, i, rules, True, "python") for i in range(40)]
        assert fast == slow


def test_tournament_deals_are_the_same_natively() -> None:
    """Built-in bots choosing through ``game_act`` in ``play_hand`` (D37): the same hands."""
    for rules, names in ((HUNAN, ["greedy", "random", "greedy"]), (FOUR, ["random"] * 4)):
        fast = [play_deal(names, 3, deal, rules, True, "native") for deal in range(3)]
        slow = [play_deal(names, 3, deal, rules, True, "python") for deal in range(3)]
        assert fast == slow


@pytest.mark.xdist_group("native_game")
@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_native_encoding_is_the_identical_array(name: str) -> None:
    """Every seat's observation array and action mask, after every action (D39)."""
    rules = RULE_SETS[name]
    for seed in range(40):
        slow = Game(rules, dealer=seed % rules.players, seed=seed, core="python")
        fast = Game(rules, dealer=seed % rules.players, seed=seed, core="native")
        rng = random.Random(seed)
        while True:
            for seat in slow.seating.playing:
                expected = observation_arrays(slow, seat)
                assert slow.encoded(seat) is None and slow.mask(seat) is None
                found = observation_arrays(fast, seat)
                assert found["observation"].dtype == np.float32
                assert np.array_equal(found["observation"], expected["observation"]), (seed, seat)
                assert np.array_equal(found["action_mask"], expected["action_mask"]), (seed, seat)
            if slow.is_over:
                break
            action = _choose(rng, slow.legal_actions())
            slow.apply(action)
            fast.apply(action)


def test_environments_play_the_same_hands_natively() -> None:
    def rewards(seed: int, core: CoreName) -> list[float]:
        aec = raw_env(rules=FOUR if seed % 2 else HUNAN, core=core)
        aec.reset(seed=seed)
        rng = np.random.default_rng(seed)
        found = []
        for _ in aec.agent_iter():
            observation, reward, termination, truncation, _ = aec.last()
            found.append(reward)
            mask = observation["action_mask"]
            aec.step(None if termination or truncation else int(rng.choice(np.flatnonzero(mask))))
        single = SingleSeatEnv(seat=1, opponents=("greedy", "random"), core=core)
        obs, _ = single.reset(seed=seed)
        done = False
        while not done:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            obs, reward, done, _, _ = single.step(action)
            found.append(reward)
        return found

    for seed in range(12):
        assert rewards(seed, "native") == rewards(seed, "python")


@pytest.mark.xdist_group("native_game")
def test_native_samples_are_consistent_with_the_observation() -> None:
    """The sampler inside the native core (D41): every sample shows the seat what it observed,
    places the 80 cards, keeps the constraints the Python sampler keeps (a card shown from
    another seat's own draw caps that kind in his hand at one) and plays on to an end."""
    rng = random.Random(2)
    checked = hidden_wei = 0
    for i in range(240):
        rules = list(RULE_SETS.values())[i % len(RULE_SETS)]
        game = Game.from_position(
            _position_after(rules, 120_000 + i, 5 + i % 25), rules, core="python"
        )
        if game.is_over:
            continue
        seat = game.to_act
        assert seat is not None
        obs = observe(game, seat)
        hidden_wei += sum(g.cards is None for t in obs.tables for g in t)
        shown = {(e.seat, e.card) for e in obs.events if e.type.value == "show" and e.seat != seat}
        for _ in range(3):
            found = sample(obs, rng)
            assert found.core == "native"
            assert is_consistent(found, obs), i
            assert is_consistent(slow := sample(obs, rng, core="python"), obs), i
            assert slow.core == "python"
            assert found.position().card_count() == 80
            for other, kind in shown:
                assert kind is not None and found.hands[other][kind] <= 1
            while not found.is_over:
                found.apply(rng.choice(found.legal_actions()))
            checked += 1
    assert checked > 400 and hidden_wei > 20, (checked, hidden_wei)


def test_without_the_extension_every_seam_plays_python_games() -> None:
    # sys.modules[name] = None makes importing that module fail, as when it was never built.
    code = (
        "import sys, random; sys.modules['paohuzi._native'] = None\n"
        "from paohuzi.engine.game import Game\n"
        "from paohuzi.native.core import serves\n"
        "from paohuzi.tools.simulation import simulate_hand\n"
        "from paohuzi.tools.tournament import play_deal\n"
        "from paohuzi.bots.sampler import sample\n"
        "from paohuzi.bots.rollout import rollout_payments\n"
        "from paohuzi.engine.observation import observe\n"
        "from paohuzi.env import raw_env\n"
        "game = Game(seed=1)\n"
        "obs = observe(game, game.to_act)\n"
        "found = sample(obs, random.Random(1))\n"
        "rollout_payments(found, list(obs.legal[:2]), obs.seat)\n"
        "play_deal(['random', 'greedy', 'random'], 1, 0)\n"
        "simulate_hand(1, 0)\n"
        "env = raw_env(); env.reset(seed=1); env.observe(env.agent_selection)\n"
        "print(game.core, found.core, serves(game.rules))\n"
    )
    environ = {k: v for k, v in os.environ.items() if k != native.ENV}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environ, check=False
    )
    assert done.returncode == 0 and done.stdout == "python python False\n", done.stderr


def test_a_claim_the_hand_cannot_have_made_is_refused_alike() -> None:
    """R8: a declared 吃 lays down cards of the claimant's hand; a position whose hand lacks
    them (hidden cards dealt anew under a claim) is refused by both engines, in the same
    words, unless unchecked."""
    position = _redealt(_position_after(FOUR, 118, 6), random.Random(0))
    for core in ("python", "native"):
        with pytest.raises(ValueError, match=r"seat 2 cannot have claimed chi x3x4x5 x2x3x4"):
            Game.from_position(position, FOUR, core=core)
        Game.from_position(position, FOUR, check=False, core=core)
