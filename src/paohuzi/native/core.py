"""The native core (issue 14, issue 23): :class:`NativeCore`, a hand played by the state
machine compiled from Rust (``native/src/engine/game.rs``), one of the two cores behind
:class:`paohuzi.engine.game.Game` (the :class:`~paohuzi.engine.core.Core` protocol).
``Game(core="auto")`` picks it where :func:`serves` says it serves the rule set (D37, D84).

Both cores make the same positions, offer the same actions in the same order and end with the
same result after every action (``tests/test_native_game.py``), and stop at the same offers
when asked to (D101). Its capabilities beyond the
state machine (the greedy choice, rollouts, the observation encoding, the sampler) are the
``Core`` methods whose Python fallbacks live beside their callers.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Literal

from paohuzi import native
from paohuzi.engine.action_ids import ACTIONS
from paohuzi.engine.actions import HU, PASS, PENG, Action, ActionType, discard
from paohuzi.engine.cards import NUM_KINDS, Kind, full_deck
from paohuzi.engine.core import Waits
from paohuzi.engine.game import (
    Event,
    EventType,
    Game,
    IllegalAction,
    PythonCore,
    check_deck,
    check_position,
)
from paohuzi.engine.groups import Group, GroupType
from paohuzi.engine.observation import Observation
from paohuzi.engine.position import (
    ClaimWindow,
    Discarding,
    GameResult,
    Over,
    Phase,
    Position,
    SeatState,
    SelfHu,
    Source,
)
from paohuzi.engine.rules import HUNAN, RuleSet, Seating

__all__ = [
    "GROUP_CODES",
    "NativeCore",
    "NativeSampler",
    "evaluator_for",
    "greedy_choice",
    "kit",
    "serves",
]

_GROUPS = native.group_table()
GROUP_CODES = {g: code for code, g in enumerate(_GROUPS) if g is not None}
"""The native core's code of every group (``type * 40 + shape``)."""
_GROUP_TYPES = list(GroupType)
_EVENT_TYPES = list(EventType)
_SOURCES = (Source.LIANG, Source.DRAWN, Source.DISCARDED)
_SOURCE_INDEX = {s: i for i, s in enumerate(_SOURCES)}
_KIT: Any = None
_new = object.__new__
_SEEDS = 1 << 128
"""Int seeds of an absolute value below this are shuffled inside the core (D93)."""


_TERMS: tuple[RuleSet | None, Any, tuple[Seating, ...]] = (None, None, ())
"""The rule set last dealt, its extension ``Dealer`` and its seatings (see :func:`_terms`)."""


def _terms(rules: RuleSet) -> tuple[RuleSet | None, Any, tuple[Seating, ...]]:
    """``rules``, the extension's ``Dealer`` of them (None when only Python serves them) and
    the seating of each dealer: made once per rule set (a game is made per hand, D112). The
    Dealer holds the evaluator, the kit, the flags and the rule set."""
    global _TERMS
    last = _TERMS  # read once: another thread may replace it
    if last[0] is rules:
        return last
    ev = _evaluator(rules)
    dealing = None
    if ev is not None:
        flags = (rules.players, rules.hu_on_discard, rules.take_needs_discard)
        dealing = native.extension().Dealer(ev, _kit(), *flags, rules.break_kan_when_stuck, rules)
    found = (rules, dealing, tuple(rules.seating(d) for d in range(rules.players)))
    _TERMS = found
    return found


def _kit() -> Any:
    """The Python objects of actions, made once for the extension."""
    global _KIT
    if _KIT is None:
        extension = native.extension()
        types = [ActionType.DISCARD, ActionType.CHI, ActionType.PENG, ActionType.HU]
        _KIT = extension.Kit(
            Action,
            [*types, ActionType.PASS],
            PASS,
            PENG,
            HU,
            [discard(k) for k in range(NUM_KINDS)],
        )
        _KIT.set_ids(list(ACTIONS))
        _KIT.set_refuse(_refused)
    return _KIT


_LAST: tuple[RuleSet, Any] | None = None
"""The rule set last asked about and its evaluator (a game asks twice as it is made: which
core, then the core's evaluator; a rule set is immutable, so its identity says it all)."""


def _evaluator(rules: RuleSet) -> Any:
    """The native evaluator of a rule set, or None when only Python serves it."""
    global _LAST
    last = _LAST  # read once: another thread may replace it
    if last is not None and last[0] is rules:
        return last[1]
    core = native.evaluators
    found = None if core is None or type(rules) is not RuleSet else core.evaluator_for(rules)
    _LAST = (rules, found)
    return found


def kit() -> Any:
    """The extension's table of action objects (made once): for other users of the
    extension, such as the vector environment."""
    return _kit()


def evaluator_for(rules: RuleSet) -> Any:
    """The native evaluator of ``rules``, or None where only Python serves them."""
    return _evaluator(rules)


def greedy_choice(observation: Observation, *, count_waits: bool) -> Action | None:
    """``GreedyBot(count_waits=count_waits).act(observation)`` computed by the native core
    (``native/src/policy/greedy.rs``), or None when it does not serve the rule set."""
    ev = _evaluator(observation.rules)
    if ev is None or observation.seat is None or not observation.legal:
        return None
    nxt = observation.seating.next(observation.seat)
    choice: Action = native.extension().greedy_choice(
        ev,
        _kit(),
        observation.hand,
        [GROUP_CODES[g] for g in observation.own_table()],
        observation.unseen(),
        list(observation.legal),
        observation.offer,
        list(observation.discarded[nxt]),
        count_waits,
    )
    return choice


def serves(rules: RuleSet) -> bool:
    """Whether the native core serves ``rules`` (it is built and loaded, and knows every 名堂
    and value of the rule set): where ``Game(core="auto")`` plays natively."""
    return _evaluator(rules) is not None


def deal(
    rules: RuleSet,
    dealer: int,
    deck: Sequence[Kind] | None,
    seed: int | None,
    pauses: bool,
    game: object,
) -> NativeCore | None:
    """``NativeCore(rules, dealer=dealer, deck=deck, seed=seed, pauses=pauses)`` keeping
    ``game.is_over`` (:meth:`NativeCore.keep_over`), or None where the native core does not
    serve ``rules``: how :class:`Game` deals on the native core, in one call with no keywords
    (a game is made per hand, D112)."""
    terms = _TERMS  # read once: another thread may replace it
    if terms[0] is not rules:
        terms = _terms(rules)
    if terms[1] is None:
        return None
    core: NativeCore = _new(NativeCore)
    core._deal(terms, dealer, deck, seed, True, pauses, game)
    return core


def _seat_tuple(state: SeatState) -> tuple[Any, ...]:
    return (
        list(state.hand),
        [(_GROUP_TYPES.index(g.type), list(g.cards)) for g in state.table],
        list(state.row),
        sorted(state.discarded),
        sorted(state.chou),
        list(state.chou_hu),
    )


def _phase_tuple(phase: Phase) -> tuple[Any, ...]:
    if isinstance(phase, ClaimWindow):
        return (
            "claim",
            phase.card,
            phase.owner,
            _SOURCE_INDEX[phase.source],
            list(phase.asking),
            list(phase.offered),
            list(phase.claims),
        )
    if isinstance(phase, Discarding):
        return ("discard", phase.seat)
    if isinstance(phase, SelfHu):
        return ("self_hu", phase.seat, phase.card)
    return ("over",)


class NativeCore:
    """A hand of Paohuzi played by the native core. See the module docstring."""

    name: Literal["native", "python"] = "native"
    rules: RuleSet
    dealer: int
    seating: Seating
    # What was read from the core, and the log given to from_position; class-level defaults
    # so that a deal sets none of them (a game is made per hand, D93).
    _seen_result: GameResult | None = None
    _given_log: tuple[Event, ...] = ()
    _seen_log: list[Event] | None = None
    _seen_at = -1
    _seen_phase: Phase | None = None
    _seen_seats: tuple[SeatState, ...] | None = None

    def __init__(
        self,
        rules: RuleSet = HUNAN,
        *,
        dealer: int = 0,
        deck: Sequence[Kind] | None = None,
        seed: int | None = None,
        keep_log: bool = True,
        pauses: bool = False,
    ) -> None:
        """The hand dealt from ``deck``, or from the deck ``random.Random(seed)`` shuffles
        (``full_deck()`` shuffled, as :class:`PythonCore` deals it), shuffled inside the core
        for an int seed (D93); stopping at each card on offer with ``pauses`` (D101)."""
        terms = _terms(rules)
        if terms[1] is None:
            raise ValueError("the native core does not serve this rule set: use core='python'")
        self._deal(terms, dealer, deck, seed, keep_log, pauses, None)

    def _deal(
        self,
        terms: tuple[RuleSet | None, Any, tuple[Seating, ...]],
        dealer: int,
        deck: Sequence[Kind] | None,
        seed: int | None,
        keep_log: bool,
        pauses: bool,
        game: object,
    ) -> None:
        """Play the hand the ``Dealer`` of ``terms`` (:func:`_terms`) deals, keeping
        ``game.is_over`` unless ``game`` is None."""
        rules, dealing, seatings = terms
        if deck is None and type(seed) is int and -_SEEDS < seed < _SEEDS:
            made = dealing.deal_python_seeded(dealer, abs(seed), keep_log, pauses, game)
        else:
            if deck is None:
                deck = full_deck()
                random.Random(seed).shuffle(deck)
            check_deck(deck)
            made = dealing.deal(dealer, list(deck), keep_log, pauses, game)
        # _adopt's, without its call (a game is made per hand).
        self._native = made
        self.rules = rules  # type: ignore[assignment]
        self.legal_actions = made.legal  # type: ignore[method-assign]
        self.apply = made.applier()  # type: ignore[method-assign]
        self.dealer = dealer
        self.seating = seatings[dealer]

    @classmethod
    def from_position(
        cls,
        position: Position,
        rules: RuleSet = HUNAN,
        *,
        log: Iterable[Event] = (),
        check: bool = True,
    ) -> NativeCore:
        """``PythonCore.from_position``: the same checks, the same game."""
        check_position(position, rules)
        ev = _evaluator(rules)
        if ev is None:
            raise ValueError("the native core does not serve this rule set: use core='python'")
        game = cls.__new__(cls)
        game.rules = rules
        game.dealer = position.dealer
        game.seating = rules.seating(position.dealer)
        made = native.extension().Game.at(
            ev,
            _kit(),
            rules.players,
            rules.hu_on_discard,
            rules.take_needs_discard,
            rules.break_kan_when_stuck,
            position.dealer,
            position.liang,
            list(position.wall),
            [_seat_tuple(s) for s in position.seats],
            _phase_tuple(position.phase),
            check,
        )
        made.set_rules(rules)
        game._adopt(made, rules)
        game._seen_result = position.phase.result if isinstance(position.phase, Over) else None
        game._given_log = tuple(log)
        game._seen_log = list(game._given_log)
        game._forget()
        return game

    def _adopt(self, game: Any, rules: RuleSet) -> None:
        """Play ``game`` (the extension's) under ``rules``. :meth:`legal_actions` becomes its
        ``legal`` and :meth:`apply` its ``play`` as a function of one argument of C (no Python
        frame per call, D93; no argument parsing, D112)."""
        self._native = game
        self.rules = rules
        self.legal_actions = game.legal  # type: ignore[method-assign]
        self.apply = game.applier()  # type: ignore[method-assign]

    @classmethod
    def _of(cls, game: Any, rules: RuleSet) -> NativeCore:
        """The core playing ``game`` (the extension's, dealt or sampled; no log before it)."""
        core = cls.__new__(cls)
        game.set_rules(rules)
        core._adopt(game, rules)
        core.dealer = game.dealer()
        core.seating = rules.seating(core.dealer)
        core._seen_result = None
        core._given_log = ()
        core._seen_log = []
        core._forget()
        return core

    def _forget(self) -> None:
        """Drop what was read from the core (it is read again once the core has moved)."""
        self._seen_at = -1
        self._seen_phase = None
        self._seen_seats = None

    def _fresh(self) -> None:
        """Forget what was read before the core last moved."""
        moves = self._native.moves()
        if moves != self._seen_at:
            self._seen_at = moves
            self._seen_phase = None
            self._seen_seats = None

    # ----------------------------------------------------------------------------- queries

    @property
    def liang(self) -> Kind:
        return int(self._native.liang())

    @property
    def phase(self) -> Phase:
        """What the game waits for (see :mod:`paohuzi.engine.position`)."""
        self._fresh()
        if self._seen_phase is None:
            self._seen_phase = self._read_phase()
        return self._seen_phase

    def _read_phase(self) -> Phase:
        raw = self._native.phase()
        tag = raw[0]
        if tag == "claim":
            _, card, owner, source, asking, offered, claims = raw
            return ClaimWindow(
                card, owner, _SOURCES[source], tuple(asking), tuple(offered), tuple(claims)
            )
        if tag == "discard":
            return Discarding(raw[1])
        if tag == "self_hu":
            return SelfHu(raw[1], raw[2])
        result = self.result
        assert result is not None  # an over game has its result
        return Over(result)

    @property
    def to_act(self) -> int | None:
        """The seat to decide now; None once the hand is over (or while paused)."""
        seat: int | None = self._native.to_act()
        return seat

    @property
    def paused(self) -> bool:
        """Whether the game is stopped at a card on offer (D101)."""
        paused: bool = self._native.paused
        return paused

    def keep_over(self, game: object) -> bool:
        """True: ``game.is_over`` is set by the extension, now and when the hand ends (D112)."""
        self._native.keep_over(game)
        return True

    def resume(self) -> None:
        """Go on from a card on offer (D101)."""
        if not self._native.resume():
            raise IllegalAction("the game is not stopped at a card on offer")

    @property
    def result(self) -> GameResult | None:
        """How the hand ended; None while it goes on."""
        if self._seen_result is None:
            raw = self._native.outcome()
            if raw is not None:
                winner, win, hu, payments, others = raw
                self._seen_result = GameResult(winner, win, hu, tuple(payments), dict(others))
        return self._seen_result

    if TYPE_CHECKING:

        @property
        def is_over(self) -> bool: ...

    else:
        # Read straight from the extension's attribute (no Python frame: asked every decision).
        is_over = property(attrgetter("_native.is_over"), doc="Whether the hand is over.")

    @property
    def wall(self) -> int:
        """Cards left to draw."""
        return int(self._native.wall_left())

    @property
    def dealt(self) -> bool:
        return self._native.deck() is not None

    @property
    def deck(self) -> tuple[Kind, ...]:
        """The 80 cards the hand was dealt from (R2); ValueError for a game set up from a
        position."""
        deck = self._native.deck()
        if deck is None:
            raise ValueError("a game set up from a position has no deck")
        return tuple(deck)

    @property
    def seats(self) -> tuple[SeatState, ...]:
        """Every seat's state now."""
        self._fresh()
        if self._seen_seats is None:
            self._seen_seats = tuple(
                SeatState(
                    tuple(hand),
                    tuple(_GROUPS[c] for c in table),
                    tuple(row),
                    frozenset(discarded),
                    frozenset(chou),
                    tuple(chou_hu),
                )
                for hand, table, row, discarded, chou, chou_hu in self._native.seats()
            )
        return self._seen_seats

    @property
    def history(self) -> list[tuple[int, Action]]:
        """Every decision so far, as (seat, action)."""
        return list(self._native.history())

    @property
    def log(self) -> list[Event]:
        """The events so far (after those given to :meth:`from_position`)."""
        return list(self._read_log())

    def _read_log(self) -> list[Event]:
        """The events so far, read from the core once each (the same objects every time)."""
        read = self._seen_log
        if read is None:
            read = self._seen_log = list(self._given_log)
        for etype, seat, card, groups in self._native.log(len(read) - len(self._given_log)):
            cards = tuple(_GROUPS[c] for c in groups)
            read.append(Event(_EVENT_TYPES[etype], seat, card, cards))
        return read

    @property
    def event_count(self) -> int:
        return len(self._given_log) + int(self._native.log_len())

    def events_since(self, start: int) -> list[Event]:
        return self._read_log()[start:]

    def position(self) -> Position:
        """The position now: everything that decides how the hand goes on."""
        return Position(self.dealer, self.liang, tuple(self._native.wall()), self.seats, self.phase)

    def huxi(self, seat: int) -> int:
        """The seat's current total hu-xi (R10.6)."""
        return int(self._native.huxi(seat))

    def legal_actions(self) -> list[Action]:
        """The choices of :attr:`to_act`, sorted by their F3 text; empty when the hand is over
        (a new list of the action objects, made once per position). Every core of this class
        has the extension's own method in its place (:meth:`_adopt`): no Python frame."""
        legal: list[Action] = self._native.legal()
        return legal

    def clone(self) -> NativeCore:
        """An independent copy, for search."""
        other = NativeCore.__new__(NativeCore)
        other.__dict__.update(self.__dict__)
        other._adopt(self._native.clone(), self.rules)
        other._seen_log = None if self._seen_log is None else list(self._seen_log)
        return other

    # ----------------------------------------------------------------------------- actions

    def apply(self, action: Action) -> None:
        """Carry out the decision of :attr:`to_act`; raises :class:`IllegalAction` (worded by
        :func:`_refused`). Every core of this class has the extension's own method in its
        place (:meth:`_adopt`)."""
        self._native.play(action)

    def _refuse(self, action: Action, done: int) -> None:
        """Raise :class:`IllegalAction` for an action the core refused (``done`` its code)."""
        if self.is_over:
            raise IllegalAction("the hand is over")
        if self.paused:
            raise IllegalAction("nobody is asked yet: the card is on offer (resume the game)")
        seat = self.to_act
        if done == 2:
            raise IllegalAction(f"seat {seat} has no winning hand (an unchecked position)")
        raise IllegalAction(self.why_illegal(action))

    def why_illegal(self, action: Action) -> str:
        """Why :attr:`to_act` may not take ``action`` now: the reference's words (a rare path,
        a bot or a client made a mistake)."""
        if self.paused:
            return "nobody is asked yet: the card is on offer (resume the game)"
        reference = PythonCore.from_position(self.position(), self.rules, check=False)
        return reference.why_illegal(action)

    # ----------------------------------------------------------------------------- capabilities

    def rollout(
        self, candidates: Sequence[Action], seat: int, *, waits: Waits = False
    ) -> list[int]:
        """``rollout_payments`` inside the native core: for each candidate, ``seat``'s payment
        when it is played and then every seat plays the greedy bot to the end, counting its
        waits as ``waits`` says (:data:`paohuzi.engine.core.Waits`)."""
        return list(self._native.rollout(list(candidates), seat, waits is True, waits == "seat"))

    def encode(self, seat: int) -> bytearray:
        """``seat``'s observation array (:func:`paohuzi.env.encoding.encode`) as the bytes of
        its float32 values, row by row."""
        found: bytearray = self._native.encode(seat)
        return found

    def mask(self, seat: int) -> bytearray:
        """``seat``'s action mask (:func:`paohuzi.env.encoding.action_mask`) as one byte per
        action id of :mod:`paohuzi.engine.action_ids`."""
        found: bytearray = self._native.mask(seat)
        return found

    def greedy(self, count_waits: bool) -> Action | None:
        """``GreedyBot(count_waits=count_waits)``'s choice for the seat to act, None once over."""
        choice: Action | None = self._native.greedy(count_waits)
        return choice

    def play_greedy(self, *, count_waits: bool = False) -> GameResult:
        """Play the hand to its end with ``GreedyBot(count_waits=count_waits)`` at every seat,
        inside the native core; how it ended."""
        self._native.play_greedy(count_waits)
        result = self.result
        assert result is not None  # played to the end
        return result


def _refused(game: Any, rules: RuleSet, action: Action, done: int) -> None:
    """Raise the :class:`IllegalAction` of ``action``, which the extension's ``game`` refused
    (``done``: 1 illegal, 2 a 胡 with no winning hand): the Python core's words."""
    NativeCore._of(game, rules)._refuse(action, done)


class NativeSampler:
    """The hidden cards of one observation sampled inside the native core
    (:func:`paohuzi.bots.sampler.sample` uses it, D41): made from what the seat sees and the
    constraints Python works out, then one game per :meth:`sample`. ``seats``: every seat as
    the seat sees it (other hands empty, a face-down 偎 None); ``hidden``: each other playing
    seat in play order with its hand size and per-kind caps."""

    def __init__(
        self,
        rules: RuleSet,
        dealer: int,
        liang: Kind,
        wall: int,
        seats: Sequence[
            tuple[
                tuple[int, ...],
                Sequence[Group | None],
                Sequence[Kind],
                Iterable[Kind],
                Iterable[Kind],
                Sequence[tuple[Kind, int]],
            ]
        ],
        not_wei: Sequence[Iterable[Kind]],
        unseen: Sequence[int],
        hidden: Sequence[tuple[int, int, Sequence[int]]],
        kept: bool,
        phase: Phase,
    ) -> None:
        ev = _evaluator(rules)
        if ev is None:
            raise ValueError("the native core does not serve this rule set")
        self.rules = rules
        self.dealer = dealer
        self._sampler = native.extension().Sampler(
            ev,
            _kit(),
            rules.players,
            rules.hu_on_discard,
            rules.take_needs_discard,
            rules.break_kan_when_stuck,
            dealer,
            liang,
            wall,
            [
                (
                    list(hand),
                    [
                        (0, []) if g is None else (_GROUP_TYPES.index(g.type), list(g.cards))
                        for g in table
                    ],
                    list(row),
                    sorted(discarded),
                    sorted(chou),
                    list(chou_hu),
                )
                for hand, table, row, discarded, chou, chou_hu in seats
            ],
            [sorted(kinds) for kinds in not_wei],
            list(unseen),
            [(seat, size, list(caps)) for seat, size, caps in hidden],
            kept,
            _phase_tuple(phase),
        )

    def sample(self, seed: int, tries: int) -> Game | str:
        """A game consistent with the observation, drawn with ``seed`` (64 bits), the exact way
        after ``tries`` deals by rejection; or why none is (no completion satisfies the
        constraints). ValueError for a position refused."""
        code, found = self._sampler.sample(seed, tries)
        if code == 1:
            message: str = found
            return message
        if code == 2:
            raise ValueError(found)
        return Game.of_core(NativeCore._of(found, self.rules))

    def sample_rollout(
        self, seed: int, tries: int, candidates: Sequence[Action], seat: int, waits: Waits
    ) -> list[int] | str:
        """:meth:`sample`'s game and then :meth:`NativeCore.rollout`'s payments on it, in one
        call to the core (the game never crosses into Python); or why no game is."""
        code, found = self._sampler.sample_rollout(
            seed, tries, list(candidates), seat, waits is True, waits == "seat"
        )
        if code == 2:
            raise ValueError(found)
        paid: list[int] | str = found
        return paid
