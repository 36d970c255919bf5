"""``paohuzi simulate`` inside the native core (issue 23, D92): the same hands as from Python."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from paohuzi import native
from paohuzi.cli import main
from paohuzi.cli import simulate as cli_simulate
from paohuzi.engine.rules import HUNAN, LUZHOU
from paohuzi.tools.simulation import simulate, simulate_hand

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


def test_simulate_prints_progress_lines_on_a_stderr_that_is_no_terminal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # the first line comes at the first update, then one every PERIOD s, and one at the end
    assert main(["simulate", "--games", "120", "--loop", "python"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("hands 50/120, ") and lines[0].endswith(" s")
    assert lines[-1].startswith("hands 120/120, ")


def _interrupted(real: Any, after: int) -> Any:
    """``real`` (a generator function) whose run is stopped by a Ctrl-C after ``after`` items."""

    def stopped(*args: Any, **kwargs: Any) -> Any:
        for n, item in enumerate(real(*args, **kwargs)):
            if n == after:
                raise KeyboardInterrupt
            yield item

    return stopped


@pytest.mark.parametrize(
    ("loop", "done"), [("python", 30), pytest.param("core", 500, marks=needs_core)]
)
def test_ctrl_c_gives_the_figures_of_the_hands_done(
    loop: str, done: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    common = ["--seed", "3", "--loop", loop]
    whole = figures([*common, "--games", str(done)], capsys)
    if loop == "python":  # hands one by one; the core's in chunks of CHUNK
        monkeypatch.setattr(cli_simulate, "simulate", _interrupted(simulate, done))
    else:
        monkeypatch.setattr(
            cli_simulate, "play_in_core", _interrupted(cli_simulate.play_in_core, 1)
        )
    assert main(["simulate", *common, "--games", "2000", "--json"]) == 130
    captured = capsys.readouterr()
    found = json.loads(captured.out)
    assert found.pop("interrupted") is True and found["hands"] == done
    strip = {"seconds", "hands_per_second"}
    assert {k: v for k, v in found.items() if k not in strip} == {
        k: v for k, v in whole.items() if k not in strip
    }
    assert f"paohuzi simulate: interrupted after {done} hands" in captured.err
    assert main(["simulate", *common, "--games", "2000"]) == 130
    assert capsys.readouterr().out.startswith(f"{done} hands in ")


def test_ctrl_c_before_a_hand_is_done_prints_json_without_figures(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_simulate, "simulate", _interrupted(simulate, 0))
    assert main(["simulate", "--games", "100", "--loop", "python", "--json"]) == 130
    found = json.loads(capsys.readouterr().out)
    assert found["hands"] == 0 and found["interrupted"] is True
    assert found["win_rate"] is None and found["mean_score"] == [None] * HUNAN.players
