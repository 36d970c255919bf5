"""Lessons (issue 27): short stacked-deck hands that teach one thing each, read from JSON.

A lesson file (``paohuzi-lesson/1``, documented in docs/lessons.md) names a rule set, a dealer,
the learner's seat, a deck and a list of steps. Each step says what to look at (texts in
Chinese and English, highlighted kinds), plays the other seats' scripted moves, asks the
learner for the taught move (an F3 line) and states the numbers its texts quote, which
:func:`check_lesson` recomputes with the engine (hu-xi by the evaluator, points by scoring).

:class:`Walk` drives a lesson for a user interface (the terminal's ``paohuzi learn``, the web
course); the engine never imports this package.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from paohuzi.engine.actions import Action, parse_seat_action
from paohuzi.engine.cards import (
    DECK_SIZE,
    KIND_NAMES,
    NUM_KINDS,
    RED_KINDS,
    Kind,
    NotationError,
    is_big,
    parse_cards,
)
from paohuzi.engine.game import CoreName, Game, IllegalAction, stacked_deck
from paohuzi.engine.groups import Group, GroupType, parse_group
from paohuzi.engine.mingtang import AllTriplets, RedCount, SizeCount, WinContext
from paohuzi.engine.observation import observe
from paohuzi.engine.record import loads
from paohuzi.engine.rules import HAND_SIZE, PRESETS, RuleSet

FORMAT = "paohuzi-lesson/1"
"""The ``format`` field of every lesson file."""

LANGUAGES = ("zh", "en")
"""Every text is given in these languages, Chinese first."""

MAX_TEXT = 2000
"""Characters in one text of one language: a step is read on a phone."""

_SEAT_NUMBER = re.compile(r"\d+\s*号位|\b[Ss]eat\s*(?:no\.\s*|#)?\d+")
"""A seat named by its number ("1号位", "seat 2"): the engine counts seats from 0 and the web
table from 1, and both name them from the player (你, 下家, 上家, 对家), so a text does too."""

MAX_STEPS = 40

WIN_CARDS = 21
"""The cards of a win without 提 or 跑 (R6.1): what a stated 名堂's count is out of."""

QUANTITIES = (
    "huxi",
    "group_huxi",
    "deng",
    "mingtang_fan",
    "red_cards",
    "result_huxi",
    "result_deng",
    "result_fan",
    "result_points",
    "payment",
)
"""What a stated number may be (docs/lessons.md, "numbers")."""

WHEN = ("step", "done")
"""When a stated number is checked: as the step is shown, or after its move (and the moves
scripted after it)."""


class LessonError(ValueError):
    """A lesson that cannot be read, or that the engine contradicts: one line, naming the step
    (``step 3: …``) where there is one."""


@dataclass(frozen=True, slots=True)
class Text:
    """One text in both languages."""

    zh: str
    en: str


@dataclass(frozen=True, slots=True)
class Stated:
    """A number a step's text states, to be recomputed by the engine."""

    quantity: str
    value: int
    when: str = "step"
    seat: int | None = None
    """For ``huxi``, ``red_cards`` and ``payment``: whose (the learner's when None)."""
    group: str | None = None
    """For ``group_huxi``: the group, F2."""
    huxi: int | None = None
    """For ``deng``: the hu-xi it is worked from."""
    tianhu: bool = False
    """For ``deng``: counted as a 天胡 (R10.1)."""
    name: str | None = None
    """For ``mingtang_fan``: the 名堂's name in the rule set (红胡 …)."""
    count: int | None = None
    """For ``mingtang_fan``: the cards it counts (red, big or small ones)."""


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a lesson; see docs/lessons.md."""

    text: Text
    highlight: tuple[Kind, ...] = ()
    before: tuple[str, ...] = ()
    move: str | None = None
    """The taught move, an F3 line of the learner's seat; None: the learner reads and goes on."""
    accept: tuple[str, ...] = ()
    """Other moves taken as right: each leaves the same hand and table as ``move``."""
    wrong: Text | None = None
    explain: Mapping[str, Text] = field(default_factory=dict)
    """Explanations of particular wrong moves (F3 lines), before ``wrong``."""
    right: Text | None = None
    after: tuple[str, ...] = ()
    numbers: tuple[Stated, ...] = ()


@dataclass(frozen=True, slots=True)
class Lesson:
    """A lesson read from its file."""

    id: str
    order: int
    title: Text
    summary: Text
    rules: RuleSet
    dealer: int
    seat: int
    """The learner's seat."""
    deck: tuple[Kind, ...]
    steps: tuple[Step, ...]
    source: str = ""
    """The file it was read from (for messages)."""


# ------------------------------------------------------------------------------------ reading

DEFAULT_WRONG = Text(
    "这不是这一步要学的走法，再看看亮起来的牌。",
    "That is not the move this step teaches: look again at the highlighted cards.",
)
ILLEGAL = Text("这一步不能这样走。", "That move is not allowed here.")


def _where(step: int | None) -> str:
    return "" if step is None else f"step {step + 1}: "


class _Reader:
    """Reads the JSON of one lesson, raising LessonError with the field's path."""

    def __init__(self, step: int | None = None) -> None:
        self.step = step

    def fail(self, message: str) -> LessonError:
        return LessonError(_where(self.step) + message)

    def object(
        self, value: Any, name: str, allowed: set[str], required: set[str]
    ) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(f"{name} must be a JSON object")
        unknown = sorted(set(value) - allowed)
        if unknown:
            raise self.fail(f"{name} has an unknown field {unknown[0]!r}")
        missing = sorted(required - set(value))
        if missing:
            raise self.fail(f"{name} needs the field {missing[0]!r}")
        return value

    def string(self, value: Any, name: str, limit: int = MAX_TEXT) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(f"{name} must be a non-empty string")
        if len(value) > limit:
            raise self.fail(f"{name} is longer than {limit} characters")
        return value

    def integer(self, value: Any, name: str, allowed: range) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value not in allowed:
            raise self.fail(f"{name} must be an integer from {allowed.start} to {allowed.stop - 1}")
        return value

    def text(self, value: Any, name: str) -> Text:
        data = self.object(value, name, set(LANGUAGES), set(LANGUAGES))
        text = Text(*(self.string(data[lang], f"{name}.{lang}") for lang in LANGUAGES))
        for lang in LANGUAGES:
            numbered = _SEAT_NUMBER.search(getattr(text, lang))
            if numbered:
                raise self.fail(
                    f"{name}.{lang} names a seat by its number ({numbered.group()!r}): name it"
                    " from the learner as the table does: 你, 下家, 上家, 对家"
                    " (you, Right, Left, Across)"
                )
        return text

    def cards(self, value: Any, name: str) -> list[Kind]:
        if not isinstance(value, str):
            raise self.fail(f"{name} must be a string of cards (F1)")
        try:
            return parse_cards(value)
        except NotationError as error:
            raise self.fail(f"{name}: {error}") from None

    def lines(self, value: Any, name: str) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise self.fail(f"{name} must be a list of F3 lines")
        for i, line in enumerate(value):
            self.action(line, f"{name}[{i}]")
        return tuple(value)

    def action(self, value: Any, name: str) -> tuple[int, Action]:
        if not isinstance(value, str):
            raise self.fail(f'{name} must be an F3 line such as "0 discard x5"')
        try:
            return parse_seat_action(value)
        except NotationError as error:
            raise self.fail(f"{name} {value!r}: {error}") from None


def _rules(reader: _Reader, value: Any) -> RuleSet:
    if isinstance(value, str):
        if value not in PRESETS:
            raise reader.fail(f"rules: unknown preset {value!r} ({', '.join(sorted(PRESETS))})")
        return PRESETS[value]
    try:
        return RuleSet.from_json(value)
    except ValueError as error:
        raise reader.fail(f"rules: {error}") from None


def _deck(reader: _Reader, value: Any, rules: RuleSet, dealer: int, seat: int) -> tuple[Kind, ...]:
    if isinstance(value, str):
        cards = reader.cards(value, "deck")
        if len(cards) != DECK_SIZE or any(cards.count(k) != 4 for k in range(NUM_KINDS)):
            raise reader.fail(f"deck: a whole deck is {DECK_SIZE} cards, four of each kind")
        return tuple(cards)
    data = reader.object(value, "deck", {"hands", "liang", "wall", "seed"}, {"hands", "liang"})
    hands_data = reader.object(
        data["hands"], "deck.hands", {str(s) for s in range(rules.players)}, set()
    )
    hands = {int(s): reader.cards(c, f"deck.hands.{s}") for s, c in hands_data.items()}
    if seat in rules.seating(dealer).playing and len(hands.get(seat, [])) != HAND_SIZE:
        raise reader.fail(f"deck.hands.{seat}: the learner's hand must list all {HAND_SIZE} cards")
    liang = reader.cards(data["liang"], "deck.liang")
    if len(liang) != 1:
        raise reader.fail("deck.liang must be one card")
    wall = reader.cards(data.get("wall", ""), "deck.wall")
    seed = reader.integer(data.get("seed", 0), "deck.seed", range(2**31))
    try:
        return tuple(
            stacked_deck(hands, dealer=dealer, liang=liang[0], wall=wall, seed=seed, rules=rules)
        )
    except ValueError as error:
        raise reader.fail(f"deck: {error}") from None


_STEP_FIELDS = {
    "text",
    "highlight",
    "before",
    "move",
    "accept",
    "wrong",
    "explain",
    "right",
    "after",
    "numbers",
}
_NUMBER_FIELDS = {"quantity", "value", "when", "seat", "group", "huxi", "tianhu", "name", "count"}


def _stated(reader: _Reader, value: Any, name: str, players: int) -> Stated:
    data = reader.object(value, name, _NUMBER_FIELDS, {"quantity", "value"})
    quantity = data["quantity"]
    if quantity not in QUANTITIES:
        raise reader.fail(f"{name}.quantity must be one of {', '.join(QUANTITIES)}")
    when = data.get("when", "step")
    if when not in WHEN:
        raise reader.fail(f'{name}.when must be "step" or "done"')
    seat = data.get("seat")
    if seat is not None:
        reader.integer(seat, f"{name}.seat", range(players))
    group = data.get("group")
    if (group is not None) != (quantity == "group_huxi"):
        raise reader.fail(f"{name}: group goes with quantity group_huxi, and only with it")
    if group is not None:
        try:
            parse_group(reader.string(group, f"{name}.group", 40))
        except (NotationError, ValueError) as error:
            raise reader.fail(f"{name}.group {group!r}: {error}") from None
    huxi = data.get("huxi")
    if (huxi is not None) != (quantity == "deng"):
        raise reader.fail(f"{name}: huxi goes with quantity deng, and only with it")
    if huxi is not None:
        reader.integer(huxi, f"{name}.huxi", range(1000))
    tianhu = data.get("tianhu", False)
    if not isinstance(tianhu, bool):
        raise reader.fail(f"{name}.tianhu must be true or false")
    mingtang = data.get("name")
    if (mingtang is not None) != (quantity == "mingtang_fan"):
        raise reader.fail(f"{name}: name goes with quantity mingtang_fan, and only with it")
    if mingtang is not None:
        reader.string(mingtang, f"{name}.name", 20)
    count = data.get("count")
    if count is not None:
        if quantity != "mingtang_fan":
            raise reader.fail(f"{name}: count goes with quantity mingtang_fan only")
        reader.integer(count, f"{name}.count", range(0, 28))
    number = reader.integer(data["value"], f"{name}.value", range(-10000, 10001))
    return Stated(quantity, number, when, seat, group, huxi, tianhu, mingtang, count)


def _step(index: int, value: Any, players: int) -> Step:
    reader = _Reader(index)
    data = reader.object(value, "the step", _STEP_FIELDS, {"text"})
    highlight = tuple(reader.cards(data.get("highlight", ""), "highlight"))
    move = data.get("move")
    if move is not None:
        reader.action(move, "move")
    explain: dict[str, Text] = {}
    explain_data = data.get("explain", {})
    if not isinstance(explain_data, dict):
        raise reader.fail("explain must be a JSON object of F3 lines and their texts")
    for line, text in explain_data.items():
        reader.action(line, "explain key")
        explain[line] = reader.text(text, f"explain[{line!r}]")
    accept = reader.lines(data.get("accept", []), "accept")
    if move is None and (accept or "wrong" in data or explain or "right" in data):
        raise reader.fail("accept, wrong, explain and right go with a taught move")
    numbers_data = data.get("numbers", [])
    if not isinstance(numbers_data, list):
        raise reader.fail("numbers must be a list")
    return Step(
        text=reader.text(data["text"], "text"),
        highlight=highlight,
        before=reader.lines(data.get("before", []), "before"),
        move=move,
        accept=accept,
        wrong=reader.text(data["wrong"], "wrong") if "wrong" in data else None,
        explain=explain,
        right=reader.text(data["right"], "right") if "right" in data else None,
        after=reader.lines(data.get("after", []), "after"),
        numbers=tuple(
            _stated(reader, n, f"numbers[{i}]", players) for i, n in enumerate(numbers_data)
        ),
    )


_LESSON_FIELDS = {
    "format",
    "id",
    "order",
    "title",
    "summary",
    "rules",
    "dealer",
    "seat",
    "deck",
    "steps",
}


def parse_lesson(data: Any, source: str = "") -> Lesson:
    """A lesson from its JSON value; raises :class:`LessonError`. Only the form is checked
    here: :func:`check_lesson` plays it against the engine."""
    reader = _Reader()
    data = reader.object(data, "a lesson", _LESSON_FIELDS, _LESSON_FIELDS - {"rules", "summary"})
    if data["format"] != FORMAT:
        raise reader.fail(f"format must be {FORMAT!r}")
    lesson_id = reader.string(data["id"], "id", 60)
    if not all(c.isascii() and (c.isalnum() or c == "-") for c in lesson_id):
        raise reader.fail("id may hold only ASCII letters, digits and '-'")
    rules = _rules(reader, data.get("rules", "hunan"))
    dealer = reader.integer(data["dealer"], "dealer", range(rules.players))
    seat = reader.integer(data["seat"], "seat", range(rules.players))
    steps = data["steps"]
    if not isinstance(steps, list) or not 1 <= len(steps) <= MAX_STEPS:
        raise reader.fail(f"steps must be a list of 1 to {MAX_STEPS} steps")
    return Lesson(
        id=lesson_id,
        order=reader.integer(data["order"], "order", range(1000)),
        title=reader.text(data["title"], "title"),
        summary=reader.text(data["summary"], "summary")
        if "summary" in data
        else reader.text(data["title"], "title"),
        rules=rules,
        dealer=dealer,
        seat=seat,
        deck=_deck(reader, data["deck"], rules, dealer, seat),
        steps=tuple(_step(i, s, rules.players) for i, s in enumerate(steps)),
        source=source,
    )


def load_lesson(path: str | Path) -> Lesson:
    """Read a lesson file; raises :class:`LessonError` (also for a file that cannot be read)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise LessonError(
            f"cannot read the file: {getattr(error, 'strerror', None) or error}"
        ) from None
    return parse_lesson(_json(text), str(path))


def _json(text: str) -> Any:
    """The JSON value of a lesson file, read by the records' strict reader
    (:func:`paohuzi.engine.record.loads`): a field given twice, NaN, nesting that exhausts the
    stack and numbers of thousands of digits are refused in one line."""
    try:
        return loads(text)
    except ValueError as error:
        raise LessonError(f"not JSON: {error}") from None


def shipped() -> list[Lesson]:
    """The course: every lesson shipped with the package, in their order."""
    found = []
    for entry in resources.files(__name__).iterdir():
        if entry.name.endswith(".json"):
            text = entry.read_text(encoding="utf-8")
            found.append(parse_lesson(_json(text), entry.name))
    return sorted(found, key=lambda lesson: (lesson.order, lesson.id))


# ------------------------------------------------------------------------------------ playing


@dataclass(frozen=True, slots=True)
class Answer:
    """What the learner is told after a move: ``right``, and the text to show."""

    right: bool
    text: Text | None


class Walk:
    """A lesson in progress: :attr:`game` at :attr:`step`, the learner to make its move (or to
    read on when the step teaches none). :meth:`answer` takes a move, :meth:`next` goes on.
    A walk assumes a lesson :func:`check_lesson` passed; it raises :class:`LessonError` for
    one the engine contradicts."""

    def __init__(self, lesson: Lesson, start: int = 0, *, core: CoreName = "auto") -> None:
        """The lesson from step ``start`` (the steps before it played as taught), its game on
        ``core``."""
        self.lesson = lesson
        self.game = Game(lesson.rules, dealer=lesson.dealer, deck=lesson.deck, core=core)
        self.index = 0
        self.answered = False
        """Whether the current step's move has been made (its ``right`` text is shown)."""
        self._script(lesson.steps[0].before)
        while self.index < min(start, len(lesson.steps)):
            self._finish()
            self.next()

    @property
    def step(self) -> Step | None:
        """The step shown now; None once the lesson is over."""
        steps = self.lesson.steps
        return steps[self.index] if self.index < len(steps) else None

    @property
    def finished(self) -> bool:
        return self.index >= len(self.lesson.steps)

    def _script(self, lines: tuple[str, ...]) -> None:
        for line in lines:
            try:
                self.game.apply_text(line)
            except ValueError as error:
                where = f"{_where(self.index)}scripted move {line!r}"
                raise LessonError(f"{where}: {error}{choices(self.game)}") from None

    def _finish(self, line: str | None = None) -> None:
        """Make the current step's move (``line``, else the taught one) and the moves after it."""
        step = self.lesson.steps[self.index]
        move = line or step.move
        if move is not None:
            self._script((move,))
        self._script(step.after)
        self.answered = True

    def answer(self, action: Action) -> Answer:
        """The learner's move at the current step: right (it is made, with the moves scripted
        after it) or wrong (nothing changes; the text explains)."""
        found = self.judge(action)
        if found.right:
            step = self.step
            assert step is not None and step.move is not None
            lines = (step.move, *step.accept)
            self._finish(next(x for x in lines if parse_seat_action(x)[1] == action))
        return found

    def judge(self, action: Action) -> Answer:
        """What :meth:`answer` would say of ``action`` at the current step, making no move
        (the web course judges every legal move of a step ahead)."""
        step = self.step
        if step is None or step.move is None or self.answered:
            raise LessonError("this step asks for no move")
        for line in (step.move, *step.accept):
            if parse_seat_action(line)[1] == action:
                return Answer(True, step.right)
        for line, text in step.explain.items():
            if parse_seat_action(line)[1] == action:
                return Answer(False, text)
        if action not in self.game.legal_actions():
            return Answer(False, ILLEGAL if step.wrong is None else step.wrong)
        return Answer(False, step.wrong or DEFAULT_WRONG)

    def next(self) -> None:
        """Go on to the next step (after the move, when the step asks for one)."""
        step = self.step
        if step is None:
            return
        if not self.answered:
            if step.move is not None:
                raise LessonError(f"{_where(self.index)}the move is not made yet")
            self._script(step.after)
        self.index += 1
        self.answered = False
        if self.step is not None:
            self._script(self.step.before)


# ------------------------------------------------------------------------------------ checking

SHOWN_CHOICES = 6
"""Legal moves a message lists, so that a teacher sees what to script."""


def choices(game: Game) -> str:
    """``; seat 1 may: 1 pass, 1 peng`` — the moves of the seat to act, for a message."""
    seat = game.to_act
    if seat is None:
        return "; the hand is over" if game.is_over else ""
    legal = [f"{seat} {a}" for a in game.legal_actions()]
    more = f" and {len(legal) - SHOWN_CHOICES} more" if len(legal) > SHOWN_CHOICES else ""
    return f"; seat {seat} may: {', '.join(legal[:SHOWN_CHOICES])}{more}"


def _value(stated: Stated, game: Game, lesson: Lesson) -> int:
    """What the engine says the stated number is; raises LessonError when it cannot say."""
    quantity = stated.quantity
    rules = lesson.rules
    seat = lesson.seat if stated.seat is None else stated.seat
    if quantity == "huxi":
        return game.huxi(seat)
    if quantity == "group_huxi":
        assert stated.group is not None
        return rules.huxi.group(parse_group(stated.group))
    if quantity == "deng":
        assert stated.huxi is not None
        return rules.deng(stated.huxi, tianhu=stated.tianhu)
    if quantity == "mingtang_fan":
        return _mingtang_fan(stated, rules)
    if quantity == "red_cards":
        won = game.result
        if won is not None and won.winner == seat and won.hu is not None:
            # The winning arrangement: the winning card in its place (R10.1 counts it).
            held = [k for g in won.hu.groups for k in g.cards] + list(won.hu.leftover)
        else:
            held = game.hand_cards(seat) + [k for g in game.tables[seat] for k in g.cards]
        return sum(k in RED_KINDS for k in held)
    result = game.result
    if result is None:
        raise LessonError(f"{quantity} is stated but the hand is not over")
    if quantity == "payment":
        return result.payments[seat]
    if result.hu is None:
        raise LessonError(f"{quantity} is stated but nobody won")
    score = result.hu.score
    return {
        "result_huxi": score.huxi,
        "result_deng": score.deng,
        "result_fan": score.fan,
        "result_points": score.points,
    }[quantity]


def _mingtang_fan(stated: Stated, rules: RuleSet) -> int:
    """The 番 the rule set's 名堂 ``stated.name`` gives a win counting ``stated.count`` of the
    cards it counts (a 名堂 of triplets: a win of triplets only)."""
    found = [m for m in rules.mingtang if m.name == stated.name]
    if not found:
        names = ", ".join(m.name for m in rules.mingtang)
        raise LessonError(f"the rules have no 名堂 {stated.name!r} ({names})")
    mingtang = found[0]
    if isinstance(mingtang, AllTriplets):
        win = WinContext((Group(GroupType.KAN, (0, 0, 0)),), None)
        return mingtang.fan(win)
    if stated.count is None:
        raise LessonError(f"名堂 {stated.name} needs the count of the cards it counts")
    kinds = range(NUM_KINDS)
    if isinstance(mingtang, RedCount):
        counted = next(k for k in kinds if k in RED_KINDS)
        other = next(k for k in kinds if k not in RED_KINDS)
    elif isinstance(mingtang, SizeCount):
        counted = next(k for k in kinds if is_big(k) == mingtang.big)
        other = next(k for k in kinds if is_big(k) != mingtang.big)
    else:
        raise LessonError(f"名堂 {stated.name} counts nothing a lesson can state")
    cards = (counted,) * stated.count + (other,) * (WIN_CARDS - stated.count)
    return mingtang.fan(WinContext((), None, leftover=cards))


_NOT_A_NUMBER = re.compile(r"\b[xd]\d+|\d/\d|\d+(?:-\d+)+")
"""Digits that name something: a card (``x3``, ``d10``), a step (``2/5``), a sequence
(``1-2-3``, ``2-7-10``). (A seat is never named by its number: see ``_SEAT_NUMBER``.)"""
_NUMBER = re.compile(r"(?<!\d)(?<!\d\.)-?\d+(?!\d)(?!\.\d)")


def numbers_in(text: str) -> set[int]:
    """The whole numbers a text writes in digits, a sign included (``-3``); the digits of a
    card's or a step's name are not numbers."""
    return {int(n) for n in _NUMBER.findall(_NOT_A_NUMBER.sub(" ", text))}


def _check_explanations(step: Step) -> None:
    """An explanation of a wrong move is shown without the move being made, so no number in it
    can be checked there: it may only repeat numbers the step states (and checks)."""
    stated = {n.value for n in step.numbers}
    texts = [t for t in (step.wrong, *step.explain.values()) if t is not None]
    for text in texts:
        for language in (text.zh, text.en):
            unchecked = sorted(numbers_in(language) - stated)
            if unchecked:
                raise LessonError(
                    f"an explanation says {unchecked[0]}, which the step's numbers do not state"
                )


def _check_numbers(step: Step, when: str, game: Game, lesson: Lesson) -> None:
    shown = step.text if when == "step" else step.right
    for stated in step.numbers:
        if stated.when != when:
            continue
        value = _value(stated, game, lesson)
        what = stated.quantity + (
            f" of {stated.group or stated.name}" if stated.group or stated.name else ""
        )
        if value != stated.value:
            raise LessonError(f"{what} is stated as {stated.value} but the engine says {value}")
        if shown is None or any(stated.value not in numbers_in(t) for t in (shown.zh, shown.en)):
            where = "text" if when == "step" else "right"
            raise LessonError(
                f"{what} {stated.value} is stated but the {where} texts do not both say it"
            )


def _visible(game: Game, seat: int) -> set[Kind]:
    """Every kind the learner can see now: hand, face-up table cards, rows, the card on offer."""
    obs = observe(game, seat, events=False)
    seen = {k for k in range(NUM_KINDS) if obs.hand[k]}
    for groups in obs.tables:
        for g in groups:
            seen.update(g.cards or ())
    for row in obs.rows:
        seen.update(row)
    if obs.offer is not None:
        seen.add(obs.offer)
    return seen


def _check_step(walk: Walk, lesson: Lesson) -> None:
    step = walk.step
    assert step is not None
    game = walk.game
    hidden = [k for k in step.highlight if k not in _visible(game, lesson.seat)]
    if hidden:
        raise LessonError(f"highlighted {KIND_NAMES[hidden[0]]} is nowhere the learner can see it")
    _check_numbers(step, "step", game, lesson)
    _check_explanations(step)
    if step.move is not None:
        seat, taught = parse_seat_action(step.move)
        if seat != lesson.seat:
            raise LessonError(f"the move {step.move!r} is not the learner's (seat {lesson.seat})")
        if game.to_act != seat:
            who = "nobody" if game.to_act is None else f"seat {game.to_act}"
            raise LessonError(
                f"the learner is not to act ({who} is): script the moves before it" + choices(game)
            )
        legal = game.legal_actions()
        if taught not in legal:
            raise LessonError(
                f"the taught move {step.move!r} is illegal: {game.why_illegal(taught)}"
            )
        for line in step.explain:
            explained_seat, explained = parse_seat_action(line)
            if explained_seat != seat or explained not in legal:
                raise LessonError(
                    f"explain names {line!r}, which is not a legal move of the learner here"
                )
            if explained == taught:
                raise LessonError("explain names the taught move")
        for line in step.accept:
            _check_accepted(game, line, step.move, legal)
        if len(legal) == 1:
            raise LessonError(
                f"the taught move {step.move!r} is the only legal one: there is nothing to choose"
            )


def _holding(game: Game, seat: int) -> tuple[tuple[int, ...], list[str]]:
    return game.hands[seat], sorted(str(g) for g in game.tables[seat])


def _check_accepted(game: Game, line: str, move: str, legal: list[Action]) -> None:
    """An accepted move must be legal and leave the learner as the taught move does."""
    seat, action = parse_seat_action(line)
    if seat != parse_seat_action(move)[0] or action not in legal:
        raise LessonError(f"accept names {line!r}, which is not a legal move of the learner here")
    taught, accepted = game.clone(), game.clone()
    taught.apply_text(move)
    accepted.apply_text(line)
    if _holding(taught, seat) != _holding(accepted, seat):
        raise LessonError(
            f"accept names {line!r}, which leaves another hand or table than {move!r}"
        )


def check_lesson(lesson: Lesson, *, core: CoreName = "auto") -> None:
    """Play the lesson against the engine; raises :class:`LessonError` at the first problem:
    a scripted move that is illegal, a taught move that is not the learner's or not legal,
    a highlighted card the learner cannot see, or a stated number the engine computes
    otherwise."""
    try:
        walk = Walk(lesson, core=core)
        while (step := walk.step) is not None:
            try:
                _check_step(walk, lesson)
                walk._finish()
                _check_numbers(step, "done", walk.game, lesson)
            except LessonError as error:
                message = str(error)
                if message.startswith("step "):
                    raise
                raise LessonError(_where(walk.index) + message) from None
            walk.next()
    except (IllegalAction, NotationError) as error:
        raise LessonError(str(error)) from None
