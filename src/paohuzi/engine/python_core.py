"""The Python core: one hand of Paohuzi as the reference transitions (R2–R11), the readable
spec of every rule; and the game's events, its refusals, the checks of a deck and a position.

:class:`PythonCore` is one of the two cores behind :class:`paohuzi.engine.game.Game` (the
:class:`paohuzi.engine.core.Core` protocol); :class:`paohuzi.native.core.NativeCore` is the
other, and both make the same positions, the same actions in the same order and the same
results after every action.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from paohuzi.engine.actions import HU, PASS, PENG, Action, ActionType, discard, parse_seat_action
from paohuzi.engine.cards import (
    COPIES,
    DECK_SIZE,
    KIND_NAMES,
    NUM_KINDS,
    Kind,
    full_deck,
    parse_cards,
)
from paohuzi.engine.chi import chi_options
from paohuzi.engine.evaluator import HuResult, Prepared, forced_tianhu, prepare_counts
from paohuzi.engine.groups import Group, GroupType
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
from paohuzi.engine.rules import DEALT, HAND_SIZE, HUNAN, RuleSet, Seating, holding_limit
from paohuzi.engine.scoring import payments

LIANG_INDEX = HAND_SIZE * DEALT
"""``deck[60]`` is the 亮张 (R2)."""

__all__ = [
    "LIANG_INDEX",
    "PRIVATE_CARD_EVENTS",
    "Event",
    "EventType",
    "IllegalAction",
    "PythonCore",
    "check_deck",
    "check_position",
    "stacked_deck",
]


class IllegalAction(ValueError):
    """An action the rules do not allow now; the message says why in a player's words."""


class EventType(enum.Enum):
    """Things that happen at the table, in order (the game's log)."""

    DEAL = "deal"
    LIANG = "liang"
    DRAW = "draw"
    SHOW = "show"
    TI = "ti"
    WEI = "wei"
    CHOUWEI = "chouwei"
    PAO = "pao"
    CHI = "chi"
    PENG = "peng"
    DISCARD = "discard"
    PASSED = "passed"
    HU = "hu"
    HUANGZHUANG = "huangzhuang"


@dataclass(frozen=True, slots=True)
class Event:
    """One log entry. ``card`` of a DRAW and of a WEI is known to ``seat`` only."""

    type: EventType
    seat: int
    card: Kind | None = None
    groups: tuple[Group, ...] = ()


PRIVATE_CARD_EVENTS = frozenset({EventType.DRAW, EventType.WEI})
"""Events whose card only their seat sees: a draw that is not shown, a face-down 偎."""

_RANK = {ActionType.HU: 4, ActionType.PENG: 2, ActionType.CHI: 1}
_RUNS_TO_PAO = frozenset({GroupType.PENG, GroupType.WEI, GroupType.CHOUWEI})
_WEI_TYPES = (GroupType.WEI, GroupType.CHOUWEI)
_DISCARDS = tuple(discard(k) for k in range(NUM_KINDS))
_DISCARD_ORDER = tuple(sorted(range(NUM_KINDS), key=lambda k: str(_DISCARDS[k])))
"""Kinds in the order of their discard's F3 text, the order of legal actions."""


class _Derived:
    """What the game works out from one seat's hand and table, kept while they stay the same
    objects (a seat's state is replaced, never changed, so identity says it is unchanged)."""

    __slots__ = ("fours", "hand", "held", "limit", "prepared", "table")

    def __init__(self, hand: tuple[int, ...], table: tuple[Group, ...]) -> None:
        self.hand = hand
        self.table = table
        self.held = sum(hand) + sum(len(g.cards) for g in table)
        self.fours = sum(g.is_four for g in table)
        self.limit = holding_limit(self.fours)
        self.prepared: Prepared | None = None


class PythonCore:
    """The Python core: a hand of Paohuzi as the reference transitions (the readable spec of
    every rule, R2–R11). :class:`Game` plays it, or the native core; see the module
    docstring."""

    name: Literal["native", "python"] = "python"
    rules: RuleSet
    dealer: int
    liang: Kind
    seating: Seating
    """Who plays this hand, in what order (R2, R12)."""
    history: list[tuple[int, Action]]
    """Every decision so far, as (seat, action)."""
    log: list[Event]
    _deck: tuple[Kind, ...] | None
    _wall: tuple[Kind, ...]
    _drawn: int
    _seats: list[SeatState]
    _phase: Phase
    _options: Mapping[int, Sequence[Action]]
    """In a claim window: each seat's options on the card, pass aside (derived, R8)."""
    _hu: Mapping[int, HuResult]
    """In a claim window: the win each seat offered 胡 would make."""
    _pao: int | None
    """In a claim window: the seat that must 跑 on the card if nobody wins (R5.2)."""
    _pending: HuResult | None
    """In :class:`SelfHu`: the drawer's winning arrangement."""
    _legal: list[Action] | None
    _derived: list[_Derived | None]
    native_evaluator: bool
    """Whether hands are evaluated by the native evaluator where it serves the rule set
    (:func:`paohuzi.engine.evaluator.prepare`): the same answers, sooner. ``Game(core="python")``
    leaves it off (the reference throughout); ``core="auto"`` turns it on (D86)."""
    pauses: bool
    """Whether the game stops at each card put on offer, before anyone is asked about it
    (D101; :attr:`Game.paused` says more). False for a game set up from a position."""
    _held: tuple[Kind, int, Source, tuple[int, ...]] | None
    """While stopped at an offer: the card, its owner, its source and the seats with an option
    on it in asking order (R8)."""

    def __init__(
        self,
        rules: RuleSet = HUNAN,
        *,
        dealer: int = 0,
        deck: Sequence[Kind] | None = None,
        seed: int | None = None,
        pauses: bool = False,
        native_evaluator: bool = False,
    ) -> None:
        """The hand dealt from ``deck`` (or a deck shuffled with ``seed``); ``pauses`` and
        ``native_evaluator``: see the attributes."""
        if deck is None:
            deck = full_deck()
            random.Random(seed).shuffle(deck)
        check_deck(deck)
        seating = rules.seating(dealer)
        dealt = tuple(deck)
        hands = [[0] * NUM_KINDS for _ in range(seating.seats)]
        for i, seat in enumerate(seating.playing):
            for k in dealt[HAND_SIZE * i : HAND_SIZE * (i + 1)]:
                hands[seat][k] += 1
        liang = dealt[LIANG_INDEX]
        self._set_up(
            rules,
            dealer,
            liang,
            dealt[LIANG_INDEX + 1 :],
            [SeatState(tuple(h)) for h in hands],
            deck=dealt,
            log=(Event(EventType.DEAL, dealer), Event(EventType.LIANG, dealer, liang)),
            native_evaluator=native_evaluator,
        )
        self.pauses = pauses
        self._start()

    def _set_up(
        self,
        rules: RuleSet,
        dealer: int,
        liang: Kind,
        wall: Sequence[Kind],
        seats: Sequence[SeatState],
        *,
        deck: tuple[Kind, ...] | None,
        log: Iterable[Event],
        native_evaluator: bool,
    ) -> None:
        """Every field of a game, in one place (the phase is entered afterwards)."""
        self.native_evaluator = native_evaluator
        self.rules = rules
        self.dealer = dealer
        self.liang = liang
        self.seating = rules.seating(dealer)
        self.history = []
        self.log = list(log)
        self._deck = deck
        self._wall = tuple(wall)
        self._drawn = 0
        self._seats = list(seats)
        self._options = {}
        self._hu = {}
        self._pao = None
        self._pending = None
        self._legal = None
        self._derived = [None] * len(self._seats)
        self.pauses = False
        self._held = None

    @classmethod
    def from_position(
        cls,
        position: Position,
        rules: RuleSet = HUNAN,
        *,
        log: Iterable[Event] = (),
        check: bool = True,
        native_evaluator: bool = False,
    ) -> PythonCore:
        """A game at ``position`` under ``rules``; ``log`` the events that led there, if they
        are known (they are shown to observers; the rules never read them). Raises ValueError
        for a position the rules cannot reach: a wrong seat count, cards that do not add up to
        the deck's 80 (R1), a seat to act that does not play the hand or has nothing to do.

        In a claim window, the options of the seats after the first are worked out from the
        position (R8) and seats left with none are not asked; the first is offered exactly
        ``offered``, which must be among its options. ``check`` False takes the phase as given
        even when the seat to act could not face it (a position made up to be looked at, not
        played: it may play on wrongly)."""
        check_position(position, rules)
        game = cls.__new__(cls)
        game._set_up(
            rules,
            position.dealer,
            position.liang,
            position.wall,
            position.seats,
            deck=None,
            log=log,
            native_evaluator=native_evaluator,
        )
        game._enter(position.phase, check=check)
        return game

    def _enter(self, phase: Phase, *, check: bool) -> None:
        """Take up ``phase`` of a position, working out what it leaves out."""
        if isinstance(phase, ClaimWindow):
            first = phase.to_act
            queue = self._window_options(phase.card, phase.owner, phase.source, phase.asking)
            options = set(self._options.get(first, ()))
            if check and not (phase.offered and set(phase.offered) <= options):
                offered = ", ".join(map(str, phase.offered)) or "nothing"
                raise ValueError(f"seat {first} cannot be offered {offered} on this card")
            for seat, claim in phase.claims if check else ():
                if not _holds_claim(self._seats[seat].hand, phase.card, claim):
                    raise ValueError(f"seat {seat} cannot have claimed {claim} with its hand")
            later = tuple(s for s in queue if s != first)
            self._phase = replace(phase, asking=(first, *later))
        elif isinstance(phase, SelfHu):
            found = None
            if not self._hu_blocked(phase.seat, phase.card):
                found = self._prepared_hand(phase.seat).complete(
                    win=phase.card, haidi=self.wall == 0
                )
            if check and found is None:
                raise ValueError(f"seat {phase.seat} has no complete hand to win with")
            self._pending = found
            self._phase = phase
        elif isinstance(phase, Discarding):
            if not any(self._seats[phase.seat].hand):
                raise ValueError(f"seat {phase.seat} has no card to discard")
            self._phase = phase
        else:
            self._phase = phase

    # ----------------------------------------------------------------------------- queries

    @property
    def phase(self) -> Phase:
        """What the game waits for (see :mod:`paohuzi.engine.position`)."""
        return self._phase

    @property
    def to_act(self) -> int | None:
        """The seat to decide now; None once the hand is over (or while stopped at a card on
        offer, see :attr:`paused`)."""
        phase = self._phase  # read once (another thread may be looking on)
        if isinstance(phase, ClaimWindow) and not phase.asking:
            return None
        return phase.to_act

    @property
    def paused(self) -> bool:
        """Whether the game is stopped at a card on offer, nobody asked yet (D101)."""
        return self._held is not None

    @property
    def result(self) -> GameResult | None:
        """How the hand ended; None while it goes on."""
        phase = self._phase
        return phase.result if isinstance(phase, Over) else None

    @property
    def is_over(self) -> bool:
        return isinstance(self._phase, Over)

    @property
    def wall(self) -> int:
        """Cards left to draw."""
        return len(self._wall) - self._drawn

    @property
    def dealt(self) -> bool:
        """Whether the game started from a deal (and so has a deck and a record, F4)."""
        return self._deck is not None

    @property
    def deck(self) -> tuple[Kind, ...]:
        """The 80 cards the hand was dealt from (R2); ValueError for a game set up from a
        position, which has none."""
        if self._deck is None:
            raise ValueError("a game set up from a position has no deck")
        return self._deck

    @property
    def seats(self) -> tuple[SeatState, ...]:
        """Every seat's state now."""
        return tuple(self._seats)

    @property
    def hands(self) -> tuple[tuple[int, ...], ...]:
        """Every seat's hand, as counts per kind."""
        return tuple(s.hand for s in self._seats)

    @property
    def tables(self) -> tuple[tuple[Group, ...], ...]:
        """Every seat's table groups."""
        return tuple(s.table for s in self._seats)

    @property
    def event_count(self) -> int:
        return len(self.log)

    def events_since(self, start: int) -> list[Event]:
        return self.log[start:]

    def position(self) -> Position:
        """The position now: everything that decides how the hand goes on."""
        return Position(
            self.dealer, self.liang, self._wall[self._drawn :], tuple(self._seats), self._phase
        )

    def _seat_derived(self, seat: int) -> _Derived:
        state = self._seats[seat]
        found = self._derived[seat]
        if found is None or found.hand is not state.hand or found.table is not state.table:
            found = self._derived[seat] = _Derived(state.hand, state.table)
        return found

    def holding(self, seat: int) -> int:
        """Cards in hand plus on the table (R6)."""
        return self._seat_derived(seat).held

    def fours(self, seat: int) -> int:
        """提 and 跑 on the seat's table: *k* of R6."""
        return self._seat_derived(seat).fours

    def must_discard(self, seat: int) -> bool:
        """R6: the seat holds more than 20 + max(0, k − 1) cards."""
        derived = self._seat_derived(seat)
        return derived.held > derived.limit

    def hand_cards(self, seat: int) -> list[Kind]:
        return self._seats[seat].hand_cards()

    def huxi(self, seat: int) -> int:
        """The seat's current total hu-xi (R10.6)."""
        return self._prepared_hand(seat).current_huxi()

    def _prepared_hand(self, seat: int) -> Prepared:
        """The seat's hand prepared for evaluation, kept until it changes."""
        derived = self._seat_derived(seat)
        found = derived.prepared
        if found is None:
            found = prepare_counts(
                derived.hand, derived.table, self.rules, native=self.native_evaluator
            )
            derived.prepared = found
        return found

    def legal_actions(self) -> list[Action]:
        """The choices of :attr:`to_act`, sorted by their F3 text; empty when the hand is over."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)

    def _compute_legal(self) -> list[Action]:
        phase = self._phase
        if isinstance(phase, ClaimWindow):
            return sorted([*phase.offered, PASS], key=str) if phase.asking else []
        if isinstance(phase, SelfHu):
            return [HU, PASS]
        if isinstance(phase, Discarding):
            hand = self._seats[phase.seat].hand
            order = _DISCARD_ORDER
            if any(0 < hand[k] < 3 for k in order):
                return [_DISCARDS[k] for k in order if 0 < hand[k] < 3]
            # R6.3: when every card left belongs to a 坎, a 坎 is broken.
            return [_DISCARDS[k] for k in order if hand[k]]
        return []

    def clone(self) -> PythonCore:
        """An independent copy, for search: the same position, history and log."""
        other = PythonCore.__new__(PythonCore)
        # Every field is a value that is replaced, never changed, but for these lists.
        other.__dict__.update(self.__dict__)
        other.history = list(self.history)
        other.log = list(self.log)
        other._seats = list(self._seats)
        other._derived = list(self._derived)
        return other

    # ----------------------------------------------------------------------------- capabilities
    # What the native core computes inside itself; this core has none of them, and each
    # answers None: the caller's Python fallback runs (see :class:`Core`).

    def greedy(self, count_waits: bool) -> Action | None:
        del count_waits
        return None

    def rollout(
        self, candidates: Sequence[Action], seat: int, *, waits: bool | Literal["seat"] = False
    ) -> list[int] | None:
        # ``waits`` is paohuzi.engine.core.Waits, spelled out: that module imports this one.
        del candidates, seat, waits
        return None

    def encode(self, seat: int) -> bytearray | None:
        del seat
        return None

    def mask(self, seat: int) -> bytearray | None:
        del seat
        return None

    # ----------------------------------------------------------------------------- actions

    def apply(self, action: Action) -> None:
        """Carry out the decision of :attr:`to_act`; raises :class:`IllegalAction`."""
        phase = self._phase
        if isinstance(phase, Over):
            raise IllegalAction("the hand is over")
        if self._held is not None:
            raise IllegalAction("nobody is asked yet: the card is on offer (resume the game)")
        seat = phase.to_act
        if action not in self.legal_actions():
            raise IllegalAction(self._why_illegal(seat, action))
        if action.type is ActionType.HU and (
            self._pending is None if isinstance(phase, SelfHu) else seat not in self._hu
        ):
            raise IllegalAction(f"seat {seat} has no winning hand (an unchecked position)")
        self.history.append((seat, action))
        self._legal = None
        if isinstance(phase, ClaimWindow):
            self._answer(phase, action)
        elif isinstance(phase, SelfHu):
            pending = self._pending
            self._pending = None
            if action.type is ActionType.HU:
                assert pending is not None  # refused before anything changed
                self._win(seat, pending)
            else:
                self._decline_hu(seat, phase.card)
                self._after_take(seat, last=self.wall == 0)
        else:
            assert action.card is not None  # a discard names its card
            self._discard(seat, action.card)

    def apply_text(self, text: str) -> None:
        """Apply an F3 line ``SEAT ACTION``; the seat must be the one to act."""
        seat, action = parse_seat_action(text)
        if seat != self.to_act:
            who = "nobody" if self.to_act is None else f"seat {self.to_act}"
            raise IllegalAction(f"it is not seat {seat}'s turn ({who} is to act)")
        self.apply(action)

    def why_illegal(self, action: Action) -> str:
        """Why :attr:`to_act` may not take ``action`` now, in a player's words."""
        if self._held is not None:
            return "nobody is asked yet: the card is on offer (resume the game)"
        seat = self._phase.to_act
        if seat is None:
            return "the hand is over"
        return self._why_illegal(seat, action)

    def resume(self) -> None:
        """Go on from a card on offer (D101): ask the seats with an option on it in order
        (R8), or carry on when there are none. Raises :class:`IllegalAction` when the game is
        not stopped at an offer."""
        held = self._held
        if held is None:
            raise IllegalAction("the game is not stopped at a card on offer")
        self._held = None
        self._legal = None
        card, owner, source, queue = held
        self._advance_window(card, owner, source, list(queue), ())

    def keep_over(self, game: object) -> bool:
        """False: the game sets its ``is_over`` itself (the reference keeps no other state)."""
        del game
        return False

    def _why_illegal(self, seat: int, action: Action) -> str:
        phase = self._phase
        if isinstance(phase, Discarding):
            if action.type is not ActionType.DISCARD:
                return f"seat {seat} must discard a card"
            assert action.card is not None  # a discard names its card
            name = KIND_NAMES[action.card]
            if self._seats[seat].hand[action.card] == 0:
                return f"seat {seat} has no {name} in hand"
            return f"seat {seat} may not discard {name}: it belongs to a 坎 (R3)"
        if isinstance(phase, SelfHu):
            return f"seat {seat} may only hu or pass now"
        assert isinstance(phase, ClaimWindow)  # apply refuses everything once over
        card = KIND_NAMES[phase.card]
        if action.type is ActionType.DISCARD:
            return f"seat {seat} cannot discard now: {card} is on offer"
        if action.type is ActionType.PENG:
            if self._seats[seat].hand[phase.card] != 2:
                return f"seat {seat} has no pair of {card}"
            return f"seat {seat} may not peng {card} (R7.1, R6.2)"
        if action.type is ActionType.HU:
            return f"seat {seat} cannot win on {card}"
        if action.type is ActionType.CHI:
            return f"seat {seat} cannot chi {card} that way (R7)"
        return f"{action} is not allowed now"

    # ----------------------------------------------------------------------------- changes

    def _set_hand(self, seat: int, hand: list[int], table: Sequence[Group] | None = None) -> None:
        self._seats[seat] = self._seats[seat].but(
            hand=tuple(hand), table=None if table is None else tuple(table)
        )

    # ----------------------------------------------------------------------------- flow

    def _start(self) -> None:
        """R2: 必需天胡, then the 亮张 offers, then the automatic 提, then the dealer."""
        for seat in self.seating.playing:
            cards = self.hand_cards(seat) + ([self.liang] if seat == self.dealer else [])
            result = forced_tianhu(cards, self.rules, native=self.native_evaluator)
            if result is not None:
                # The 亮张 is the dealer's card (R2): the hand ends with it in his hand.
                self._take_liang()
                self._win(seat, result)
                return
        self._open_window(self.liang, self.dealer, Source.LIANG)

    def _take_liang(self) -> None:
        hand = list(self._seats[self.dealer].hand)
        hand[self.liang] += 1
        self._set_hand(self.dealer, hand)

    def _after_liang(self) -> None:
        self._take_liang()
        for seat in self.seating.playing:
            state = self._seats[seat]
            fours = [k for k in range(NUM_KINDS) if state.hand[k] == COPIES]
            if not fours:
                continue
            hand = list(state.hand)
            table = list(state.table)
            for k in fours:
                hand[k] = 0
                table.append(Group(GroupType.TI, (k,) * 4))
                self.log.append(Event(EventType.TI, seat, k))
            self._set_hand(seat, hand, table)
        self._after_take(self.dealer, last=False)

    def _after_take(self, seat: int, *, last: bool) -> None:
        """After a take: discard if R6 says so, else the next player draws."""
        if last:
            self._huangzhuang()
        elif self.must_discard(seat) and self._can_discard(seat):
            self._phase = Discarding(seat)
        else:
            self._draw(self.seating.next(seat))

    def _can_discard(self, seat: int) -> bool:
        """Whether the hand holds a card that may be discarded: one outside a 坎, or any card
        when a 坎 may be broken (R6.3)."""
        hand = self._seats[seat].hand
        if self.rules.break_kan_when_stuck:
            return any(hand)
        return any(0 < n < 3 for n in hand)

    def _draw(self, seat: int) -> None:
        """R4.1: draw, then a forced 提 or 偎, or show the card."""
        if self.wall == 0:
            self._huangzhuang()
            return
        card = self._wall[self._drawn]
        self._drawn += 1
        last = self.wall == 0
        self.log.append(Event(EventType.DRAW, seat, card))
        state = self._seats[seat]
        wei = next(
            (i for i, g in enumerate(state.table) if g.cards[0] == card and g.type in _WEI_TYPES),
            None,
        )
        held = state.hand[card]
        if held == 3 or wei is not None:  # R5.1.2, R5.1.3
            hand = list(state.hand)
            table = list(state.table)
            ti = Group(GroupType.TI, (card,) * 4)
            if wei is not None:
                table[wei] = ti
            else:
                hand[card] = 0
                table.append(ti)
            self._set_hand(seat, hand, table)
            self.log.append(Event(EventType.TI, seat, card))
        elif held == 2:  # R4.1 step 2; 臭偎 when the kind is 臭 for him (R7.1)
            gtype = GroupType.CHOUWEI if card in state.chou else GroupType.WEI
            hand = list(state.hand)
            hand[card] = 0
            self._set_hand(seat, hand, (*state.table, Group(gtype, (card,) * 3)))
            event = EventType.CHOUWEI if gtype is GroupType.CHOUWEI else EventType.WEI
            self.log.append(Event(event, seat, card))
        else:
            self.log.append(Event(EventType.SHOW, seat, card))
            self._open_window(card, seat, Source.DRAWN)
            return
        # R4.1 step 3: he may win now if his hand is complete.
        result = None
        if self._can_complete(seat, taken=1):
            result = self._prepared_hand(seat).complete(win=card, haidi=last)
        if result is not None and not self._hu_blocked(seat, card):
            self._pending = result
            self._phase = SelfHu(seat, card)
            return
        self._after_take(seat, last=last)

    def _discard(self, seat: int, card: Kind) -> None:
        state = self._seats[seat]
        hand = list(state.hand)
        hand[card] -= 1
        self._seats[seat] = state.but(hand=tuple(hand), discarded=state.discarded | {card})
        self.log.append(Event(EventType.DISCARD, seat, card))
        self._open_window(card, seat, Source.DISCARDED)

    # ----------------------------------------------------------------------------- claims

    def _open_window(self, card: Kind, owner: int, source: Source) -> None:
        """Ask every seat with an option on the card (R8), in asking order from the owner: the
        owner first on a draw or the 亮张; on a discard, his 下家 first."""
        order = self.seating.order_from(owner)
        queue = self._window_options(
            card, owner, source, order[1:] if source is Source.DISCARDED else order
        )
        if self.pauses:  # stop at the moment every seat sees the card (D101)
            self._phase = ClaimWindow(card, owner, source, (), ())
            self._held = (card, owner, source, tuple(queue))
            return
        self._advance_window(card, owner, source, queue, ())

    def _window_options(
        self, card: Kind, owner: int, source: Source, asking: Sequence[int]
    ) -> list[int]:
        """Work out the pending 跑 and the options of the seats in ``asking``; returns those
        with any, in order."""
        self._pao = None if source is Source.LIANG else self._pao_seat(card, owner, source)
        options: dict[int, list[Action]] = {}
        hu: dict[int, HuResult] = {}
        for seat in asking:
            found = self._claim_options(seat, card, owner, source, hu)
            if found:
                options[seat] = found
        self._options = options
        self._hu = hu
        return [s for s in asking if s in options]

    def _pao_seat(self, card: Kind, owner: int, source: Source) -> int | None:
        """The seat that must 跑 on this card, if any (R4.1 step 4, R4.2, R5.2)."""
        seats = self._seats
        for seat in self.seating.playing:
            state = seats[seat]
            if seat == owner:
                if source is Source.DRAWN and any(
                    g.type is GroupType.PENG and g.cards[0] == card for g in state.table
                ):
                    return seat
                continue
            if state.hand[card] == 3:
                return seat
            runs_from: tuple[GroupType, ...] = _WEI_TYPES
            if source is Source.DRAWN:
                runs_from = (GroupType.WEI, GroupType.CHOUWEI, GroupType.PENG)
            if any(g.type in runs_from and g.cards[0] == card for g in state.table):
                return seat
        return None

    def _can_complete(self, seat: int, taken: int = 0) -> bool:
        """Whether the seat holds the card count of a hand one card short of complete (R6),
        or of a complete one when it has ``taken`` the card already."""
        derived = self._seat_derived(seat)
        return derived.held == derived.limit + taken

    def _hu_blocked(self, seat: int, card: Kind) -> bool:
        """臭胡 (R9.3): he declined this kind and his hu-xi has not changed since."""
        declined = self._seats[seat].chou_hu_of(card)
        return declined is not None and declined == self.huxi(seat)

    def _claim_options(
        self, seat: int, card: Kind, owner: int, source: Source, hu: dict[int, HuResult]
    ) -> list[Action]:
        """The seat's options on the card, pass aside (R8); a 胡 is kept in ``hu``."""
        state = self._seats[seat]
        hand = state.hand
        derived = self._seat_derived(seat)
        last = source is Source.DRAWN and self.wall == 0
        options: list[Action] = []
        found = None
        if source is Source.LIANG:
            found = self._prepared_hand(seat).win(card, self_drawn=seat == owner, tianhu=True)
        elif (source is Source.DRAWN or self.rules.hu_on_discard) and derived.held == derived.limit:
            found = self._prepared_hand(seat).win(
                card,
                self_drawn=source is Source.DRAWN and seat == owner,
                from_discard=source is Source.DISCARDED,
                haidi=last,
            )
        if found is not None and not self._hu_blocked(seat, card):
            hu[seat] = found
            options.append(HU)
        if last or source is Source.LIANG or self._pao is not None:
            return options  # only 胡 is offered on the last card and when a 跑 is pending (R8)
        if card in state.chou or card in state.discarded:
            return options  # R7.1
        must_discard = self.rules.take_needs_discard and derived.held + 1 > derived.limit
        if seat != owner and hand[card] == 2:
            rest = sum(n for n in hand if n != 3) - 2
            if not (must_discard and rest == 0):  # R6.2
                options.append(PENG)
        if seat == self.seating.next(owner) or (source is Source.DRAWN and seat == owner):
            options += chi_options(hand, card, must_discard=must_discard)
        return options

    def _advance_window(
        self,
        card: Kind,
        owner: int,
        source: Source,
        queue: list[int],
        claims: tuple[tuple[int, Action], ...],
    ) -> None:
        """Ask the next seat in ``queue`` that still has an option not outranked by a claim
        declared before it (equal ranks: the earlier claim wins); resolve when none is left."""
        while queue:
            seat = queue[0]
            offered = tuple(
                a
                for a in self._options[seat]
                if not any(_RANK[c.type] >= _RANK[a.type] for _, c in claims)
            )
            if offered:
                self._phase = ClaimWindow(card, owner, source, tuple(queue), offered, claims)
                return
            queue.pop(0)  # skipped: never offered, so nothing becomes 臭 (R8)
        self._resolve_window(card, owner, source, claims)

    def _answer(self, window: ClaimWindow, action: Action) -> None:
        seat, card = window.to_act, window.card
        claims = window.claims
        if action.type is ActionType.PASS:
            if any(a.type in (ActionType.CHI, ActionType.PENG) for a in window.offered):
                state = self._seats[seat]
                self._seats[seat] = replace(state, chou=state.chou | {card})  # R7.1
        else:
            claims = (*claims, (seat, action))
        if action.type is not ActionType.HU and HU in window.offered:
            self._decline_hu(seat, card)
        self._advance_window(card, window.owner, window.source, list(window.asking[1:]), claims)

    def _decline_hu(self, seat: int, card: Kind) -> None:
        state = self._seats[seat]
        marks = dict(state.chou_hu)
        marks[card] = self.huxi(seat)  # R9.3
        self._seats[seat] = replace(state, chou_hu=tuple(sorted(marks.items())))

    def _resolve_window(
        self, card: Kind, owner: int, source: Source, claims: tuple[tuple[int, Action], ...]
    ) -> None:
        best: tuple[int, Action] | None = None
        for seat, action in claims:
            if best is None or _RANK[action.type] > _RANK[best[1].type]:
                best = (seat, action)
        last = source is Source.DRAWN and self.wall == 0
        if best is not None and best[1].type is ActionType.HU:
            self._win(best[0], self._hu[best[0]])
            return
        if source is Source.LIANG:
            self._after_liang()
            return
        if self._pao is not None:
            # R5.2: a 跑 is never optional, on the last card too (then the hand is 荒庄).
            self._pao_take(self._pao, card, last=last)
        elif best is not None:
            seat, action = best
            state = self._seats[seat]
            hand = list(state.hand)
            if action.type is ActionType.PENG:
                hand[card] -= 2
                group = Group(GroupType.PENG, (card,) * 3)
                self._set_hand(seat, hand, (*state.table, group))
                self.log.append(Event(EventType.PENG, seat, card, (group,)))
            else:
                self._chi(seat, card, action)
            self._after_take(seat, last=False)
        else:
            state = self._seats[owner]
            self._seats[owner] = state.but(row=(*state.row, card))
            self.log.append(Event(EventType.PASSED, owner, card))
            if last:
                self._huangzhuang()
            else:
                self._draw(self.seating.next(owner))

    def _pao_take(self, seat: int, card: Kind, *, last: bool) -> None:
        state = self._seats[seat]
        table = list(state.table)
        hand = list(state.hand)
        pao = Group(GroupType.PAO, (card,) * 4)
        index = next(
            (i for i, g in enumerate(table) if g.cards[0] == card and g.type in _RUNS_TO_PAO),
            None,
        )
        if index is not None:
            table[index] = pao
        else:
            hand[card] = 0
            table.append(pao)
        self._set_hand(seat, hand, table)
        self.log.append(Event(EventType.PAO, seat, card, (pao,)))
        self._after_take(seat, last=last)

    def _chi(self, seat: int, card: Kind, action: Action) -> None:
        state = self._seats[seat]
        hand = list(state.hand)
        take, *bis = action.groups
        hand[card] += 1
        groups = []
        for cards in (take, *bis):
            for k in cards:
                hand[k] -= 1
            groups.append(Group(GroupType.CHI, cards))
        self._set_hand(seat, hand, (*state.table, *groups))
        self.log.append(Event(EventType.CHI, seat, card, tuple(groups)))

    # ----------------------------------------------------------------------------- ending

    def _win(self, seat: int, hu: HuResult) -> None:
        others = {s: self.huxi(s) for s in sorted(self.seating.playing) if s != seat}
        paid = tuple(payments(seat, hu.points, self.seating))
        self.log.append(Event(EventType.HU, seat, hu.win, hu.groups))
        self._end(GameResult(seat, hu.win, hu, paid, others))

    def _huangzhuang(self) -> None:
        """荒庄: the wall is empty and the last card was not won on (R4.1, R11)."""
        others = {s: self.huxi(s) for s in sorted(self.seating.playing)}
        paid = tuple(payments(None, 0, self.seating))
        self.log.append(Event(EventType.HUANGZHUANG, self.dealer))
        self._end(GameResult(None, None, None, paid, others))

    def _end(self, result: GameResult) -> None:
        self._phase = Over(result)
        self._options = {}
        self._hu = {}
        self._pao = None
        self._legal = None


def _holds_claim(hand: Sequence[int], card: Kind, claim: Action) -> bool:
    """Whether a hand holds the cards a declared 吃 or 碰 of ``card`` lays down (R7, R8)."""
    if claim.type is ActionType.PENG:
        return hand[card] >= 2
    if claim.type is ActionType.CHI:
        left = list(hand)
        left[card] += 1
        for cards in claim.groups:
            for k in cards:
                left[k] -= 1
        return min(left) >= 0
    return True


def check_position(position: Position, rules: RuleSet) -> None:
    """Raise ValueError for a position whose shape the rules cannot reach: a wrong seat count,
    cards that do not add up to the deck's 80 (R1), a seat to act that does not play the hand
    (what :meth:`Game.from_position` checks before it works out the phase)."""
    seating = rules.seating(position.dealer)
    if len(position.seats) != seating.seats:
        raise ValueError(
            f"the rules seat {seating.seats} players; the position has {len(position.seats)}"
        )
    for seat in range(seating.seats):
        hand = position.seats[seat].hand
        if len(hand) != NUM_KINDS or min(hand) < 0 or max(hand) > COPIES:
            raise ValueError(f"seat {seat}'s hand is not a count of the {NUM_KINDS} kinds")
    if seating.sitting_out is not None:
        out = position.seats[seating.sitting_out]
        if any(out.hand) or out.table or out.row:
            raise ValueError(f"seat {seating.sitting_out} sits this hand out: it holds nothing")
    phase = position.phase
    if not isinstance(phase, Over):
        if position.card_count() != DECK_SIZE:
            raise ValueError(
                f"the position places {position.card_count()} cards, not the {DECK_SIZE} "
                "of the deck (R1)"
            )
        if isinstance(phase, ClaimWindow) and not phase.asking:
            raise ValueError("a claim window asks somebody (it is opened by the game)")
        if phase.to_act not in seating.playing:
            raise ValueError(f"seat {phase.to_act} does not play this hand")
        if isinstance(phase, ClaimWindow):
            if phase.owner not in seating.playing:
                raise ValueError(f"seat {phase.owner} does not play this hand")
            if phase.source is Source.LIANG and (phase.card, phase.owner) != (
                position.liang,
                position.dealer,
            ):
                raise ValueError("the card offered for 天胡 is the dealer's 亮张 (R9.5)")


def check_deck(deck: Sequence[Kind]) -> None:
    """Raise ValueError unless ``deck`` holds the 80 cards, four of each kind (R1)."""
    if len(deck) != DECK_SIZE:
        raise ValueError(f"a deck has {DECK_SIZE} cards, not {len(deck)}")
    counts = [0] * NUM_KINDS
    for k in deck:
        if k not in range(NUM_KINDS):
            raise ValueError(f"{k!r} is not a kind")
        counts[k] += 1
    for k in range(NUM_KINDS):
        if counts[k] != COPIES:
            raise ValueError(f"a deck has four {KIND_NAMES[k]}, not {counts[k]}")


def stacked_deck(
    hands: Mapping[int, str | Sequence[Kind]] | None = None,
    *,
    dealer: int = 0,
    liang: str | Kind | None = None,
    wall: str | Sequence[Kind] = (),
    seed: int = 0,
    rules: RuleSet = HUNAN,
) -> list[Kind]:
    """A deck that deals the given cards (R2 deal order); everything unspecified is filled at
    random (seeded), adding at most a pair of a kind to a hand. ``hands`` maps a seat to some or
    all of its 20 cards; ``wall`` gives the first cards to be drawn, in order."""

    def cards_of(value: str | Sequence[Kind]) -> list[Kind]:
        return parse_cards(value) if isinstance(value, str) else list(value)

    seating = rules.seating(dealer)
    left = [COPIES] * NUM_KINDS
    wanted: dict[int, list[Kind]] = {s: cards_of(c) for s, c in (hands or {}).items()}
    top = cards_of(wall)
    liang_card = (
        None if liang is None else (cards_of(liang)[0] if isinstance(liang, str) else liang)
    )
    for cards in [*wanted.values(), top, [] if liang_card is None else [liang_card]]:
        for k in cards:
            left[k] -= 1
            if left[k] < 0:
                raise ValueError(f"more than four {KIND_NAMES[k]} asked for")
    for seat, cards in wanted.items():
        if seat not in seating.playing and cards:
            raise ValueError(f"seat {seat} sits this hand out (R12): it is dealt nothing")
        if len(cards) > HAND_SIZE:
            raise ValueError(f"seat {seat} is given {len(cards)} cards, more than {HAND_SIZE}")
    if len(top) > DECK_SIZE - LIANG_INDEX - 1:
        raise ValueError("more wall cards than the wall holds")
    rest = [k for k in range(NUM_KINDS) for _ in range(left[k])]
    random.Random(seed).shuffle(rest)
    deck: list[Kind] = []
    for seat in seating.playing:
        cards = wanted.get(seat, [])
        # The filler adds no 坎 or 提 of its own, so that a scenario holds only those it asks for.
        for k in list(rest):
            if len(cards) == HAND_SIZE:
                break
            if cards.count(k) < 2:
                cards.append(k)
                rest.remove(k)
        while len(cards) < HAND_SIZE:
            cards.append(rest.pop())
        deck += cards
    deck.append(rest.pop() if liang_card is None else liang_card)
    deck += top + rest
    return deck
