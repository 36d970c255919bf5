"""Text for people: events, settlement windows."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from paohuzi.cards import KIND_NAMES
from paohuzi.game import Event, EventType, GameResult

_VERBS = {
    EventType.DEAL: "deals",
    EventType.LIANG: "shows the 亮张",
    EventType.DRAW: "draws",
    EventType.SHOW: "shows",
    EventType.TI: "提 (ti)",
    EventType.WEI: "偎 (wei)",
    EventType.CHOUWEI: "臭偎 (chouwei)",
    EventType.PAO: "跑 (pao)",
    EventType.CHI: "吃 (chi)",
    EventType.PENG: "碰 (peng)",
    EventType.DISCARD: "discards",
    EventType.PASSED: "— nobody takes",
    EventType.HU: "胡 (wins)",
    EventType.HUANGZHUANG: "荒庄: the wall is empty, nobody wins",
}


def describe(event: Event) -> str:
    """One line for an event; a hidden card (another seat's 偎 or unshown draw) shows as ?."""
    if event.type is EventType.HUANGZHUANG:
        return _VERBS[event.type]
    text = f"seat {event.seat} {_VERBS[event.type]}"
    if event.type in (EventType.CHI, EventType.PENG, EventType.PAO) and event.groups:
        text += " " + " ".join(str(g) for g in event.groups)
        if event.card is not None and event.type is EventType.CHI:
            text += f" taking {KIND_NAMES[event.card]}"
    elif event.type is EventType.HU:
        text += f" on {KIND_NAMES[event.card]}" if event.card is not None else " (必需天胡)"
    elif event.type is not EventType.DEAL:
        text += " " + (KIND_NAMES[event.card] if event.card is not None else "?")
    return text


def print_settlement(console: Console, result: GameResult, totals: list[int] | None = None) -> None:
    """The settlement window (R10.6): the winner's groups with hu-xi, the figures, payments and
    the other players' current hu-xi."""
    hu = result.hu
    if result.winner is None or hu is None:
        console.print("[bold]荒庄[/bold] — a draw: nobody pays.")
    else:
        score = hu.score
        how = [
            name
            for name, on in (
                ("自摸", score.self_drawn),
                ("天胡", score.tianhu),
                ("海底胡", score.haidi),
            )
            if on
        ]
        card = f" on {KIND_NAMES[hu.win]}" if hu.win is not None else ""
        console.print(f"[bold]Seat {result.winner} wins{card}[/bold] {' '.join(how)}")
        table = Table("group", "胡息", box=None, padding=(0, 2))
        for group, huxi in zip(hu.groups, hu.group_huxi, strict=True):
            table.add_row(str(group), str(huxi))
        if hu.leftover:
            table.add_row("left over: " + " ".join(KIND_NAMES[k] for k in hu.leftover), "0")
        console.print(table)
        names = ", ".join(f"{n} {f}番" for n, f in score.mingtang) or "平胡"
        bonus = " (incl. 自摸 +1)" if score.self_drawn else ""
        console.print(f"胡息 {score.huxi}   等 {score.deng}{bonus}   {names}   番 {score.fan}")
        console.print(f"底数 {score.points}")
    paid = "   ".join(f"seat {s}: {p:+d}" for s, p in enumerate(result.payments))
    console.print(f"payments   {paid}")
    others = "   ".join(f"seat {s}: {h}" for s, h in sorted(result.other_huxi.items()))
    console.print(f"current hu-xi of the others   {others}")
    if totals is not None:
        console.print(
            "match total   " + "   ".join(f"seat {s}: {t:+d}" for s, t in enumerate(totals))
        )
