"""Game records (F4) and their replay (F5): plain JSON-ready values, no I/O.

A record names its preset in ``rules`` (F4) and carries the complete rule set in ``ruleset``
(every field of :class:`~paohuzi.engine.rules.RuleSet`,
:meth:`~paohuzi.engine.rules.RuleSet.to_json`), so a game played under house rules replays
under them. A record without ``ruleset`` is played under the preset ``rules`` names (``hunan``
when it names none), as records always were.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from paohuzi.engine.cards import KIND_NAMES, NotationError, format_cards, parse_cards
from paohuzi.engine.game import Game, GameResult, IllegalAction, check_deck
from paohuzi.engine.groups import parse_group
from paohuzi.engine.rules import HUNAN, PRESETS, RuleSet

FORMAT = "paohuzi-record/1"

REQUIRED = ("dealer", "deck")
"""The F4 fields a record cannot do without (the others have defaults)."""

JSON = dict[str, Any]


class RecordError(ValueError):
    """A record that cannot be read: bad JSON shape, unknown rules, a deck that is not 80
    cards of four of each kind."""


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise ValueError(f"the name {key!r} twice in one object")
        found[key] = value
    return found


def loads(text: str) -> Any:
    """The JSON value of ``text``, strictly (RFC 8259), for records (F4) and queries (F6):
    a leading byte-order mark is skipped; ``NaN`` and ``Infinity`` (not JSON) and a name given
    twice in one object (which of the two counts is anyone's guess) are refused. Raises
    ValueError with a one-line reason for anything else that is not JSON, nesting too deep
    and numbers of thousands of digits included (never RecursionError)."""
    try:
        return json.loads(
            text.removeprefix("\ufeff"), parse_constant=_no_constant, object_pairs_hook=_no_repeats
        )
    except json.JSONDecodeError as error:
        raise ValueError(f"{error.msg} (line {error.lineno}, column {error.colno})") from None
    except RecursionError:
        raise ValueError("nested too deeply") from None
    except ValueError as error:
        if "digits" in str(error) and "limit" in str(error):  # int(...) past Python's limit
            raise ValueError("a number of thousands of digits") from None
        raise ValueError(str(error)) from None


@dataclass
class Record:
    """An F4 game record: everything needed to replay a hand exactly."""

    rules: RuleSet | str
    """The rule set, or the name of a preset (which stands for the preset)."""
    dealer: int
    deck: list[int]
    actions: list[str] = field(default_factory=list)
    result: JSON | None = None

    def to_json(self) -> JSON:
        rules = self.rule_set
        data: JSON = {
            "format": FORMAT,
            "rules": rules.name,
            "ruleset": rules.to_json(),
            "dealer": self.dealer,
            "deck": format_cards(self.deck, sort=False),
            "actions": list(self.actions),
        }
        if self.result is not None:
            data["result"] = self.result
        return data

    @classmethod
    def from_json(cls, data: Any) -> Record:
        """Read a record; raises :class:`RecordError` naming what is wrong."""
        if not isinstance(data, dict):
            raise RecordError("a record is a JSON object")
        if data.get("format", FORMAT) != FORMAT:
            raise RecordError(f"not a {FORMAT} record (format: {data.get('format')!r})")
        missing = [name for name in REQUIRED if name not in data]
        if missing:
            raise RecordError(f"the record has no {' or '.join(map(repr, missing))} field")
        rules = _rules_of(data)
        dealer = data.get("dealer")
        if not isinstance(dealer, int) or isinstance(dealer, bool):
            raise RecordError(f"dealer must be a seat number, not {dealer!r}")
        try:
            rules.seating(dealer)
        except ValueError as error:
            raise RecordError(str(error)) from None
        deck_text = data.get("deck")
        if not isinstance(deck_text, str):
            raise RecordError("deck must be a string of 80 cards")
        try:
            deck = parse_cards(deck_text)
        except NotationError as error:
            raise RecordError(f"deck: {error}") from None
        try:
            check_deck(deck)
        except ValueError as error:
            raise RecordError(f"deck: {error}") from None
        actions = data.get("actions", [])
        if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
            raise RecordError("actions must be a list of strings")
        result = data.get("result")
        if result is not None and not isinstance(result, dict):
            raise RecordError("result must be an object")
        return cls(rules, dealer, deck, list(actions), result)

    def new_game(self) -> Game:
        """The game at the start of this record."""
        return Game(self.rule_set, dealer=self.dealer, deck=self.deck)

    @property
    def rule_set(self) -> RuleSet:
        return PRESETS[self.rules] if isinstance(self.rules, str) else self.rules


def _rules_of(data: dict[str, Any]) -> RuleSet:
    name = data.get("rules", HUNAN.name)
    full = data.get("ruleset")
    if full is None:
        if not isinstance(name, str):
            raise RecordError(f"rules must be a preset's name, not {name!r}")
        if name not in PRESETS:
            raise RecordError(f"unknown rules {name!r} (known: {', '.join(sorted(PRESETS))})")
        return PRESETS[name]
    try:
        rules = RuleSet.from_json(full)
    except ValueError as error:
        raise RecordError(f"ruleset: {error}") from None
    if "rules" in data and name != rules.name:
        raise RecordError(f"rules {name!r} is not the ruleset's preset {rules.name!r}")
    return rules


def record_of(game: Game) -> Record:
    """The record of a game so far (with its result when it is over). A game set up from a
    position has no deal to record (F4 starts from the deck): ValueError."""
    if not game.dealt:
        raise ValueError("a game set up from a position has no deal to record (F4 needs its deck)")
    return Record(
        rules=game.rules,
        dealer=game.dealer,
        deck=list(game.deck),
        actions=[f"{seat} {action}" for seat, action in game.history],
        result=result_json(game.result),
    )


@dataclass
class Replay:
    """A replayed record: the game after its last legal action, and the first error if any."""

    game: Game
    error: JSON | None = None

    @property
    def status(self) -> str:
        if self.error is not None:
            return "illegal"
        return "finished" if self.game.is_over else "ongoing"

    def to_json(self) -> JSON:
        """The F5 object."""
        game = self.game
        ongoing = self.status == "ongoing"
        return {
            "status": self.status,
            "error": self.error,
            "to_act": game.to_act if ongoing else None,
            "legal": sorted(f"{game.to_act} {a}" for a in game.legal_actions()) if ongoing else [],
            "position": position_json(game),
            "result": result_json(game.result),
        }


def replay(record: Record) -> Replay:
    """Replay a record action by action, stopping at the first illegal one (F5)."""
    game = record.new_game()
    for index, text in enumerate(record.actions):
        try:
            game.apply_text(text)
        except (IllegalAction, NotationError) as error:
            return Replay(game, {"index": index, "action": text, "message": str(error)})
    # A record cut short replays to its position whatever result it carries (F4, D167); a
    # finished one's result is checked, the fields it gives (D14).
    if record.result is not None and game.is_over:
        mismatch = _result_mismatch(record.result, result_json(game.result) or {})
        if mismatch:
            message = f"the record's result differs from the replay's: {mismatch}"
            return Replay(game, {"index": len(record.actions), "action": None, "message": message})
    return Replay(game)


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values: of the same JSON type (``true`` is not ``1``, ``16.0`` is not
    ``16``) and equal."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


def _canonical_groups(groups: Any) -> Any:
    """F2 groups in their full form (input may shorten them, F2), in canonical order: the
    order of the winning groups is not part of F5; anything else is left as it is."""
    if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
        return groups
    try:
        return sorted(str(parse_group(g)) for g in groups)
    except NotationError:
        return groups


def _canonical(key: str, value: Any) -> Any:
    if key == "groups":
        return _canonical_groups(value)
    if key == "mingtang" and isinstance(value, list):  # several 名堂 in any order
        return sorted(value, key=lambda m: json.dumps(m, sort_keys=True))
    return value


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def same_result_field(key: str, claimed: Any, actual: Any) -> bool:
    """Whether a record's ``result`` field ``key`` says what the replay's does: the same JSON
    value (``true`` is not ``1``), the groups and the 名堂 in any order, the groups as F2 input
    may shorten them (D167)."""
    return _same(_canonical(key, claimed), _canonical(key, actual))


def _result_mismatch(claimed: Mapping[str, Any], actual: Mapping[str, Any]) -> str:
    for key, value in claimed.items():
        if key not in actual:
            return f"unknown field {key!r}"
        if not same_result_field(key, value, actual[key]):
            return f"{key} is {_text(actual[key])}, not {_text(value)}"
    return ""


def position_json(game: Game) -> JSON:
    """F5 ``position``: the referee's view (hidden cards shown), one entry per seat."""
    seats = game.seats
    return {
        "dealer": game.dealer,
        "wall": game.wall,
        "hands": [format_cards(s.hand_cards()) for s in seats],
        "tables": [[str(g) for g in s.table] for s in seats],
        "discards": [format_cards(s.row, sort=False) for s in seats],
        "chou": [format_cards(s.chou) for s in seats],
    }


def result_json(result: GameResult | None) -> JSON | None:
    """F5 ``result``."""
    if result is None:
        return None
    hu = result.hu
    score = hu.score if hu is not None else None
    return {
        "winner": result.winner,
        "winning_card": KIND_NAMES[result.win] if result.win is not None else None,
        "self_drawn": score.self_drawn if score else False,
        "tianhu": score.tianhu if score else False,
        "haidi": score.haidi if score else False,
        "groups": [str(g) for g in hu.groups] if hu else [],
        "huxi": score.huxi if score else 0,
        "deng": score.deng if score else 0,
        "mingtang": [{"name": n, "fan": f} for n, f in score.mingtang] if score else [],
        "fan": score.fan if score else 0,
        "score": score.points if score else 0,
        "payments": list(result.payments),
        "other_huxi": {str(s): h for s, h in sorted(result.other_huxi.items())},
    }
