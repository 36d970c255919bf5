"""``paohuzi play``: a person plays a match against bots in the terminal."""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.measure import Measurement
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from paohuzi.bots import Bot
from paohuzi.bots.base import tell
from paohuzi.bots.loader import close_bot, describe_specs, load_bot
from paohuzi.bots.protocol import SubprocessBot
from paohuzi.cli.argtypes import whole
from paohuzi.cli.prompt import Console, ask, interactive
from paohuzi.cli.render import (
    Lang,
    describe,
    describe_zh,
    group_text,
    print_settlement,
    relative_names,
    words,
)
from paohuzi.cli.simulate import add_players_argument, rules_of
from paohuzi.engine.actions import Action, ActionType
from paohuzi.engine.cards import (
    GLYPHS,
    KIND_NAMES,
    RED_KINDS,
    Kind,
    NotationError,
    make_kind,
    parse_kind,
)
from paohuzi.engine.game import Game, Source
from paohuzi.engine.groups import SET_SIZE, Group
from paohuzi.engine.match import Match
from paohuzi.engine.observation import Observation, SeenGroup, observe
from paohuzi.engine.position import Over
from paohuzi.engine.record import record_of
from paohuzi.engine.rules import PRESETS, RuleSet


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "play",
        help="play against bots in the terminal",
        description="Play a match of Hunan Paohuzi against computer players.",
    )
    parser.add_argument(
        "--bots",
        help=f"the opponents, one a seat: {describe_specs()} (default: greedy at each)",
    )
    parser.add_argument("--seed", type=int, help="seed of the deals (default: random)")
    parser.add_argument("--dealer", type=int, help="first dealer (default: random)")
    parser.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    parser.add_argument(
        "--hands", type=whole(0), default=0, help="stop after this many hands (0: ask)"
    )
    parser.add_argument("--rules", choices=sorted(PRESETS), default="hunan")
    add_players_argument(parser)
    parser.add_argument("--save-dir", default=".", help="where a saved record goes (default .)")
    parser.add_argument(
        "--lang",
        choices=("both", "zh", "en"),
        default="both",
        help="the language of the table's words (default both, Chinese first)",
    )
    parser.set_defaults(run=run)


def _card(kind: Kind, lit: frozenset[Kind] = frozenset()) -> str:
    """A card as its glyph and name; a card in ``lit`` (a lesson's highlight) in reverse video,
    marked with * for a terminal without colour."""
    style = "red" if kind in RED_KINDS else "bold"
    if kind in lit:
        return f"[reverse {style}]{GLYPHS[kind]}{KIND_NAMES[kind]}*[/reverse {style}]"
    return f"[{style}]{GLYPHS[kind]}[/{style}]{KIND_NAMES[kind]}"


def _opponents(spec: str, seed: int | None, rules: RuleSet) -> list[Bot]:
    names = [n.strip() for n in spec.split(",")]
    if len(names) != rules.players - 1:
        raise ValueError(
            f"--bots 要 {rules.players - 1} 个对手，不是 {len(names)} 个 / "
            f"--bots takes {rules.players - 1} opponents, not {len(names)}"
        )
    bots: list[Bot] = []
    try:
        for i, name in enumerate(names):
            bots.append(load_bot(name, None if seed is None else seed + i))
    except ValueError:
        # The first opponent may be a program already running: it must not outlive us.
        _close(bots)
        raise
    return bots


def _close(bots: list[Bot]) -> None:
    for bot in bots:
        close_bot(bot)


class Leave(Exception):
    """The player typed q at a prompt: the match ends as it does on Ctrl-C."""


QUIT = frozenset({"q", "quit"})

INVALID = 100
"""Answers in a row that choose nothing (invalid ones, hints) after which a player who is not at
a terminal (a script, a pipe) leaves as on q: input that loops would never choose."""


def named_discard(answer: str, legal: list[Kind], hand: tuple[int, ...], lang: Lang = "en") -> Kind:
    """The card a typed name (``x9``, ``九``, ``玖``, or ``9`` when only one of x9 and d9 may go)
    asks to discard; ValueError says why there is none (in ``lang``)."""

    def refuse(zh: str, en: str) -> ValueError:
        return ValueError(words(lang, zh, en))

    if answer.isdecimal():
        rank = int(answer)
        if not 1 <= rank <= 10:
            raise refuse(
                f"没有 {answer} 这张牌：牌是 1 到 10",
                f"there is no card {answer}: cards go from 1 to 10",
            )
        small, big = make_kind(rank, big=False), make_kind(rank, big=True)
        allowed = [k for k in (small, big) if k in legal]
        if len(allowed) == 1:
            return allowed[0]
        s, b = KIND_NAMES[small], KIND_NAMES[big]
        if allowed:
            raise refuse(
                f"{answer} 可以是 {s} 或 {b}：请打 {s}（{GLYPHS[small]}）或 {b}（{GLYPHS[big]}）",
                f"{answer} could be {s} or {b}: type {s} ({GLYPHS[small]}) or {b} ({GLYPHS[big]})",
            )
        if hand[small] == hand[big] == 0:
            raise refuse(f"你没有 {s} 也没有 {b}", f"you have no {s} or {b}")
        raise refuse(f"{s} 和 {b} 现在都不能打", f"neither {s} nor {b} may be discarded now")
    try:
        kind = parse_kind(answer)
    except NotationError:
        raise refuse(
            "请输入要打的牌（x9、d9、九 或 9），h 提示，q 退出",
            "type a card to discard (x9, d9, 九 or 9), h for a hint or q to quit",
        ) from None
    if kind in legal:
        return kind
    if hand[kind] == 0:
        raise refuse(f"你没有 {KIND_NAMES[kind]}", f"you have no {KIND_NAMES[kind]}")
    # A 坎 is locked in hand (R3) until only 坎 are left (R6.3): the engine did not offer it.
    raise refuse(
        f"{KIND_NAMES[kind]} 在坎里，现在不能打",
        f"{KIND_NAMES[kind]} belongs to a 坎 (kan) and may not be discarded now",
    )


class TerminalTable:
    """The terminal table: shows one seat's view and reads that seat's choices."""

    def __init__(
        self, console: Console, seat: int, lang: Lang = "en", relative: bool = False
    ) -> None:
        """``lang``: the table's own words in English, Chinese or both (Chinese first);
        ``relative``: name the other seats from ``seat`` (下家/Right, 上家/Left, 对家/Across, as
        the web table and the lessons do) instead of by number."""
        self.console = console
        self.seat = seat
        self.lang = lang
        self.relative = relative
        self.shown = 0

    def w(self, zh: str, en: str) -> str:
        """The words in the table's language."""
        return words(self.lang, zh, en)

    def names(self, obs: Observation) -> tuple[dict[int, str], dict[int, str]] | None:
        """The other seats' names (Chinese, English) when named from ``seat``; None: by number."""
        return relative_names(self.seat, obs.seating.seats) if self.relative else None

    def who(self, seat: int | None, obs: Observation) -> tuple[str, str]:
        """A seat's name, Chinese and English."""
        names = self.names(obs)
        if seat is None:
            return "无人", "nobody"
        if seat == self.seat:
            return "你", "you"
        if names is not None:
            return names[0][seat], names[1][seat]
        return f"{seat}号位", f"seat {seat}"

    def news(self, obs: Observation) -> None:
        """Announce what happened since last time (forced moves included)."""
        zh, en = self.names(obs) or (None, None)
        for event in obs.events[self.shown :]:
            line = self.w(
                describe_zh(event, you=self.seat, names=zh),
                describe(event, you=self.seat, names=en),
            )
            self.console.print("  · " + line)
        self.shown = len(obs.events)

    def show(
        self, obs: Observation, totals: list[int] | None, lit: frozenset[Kind] = frozenset()
    ) -> None:
        """The table as ``self.seat`` sees it, with the match's ``totals`` (if any) and the
        kinds in ``lit`` highlighted."""
        console = self.console
        w = self.w
        if self.relative:
            dealer_zh, dealer_en = self.who(obs.dealer, obs)
            dealer = w(f"庄家：{dealer_zh}", f"dealer: {dealer_en}")
        else:
            dealer = w(f"庄家 {obs.dealer}号位", f"dealer seat {obs.dealer}")
        title = f"{w('墩', 'wall')} {obs.wall} · {dealer} · 亮张 {_card(obs.liang)}"
        if Text.from_markup(title).cell_len + 4 <= console.width:
            console.rule(title)
        else:  # a rule would cut its title, and the 亮张 with it
            console.print(title)
        rows = [self._seat_cells(obs, s, totals, lit) for s in obs.seating.playing]
        view = Table(box=None, padding=(0, 1), show_header=False)
        for cells in rows:
            view.add_row(*cells)
        wide = console.options.update_width(sys.maxsize)
        if Measurement.get(console, wide, view).maximum <= console.width:
            console.print(view)
        else:
            # Too narrow for a seat a line: a table would fold or cut the cards of a cell,
            # so each seat takes its lines, wrapped between cards.
            for who, held, tables, discards in rows:
                console.print(f"{who}  {held}")
                console.print(Padding(tables, (0, 0, 0, 3), expand=False))
                console.print(Padding(discards, (0, 0, 0, 3), expand=False))
        out = obs.seating.sitting_out
        if self.relative and out is not None:
            zh, en = self.who(out, obs)
            console.print(w(f"{zh}本局轮空", f"{en} sits out this hand"))
        hand = obs.hand
        kans = [k for k in range(len(hand)) if hand[k] == 3]
        loose = [k for k in range(len(hand)) for _ in range(hand[k]) if hand[k] != 3]
        text = " ".join(_card(k, lit) for k in loose)
        if kans:
            text += f"   {w('坎', 'kan')}: " + "  ".join(
                " ".join(_card(k, lit) for _ in range(SET_SIZE)) for k in kans
            )
        console.print(f"{w('你的手牌', 'your hand')}: {text}")
        if obs.offer is not None:
            whose_zh, whose = self.who(obs.turn, obs)
            source = _SOURCES[obs.offer_source] if obs.offer_source else "from"
            source_zh = _SOURCES_ZH[obs.offer_source] if obs.offer_source else ""
            offer = f"{w('亮出的牌', 'on offer')}: {_card(obs.offer, lit)}"
            console.print(f"{offer} ({w(whose_zh + source_zh, f'{source} {whose}')})")

    def _seat_cells(
        self, obs: Observation, s: int, totals: list[int] | None, lit: frozenset[Kind]
    ) -> tuple[str, str, str, str]:
        """Seat ``s`` on the table: its name (and total), cards in hand, groups, discards."""
        w = self.w
        who = f"[bold]{w(*self.who(s, obs))}[/bold]"
        tables = " ".join(_group(g, lit, self.lang) for g in obs.tables[s]) or "—"
        rows = " ".join(_card(k, lit) if k in lit else KIND_NAMES[k] for k in obs.rows[s])
        return (
            who + ("" if totals is None else f" ({totals[s]:+d})"),
            w(f"手里{obs.hand_sizes[s]}张", f"{obs.hand_sizes[s]} in hand"),
            f"{w('桌上', 'table')}: {tables}",
            f"{w('牌前', 'discards')}: {rows or '—'}",
        )

    def hint(self, obs: Observation) -> None:
        huxi, waits = obs.hint()
        listed = ", ".join(f"{KIND_NAMES[w.win]} ({w.huxi} 胡息, {w.points} 底)" for w in waits)
        none = self.w("无", "none")
        self.console.print(
            self.w(f"现在 {huxi} 胡息", f"current hu-xi {huxi}") + f"; 听牌: {listed or none}"
        )

    def choose(self, obs: Observation) -> Action:
        """Ask until the answer names a legal action; raises :class:`Leave` on q."""
        options = sorted(obs.legal, key=_order)
        # A discard is chosen by naming the card: every choice is then a discard (the engine
        # never mixes them with claims), and numbering them would make "9" mean two things.
        discards = {
            a.card: a for a in options if a.type is ActionType.DISCARD and a.card is not None
        }
        if discards:
            may = self.w("可以打", "you may discard")
            self.console.print(f"{may}: " + " ".join(_card(k) for k in discards))
            prompt = self.w(
                "打哪张（x9、九 或 9），h 提示，q 退出",
                "card to discard (x9, 九 or 9), h for a hint, q to quit",
            )
        else:
            for i, action in enumerate(options, 1):
                self.console.print(f"  {i}) {_label(action, self.lang)}")
            n = len(options)
            prompt = self.w(f"选 1-{n}，h 提示，q 退出", f"choose 1-{n}, h for a hint, q to quit")
        prompt += ": "
        unchosen = 0
        while True:
            if unchosen == INVALID and not interactive():
                self.console.print(
                    self.w(
                        f"连续 {INVALID} 个回答都没有选择，离开",
                        f"{INVALID} answers in a row chose nothing: leaving",
                    )
                )
                raise Leave
            unchosen += 1
            answer = ask(self.console, prompt).strip().lower()
            if answer == "h":
                self.hint(obs)
            elif answer in QUIT:
                raise Leave
            elif discards:
                try:
                    return discards[named_discard(answer, list(discards), obs.hand, self.lang)]
                except ValueError as error:
                    self.console.print(str(error))
            elif answer.isdecimal() and 1 <= int(answer) <= len(options):
                return options[int(answer) - 1]
            else:
                self.console.print(
                    self.w(
                        "请输入列表里的数字，h 提示，q 退出",
                        "type a number from the list, h for a hint or q to quit",
                    )
                )


def _group(group: Group | SeenGroup, lit: frozenset[Kind], lang: Lang = "en") -> str:
    """A table group (F2, its type in Chinese for ``zh``); one holding a highlighted kind in
    reverse video."""
    cards = group.cards or ()
    if not lit.intersection(cards):
        return group_text(group, lang)
    return f"[reverse]{group_text(group, lang)}*[/reverse]"


_SOURCES = {
    Source.LIANG: "the 亮张 of",
    Source.DRAWN: "drawn by",
    Source.DISCARDED: "discarded by",
}


_SOURCES_ZH = {
    Source.LIANG: "的亮张",
    Source.DRAWN: "摸出的",
    Source.DISCARDED: "打出的",
}


_ORDER = {
    ActionType.HU: 0,
    ActionType.PENG: 1,
    ActionType.CHI: 2,
    ActionType.DISCARD: 3,
    ActionType.PASS: 4,
}


def _order(action: Action) -> tuple[int, int, str]:
    return (_ORDER[action.type], action.card if action.card is not None else 0, str(action))


def _label(action: Action, lang: Lang = "en") -> str:
    if action.type is ActionType.DISCARD:
        assert action.card is not None
        return f"{words(lang, '打', 'discard')} {_card(action.card)}"
    if action.type is ActionType.CHI:
        take, *bis = action.groups
        text = {"en": "吃 chi", "zh": "吃", "both": "吃 chi"}[lang] + " "
        text += "".join(KIND_NAMES[k] for k in take)
        if bis:
            text += "  比 " + " ".join("".join(KIND_NAMES[k] for k in b) for b in bis)
        return text
    if action.type is ActionType.PASS:
        return {"en": "pass", "zh": "过", "both": "过 pass"}[lang]
    if lang == "zh":
        return {"hu": "胡", "peng": "碰"}[action.type.value]
    return {"hu": "胡 hu — win", "peng": "碰 peng"}[action.type.value]


def _save(console: Console, game: Game, directory: str, lang: Lang = "en") -> None:
    """Save the record in ``directory`` under a name no other file has (``-2``, ``-3`` … after
    the time when a record of the same second is there)."""
    stem = f"paohuzi-{time.strftime('%Y%m%d-%H%M%S')}"
    text = json.dumps(record_of(game).to_json(), ensure_ascii=False) + "\n"
    for n in itertools.count(1):
        path = Path(directory) / f"{stem}{'' if n == 1 else f'-{n}'}.phz.json"
        try:
            with path.open("x", encoding="utf-8") as file:
                file.write(text)
        except FileExistsError:
            continue
        except OSError as error:
            failed = words(lang, "没能保存", "could not save")
            console.print(f"[red]{failed} {escape(str(path))}: {escape(str(error.strerror))}[/red]")
            return
        console.print(f"{words(lang, '已保存', 'saved')} {escape(str(path))}")
        return


def run(args: argparse.Namespace) -> int:
    if sys.stdout is None:  # started with standard output closed (>&-)
        print("paohuzi play: error: 标准输出已关闭 / standard output is closed", file=sys.stderr)
        return 2
    console = Console(highlight=False)
    rules = rules_of(args)
    try:
        for name, seat in (("--seat", args.seat), ("--dealer", args.dealer)):
            if seat is not None and seat not in range(rules.players):
                raise ValueError(
                    f"{name} 要 0–{rules.players - 1} 号座位，不是 {seat} / "
                    f"{name} must be a seat 0–{rules.players - 1}, not {seat}"
                )
        spec = ",".join(["greedy"] * (rules.players - 1)) if args.bots is None else args.bots
        opponents = _opponents(spec, args.seed, rules)
    except ValueError as error:
        print(f"paohuzi play: error: {error}", file=sys.stderr)
        return 2
    bots: list[Bot | None] = []
    it = iter(opponents)
    for s in range(rules.players):
        bots.append(None if s == args.seat else next(it))
    match = Match(rules, seed=args.seed, dealer=args.dealer)
    lang: Lang = args.lang

    def w(zh: str, en: str) -> str:
        return words(lang, zh, en)

    game: Game | None = None
    try:
        while True:
            game = match.new_game()
            view = TerminalTable(console, args.seat, lang, relative=True)
            console.rule(f"[bold]{w(f'第{match.hands + 1}局', f'hand {match.hands + 1}')}[/bold]")
            if args.seat == game.seating.sitting_out:
                console.print(
                    w(
                        "你本局轮空（R12）：其他人打",
                        "you sit this hand out (R12): the others play it",
                    )
                )
            for i, opponent in enumerate(opponents):
                if isinstance(opponent, SubprocessBot) and args.seed is not None:
                    # A seed for this hand (docs/protocol.md): a program seeding itself from
                    # each ``start`` must not replay the same choices hand after hand, nor
                    # draw the deck's own shuffle (Match's seed * 1_000_003 + hand).
                    mixed = random.Random(f"play {args.seed} {i} {match.hands}")
                    opponent.seed = mixed.getrandbits(32)
            tell(bots, game, "begin")
            while not isinstance(phase := game.phase, Over):
                seat = phase.to_act
                bot = bots[seat]
                if bot is not None:
                    game.apply(bot.act(observe(game, seat)))
                    continue
                obs = observe(game, seat)
                view.news(obs)
                view.show(obs, match.totals)
                game.apply(view.choose(obs))
            view.news(observe(game, args.seat))
            match.finish(game)
            print_settlement(console, phase.result, match.totals, lang, you=args.seat)
            tell(bots, game, "end")
            if args.hands and match.hands >= args.hands:
                return 0
            answer = ask(
                console,
                w(
                    "回车打下一局，s 保存这一局，q 退出",
                    "Enter for the next hand, s to save this one, q to quit",
                )
                + ": ",
            )
            if answer.strip().lower() == "s":
                _save(console, game, args.save_dir, lang)
            elif answer.strip().lower() in QUIT:
                return 0
    except (KeyboardInterrupt, EOFError, Leave):
        console.print()
        if game is not None:
            try:
                answer = ask(
                    console,
                    w("离开。保存这一局的记录吗？", "Leaving. Save the record of this hand?")
                    + " [y/N] ",
                    markup=False,
                )
            except (KeyboardInterrupt, EOFError):
                console.print()  # the answer's line, which the key did not end
                answer = ""
            if answer.strip().lower().startswith("y"):
                _save(console, game, args.save_dir, lang)
        return 0
    finally:
        _close(opponents)
