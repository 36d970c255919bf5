"""Golden records (F4): complete hands covering the rules' special cases, replayed by
``replay`` to the identical result. Since the records are written by the engine, they would
keep a scoring error they were written with: every record's result is also worked out again
from RULES.md (issue 21) — the hu-xi, 名堂 and other players' hu-xi by the independent
reference evaluator (tests/reference.py), 等, 番, 底数 and the payments by R10's arithmetic
written out here, never by ``paohuzi.engine.scoring``, ``paohuzi.engine.mingtang`` or ``paohuzi.engine.evaluator``.

The files are written from the builders below: ``python -m tests.test_golden --write``. A
builder either plays a stacked-deck scenario of the test suite or searches seeded random games
for the first one showing its feature.
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from paohuzi.engine.actions import PASS
from paohuzi.engine.cards import KIND_NAMES, parse_cards
from paohuzi.engine.game import EventType, Game
from paohuzi.engine.position import SelfHu
from paohuzi.engine.record import Record, record_of, replay
from paohuzi.engine.rules import HUNAN, RuleSet
from tests import test_game_win as win
from tests.reference import (
    RefGroup,
    group_huxi,
    mingtang,
    ref_best_win,
    ref_current_huxi,
    ref_partial,
    shape,
)
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


# What RULES.md says every golden record's rule set is (R3, R10, R10.1, R12, D1–D3, D23), so
# that the arithmetic below, written out from RULES.md and not read from the engine, applies:
# the preset's values, and the two records made under another rule set with what they change.
R3_HUXI = {
    "run123": [3, 6],
    "run2710": [3, 6],
    "peng": [1, 3],
    "wei": [3, 6],
    "kan": [3, 6],
    "pao": [6, 9],
    "ti": [9, 12],
    "cap": None,
}
R10_1_MINGTANG = [
    {"type": "red_count", "name": "红胡", "low": 10, "high": 12, "value": 2},
    {"type": "red_count", "name": "红乌", "low": 13, "high": 1000, "value": 4},
    {"type": "red_count", "name": "点胡", "low": 1, "high": 1, "value": 3},
    {"type": "red_count", "name": "乌胡", "low": 0, "high": 0, "value": 5},
    {"type": "all_triplets", "name": "对对胡", "value": 4},
    {
        "type": "size_count",
        "name": "大字胡",
        "big": True,
        "threshold": 18,
        "value": 6,
        "per_extra": 1,
    },
    {
        "type": "size_count",
        "name": "小字胡",
        "big": False,
        "threshold": 16,
        "value": 8,
        "per_extra": 1,
    },
]
R12_DEFAULTS = {
    "min_huxi": 15,
    "deng_base": 15,
    "deng_step": 3,
    "self_draw_bonus": 1,
    "tianhu_double": True,
    "haidi_fan": 1,
    "fan_combine": "sum",
    "hu_on_discard": False,
    "players": 3,
    "huxi": R3_HUXI,
    "mingtang": R10_1_MINGTANG,
}
RULE_CHANGES = {
    "four-seats": {"players": 4},
    "house-rules": {"min_huxi": 10, "hu_on_discard": True},
}


@dataclass(frozen=True)
class WinningMoment:
    """The winner's holding just before the winning card, and how it came, read from the log
    and the final hands and tables (the engine's bookkeeping, not its scoring)."""

    seat: int
    hand: list[int]
    table: list[RefGroup]
    win: int | None
    placed_as_own_draw: bool
    """The winner drew the card himself (R9.1.1: a pair or 坎 takes it as 偎 or 提)."""
    self_drawn: bool
    from_discard: bool
    tianhu: bool
    haidi: bool


def _winning_moment(game: Game) -> WinningMoment:
    log = game.log
    assert log[-1].type is EventType.HU
    seat, win = log[-1].seat, log[-1].card
    before = log[-2]
    hand = game.hand_cards(seat)
    table: list[RefGroup] = [(g.type.value, g.cards) for g in game.tables[seat]]
    drawn = before.type in (EventType.SHOW, EventType.WEI)
    if before.type is EventType.LIANG:  # R9.5: either kind of 天胡, at the 亮张
        assert not table
        if win is None:  # R9.5.1, forced: the dealer's 21 cards, the 亮张 among them (D27)
            assert seat == game.dealer and len(hand) == 21
        elif seat == game.dealer:  # R9.5.2: the dealer's 21 dealt cards include the 亮张
            hand.remove(win)
        own = seat == game.dealer
        return WinningMoment(seat, hand, table, win, own, True, False, True, False)
    assert before.card == win
    if before.type is EventType.WEI:
        # R4.1 step 2 then 3: his own draw met a pair in hand; before it, no 偎 and the pair.
        assert before.seat == seat and (win is not None and ("wei", (win,) * 3) in table)
        table.remove(("wei", (win,) * 3))
        hand += [win, win]
    else:
        assert before.type in (EventType.SHOW, EventType.DISCARD), before
    own = drawn and before.seat == seat
    # 海底胡: won on the last card from the wall.
    haidi = drawn and game.wall == 0
    return WinningMoment(
        seat, hand, table, win, own, own, before.type is EventType.DISCARD, False, haidi
    )


def _expected_result(game: Game, rules: dict[str, Any]) -> tuple[dict[str, Any], list[int]]:
    """The F5 result of a finished hand, from RULES.md by the reference evaluator (but the
    winner's groups), and all the winner's cards at the moment of winning."""
    seats = rules["players"]
    # R12: at four seats the seat opposite the dealer sits the hand out.
    sitting = (game.dealer + 2) % seats if seats == 4 else None
    playing = [s for s in range(seats) if s != sitting]
    winner = game.log[-1].seat if game.log[-1].type is EventType.HU else None
    # R10.6: every other player's current total hu-xi, over his final hand and table.
    other_huxi = {
        str(s): ref_current_huxi(
            game.hand_cards(s), [(g.type.value, g.cards) for g in game.tables[s]]
        )
        for s in playing
        if s != winner
    }
    if winner is None:
        # R11: the wall ran out (荒庄); R10.5: a 荒庄 pays nothing; F5: no winner, no score.
        assert game.wall == 0 and game.log[-1].type is EventType.HUANGZHUANG
        assert not any(e.type is EventType.HU for e in game.log)
        return {
            "winner": None,
            "winning_card": None,
            "self_drawn": False,
            "tianhu": False,
            "haidi": False,
            "groups": [],
            "huxi": 0,
            "deng": 0,
            "mingtang": [],
            "fan": 0,
            "score": 0,
            "payments": [0] * seats,
            "other_huxi": other_huxi,
        }, []
    w = _winning_moment(game)
    if w.win is None:
        # R9.5.1 (D3), forced 天胡: the 提 and 坎 plus the best partial decomposition of the rest;
        # 对对胡 only when no card is left but a pair.
        huxi, groups, leftover = ref_partial(w.hand)
        names = mingtang(w.hand, groups, leftover)
        all_cards = [*w.hand]
        groups = [*groups, ("leftover", tuple(leftover))]
    else:
        ref = ref_best_win(
            w.hand,
            w.table,
            w.win,
            self_drawn=w.placed_as_own_draw,
            from_discard=w.from_discard,
            haidi=w.haidi,
            tianhu=w.tianhu,
            min_huxi=rules["min_huxi"],
        )
        assert ref is not None, "the reference finds no win"
        huxi, groups, names = ref.huxi, ref.groups, ref.mingtang
        all_cards = [*w.hand, w.win, *(c for _, cards in w.table for c in cards)]
    # R10.1 (D2): 等 = 1 + (h − deng_base) // deng_step for h ≥ deng_base, else 0 (Hunan's
    # 15 and 3 make it RULES.md's (h − 12) // 3); a 天胡's h counts twice (tianhu_double).
    base, step = rules["deng_base"], rules["deng_step"]
    counted = 2 * huxi if w.tianhu and rules["tianhu_double"] else huxi
    deng = 1 + (counted - base) // step if counted >= base else 0
    # R10.2: 自摸 adds self_draw_bonus (1) 等; both kinds of 天胡 count as 自摸 (R9.5.3).
    self_drawn = w.self_drawn or w.tianhu
    if self_drawn:
        deng += rules["self_draw_bonus"]
    # R10.3 (fan_combine "sum", D23): 番 is the sum of the 名堂's 番, 1 for 平胡 (no 名堂);
    # 海底胡 adds haidi_fan (1) after (D1).
    assert rules["fan_combine"] == "sum"
    fan = sum(f for _, f in names) if names else 1
    if w.haidi:
        fan += rules["haidi_fan"]
    # R10.4: 底数 = 等 × 番. R10.5: each other player of the hand pays it to the winner, who gets
    # it from each; a seat sitting the hand out (R12) neither pays nor is paid.
    points = deng * fan
    payments = [0] * seats
    for s in playing:
        payments[s] = points * (len(playing) - 1) if s == w.seat else -points
    # The reference's arrangement holds exactly the winner's cards.
    assert Counter(all_cards) == Counter(c for _, cards in groups for c in cards)
    return {
        "winner": w.seat,
        "winning_card": None if w.win is None else KIND_NAMES[w.win],
        "self_drawn": self_drawn,
        "tianhu": w.tianhu,
        "haidi": w.haidi,
        "huxi": huxi,
        "deng": deng,
        "mingtang": [{"name": n, "fan": f} for n, f in names],
        "fan": fan,
        "score": points,
        "payments": payments,
        "other_huxi": other_huxi,
    }, all_cards


def _group_of(text: str) -> RefGroup:
    gtype, _, cards = text.partition(":")
    return gtype, tuple(sorted(parse_cards(cards)))


def _is_group(group: RefGroup) -> bool:
    """R3: the shape a group of this type has."""
    gtype, cards = group
    same = len(set(cards)) == 1
    sizes = {"pair": 2, "peng": 3, "wei": 3, "chouwei": 3, "kan": 3, "pao": 4, "ti": 4}
    if gtype in sizes:
        return same and len(cards) == sizes[gtype]
    if len(cards) != 3:
        return False
    found = shape(cards)
    return found == {"run": "seq", "jiao": "jiao"}.get(gtype, found) and found is not None


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_golden_results_from_first_principles(name: str) -> None:
    """Every golden record's result, re-scored from RULES.md: the winner's holding from the
    replay, its hu-xi, 名堂 and other players' hu-xi by the brute-force reference evaluator
    (tests/reference.py), 等, 番, 底数 and payments by R10's arithmetic written out above."""
    data = json.loads(_path(name).read_text(encoding="utf-8"))
    record = Record.from_json(data)
    rules = record.rule_set.to_json()
    wanted = {**R12_DEFAULTS, **RULE_CHANGES.get(name, {})}
    assert {key: rules[key] for key in wanted} == wanted
    again = replay(record)
    assert again.error is None and again.game.is_over
    stored = data["result"]
    expected, all_cards = _expected_result(again.game, rules)
    stored_groups = [_group_of(g) for g in stored["groups"]]
    del (shown := dict(stored))["groups"]
    if stored["winner"] is None:
        assert stored == expected
        return
    assert shown == expected
    # The arrangement shown (R10.6) is one of the reference's best: each group well formed,
    # its hu-xi the total, and (but for a forced 天胡's leftovers) exactly the winner's cards.
    assert all(map(_is_group, stored_groups)), stored["groups"]
    assert sum(map(group_huxi, stored_groups)) == expected["huxi"]
    shown_cards = Counter(c for _, cards in stored_groups for c in cards)
    if expected["winning_card"] is not None:
        assert len(stored_groups) == 7 and shown_cards == Counter(all_cards)
    else:
        assert not shown_cards - Counter(all_cards)


if __name__ == "__main__" and "--write" in sys.argv:
    GOLDEN.mkdir(exist_ok=True)
    for key, (builder, _) in sorted(BUILDERS.items()):
        if _path(key).exists() and "--all" not in sys.argv:
            continue  # written already (--all writes them again)
        text = json.dumps(record_of(builder()).to_json(), ensure_ascii=False, indent=1)
        _path(key).write_text(text + "\n", encoding="utf-8")
        print("wrote", _path(key))
