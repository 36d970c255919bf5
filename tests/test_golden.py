"""Golden records (F4): complete hands covering the rules' special cases, replayed by
``replay`` to the identical result. Wins are re-scored by the independent reference evaluator.

The files are written from the builders below: ``python -m tests.test_golden --write``. A
builder either plays a stacked-deck scenario of the test suite or searches seeded random games
for the first one showing its feature.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from paohuzi.actions import PASS
from paohuzi.game import EventType, Game
from paohuzi.position import SelfHu
from paohuzi.record import Record, record_of, replay
from paohuzi.rules import HUNAN, RuleSet
from tests import test_game_win as win
from tests.reference import ref_best_win
from tests.scenario import (
    deal,
    play,
    quiet,
)

GOLDEN = Path(__file__).parent / "golden"
FOUR = replace(HUNAN, players=4)
HOUSE = replace(HUNAN, min_huxi=10, hu_on_discard=True)


def _random_until(feature: Callable[[Game], bool], start: int = 0, rules: RuleSet = HUNAN) -> Game:
    for seed in range(start, start + 20000):
        game = Game(rules, dealer=seed % rules.players, seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            game.apply(rng.choice(game.legal_actions()))
        if feature(game):
            return game
    raise AssertionError("no seeded random game shows this feature")


def _has(event: EventType) -> Callable[[Game], bool]:
    return lambda game: any(e.type is event for e in game.log)


def _bi(game: Game) -> bool:
    return any(e.type is EventType.CHI and len(e.groups) >= 2 for e in game.log)


def _chongpao(game: Game) -> bool:
    return any(sum(g.is_four for g in t) >= 2 for t in game.tables)


def _won(game: Game) -> bool:
    return game.result is not None and game.result.winner is not None


def _won_on_a_discard(game: Game) -> bool:
    return _won(game) and game.log[-2].type is EventType.DISCARD


def _four_seats(game: Game) -> bool:
    result = game.result
    sitter = game.seating.sitting_out
    return _won(game) and sitter is not None and result is not None and result.payments[sitter] == 0


def _optional_tianhu() -> Game:
    game = deal({0: win.DEALER, 1: win.WAITING, 2: win.ALSO_WAITING}, liang="d10", seed=1)
    play(game, "1 pass", "2 hu")
    return game


def _forced_tianhu() -> Game:
    return deal(
        {0: "x1 x1 x1 x1 x2 x2 x2 x2 x3 x3 x3 x3 d5 d6 d7 x5 x6 x7 d9 d10"},
        liang="d10",
        seed=1,
    )


def _popaohu() -> Game:
    game = win.popaohu_game()
    play(game, "0 discard x1")
    quiet(game, 16)
    play(game, "1 hu")
    return game


def _haidi() -> Game:
    game = deal(
        {0: win.DEALER, 1: win.WAITING, 2: win.HAIDI_SEAT2}, liang="d1", wall=win.HAIDI_WALL
    )
    play(game, "0 discard x1")
    while not (game.to_act == 1 and game.wall == 0):
        game.apply(PASS)
    play(game, "1 hu")
    return game


def _self_win_after_wei() -> Game:
    hand = "d1 d1 d1 d2 d7 d10 x1 x2 x3 x5 x5 x5 d4 d5 d6 d8 d9 d10 x7 x7"
    game = deal({0: win.DEALER.replace("x1 x3", "x4 x1"), 1: hand}, liang="x4", wall="x7", seed=1)
    play(game, "0 discard x1")
    quiet(game, 18)
    assert isinstance(game.phase, SelfHu)
    play(game, "1 hu")
    return game


BUILDERS: dict[str, tuple[Callable[[], Game], Callable[[Game], bool]]] = {
    "tianhu-forced": (
        _forced_tianhu,
        lambda g: g.result is not None and g.result.win is None and _won(g),
    ),
    "tianhu-liang": (_optional_tianhu, lambda g: _won(g) and 19 in dict(g.seats[1].chou_hu)),
    "popaohu": (_popaohu, lambda g: _won(g) and g.log[-1].card == 19),
    "haidi": (
        _haidi,
        lambda g: g.result is not None and g.result.hu is not None and g.result.hu.score.haidi,
    ),
    "self-win-after-wei": (_self_win_after_wei, _won),
    "chouwei": (lambda: _random_until(_has(EventType.CHOUWEI)), _has(EventType.CHOUWEI)),
    "bi": (lambda: _random_until(_bi), _bi),
    "chongpao": (lambda: _random_until(_chongpao), _chongpao),
    "huangzhuang": (
        lambda: _random_until(_has(EventType.HUANGZHUANG)),
        _has(EventType.HUANGZHUANG),
    ),
    "ti-from-draw": (lambda: _random_until(lambda g: _has(EventType.TI)(g) and _won(g)), _won),
    "random-win-1": (lambda: _random_until(_won), _won),
    "random-win-2": (lambda: _random_until(_won, start=500), _won),
    # Records with their full rule set (F4 ruleset): the four-seat table (R12), a house rule.
    "four-seats": (lambda: _random_until(_won, rules=FOUR), _four_seats),
    "house-rules": (lambda: _random_until(_won_on_a_discard, rules=HOUSE), _won_on_a_discard),
}


def _path(name: str) -> Path:
    return GOLDEN / f"{name}.phz.json"


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_golden_record_replays_to_its_result(name: str) -> None:
    data = json.loads(_path(name).read_text(encoding="utf-8"))
    record = Record.from_json(data)
    assert record.result is not None
    again = replay(record)  # checks the record's result against the replay
    assert again.error is None and again.status == "finished"
    _, feature = BUILDERS[name]
    assert feature(again.game)


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_golden_record_is_what_its_builder_plays(name: str) -> None:
    build, _ = BUILDERS[name]
    stored = json.loads(_path(name).read_text(encoding="utf-8"))
    written = record_of(build()).to_json()
    # Most stored records predate the full rule set in records: they name their preset only.
    assert Record.from_json(written).rule_set == Record.from_json(stored).rule_set
    if "ruleset" not in stored:
        del written["ruleset"]
    assert written == stored


WINS_ON_A_SHOWN_CARD = ["haidi", "popaohu", "random-win-1", "random-win-2", "ti-from-draw"]


@pytest.mark.parametrize("name", WINS_ON_A_SHOWN_CARD)
def test_golden_wins_agree_with_the_reference_evaluator(name: str) -> None:
    game = replay(Record.from_json(json.loads(_path(name).read_text(encoding="utf-8")))).game
    result = game.result
    assert result is not None and result.winner is not None
    hu = result.hu
    assert hu is not None and result.win is not None and not hu.score.tianhu
    assert game.log[-2].type is EventType.SHOW  # won on a card shown from the wall
    # The winner's hand and table are as they were before the winning card.
    seat = result.winner
    table = [(g.type.value, g.cards) for g in game.tables[seat]]
    ref = ref_best_win(game.hand_cards(seat), table, result.win, self_drawn=hu.score.self_drawn)
    assert ref is not None
    fan = ref.fan + (1 if hu.score.haidi else 0)
    assert (ref.huxi, ref.deng, fan) == (hu.huxi, hu.score.deng, hu.score.fan)


if __name__ == "__main__" and "--write" in sys.argv:
    GOLDEN.mkdir(exist_ok=True)
    for key, (builder, _) in sorted(BUILDERS.items()):
        if _path(key).exists() and "--all" not in sys.argv:
            continue  # written already (--all writes them again)
        text = json.dumps(record_of(builder()).to_json(), ensure_ascii=False, indent=1)
        _path(key).write_text(text + "\n", encoding="utf-8")
        print("wrote", _path(key))
