"""Issue 24 (point 5): the review's verdicts carry their uncertainty, and a decision is a
mistake only when its loss is clear of the noise of the samples (D115)."""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Sequence
from pathlib import Path

import pytest

from paohuzi.bots import ExpertBot, GreedyBot, play_hand
from paohuzi.cli import main
from paohuzi.engine.actions import HU, PASS, Action
from paohuzi.engine.game import Game
from paohuzi.engine.observation import Observation
from paohuzi.engine.record import Record, record_of
from paohuzi.tools.review import (
    MISTAKE_SAMPLES,
    MISTAKE_Z,
    Decision,
    decisions,
    judge,
    mistakes,
    seeds,
)

NOISY_HU = (161, 0, 15)
"""A greedy hand (its seed), the winner and the index of its 胡: at 20 samples the review
finds 过 better by 0.7 points, about one standard error; at 2,000 samples the two are equal
(过 −0.02 ± 0.12). The old review said "选了胡，高手会过，估计少得0.70分"."""
COSTLY_HU = (34, 1, 13)
"""A 平胡 of one point whose 过 is worth about 30 points more (29.4 ± 0.5 at 2,000 samples:
the hand goes on to a 名堂 often enough), over five standard errors at 20 samples."""


def greedy_hand(seed: int) -> Record:
    game = Game(seed=seed)
    play_hand(game, [GreedyBot(), GreedyBot(), GreedyBot()])
    return record_of(game)


def the_hu(seed: int, seat: int, index: int) -> tuple[Decision, int]:
    """The decision at ``index`` and the sample seed a review of the seat gives it."""
    found = list(decisions(greedy_hand(seed), seat))
    at = [d.index for d in found].index(index)
    return found[at], seeds(0, len(found))[at]


class Figures(ExpertBot):
    """An expert whose samples are given: the payment of each candidate on each sample."""

    def __init__(self, payments: dict[Action, list[float]]) -> None:
        super().__init__(samples=len(next(iter(payments.values()))))
        self.figures = payments

    def shortlist(self, observation: Observation, margin: float | None = None) -> list[Action]:
        return list(self.figures)

    def payments(
        self, observation: Observation, candidates: Sequence[Action], *, seed: int | None = None
    ) -> list[list[float]]:
        return [list(self.figures[a]) for a in candidates]


def judged(hu: list[float], passed: list[float]) -> dict[str, object]:
    """The noisy 胡 judged by an expert that finds these payments for 胡 and for 过."""
    decision, _ = the_hu(*NOISY_HU)
    assert decision.played == HU and set(decision.observation.legal) == {HU, PASS}
    return judge(decision, Figures({PASS: passed, HU: hu}), 0)


def test_loss_se_is_the_standard_error_of_the_paired_differences() -> None:
    hu, passed = [1.0, 1, 2, 2, 0], [4.0, 0, 6, 2, 3]
    found = judged(hu, passed)
    # Differences 3, −1, 4, 0, 3: mean 1.8, squares about it 1.44 + 7.84 + 4.84 + 3.24 +
    # 1.44 = 18.8, variance 18.8 / 4 = 4.7, standard error √(4.7 / 5) = 0.970.
    assert found["best"] == "pass" and found["loss"] == 1.8
    assert found["loss_se"] == 0.97
    # Unpaired, the two means' errors would add up: √(5 / 5 + 0.7 / 5) = 1.068.
    assert found["loss_se"] != round(math.sqrt(5 / 5 + 0.7 / 5), 3)
    assert found["samples"] == 5 and found["mistake"] is False  # fewer than 20 samples
    assert judged([2.0], [5.0])["loss_se"] is None  # one sample: no spread to measure


def test_a_loss_within_the_noise_is_not_a_mistake_and_a_clear_one_is() -> None:
    # A real decision's differences at 20 samples (a discard, D115's study): 6.05 ± 2.95
    # points, two standard errors, while 2,000 samples found 0.12 ± 0.24.
    noise = [0, 12, 0, 0, 48, 0, 0, 0, 0, -3, 32, 0, 0, 2, 22, 8, 0, 0, 0, 0]
    found = judged([2.0] * 20, [2.0 + d for d in noise])
    assert (found["loss"], found["loss_se"], found["mistake"]) == (6.05, 2.947, False)
    assert mistakes([found], 5) == []
    # 过 10 points better on 7 of 20 samples, equal on the others: 3.5 ± 1.094, 3.2
    # standard errors, a mistake; on 6 of 20: 3.0 ± 1.051, 2.85, not one.
    for better, loss, error, mistake in ((7, 3.5, 1.094, True), (6, 3.0, 1.051, False)):
        found = judged([2.0] * 20, [12.0] * better + [2.0] * (20 - better))
        assert (found["loss"], found["loss_se"], found["mistake"]) == (loss, error, mistake)
        assert mistakes([found], 5) == ([NOISY_HU[2]] if mistake else [])
    assert MISTAKE_Z == 3 and MISTAKE_SAMPLES == 20
    # Always 10 points better: a mistake from 20 samples, too few samples to tell before.
    assert judged([2.0] * 20, [12.0] * 20)["mistake"] is True
    assert judged([2.0] * 19, [12.0] * 19)["mistake"] is False


def test_a_hu_is_a_mistake_only_when_passing_is_clearly_better() -> None:
    # As the web reviews (D36): 20 samples a decision, seeded in order from 0.
    decision, seed = the_hu(*NOISY_HU)
    noisy = judge(decision, ExpertBot(samples=20), seed)
    assert mistakes([noisy], 5) == []
    assert noisy["played"] == "hu" and noisy["mistake"] is False
    assert noisy["loss"] <= MISTAKE_Z * noisy["loss_se"]
    decision, seed = the_hu(*COSTLY_HU)
    costly = judge(decision, ExpertBot(samples=20), seed)
    assert mistakes([costly], 5) == [COSTLY_HU[2]]
    assert (costly["played"], costly["best"], costly["mistake"]) == ("hu", "pass", True)
    assert costly["loss"] > MISTAKE_Z * costly["loss_se"] > 0


def review(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], seed: int, seat: int, *options: str
) -> str:
    path = tmp_path / f"hand-{seed}.json"
    path.write_text(json.dumps(greedy_hand(seed).to_json()))
    assert main(["review", str(path), "--seat", str(seat), "--samples", "20", *options]) == 0
    return capsys.readouterr().out


def test_the_review_prints_each_loss_with_its_error_and_only_clear_mistakes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    noisy = json.loads(review(tmp_path, capsys, *NOISY_HU[:2], "--json"))
    assert noisy["mistakes"] == [] and (noisy["mistake_z"], noisy["mistake_samples"]) == (3, 20)
    assert any(d["loss"] > 0 for d in noisy["decisions"])  # the old review's mistakes
    for d in noisy["decisions"]:
        assert d["mistake"] is False and d["loss"] <= MISTAKE_Z * d["loss_se"]
    text = " ".join(review(tmp_path, capsys, *NOISY_HU[:2]).split())
    hu = next(d for d in noisy["decisions"] if d["index"] == NOISY_HU[2])
    assert f"15 hu {hu['best']} {hu['loss']:.2f} ± {hu['loss_se']:.2f} 误差内 noise" in text
    assert "没有发现失误：少得都在抽样误差之内（不到 3 个标准误，或不到 20 个样本）" in text
    assert "no mistakes found: every loss is within the noise of the samples" in text
    costly = json.loads(review(tmp_path, capsys, *COSTLY_HU[:2], "--json"))
    assert costly["mistakes"] == [COSTLY_HU[2]]
    hu = next(d for d in costly["decisions"] if d["index"] == COSTLY_HU[2])
    lost = f"{hu['loss']:.2f} ± {hu['loss_se']:.2f}"
    text = " ".join(review(tmp_path, capsys, *COSTLY_HU[:2]).split())
    assert f"13 hu pass {lost} 失误 mistake" in text
    assert "最大的失误（少得超过 3 个标准误）" in text
    assert "biggest mistakes (a loss over 3 standard errors)" in text
    assert f"第13步：选了 hu，高手会 pass，估计少得 {lost} 分" in text
    assert f"action 13: played hu, better pass (+{lost} points)" in text


@pytest.mark.parametrize(
    "args, problem",
    [
        (["--seat", "0", "--samples", "0"], "--samples: 0 is not from 1"),  # was 1 / 0
        (["--seat", "0", "--samples", "-1"], "--samples: -1 is not from 1"),
        (["--seat", "0", "--budget", "nan"], "--budget: seconds are a finite number"),  # hung
        (["--seat", "0", "--budget", "0"], "--budget: seconds are a finite number"),
        (["--seat", "0", "--top", "-1"], "--top: -1 is not from 0"),
        (["--seat", "3"], "seat 3 does not play this hand (seats 0, 1, 2)"),  # "no mistakes"
        (["--seat", "-1"], "seat -1 does not play this hand"),
    ],
)
def test_review_refuses_what_it_cannot_review_in_one_line(
    args: list[str], problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "hand.phz.json"
    path.write_text(json.dumps(greedy_hand(1).to_json()))
    with pytest.raises(SystemExit) if "--" in problem else contextlib.nullcontext():
        assert main(["review", str(path), *args]) == 2  # argparse's refusals exit 2 too
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and problem in err, err
