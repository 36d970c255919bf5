"""Text for people: events, settlement windows, the console that prints them."""

from __future__ import annotations

import re
import sys
from typing import Literal

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from paohuzi.cli import prompt
from paohuzi.engine.cards import GLYPHS, KIND_NAMES
from paohuzi.engine.game import Event, EventType, GameResult
from paohuzi.engine.groups import Group, GroupType
from paohuzi.engine.observation import SeenGroup

Lang = Literal["en", "zh", "both"]
"""The language of a terminal's own words: English, Chinese, or both (Chinese first)."""


def words(lang: Lang, zh: str, en: str) -> str:
    """The words in ``lang``; both: the Chinese, then the English."""
    if lang == "both":
        return f"{zh} / {en}"
    return zh if lang == "zh" else en


REASONS_ZH: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), zh)
    for pattern, zh in (
        (r"it is not seat (\d+)'s turn \(seat (\d+) is to act\)", r"还没轮到\1号位（该\2号位）"),
        (r"it is not seat (\d+)'s turn \(nobody is to act\)", r"还没轮到\1号位（谁也不该出手）"),
        (r"the hand is over", "这一局已经结束"),
        (r"the record's result differs from the replay's: (.*)", r"记录里的结果和重放的不一样：\1"),
        (r"nobody is asked yet: the card is on offer \(resume the game\)", "牌刚亮出，还没问谁要"),
        (r"seat (\d+) has no winning hand \(an unchecked position\)", r"\1号位没有胡牌"),
        (r"the game is not stopped at a card on offer", "牌局没有停在亮出的牌上"),
        (r"seat (\d+) must discard a card", r"\1号位该出牌"),
        (r"seat (\d+) has no (\S+) in hand", r"\1号位手里没有\2"),
        (
            r"seat (\d+) may not discard (\S+): it belongs to a 坎 \(R3\)",
            r"\1号位不能打\2：它在坎里（R3）",
        ),
        (r"seat (\d+) may only hu or pass now", r"\1号位现在只能胡或过"),
        (r"seat (\d+) cannot discard now: (\S+) is on offer", r"\1号位现在不能出牌：\2正亮着"),
        (r"seat (\d+) has no pair of (\S+)", r"\1号位没有一对\2"),
        (r"seat (\d+) may not peng (\S+) \(R7\.1, R6\.2\)", r"\1号位不能碰\2（R7.1、R6.2）"),
        (r"seat (\d+) cannot win on (\S+)", r"\1号位不能胡\2"),
        (r"seat (\d+) cannot chi (\S+) that way \(R7\)", r"\1号位不能这样吃\2（R7）"),
        (r"(.+) is not allowed now", r"现在不能\1"),
        (r"unknown card (.+)", r"没有这种牌：\1"),
        (r"expected one card, got (.+)", r"应该是一张牌：\1"),
        (
            r"unknown action (\S+) \(discard, chi, peng, hu, pass\)",
            r"没有这种动作：\1（discard、chi、peng、hu、pass）",
        ),
        (r"empty action", "动作是空的"),
        (r"an action starts with its seat number: (.+)", r"动作要以座位号开头：\1"),
        (r"discard takes one card: discard x5", "discard 后面跟一张牌：discard x5"),
        (
            r"chi takes its group: chi x1x2x3 \[比 groups\]",
            "chi 后面跟吃成的一句：chi x1x2x3 [比的牌组]",
        ),
        (r"(\w+) takes no cards", r"\1 后面不跟牌"),
        (r"(.+) is neither a sequence nor a 绞", r"\1既不是一句话也不是绞"),
    )
)
"""The engine's reasons for refusing an action or its text (IllegalAction, NotationError), in
Chinese: the engine speaks English (its messages are part of its API), the terminal both."""


def reason(lang: Lang, message: str) -> str:
    """The engine's ``message`` in ``lang`` (:data:`REASONS_ZH`); a message it does not know
    stays as the engine said it."""
    for pattern, zh in REASONS_ZH:
        if pattern.fullmatch(message):
            return words(lang, pattern.sub(zh, message), message)
    return message


PIPE_WIDTH = 1000
"""Columns of standard output when it is not a terminal: wide enough that no table is cut."""


def out_console() -> Console:
    """A console on standard output, whose prints a Ctrl-C does not break
    (:class:`paohuzi.cli.prompt.Console`). On a terminal, rich fits the text to its width; into a
    pipe or a file a line is as long as it needs to be (rich would fit it to 80 columns,
    wrapping cells and cutting bot names with an ellipsis)."""
    if sys.stdout.isatty():
        return prompt.Console(highlight=False)
    return prompt.Console(highlight=False, width=PIPE_WIDTH, soft_wrap=True)


RELATIVE = (("你", "you"), ("下家", "Right"), ("对家", "Across"), ("上家", "Left"))
"""A seat named from the player, as the web table names it (static/i18n.js): you, the player
on your right who plays after you, the one opposite (four seats), the one on your left."""


def relative_names(you: int, seats: int) -> tuple[dict[int, str], dict[int, str]]:
    """Each seat of a ``seats``-seat table named from seat ``you``: Chinese, English."""
    zh: dict[int, str] = {}
    en: dict[int, str] = {}
    for seat in range(seats):
        r = (seat - you) % seats
        zh[seat], en[seat] = RELATIVE[3 if r == seats - 1 and r else r]
    return zh, en


# A meld made from the player's own cards: the kind is named after "of".
_MADE = {
    EventType.TI: "a 提 (ti)",
    EventType.WEI: "a 偎 (wei)",
    EventType.CHOUWEI: "a 臭偎 (chouwei)",
    EventType.PAO: "a 跑 (pao)",
}


def describe(event: Event, you: int | None = None, names: dict[int, str] | None = None) -> str:
    """One sentence for an event, with seat ``you`` (if any) as "you" and the others by
    ``names`` (default "seat 1"); a card hidden from the reader (another seat's draw or 偎) is
    not named."""
    if event.type is EventType.HUANGZHUANG:
        return "荒庄 (huangzhuang): the wall is empty and nobody wins"
    card = KIND_NAMES[event.card] if event.card is not None else None
    if event.type is EventType.PASSED:
        whose = "your" if event.seat == you else f"{_named(event.seat, names)}'s"
        return f"nobody takes {card}; it goes to {whose} discards"
    subject = "you" if event.seat == you else _named(event.seat, names)

    def verb(base: str) -> str:
        # "you discard", "seat 1 discards": every verb used here takes a plain -s.
        return base if event.seat == you else base + "s"

    if event.type is EventType.DEAL:
        return f"{subject} {verb('deal')}"
    if event.type is EventType.LIANG:
        return f"{subject} {verb('show')} the 亮张 {card}"
    if event.type is EventType.DRAW:
        return f"{subject} {verb('draw')} {card or 'a card'}"
    if event.type is EventType.SHOW:
        return f"{subject} {verb('show')} {card}"
    if event.type is EventType.DISCARD:
        return f"{subject} {verb('discard')} {card}"
    if event.type in _MADE:
        what = f"{_MADE[event.type]} of {card}" if card else f"{_MADE[event.type]}, face down"
        return f"{subject} {verb('make')} {what}"
    if event.type is EventType.PENG:
        return f"{subject} {verb('take')} {card} for a 碰 (peng)"
    if event.type is EventType.CHI:
        take, *bis = ("".join(KIND_NAMES[k] for k in g.cards) for g in event.groups)
        text = f"{subject} {verb('take')} {card} for a 吃 (chi) {take}"
        return text + (f" with 比 (bi) {' '.join(bis)}" if bis else "")
    assert event.type is EventType.HU
    how = f"胡 (hu) on {card}" if card else "必需天胡 (bixu tianhu)"
    return f"{subject} {verb('win')} with {how}"


def _named(seat: int, names: dict[int, str] | None) -> str:
    return names[seat] if names is not None else f"seat {seat}"


_MADE_ZH = {
    EventType.TI: "提",
    EventType.WEI: "偎",
    EventType.CHOUWEI: "臭偎",
    EventType.PAO: "跑",
}


def describe_zh(event: Event, you: int | None = None, names: dict[int, str] | None = None) -> str:
    """:func:`describe` in Chinese (the others by ``names``, default "1号位")."""
    if event.type is EventType.HUANGZHUANG:
        return "荒庄：墩上的牌摸完了，没人胡"
    card = f"{GLYPHS[event.card]}{KIND_NAMES[event.card]}" if event.card is not None else None
    if event.seat == you:
        subject = "你"
    else:
        subject = names[event.seat] if names is not None else f"{event.seat}号位"
    if event.type is EventType.PASSED:
        return f"没人要{card}，放到{subject}的牌前"
    if event.type is EventType.DEAL:
        return f"{subject}发牌"
    if event.type is EventType.LIANG:
        return f"{subject}亮出亮张{card}"
    if event.type is EventType.DRAW:
        return f"{subject}摸了{card or '一张牌'}"
    if event.type is EventType.SHOW:
        return f"{subject}亮出{card}"
    if event.type is EventType.DISCARD:
        return f"{subject}打出{card}"
    if event.type in _MADE_ZH:
        made = _MADE_ZH[event.type]
        return f"{subject}{made}了{card}" if card else f"{subject}{made}了一张牌（扣着）"
    if event.type is EventType.PENG:
        return f"{subject}碰了{card}"
    if event.type is EventType.CHI:
        take, *bis = ("".join(KIND_NAMES[k] for k in g.cards) for g in event.groups)
        return f"{subject}吃{card}，组成{take}" + (f"，比{' '.join(bis)}" if bis else "")
    assert event.type is EventType.HU
    return f"{subject}胡{card}" if card else f"{subject}必需天胡"


GROUP_ZH = {
    GroupType.CHI: "吃",
    GroupType.PENG: "碰",
    GroupType.WEI: "偎",
    GroupType.CHOUWEI: "臭偎",
    GroupType.PAO: "跑",
    GroupType.TI: "提",
    GroupType.RUN: "一句话",
    GroupType.JIAO: "绞",
    GroupType.KAN: "坎",
    GroupType.PAIR: "将",
}
"""The Chinese name of each F2 group type."""


def group_text(group: Group | SeenGroup, lang: Lang = "en") -> str:
    """A group as F2 writes it (``chi:x1x2x3``), in Chinese the type's Chinese name
    (``吃:x1x2x3``), in both the Chinese name before the English (``吃chi:x1x2x3``, one word so
    that a line never breaks inside a group): the card notation stays."""
    text = str(group)
    if lang == "en":
        return text
    return GROUP_ZH[group.type] + (text if lang == "both" else text[len(group.type.value) :])


MINGTANG_EN = {
    "红胡": "Red (10–12 red cards)",
    "红乌": "Deep red (13+ red cards)",
    "点胡": "One red",
    "乌胡": "No red",
    "对对胡": "No runs",
    "大字胡": "Big cards",
    "小字胡": "Small cards",
}
"""The presets' 名堂 in English, as the web table names them (a rule set's own keep their
names)."""


def print_settlement(
    console: Console,
    result: GameResult,
    totals: list[int] | None = None,
    lang: Lang = "en",
    you: int | None = None,
) -> None:
    """The settlement window (R10.6): the winner's groups with hu-xi, the figures, payments and
    the other players' current hu-xi, in ``lang``; the seats named from seat ``you`` (你, 下家,
    上家, 对家) when given, else by number."""

    def w(zh: str, en: str) -> str:
        return words(lang, zh, en)

    relative = None if you is None else relative_names(you, len(result.payments))

    def seat_names(s: int) -> tuple[str, str]:
        if relative is not None:
            return relative[0][s], relative[1][s]
        return f"{s}号位", f"seat {s}"

    def seat(s: int) -> str:
        return w(*seat_names(s))

    hu = result.hu
    if result.winner is None or hu is None:
        console.print(
            f"[bold]{w('荒庄 — 没人胡，谁也不付', 'Draw — nobody wins, nobody pays')}[/bold]"
        )
    else:
        score = hu.score
        how = [
            w(zh, en)
            for zh, en, on in (
                ("自摸", "self-drawn", score.self_drawn),
                ("天胡", "heavenly hand", score.tianhu),
                ("海底胡", "last card", score.haidi),
            )
            if on
        ]
        zh, en = seat_names(result.winner)
        en = "You win" if result.winner == you else f"{en[0].upper()}{en[1:]} wins"
        if hu.win is not None:
            card = KIND_NAMES[hu.win]
            line = w(f"{zh}胡{GLYPHS[hu.win]}{card}", f"{en} on {card}")
        else:
            line = w(f"{zh}胡了", en)
        console.print(f"[bold]{line}[/bold] {' '.join(how)}")
        table = Table(w("组", "group"), w("胡息", "hu-xi"), box=None, padding=(0, 2))
        for group, huxi in zip(hu.groups, hu.group_huxi, strict=True):
            table.add_row(group_text(group, lang), str(huxi))
        if hu.leftover:
            left = " ".join(KIND_NAMES[k] for k in hu.leftover)
            table.add_row(w("剩下的牌", "left over") + ": " + left, "0")
        console.print(table)
        # a rule set's own 名堂 are named by its author: text, not markup
        zh_names = ", ".join(f"{n} {f}番" for n, f in score.mingtang) or "平胡"
        en_names = ", ".join(f"{MINGTANG_EN.get(n, n)}: {f} fan" for n, f in score.mingtang)
        bonus = ("（含自摸 +1）", " (incl. self-drawn +1)") if score.self_drawn else ("", "")
        figures = (
            f"胡息 {score.huxi}   等 {score.deng}{bonus[0]}   {zh_names}   番 {score.fan}",
            f"hu-xi {score.huxi}   deng {score.deng}{bonus[1]}   {en_names or 'plain'}"
            f"   fan {score.fan}",
        )
        console.print(escape(w(*figures)))
        console.print(w(f"底数 {score.points}", f"points {score.points}"))
    paid = "   ".join(f"{seat(s)}: {p:+d}" for s, p in enumerate(result.payments))
    console.print(f"{w('输赢', 'payments')}   {paid}")
    # Every seat but the winner's, the player's own among them: "the others" would read as
    # the player's opponents.
    others = "   ".join(f"{seat(s)}: {h}" for s, h in sorted(result.other_huxi.items()))
    if result.winner is None:
        label = w("各家现在的胡息", "current hu-xi of every seat")
    else:
        label = w("没胡的各家现在的胡息", "current hu-xi of the seats that did not win")
    console.print(f"{label}   {others}")
    if totals is not None:
        console.print(
            f"{w('总分', 'match total')}   "
            + "   ".join(f"{seat(s)}: {t:+d}" for s, t in enumerate(totals))
        )
