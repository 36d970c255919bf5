"""The table log's sentences (issue 17): one per event, for the reader's seat and the others."""

from __future__ import annotations

import io
import re
from dataclasses import replace

import pytest
from rich.console import Console

from paohuzi.bots import GreedyBot, play_hand
from paohuzi.cli.render import (
    GROUP_ZH,
    Lang,
    describe,
    describe_zh,
    group_text,
    print_settlement,
    relative_names,
)
from paohuzi.engine.game import Event, EventType, Game, GameResult
from paohuzi.engine.groups import GroupType
from paohuzi.engine.observation import SeenGroup
from paohuzi.engine.rules import HUNAN
from tests.helpers import G, K

# (event, as seat 1 reads it, as seat 0 reads it)
SENTENCES = [
    (Event(EventType.DEAL, 1), "you deal", "seat 1 deals"),
    (Event(EventType.LIANG, 1, K("x8")), "you show the 亮张 x8", "seat 1 shows the 亮张 x8"),
    (Event(EventType.DRAW, 1, K("d6")), "you draw d6", "seat 1 draws d6"),
    (Event(EventType.DRAW, 1), "you draw a card", "seat 1 draws a card"),
    (Event(EventType.SHOW, 1, K("x10")), "you show x10", "seat 1 shows x10"),
    (Event(EventType.DISCARD, 1, K("d3")), "you discard d3", "seat 1 discards d3"),
    (
        Event(EventType.PASSED, 1, K("d6")),
        "nobody takes d6; it goes to your discards",
        "nobody takes d6; it goes to seat 1's discards",
    ),
    (Event(EventType.TI, 1, K("x5")), "you make a 提 (ti) of x5", "seat 1 makes a 提 (ti) of x5"),
    (
        Event(EventType.WEI, 1, K("x5")),
        "you make a 偎 (wei) of x5",
        "seat 1 makes a 偎 (wei) of x5",
    ),
    (
        Event(EventType.WEI, 1),
        "you make a 偎 (wei), face down",
        "seat 1 makes a 偎 (wei), face down",
    ),
    (
        Event(EventType.CHOUWEI, 1, K("d2")),
        "you make a 臭偎 (chouwei) of d2",
        "seat 1 makes a 臭偎 (chouwei) of d2",
    ),
    (
        Event(EventType.PAO, 1, K("x6"), (G("pao:x6x6x6x6"),)),
        "you make a 跑 (pao) of x6",
        "seat 1 makes a 跑 (pao) of x6",
    ),
    (
        Event(EventType.PENG, 1, K("d5"), (G("peng:d5d5d5"),)),
        "you take d5 for a 碰 (peng)",
        "seat 1 takes d5 for a 碰 (peng)",
    ),
    (
        Event(EventType.CHI, 1, K("x2"), (G("chi:x2x7x10"),)),
        "you take x2 for a 吃 (chi) x2x7x10",
        "seat 1 takes x2 for a 吃 (chi) x2x7x10",
    ),
    (
        Event(EventType.CHI, 1, K("x3"), (G("chi:x1x2x3"), G("chi:x2x3x4"))),
        "you take x3 for a 吃 (chi) x1x2x3 with 比 (bi) x2x3x4",
        "seat 1 takes x3 for a 吃 (chi) x1x2x3 with 比 (bi) x2x3x4",
    ),
    (
        Event(EventType.HU, 1, K("d1")),
        "you win with 胡 (hu) on d1",
        "seat 1 wins with 胡 (hu) on d1",
    ),
    (
        Event(EventType.HU, 1),
        "you win with 必需天胡 (bixu tianhu)",
        "seat 1 wins with 必需天胡 (bixu tianhu)",
    ),
    (
        Event(EventType.HUANGZHUANG, 1),
        "荒庄 (huangzhuang): the wall is empty and nobody wins",
        "荒庄 (huangzhuang): the wall is empty and nobody wins",
    ),
]


@pytest.mark.parametrize("event, yours, theirs", SENTENCES, ids=lambda v: getattr(v, "type", ""))
def test_every_event_reads_as_a_sentence(event: Event, yours: str, theirs: str) -> None:
    assert describe(event, you=1) == yours
    assert describe(event, you=0) == theirs
    assert describe(event) == theirs  # a replay, read by nobody in particular


def test_every_event_type_has_its_sentence() -> None:
    assert {event.type for event, _, _ in SENTENCES} == set(EventType)


def test_a_group_reads_with_its_type_in_chinese_and_its_cards_in_f2() -> None:
    assert set(GROUP_ZH) == set(GroupType)
    assert group_text(G("chi:x1x2x3")) == "chi:x1x2x3"
    assert group_text(G("chi:x1x2x3"), "zh") == "吃:x1x2x3"
    assert group_text(G("run:d2d7d10"), "zh") == "一句话:d2d7d10"
    assert group_text(G("chouwei:x5x5x5"), "zh") == "臭偎:x5x5x5"
    assert group_text(SeenGroup(GroupType.WEI, None), "zh") == "偎:?"  # face down to others
    # both: the Chinese name, then F2's English, one word (a line never breaks inside it)
    assert group_text(G("peng:d9d9d9"), "both") == "碰peng:d9d9d9"
    assert group_text(SeenGroup(GroupType.WEI, None), "both") == "偎wei:?"


def test_seats_named_from_the_player_as_the_web_table_names_them() -> None:
    """下家 plays after you (on your right), 上家 before you, 对家 across at four seats."""
    assert relative_names(0, 3) == (
        {0: "你", 1: "下家", 2: "上家"},
        {0: "you", 1: "Right", 2: "Left"},
    )
    zh, en = relative_names(1, 4)
    assert zh == {1: "你", 2: "下家", 3: "对家", 0: "上家"}
    assert en == {1: "you", 2: "Right", 3: "Across", 0: "Left"}


def test_an_event_reads_with_the_seats_named_from_the_player() -> None:
    zh, en = relative_names(0, 3)
    assert describe(Event(EventType.DRAW, 1), you=0, names=en) == "Right draws a card"
    assert describe(Event(EventType.PASSED, 2, K("d6")), you=0, names=en) == (
        "nobody takes d6; it goes to Left's discards"
    )
    assert describe(Event(EventType.DISCARD, 0, K("x3")), you=0, names=en) == "you discard x3"
    assert describe_zh(Event(EventType.DISCARD, 2, K("x3")), you=0, names=zh) == "上家打出三x3"
    assert describe_zh(Event(EventType.DISCARD, 2, K("x3")), you=0) == "2号位打出三x3"


def _won(players: int, dealer: int) -> GameResult:
    """The first seeded hand of greedy bots that somebody wins."""
    rules = replace(HUNAN, players=players)
    for seed in range(200):
        game = Game(rules, dealer=dealer, seed=seed)
        play_hand(game, [GreedyBot() for _ in range(players)])
        assert game.result is not None
        if game.result.winner is not None:
            return game.result
    raise AssertionError("no hand won")


def _settlement(result: GameResult, lang: Lang, you: int | None) -> str:
    out = io.StringIO()
    console = Console(file=out, width=200, color_system=None)
    print_settlement(console, result, [0] * len(result.payments), lang, you=you)
    return out.getvalue()


@pytest.mark.parametrize("players, dealer", [(3, 0), (4, 1)])
def test_the_settlement_names_the_seats_from_the_player(players: int, dealer: int) -> None:
    """`paohuzi play`'s settlement (D164): the winner, the payments, the others' hu-xi and the
    match score name each seat from the player, in both languages; without a player (replay),
    by number."""
    result = _won(players, dealer)
    winner = result.winner
    assert winner is not None
    other = (winner + 1) % players  # the seat after the winner: he is its 上家 / Left
    zh = _settlement(result, "zh", other)
    en = _settlement(result, "en", other)
    both = _settlement(result, "both", winner)
    assert zh.startswith("上家胡") and en.startswith("Left wins")
    assert both.startswith("你胡") and "/ You win" in both.splitlines()[0]
    for text, names in (
        (zh, relative_names(other, players)[0]),
        (en, relative_names(other, players)[1]),
    ):
        for seat, paid in enumerate(result.payments):
            paid_line = re.escape(f"{names[seat]}: {paid:+d}")
            assert re.search(rf"(^|\s){paid_line}(\s|$)", text, re.M), (names[seat], text)
        assert not re.search(r"\d号位|[Ss]eat \d", text)
    numbered = _settlement(result, "en", None)
    assert numbered.startswith(f"Seat {winner} wins") and f"seat {other}: " in numbered


@pytest.mark.parametrize("lang", ["en", "zh", "both"])
def test_the_hu_xi_line_lists_every_seat_but_the_winner_the_player_too(lang: Lang) -> None:
    """The settlement's last hu-xi line (R10.6) is of the seats that did not win: when another
    seat wins, the player is among them, named 你/you, and the label does not say "the others"
    (which reads as the player's opponents)."""
    result = _won(3, 0)
    winner = result.winner
    assert winner is not None
    you = (winner + 1) % 3
    zh, en = relative_names(you, 3)
    lines = _settlement(result, lang, you).splitlines()
    line = lines[next(i for i, li in enumerate(lines) if li.startswith(("payments", "输赢"))) + 1]
    label = {
        "en": "current hu-xi of the seats that did not win",
        "zh": "没胡的各家现在的胡息",
        "both": "没胡的各家现在的胡息 / current hu-xi of the seats that did not win",
    }[lang]
    assert line.startswith(label + "   ")
    for seat in range(3):
        name = {"en": en[seat], "zh": zh[seat], "both": f"{zh[seat]} / {en[seat]}"}[lang]
        if seat == winner:
            assert f"{name}: " not in line
        else:
            assert f"{name}: {result.other_huxi[seat]}" in line
