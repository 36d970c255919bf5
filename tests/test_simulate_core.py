"""``paohuzi simulate`` inside the native core (issue 23, D92): the same hands as from Python."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from paohuzi import native
from paohuzi.cli import main
from paohuzi.engine.rules import HUNAN, LUZHOU
from paohuzi.tools.simulation import simulate_hand

needs_core = pytest.mark.skipif(native.evaluators is None, reason="the native core is not built")

KEYS = {
    "hands",
    "seconds",
    "hands_per_second",
    "win_rate",
    "huangzhuang_rate",
    "wins",
    "mean_score",
}


def figures(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["simulate", *args, "--json"]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_simulate_json_has_its_keys_and_plays_the_hands(
    capsys: pytest.CaptureFixture[str],
) -> None:
    found = figures(["--games", "40", "--seed", "3"], capsys)
    assert set(found) == KEYS
    assert found["hands"] == 40 and found["hands_per_second"] > 0
    assert len(found["wins"]) == HUNAN.players and abs(sum(found["mean_score"])) < 1e-3
    # Hands were played: the same as from Python hand by hand.
    wins = [0] * HUNAN.players
    for i in range(40):
        winner = simulate_hand(3, i).winner
        if winner is not None:
            wins[winner] += 1
    assert found["wins"] == wins


@needs_core
@pytest.mark.parametrize("args", [[], ["--rules", "luzhou"], ["--players", "4"]])
def test_simulate_in_the_core_plays_the_hands_python_plays(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    common = ["--games", "60", "--seed", "-2", *args]
    core = figures([*common, "--loop", "core"], capsys)
    python = figures([*common, "--loop", "python"], capsys)
    assert core.keys() == python.keys() == KEYS
    strip = {"seconds", "hands_per_second"}
    assert {k: v for k, v in core.items() if k not in strip} == {
        k: v for k, v in python.items() if k not in strip
    }


@needs_core
def test_core_loop_counts_the_decisions_of_every_hand() -> None:
    extension: Any = native.extension()
    core: Any = native.evaluators
    for rules in (HUNAN, LUZHOU, replace(HUNAN, players=4)):
        ev = core.evaluator_for(rules)
        values = (rules.players, rules.hu_on_discard, rules.take_needs_discard)
        flags = (*values, rules.break_kan_when_stuck)
        whole = extension.Game.simulate_hands(ev, *flags, 7, 0, 20)
        halves = [extension.Game.simulate_hands(ev, *flags, 7, s, 10) for s in (0, 10)]
        assert whole[0] == halves[0][0] + halves[1][0] > 20  # every hand takes decisions
        assert whole[1] == [a + b for a, b in zip(halves[0][1], halves[1][1], strict=True)]


def test_simulate_core_loop_refuses_what_needs_python(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["simulate", "--games", "5", "--loop", "core", "--save", str(tmp_path)])
    assert code == 2
    assert "--loop core" in capsys.readouterr().err
