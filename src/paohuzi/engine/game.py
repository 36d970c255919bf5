"""One hand of Paohuzi as a deterministic state machine (R2–R11).

A :class:`Game` is created from a rule set, a dealer and an 80-card deck (or a seed). It runs
every forced and automatic event itself (deal, 提, 偎, 臭偎, 跑, 必需天胡, draws) and stops at
each decision: :attr:`Game.to_act` is the seat to decide, :meth:`Game.legal_actions` its
choices, :meth:`Game.apply` carries one out. What the game waits for is its
:attr:`Game.phase` (:mod:`paohuzi.engine.position`): a claim window (R8) asks every seat with an
option on a card once, in order, and the highest claim is carried out when all have answered.

The state is a :class:`~paohuzi.engine.position.Position` and nothing more: :meth:`Game.position`
takes it, :meth:`Game.from_position` plays on from one, :meth:`Game.clone` copies it.

A :class:`Game` is played by a core (the :class:`Core` protocol), chosen per game (D84):
:class:`PythonCore`, below, is the reference transitions, the readable spec of every rule;
:class:`paohuzi.native.core.NativeCore` plays the same hand compiled from Rust. Both make the
same positions, the same actions in the same order and the same results after every action.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from typing import Literal

from paohuzi.engine.actions import Action, parse_seat_action
from paohuzi.engine.cards import (
    Kind,
    full_deck,
)
from paohuzi.engine.core import Core, CoreName, Waits
from paohuzi.engine.groups import Group
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
from paohuzi.engine.python_core import (
    LIANG_INDEX,
    PRIVATE_CARD_EVENTS,
    Event,
    EventType,
    IllegalAction,
    PythonCore,
    check_deck,
    check_position,
    stacked_deck,
)
from paohuzi.engine.rules import HUNAN, RuleSet, Seating, holding_limit

__all__ = [
    "LIANG_INDEX",
    "PRIVATE_CARD_EVENTS",
    "ClaimWindow",
    "Core",
    "CoreName",
    "Discarding",
    "Event",
    "EventType",
    "Game",
    "GameResult",
    "IllegalAction",
    "Over",
    "Phase",
    "Position",
    "PythonCore",
    "SeatState",
    "SelfHu",
    "Source",
    "check_deck",
    "check_position",
    "stacked_deck",
]


# The native core's functions a game calls, each imported on first use (the engine runs without
# the extension), by a function that then puts the imported one in its place (an import
# statement per game cost ~0.6 µs, D93; a call to look it up, D112).


def _first_native_serves(rules: RuleSet) -> bool:
    global _native_serves
    from paohuzi.native.core import serves

    _native_serves = serves
    return serves(rules)


_native_serves: Callable[[RuleSet], bool] = _first_native_serves
"""Whether the native core serves the rules: ``paohuzi.native.core.serves``."""


def _first_native_deal(
    rules: RuleSet,
    dealer: int,
    deck: Sequence[Kind] | None,
    seed: int | None,
    pauses: bool,
    game: object,
) -> Core | None:
    global _native_deal
    from paohuzi.native.core import deal

    _native_deal = deal
    return deal(rules, dealer, deck, seed, pauses, game)


_native_deal: Callable[
    [RuleSet, int, Sequence[Kind] | None, int | None, bool, object], Core | None
] = _first_native_deal
"""The native core dealt (keeping the game's ``is_over``), or None where it does not serve the
rules: ``paohuzi.native.core.deal``."""


def _pick(core: str, rules: RuleSet) -> Literal["native", "python"]:
    """The core a game gets (D84): see :data:`CoreName`."""
    if core == "python":
        return "python"
    if core not in ("auto", "native"):
        raise ValueError(f"core is 'auto', 'native' or 'python', not {core!r}")
    if _native_serves(rules):
        return "native"
    if core == "native":
        raise ValueError("the native core does not serve this rule set (or is not built)")
    return "python"


class Game:
    """A hand of Paohuzi: the one game class, played by a core (:class:`Core`) chosen per
    game. ``Game(rules, dealer=…, deck=… | seed=…, core="auto" | "native" | "python")``; a seeded
    game deals the same deck on either core. See the module docstring."""

    _core: Core
    core: Literal["native", "python"]
    """The core playing this game."""
    is_over: bool
    """Whether the hand is over: the game's own attribute, read with no call (a random-play
    loop asks it at every decision, D112), kept current by the core, or by the game after each
    of its moves where the core does not keep it (:meth:`Core.keep_over`)."""

    def __init__(
        self,
        rules: RuleSet = HUNAN,
        *,
        dealer: int = 0,
        deck: Sequence[Kind] | None = None,
        seed: int | None = None,
        core: CoreName = "auto",
        pause_at_offers: bool = False,
    ) -> None:
        """``pause_at_offers``: stop at each card put on offer (:attr:`paused`, D101)."""
        if isinstance(dealer, bool) or dealer not in range(rules.players):
            Seating(rules.players, dealer)  # raises the ValueError naming the seats (either core)
        # Either core checks the deck. _pick's choice, first without its calls (a game is made
        # per hand, D93); _pick words a bad name and a native core that does not serve.
        if core == "auto" or core == "native":
            # The core shuffles as random.Random(seed) does (D93).
            made = _native_deal(rules, dealer, deck, seed, pause_at_offers, self)
            if made is not None:
                self.core = "native"
                # _play's, without its call and with is_over kept already (by the deal).
                self._core = made
                self.legal_actions = made.legal_actions  # type: ignore[method-assign]
                self.apply = made.apply  # type: ignore[method-assign]
                return
        self.core = _pick(core, rules)
        if deck is None:
            deck = full_deck()
            random.Random(seed).shuffle(deck)
        python = PythonCore(
            rules, dealer=dealer, deck=deck, pauses=pause_at_offers, native_evaluator=core == "auto"
        )
        self._play(python)

    @classmethod
    def from_position(
        cls,
        position: Position,
        rules: RuleSet = HUNAN,
        *,
        log: Iterable[Event] = (),
        check: bool = True,
        core: CoreName = "auto",
    ) -> Game:
        """A game at ``position`` under ``rules``, on the chosen core; ``log`` the events that
        led there, if they are known (they are shown to observers; the rules never read them).
        Raises ValueError for a position the rules cannot reach: a wrong seat count, cards
        that do not add up to the deck's 80 (R1), a seat to act that does not play the hand or
        has nothing to do (either core, in the same words).

        In a claim window, the options of the seats after the first are worked out from the
        position (R8) and seats left with none are not asked; the first is offered exactly
        ``offered``, which must be among its options. ``check`` False takes the phase as given
        even when the seat to act could not face it (a position made up to be looked at, not
        played: it may play on wrongly)."""
        if _pick(core, rules) == "native":
            from paohuzi.native.core import NativeCore

            return cls.of_core(NativeCore.from_position(position, rules, log=log, check=check))
        python = PythonCore.from_position(
            position, rules, log=log, check=check, native_evaluator=core == "auto"
        )
        return cls.of_core(python)

    @classmethod
    def of_core(cls, core: Core) -> Game:
        """The game a core plays (a core made elsewhere: a clone, the native sampler's)."""
        game = cls.__new__(cls)
        game._play(core)
        game.core = core.name
        return game

    def _play(self, core: Core) -> None:
        """Be played by ``core``. :meth:`legal_actions` only passes the call on to the core, and
        so does :meth:`apply` where the core keeps :attr:`is_over` (:meth:`Core.keep_over`), so
        they become the core's own methods here: a random-play loop over this face then costs
        no Python frame of the game's per call (issue 23, point 3; D93, D112)."""
        self._core = core
        self.legal_actions = core.legal_actions  # type: ignore[method-assign]
        if core.keep_over(self):
            self.apply = core.apply  # type: ignore[method-assign]
        else:
            # The class's apply, which sets is_over after the move (a bound method of the game
            # kept in the game would hold it in a cycle).
            self.is_over = core.is_over

    # ----------------------------------------------------------------------------- queries

    @property
    def rules(self) -> RuleSet:
        return self._core.rules

    @property
    def dealer(self) -> int:
        return self._core.dealer

    @property
    def seating(self) -> Seating:
        """Who plays this hand, in what order (R2, R12)."""
        return self._core.seating

    @property
    def liang(self) -> Kind:
        """The 亮张 (R2)."""
        return self._core.liang

    @property
    def phase(self) -> Phase:
        """What the game waits for (see :mod:`paohuzi.engine.position`)."""
        return self._core.phase

    @property
    def to_act(self) -> int | None:
        """The seat to decide now; None once the hand is over (or while stopped at a card on
        offer, see :attr:`paused`)."""
        return self._core.to_act

    @property
    def paused(self) -> bool:
        """Whether the game is stopped at a card on offer (D101). A game made with
        ``pause_at_offers`` stops whenever a card is put on offer (the 亮张, a shown draw, a
        discard), before anyone is asked about it: the moment every seat sees the card, whether
        or not some seat may claim it. A server that speaks at that moment reveals nothing of
        who is then asked (R8), even when nobody is. While stopped, the phase is the card's
        :class:`ClaimWindow` asking nobody (``asking`` empty), :attr:`to_act` is None, there
        are no legal actions, and :meth:`resume` goes on. Either core; a clone is stopped where
        its game is and stops where it would."""
        return self._core.paused

    def resume(self) -> None:
        """Go on from a card on offer (:attr:`paused`): the seats with an option on it are
        asked in order (R8), or the hand carries on when there are none, to the next decision
        or the next offer. Raises :class:`IllegalAction` when the game is not stopped at one."""
        core = self._core
        core.resume()
        self.is_over = core.is_over

    def resume_all(self) -> None:
        """:meth:`resume` until the game waits for a decision (or is over)."""
        core = self._core
        while core.paused:
            core.resume()
        self.is_over = core.is_over

    @property
    def result(self) -> GameResult | None:
        """How the hand ended; None while it goes on."""
        return self._core.result

    @property
    def wall(self) -> int:
        """Cards left to draw."""
        return self._core.wall

    @property
    def dealt(self) -> bool:
        """Whether the game started from a deal (and so has a deck and a record, F4)."""
        return self._core.dealt

    @property
    def deck(self) -> tuple[Kind, ...]:
        """The 80 cards the hand was dealt from (R2); ValueError for a game set up from a
        position, which has none."""
        return self._core.deck

    @property
    def seats(self) -> tuple[SeatState, ...]:
        """Every seat's state now."""
        return self._core.seats

    @property
    def hands(self) -> tuple[tuple[int, ...], ...]:
        """Every seat's hand, as counts per kind."""
        return tuple(s.hand for s in self._core.seats)

    @property
    def tables(self) -> tuple[tuple[Group, ...], ...]:
        """Every seat's table groups."""
        return tuple(s.table for s in self._core.seats)

    @property
    def history(self) -> list[tuple[int, Action]]:
        """Every decision so far, as (seat, action)."""
        return self._core.history

    @property
    def log(self) -> list[Event]:
        """The events so far (after those given to :meth:`from_position`)."""
        return self._core.log

    @property
    def event_count(self) -> int:
        """How many events :attr:`log` holds (without making the list)."""
        return self._core.event_count

    def events_since(self, start: int) -> list[Event]:
        """The events from the ``start``-th on (``log[start:]``, without making the rest)."""
        return self._core.events_since(start)

    def position(self) -> Position:
        """The position now: everything that decides how the hand goes on."""
        return self._core.position()

    def holding(self, seat: int) -> int:
        """Cards in hand plus on the table (R6)."""
        state = self._core.seats[seat]
        return sum(state.hand) + sum(len(g.cards) for g in state.table)

    def fours(self, seat: int) -> int:
        """提 and 跑 on the seat's table: *k* of R6."""
        return sum(g.is_four for g in self._core.seats[seat].table)

    def must_discard(self, seat: int) -> bool:
        """R6: the seat holds more than 20 + max(0, k − 1) cards."""
        return self.holding(seat) > holding_limit(self.fours(seat))

    def hand_cards(self, seat: int) -> list[Kind]:
        return self._core.seats[seat].hand_cards()

    def huxi(self, seat: int) -> int:
        """The seat's current total hu-xi (R10.6)."""
        return self._core.huxi(seat)

    def legal_actions(self) -> list[Action]:
        """The choices of :attr:`to_act`, sorted by their F3 text; empty when the hand is over."""
        return self._core.legal_actions()

    def clone(self) -> Game:
        """An independent copy on the same core, for search: the same position, history and
        log."""
        return Game.of_core(self._core.clone())

    # ----------------------------------------------------------------------------- actions

    def apply(self, action: Action) -> None:
        """Carry out the decision of :attr:`to_act`; raises :class:`IllegalAction`."""
        core = self._core
        core.apply(action)
        self.is_over = core.is_over

    def apply_text(self, text: str) -> None:
        """Apply an F3 line ``SEAT ACTION``; the seat must be the one to act."""
        seat, action = parse_seat_action(text)
        to_act = self._core.to_act
        if seat != to_act:
            who = "nobody" if to_act is None else f"seat {to_act}"
            raise IllegalAction(f"it is not seat {seat}'s turn ({who} is to act)")
        self.apply(action)

    def why_illegal(self, action: Action) -> str:
        """Why :attr:`to_act` may not take ``action`` now, in a player's words."""
        return self._core.why_illegal(action)

    # ----------------------------------------------------------------------------- capabilities

    def greedy(self, *, count_waits: bool = False) -> Action | None:
        """``GreedyBot(count_waits=count_waits)``'s choice for the seat to act, computed inside
        the core; None where the core does not compute it (see :class:`Core`)."""
        return self._core.greedy(count_waits)

    def rollout(
        self, candidates: Sequence[Action], seat: int, *, waits: Waits = False
    ) -> list[int] | None:
        """:func:`paohuzi.bots.rollout.rollout_payments` inside the core, or None; ``waits``:
        who counts their waits (:data:`paohuzi.engine.core.Waits`)."""
        return self._core.rollout(candidates, seat, waits=waits)

    def encoded(self, seat: int) -> bytearray | None:
        """``seat``'s observation array encoded inside the core, or None (see :class:`Core`)."""
        return self._core.encode(seat)

    def mask(self, seat: int) -> bytearray | None:
        """``seat``'s action mask made inside the core, or None (see :class:`Core`)."""
        return self._core.mask(seat)
