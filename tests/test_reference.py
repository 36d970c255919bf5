"""The fast evaluator agrees with the brute-force reference of tests/reference.py (R3, R9.1, R10)."""

from __future__ import annotations

import random

import pytest

from paohuzi.engine.evaluator import best_win, current_huxi, waits
from paohuzi.engine.holdings import Holding, random_holding
from tests.reference import RefResult, group_huxi, ref_best_win, ref_current_huxi


def _reference(h: Holding, win: int, self_drawn: bool) -> RefResult | None:
    table = [(g.type.value, g.cards) for g in h.table]
    return ref_best_win(list(h.hand), table, win, self_drawn)


def _holdings(seed: int, n: int) -> list[Holding]:
    rng = random.Random(seed)
    return [random_holding(rng) for _ in range(n)]


@pytest.mark.parametrize("seed", range(10))
def test_r9_1_fast_evaluator_matches_reference(seed: int) -> None:
    wins = 0
    for h in _holdings(seed, 500):
        fast = best_win(h.hand, h.table, h.win, self_drawn=h.self_drawn)
        ref = _reference(h, h.win, h.self_drawn)
        assert (fast is None) == (ref is None), h
        if fast is None or ref is None:
            continue
        wins += 1
        assert (fast.huxi, fast.score.deng, fast.score.fan, fast.points) == (
            ref.huxi,
            ref.deng,
            ref.fan,
            ref.points,
        ), h
        assert list(fast.score.mingtang) == ref.mingtang, h
        assert sum(fast.group_huxi) == fast.huxi
        assert sum(len(g.cards) for g in fast.groups) == len(h.hand) + 1 + sum(
            len(g.cards) for g in h.table
        )
    assert 100 < wins < 400  # the sample really mixes winning and losing holdings


def test_r9_1_waits_match_reference() -> None:
    for h in _holdings(99, 150):
        expected = []
        for win in range(20):
            held = h.hand.count(win) + sum(g.cards.count(win) for g in h.table)
            if held < 4 and (ref := _reference(h, win, False)) is not None:
                expected.append((win, ref.huxi, ref.points))
        assert [(w.win, w.huxi, w.points) for w in waits(h.hand, h.table)] == expected, h


def test_r10_6_current_huxi_matches_reference() -> None:
    # The reference's partial decomposition (used for the golden records' other_huxi and the
    # forced 天胡, tests/test_golden.py) against the evaluator's, on holdings of every kind.
    differ = set()
    for h in _holdings(7, 300):
        table = [(g.type.value, g.cards) for g in h.table]
        expected = ref_current_huxi(list(h.hand), table)
        assert current_huxi(h.hand, h.table) == expected, h
        differ.add(expected - sum(map(group_huxi, table)))
    assert len(differ) > 5  # the hands' own hu-xi vary: the comparison is not all zeros
