"""One hand of Hunan Paohuzi as a deterministic state machine (R2–R11).

A :class:`Game` is created from a rule set, a dealer and an 80-card deck (or a seed). It runs
every forced and automatic event itself (deal, 提, 偎, 臭偎, 跑, 必需天胡, draws) and stops at
each decision: :attr:`Game.to_act` is the seat to decide, :meth:`Game.legal_actions` its
choices, :meth:`Game.apply` carries one out. Claim windows (R8) are an explicit phase: every
seat with an option on a card is asked once, in order, and the highest claim is carried out
when all have answered.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from paohuzi.actions import HU, PASS, PENG, Action, ActionType, discard, parse_seat_action
from paohuzi.cards import COPIES, DECK_SIZE, KIND_NAMES, NUM_KINDS, Kind, full_deck, parse_cards
from paohuzi.chi import chi_options
from paohuzi.evaluator import HuResult, PreparedHand, forced_tianhu
from paohuzi.groups import Group, GroupType
from paohuzi.rules import HUNAN, RuleSet
from paohuzi.scoring import payments

PLAYERS = 3
HAND_SIZE = 20
LIANG_INDEX = 60
"""``deck[60]`` is the 亮张 (R2)."""


class IllegalAction(ValueError):
    """An action the rules do not allow now; the message says why in a player's words."""


class Phase(enum.Enum):
    """What the game waits for."""

    CLAIM = "claim"
    """A seat answers on a card on offer (R8)."""
    DISCARD = "discard"
    """A seat must discard (R6)."""
    SELF_HU = "self_hu"
    """The drawer may win right after his forced 偎 or 提 (R4.1 step 3)."""
    OVER = "over"


class Source(enum.Enum):
    """Where a card on offer comes from."""

    LIANG = "liang"
    """The 亮张, offered for 选择天胡 (R9.5.2)."""
    DRAWN = "drawn"
    """Drawn from the wall and shown (R4.1)."""
    DISCARDED = "discarded"
    """Discarded (R4.2)."""


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


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a hand ended (R10, R11): a win, or 荒庄 with ``winner`` None."""

    winner: int | None
    win: Kind | None
    """The winning card; None for 必需天胡 and 荒庄."""
    hu: HuResult | None
    payments: tuple[int, ...]
    other_huxi: Mapping[int, int]
    """Every other player's current total hu-xi (R10.6); every player's after 荒庄."""


@dataclass(slots=True)
class _Window:
    """A claim window (R8) on a card on offer."""

    card: Kind
    owner: int
    source: Source
    queue: list[int]
    options: dict[int, list[Action]]
    """Each seat's options on the card, pass aside."""
    hu: dict[int, HuResult]
    pao: int | None
    last: bool
    claims: list[tuple[int, Action]] = field(default_factory=list)
    """Declared answers, in asking order: hidden from the other players."""
    offered: list[Action] = field(default_factory=list)
    """The options offered to the seat now asked: those not already outranked (R8)."""


def _next(seat: int) -> int:
    return (seat + 1) % PLAYERS


class Game:
    """A hand of Paohuzi. See the module docstring."""

    def __init__(
        self,
        rules: RuleSet = HUNAN,
        *,
        dealer: int = 0,
        deck: Sequence[Kind] | None = None,
        seed: int | None = None,
        on_offer: Callable[[Game], None] | None = None,
    ) -> None:
        if deck is None:
            deck = full_deck()
            random.Random(seed).shuffle(deck)
        check_deck(deck)
        if dealer not in range(PLAYERS):
            raise ValueError(f"dealer must be 0, 1 or 2, not {dealer}")
        self.rules = rules
        self.dealer = dealer
        self.deck: tuple[Kind, ...] = tuple(deck)
        self.liang = self.deck[LIANG_INDEX]
        self.wall_pos = LIANG_INDEX + 1
        self.hands: list[list[int]] = [[0] * NUM_KINDS for _ in range(PLAYERS)]
        for i in range(PLAYERS):
            for k in self.deck[HAND_SIZE * i : HAND_SIZE * (i + 1)]:
                self.hands[(dealer + i) % PLAYERS][k] += 1
        self.tables: list[list[Group]] = [[] for _ in range(PLAYERS)]
        self.rows: list[list[Kind]] = [[] for _ in range(PLAYERS)]
        """The passed and discarded cards in front of each seat, in order."""
        self.discarded: list[set[Kind]] = [set() for _ in range(PLAYERS)]
        """Kinds each seat has discarded (never 吃 or 碰 them, R7.1)."""
        self.chou: list[set[Kind]] = [set() for _ in range(PLAYERS)]
        """Kinds each seat passed a 吃 or 碰 on (臭, R7.1)."""
        self.chou_hu: list[dict[Kind, int]] = [{} for _ in range(PLAYERS)]
        """Kinds each seat declined to win on, with his hu-xi then (臭胡, R9.3)."""
        self.phase = Phase.CLAIM
        self.to_act: int | None = None
        self.window: _Window | None = None
        self.pending_hu: HuResult | None = None
        self.result: GameResult | None = None
        self.history: list[tuple[int, Action]] = []
        self.log: list[Event] = [
            Event(EventType.DEAL, dealer),
            Event(EventType.LIANG, dealer, self.liang),
        ]
        self._legal: list[Action] | None = None
        self._prepared: list[PreparedHand | None] = [None] * PLAYERS
        self._held: list[tuple[int, int] | None] = [None] * PLAYERS
        self.on_offer = on_offer
        """Called with the game whenever a card is put on offer (the 亮张, a shown draw, a
        discard), before anyone is asked about it: the moment every seat sees the card, whether
        or not some seat may claim it. A server that speaks at that moment reveals nothing of
        who is then asked (R8), even when nobody is."""
        self._start()

    # ----------------------------------------------------------------------------- queries

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def wall(self) -> int:
        """Cards left to draw."""
        return DECK_SIZE - self.wall_pos

    def holding(self, seat: int) -> int:
        """Cards in hand plus on the table (R6)."""
        return self._counts(seat)[0]

    def fours(self, seat: int) -> int:
        """提 and 跑 on the seat's table: *k* of R6."""
        return self._counts(seat)[1]

    def _counts(self, seat: int) -> tuple[int, int]:
        found = self._held[seat]
        if found is None:
            table = self.tables[seat]
            held = sum(self.hands[seat]) + sum(len(g.cards) for g in table)
            found = self._held[seat] = (held, sum(g.is_four for g in table))
        return found

    def must_discard(self, seat: int) -> bool:
        """R6: holding > 20 + max(0, k − 1)."""
        return self.holding(seat) > HAND_SIZE + max(0, self.fours(seat) - 1)

    def hand_cards(self, seat: int) -> list[Kind]:
        return [k for k in range(NUM_KINDS) for _ in range(self.hands[seat][k])]

    def huxi(self, seat: int) -> int:
        """The seat's current total hu-xi (R10.6)."""
        return self._prepared_hand(seat).current_huxi()

    def _prepared_hand(self, seat: int) -> PreparedHand:
        """The seat's hand prepared for evaluation, kept until it changes."""
        found = self._prepared[seat]
        if found is None:
            found = PreparedHand(self.hand_cards(seat), self.tables[seat], self.rules)
            self._prepared[seat] = found
        return found

    def _changed(self, seat: int) -> None:
        """Forget what was derived from the seat's hand and table: they are about to change."""
        self._prepared[seat] = None
        self._held[seat] = None

    def legal_actions(self) -> list[Action]:
        """The choices of :attr:`to_act`, sorted by their F3 text; empty when the hand is over."""
        if self._legal is None:
            self._legal = sorted(self._compute_legal(), key=str)
        return list(self._legal)

    def _compute_legal(self) -> list[Action]:
        if self.phase is Phase.CLAIM:
            assert self.window is not None
            return [*self.window.offered, PASS]
        if self.phase is Phase.SELF_HU:
            return [HU, PASS]
        if self.phase is Phase.DISCARD:
            assert self.to_act is not None
            hand = self.hands[self.to_act]
            kinds = [k for k in range(NUM_KINDS) if 0 < hand[k] < 3]
            # R6.3: when every card left belongs to a 坎, a 坎 is broken.
            return [discard(k) for k in (kinds or [k for k in range(NUM_KINDS) if hand[k]])]
        return []

    def clone(self) -> Game:
        """An independent copy, for search."""
        other = Game.__new__(Game)
        other.rules = self.rules
        other.dealer = self.dealer
        other.deck = self.deck
        other.liang = self.liang
        other.wall_pos = self.wall_pos
        other.hands = [list(h) for h in self.hands]
        other.tables = [list(t) for t in self.tables]
        other.rows = [list(r) for r in self.rows]
        other.discarded = [set(s) for s in self.discarded]
        other.chou = [set(s) for s in self.chou]
        other.chou_hu = [dict(d) for d in self.chou_hu]
        other.phase = self.phase
        other.to_act = self.to_act
        w = self.window
        other.window = (
            None
            if w is None
            else _Window(
                w.card,
                w.owner,
                w.source,
                list(w.queue),
                w.options,
                w.hu,
                w.pao,
                w.last,
                list(w.claims),
                w.offered,
            )
        )
        other.pending_hu = self.pending_hu
        other.result = self.result
        other.history = list(self.history)
        other.log = list(self.log)
        other._legal = self._legal
        other._prepared = list(self._prepared)
        other._held = list(self._held)
        other.on_offer = None
        return other

    # ----------------------------------------------------------------------------- actions

    def apply(self, action: Action) -> None:
        """Carry out the decision of :attr:`to_act`; raises :class:`IllegalAction`."""
        if self.phase is Phase.OVER:
            raise IllegalAction("the hand is over")
        seat = self.to_act
        assert seat is not None
        if action not in self.legal_actions():
            raise IllegalAction(self._why_illegal(seat, action))
        self.history.append((seat, action))
        self._legal = None
        if self.phase is Phase.CLAIM:
            self._answer(seat, action)
        elif self.phase is Phase.SELF_HU:
            assert self.pending_hu is not None
            if action.type is ActionType.HU:
                self._win(seat, self.pending_hu)
            else:
                self._decline_hu(seat, self.pending_hu.win)
                self.pending_hu = None
                self._after_take(seat, last=self.wall == 0)
        else:
            assert action.card is not None
            self._discard(seat, action.card)

    def apply_text(self, text: str) -> None:
        """Apply an F3 line ``SEAT ACTION``; the seat must be the one to act."""
        seat, action = parse_seat_action(text)
        if seat != self.to_act:
            who = "nobody" if self.to_act is None else f"seat {self.to_act}"
            raise IllegalAction(f"it is not seat {seat}'s turn ({who} is to act)")
        self.apply(action)

    def _why_illegal(self, seat: int, action: Action) -> str:
        card = KIND_NAMES[self.window.card] if self.window is not None else None
        if self.phase is Phase.DISCARD:
            if action.type is not ActionType.DISCARD:
                return f"seat {seat} must discard a card"
            assert action.card is not None
            name = KIND_NAMES[action.card]
            if self.hands[seat][action.card] == 0:
                return f"seat {seat} has no {name} in hand"
            return f"seat {seat} may not discard {name}: it belongs to a 坎 (R3)"
        if self.phase is Phase.SELF_HU:
            return f"seat {seat} may only hu or pass now"
        if action.type is ActionType.DISCARD:
            return f"seat {seat} cannot discard now: {card} is on offer"
        if action.type is ActionType.PENG:
            if self.hands[seat][self.window.card if self.window else 0] != 2:
                return f"seat {seat} has no pair of {card}"
            return f"seat {seat} may not peng {card} (R7.1, R6.2)"
        if action.type is ActionType.HU:
            return f"seat {seat} cannot win on {card}"
        if action.type is ActionType.CHI:
            return f"seat {seat} cannot chi {card} that way (R7)"
        return f"{action} is not allowed now"

    # ----------------------------------------------------------------------------- flow

    def _start(self) -> None:
        """R2: 必需天胡, then the 亮张 offers, then the automatic 提, then the dealer."""
        for i in range(PLAYERS):
            seat = (self.dealer + i) % PLAYERS
            cards = self.hand_cards(seat) + ([self.liang] if seat == self.dealer else [])
            result = forced_tianhu(cards, self.rules)
            if result is not None:
                self._win(seat, result)
                return
        self._open_window(self.liang, self.dealer, Source.LIANG)

    def _after_liang(self) -> None:
        self.hands[self.dealer][self.liang] += 1
        for i in range(PLAYERS):
            seat = (self.dealer + i) % PLAYERS
            self._changed(seat)
            hand = self.hands[seat]
            for k in range(NUM_KINDS):
                if hand[k] == COPIES:
                    hand[k] = 0
                    self.tables[seat].append(Group(GroupType.TI, (k,) * 4))
                    self.log.append(Event(EventType.TI, seat, k))
        self._after_take(self.dealer, last=False)

    def _after_take(self, seat: int, *, last: bool) -> None:
        """After a take: discard if R6 says so, else the next player draws."""
        if last:
            self._huangzhuang()
        elif self.must_discard(seat) and self._can_discard(seat):
            self.phase = Phase.DISCARD
            self.to_act = seat
        else:
            self._draw(_next(seat))

    def _can_discard(self, seat: int) -> bool:
        """Whether the hand holds a card that may be discarded: one outside a 坎, or any card
        when a 坎 may be broken (R6.3)."""
        hand = self.hands[seat]
        if self.rules.break_kan_when_stuck:
            return any(hand)
        return any(0 < n < 3 for n in hand)

    def _draw(self, seat: int) -> None:
        """R4.1: draw, then a forced 提 or 偎, or show the card."""
        if self.wall == 0:
            self._huangzhuang()
            return
        card = self.deck[self.wall_pos]
        self.wall_pos += 1
        last = self.wall_pos == DECK_SIZE
        self.log.append(Event(EventType.DRAW, seat, card))
        hand, table = self.hands[seat], self.tables[seat]
        wei = next(
            (
                i
                for i, g in enumerate(table)
                if g.cards[0] == card and g.type in (GroupType.WEI, GroupType.CHOUWEI)
            ),
            None,
        )
        if hand[card] >= 2 or wei is not None:
            self._changed(seat)
        if hand[card] == 3 or wei is not None:  # R5.1.2, R5.1.3
            ti = Group(GroupType.TI, (card,) * 4)
            if wei is not None:
                table[wei] = ti
            else:
                hand[card] = 0
                table.append(ti)
            self.log.append(Event(EventType.TI, seat, card))
        elif hand[card] == 2:  # R4.1 step 2; 臭偎 when the kind is 臭 for him (R7.1)
            gtype = GroupType.CHOUWEI if card in self.chou[seat] else GroupType.WEI
            hand[card] = 0
            table.append(Group(gtype, (card,) * 3))
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
            self.pending_hu = result
            self.phase = Phase.SELF_HU
            self.to_act = seat
            return
        self._after_take(seat, last=last)

    def _discard(self, seat: int, card: Kind) -> None:
        self._changed(seat)
        self.hands[seat][card] -= 1
        self.discarded[seat].add(card)
        self.log.append(Event(EventType.DISCARD, seat, card))
        self._open_window(card, seat, Source.DISCARDED)

    # ----------------------------------------------------------------------------- claims

    def _open_window(
        self, card: Kind, owner: int, source: Source, first: int | None = None
    ) -> None:
        """Ask every seat with an option on the card (R8); ``first``: start the asking at that
        seat, as if those before it had passed (a position rebuilt for search)."""
        last = source is Source.DRAWN and self.wall == 0
        pao = None if last or source is Source.LIANG else self._pao_seat(card, owner, source)
        order = [owner, _next(owner), _next(_next(owner))]
        if source is Source.DISCARDED:
            order = order[1:]
        if first is not None:
            order = order[order.index(first) :]
        window = _Window(card, owner, source, [], {}, {}, pao, last)
        for seat in order:
            options = self._claim_options(seat, window)
            if options:
                window.options[seat] = options
                window.queue.append(seat)
        self.window = window
        self.to_act = None  # nobody is asked yet
        if self.on_offer is not None:
            self.on_offer(self)
        self._advance_window()

    def _pao_seat(self, card: Kind, owner: int, source: Source) -> int | None:
        """The seat that must 跑 on this card, if any (R4.1 step 4, R4.2, R5.2)."""
        for seat in range(PLAYERS):
            if seat == owner:
                if source is Source.DRAWN and any(
                    g.type is GroupType.PENG and g.cards[0] == card for g in self.tables[seat]
                ):
                    return seat
                continue
            if self.hands[seat][card] == 3:
                return seat
            runs_from: tuple[GroupType, ...] = (GroupType.WEI, GroupType.CHOUWEI)
            if source is Source.DRAWN:
                runs_from = (GroupType.WEI, GroupType.CHOUWEI, GroupType.PENG)
            if any(g.type in runs_from and g.cards[0] == card for g in self.tables[seat]):
                return seat
        return None

    def _can_complete(self, seat: int, taken: int = 0) -> bool:
        """Whether the seat holds the card count of a hand one card short of complete (R6),
        or of a complete one when it has ``taken`` the card already."""
        return self.holding(seat) == HAND_SIZE + taken + max(0, self.fours(seat) - 1)

    def _hu_blocked(self, seat: int, card: Kind) -> bool:
        """臭胡 (R9.3): he declined this kind and his hu-xi has not changed since."""
        declined = self.chou_hu[seat].get(card)
        return declined is not None and declined == self.huxi(seat)

    def _claim_options(self, seat: int, window: _Window) -> list[Action]:
        card, owner, source = window.card, window.owner, window.source
        hand = self.hands[seat]
        options: list[Action] = []
        hu = None
        if source is Source.LIANG:
            hu = self._prepared_hand(seat).win(card, self_drawn=seat == owner, tianhu=True)
        elif (source is Source.DRAWN or self.rules.hu_on_discard) and self._can_complete(seat):
            hu = self._prepared_hand(seat).win(
                card,
                self_drawn=source is Source.DRAWN and seat == owner,
                from_discard=source is Source.DISCARDED,
                haidi=window.last,
            )
        if hu is not None and not self._hu_blocked(seat, card):
            window.hu[seat] = hu
            options.append(HU)
        if window.last or source is Source.LIANG or window.pao is not None:
            return options  # only 胡 is offered on the last card and when a 跑 is pending (R8)
        if card in self.chou[seat] or card in self.discarded[seat]:
            return options  # R7.1
        must_discard = self.rules.take_needs_discard and (
            self.holding(seat) + 1 > HAND_SIZE + max(0, self.fours(seat) - 1)
        )
        if seat != owner and hand[card] == 2:
            rest = sum(n for n in hand if n != 3) - 2
            if not (must_discard and rest == 0):  # R6.2
                options.append(PENG)
        if seat == _next(owner) or (source is Source.DRAWN and seat == owner):
            options += chi_options(hand, card, must_discard=must_discard)
        return options

    @staticmethod
    def _outranked(action: Action, window: _Window) -> bool:
        """Already beaten by a claim declared before (equal ranks: the earlier one wins)."""
        rank = _RANK[action.type]
        return any(_RANK[a.type] >= rank for _, a in window.claims)

    def _advance_window(self) -> None:
        window = self.window
        assert window is not None
        while window.queue:
            seat = window.queue[0]
            window.offered = [a for a in window.options[seat] if not self._outranked(a, window)]
            if window.offered:
                self.phase = Phase.CLAIM
                self.to_act = seat
                return
            window.queue.pop(0)  # skipped: never offered, so nothing becomes 臭 (R8)
        self._resolve_window()

    def _answer(self, seat: int, action: Action) -> None:
        window = self.window
        assert window is not None
        window.queue.pop(0)
        offered = window.offered
        if action.type is ActionType.PASS:
            if any(a.type in (ActionType.CHI, ActionType.PENG) for a in offered):
                self.chou[seat].add(window.card)  # R7.1
        else:
            window.claims.append((seat, action))
        if action.type is not ActionType.HU and HU in offered:
            self._decline_hu(seat, window.card)
        self._advance_window()

    def _decline_hu(self, seat: int, card: Kind | None) -> None:
        if card is not None:
            self.chou_hu[seat][card] = self.huxi(seat)  # R9.3

    def _resolve_window(self) -> None:
        window = self.window
        assert window is not None
        self.window = None
        self.to_act = None
        best: tuple[int, Action] | None = None
        for seat, action in window.claims:
            if best is None or _RANK[action.type] > _RANK[best[1].type]:
                best = (seat, action)
        card, owner = window.card, window.owner
        if best is not None and best[1].type is ActionType.HU:
            self._win(best[0], window.hu[best[0]])
            return
        if window.source is Source.LIANG:
            self._after_liang()
            return
        if window.pao is not None:
            self._pao(window.pao, card)
        elif best is not None:
            seat, action = best
            self._changed(seat)
            if action.type is ActionType.PENG:
                self.hands[seat][card] -= 2
                group = Group(GroupType.PENG, (card,) * 3)
                self.tables[seat].append(group)
                self.log.append(Event(EventType.PENG, seat, card, (group,)))
            else:
                self._chi(seat, card, action)
            self._after_take(seat, last=False)
        else:
            self.rows[owner].append(card)
            self.log.append(Event(EventType.PASSED, owner, card))
            if window.last:
                self._huangzhuang()
            else:
                self._draw(_next(owner))

    def _pao(self, seat: int, card: Kind) -> None:
        self._changed(seat)
        table = self.tables[seat]
        pao = Group(GroupType.PAO, (card,) * 4)
        index = next(
            (i for i, g in enumerate(table) if g.cards[0] == card and g.type in _RUNS_TO_PAO),
            None,
        )
        if index is not None:
            table[index] = pao
        else:
            self.hands[seat][card] = 0
            table.append(pao)
        self.log.append(Event(EventType.PAO, seat, card, (pao,)))
        self._after_take(seat, last=False)

    def _chi(self, seat: int, card: Kind, action: Action) -> None:
        hand = self.hands[seat]
        take, *bis = action.groups
        hand[card] += 1
        groups = []
        for cards in (take, *bis):
            for k in cards:
                hand[k] -= 1
            groups.append(Group(GroupType.CHI, cards))
        self.tables[seat].extend(groups)
        self.log.append(Event(EventType.CHI, seat, card, tuple(groups)))

    # ----------------------------------------------------------------------------- ending

    def _win(self, seat: int, hu: HuResult) -> None:
        others = {s: self.huxi(s) for s in range(PLAYERS) if s != seat}
        paid = tuple(payments(seat, hu.points, PLAYERS))
        self.result = GameResult(seat, hu.win, hu, paid, others)
        self.log.append(Event(EventType.HU, seat, hu.win, hu.groups))
        self._end()

    def _huangzhuang(self) -> None:
        """荒庄: the wall is empty and the last card was not won on (R4.1, R11)."""
        others = {s: self.huxi(s) for s in range(PLAYERS)}
        self.result = GameResult(None, None, None, tuple(payments(None, 0, PLAYERS)), others)
        self.log.append(Event(EventType.HUANGZHUANG, self.dealer))
        self._end()

    def _end(self) -> None:
        self.phase = Phase.OVER
        self.to_act = None
        self.window = None
        self._legal = None


@dataclass
class Position:
    """Everything that makes a position, for building a game that did not start from a deal
    (a sampled completion of what one seat knows, for search). ``to_act`` decides next: in a
    claim window on ``offer`` (from ``owner``, by ``source``) if there is one, else a discard."""

    dealer: int
    liang: Kind
    hands: list[list[int]]
    tables: list[list[Group]]
    rows: list[list[Kind]]
    discarded: list[set[Kind]]
    chou: list[set[Kind]]
    chou_hu: list[dict[Kind, int]]
    wall: list[Kind]
    to_act: int
    offer: Kind | None = None
    owner: int | None = None
    source: Source | None = None
    self_hu: bool = False
    """``to_act`` has just made a forced 偎/提 and decides on a win (R4.1 step 3)."""
    offered: tuple[Action, ...] | None = None
    """In a claim window: what ``to_act`` is offered, when claims declared before it (hidden
    from it) took some of its options away (R8)."""


def game_from_position(position: Position, rules: RuleSet = HUNAN) -> Game:
    """A game at ``position``; its cards must add up to the 80 of the deck (R1)."""
    p = position
    game = Game.__new__(Game)
    game.rules = rules
    game.dealer = p.dealer
    # Only the wall part of the deck is ever read again; the rest stands for dealt cards.
    game.deck = tuple([p.liang] * (DECK_SIZE - len(p.wall)) + list(p.wall))
    game.liang = p.liang
    game.wall_pos = DECK_SIZE - len(p.wall)
    game.hands = [list(h) for h in p.hands]
    game.tables = [list(t) for t in p.tables]
    game.rows = [list(r) for r in p.rows]
    game.discarded = [set(d) for d in p.discarded]
    game.chou = [set(c) for c in p.chou]
    game.chou_hu = [dict(c) for c in p.chou_hu]
    game.window = None
    game.pending_hu = None
    game.result = None
    game.history = []
    game.log = []
    game._legal = None
    game._prepared = [None] * PLAYERS
    game._held = [None] * PLAYERS
    game.on_offer = None
    game.to_act = p.to_act
    game.phase = Phase.DISCARD
    if p.offer is not None:
        assert p.owner is not None and p.source is not None
        game._open_window(p.offer, p.owner, p.source, first=p.to_act)
        if p.offered is not None and game.window is not None and game.to_act == p.to_act:
            game.window.offered = [a for a in p.offered if a != PASS]
    elif p.self_hu:
        found = game._prepared_hand(p.to_act).complete(haidi=game.wall == 0)
        if found is None:
            raise ValueError("the seat has no complete hand to win with")
        game.pending_hu = found
        game.phase = Phase.SELF_HU
    return game


def check_deck(deck: Sequence[Kind]) -> None:
    """Raise ValueError unless ``deck`` holds the 80 cards, four of each kind (R1)."""
    if len(deck) != DECK_SIZE:
        raise ValueError(f"a deck has {DECK_SIZE} cards, not {len(deck)}")
    for k in range(NUM_KINDS):
        n = sum(1 for c in deck if c == k)
        if n != COPIES:
            raise ValueError(f"a deck has four {KIND_NAMES[k]}, not {n}")


def stacked_deck(
    hands: Mapping[int, str | Sequence[Kind]] | None = None,
    *,
    dealer: int = 0,
    liang: str | Kind | None = None,
    wall: str | Sequence[Kind] = (),
    seed: int = 0,
) -> list[Kind]:
    """A deck that deals the given cards (R2 deal order); everything unspecified is filled at
    random (seeded), adding at most a pair of a kind to a hand. ``hands`` maps a seat to some or
    all of its 20 cards; ``wall`` gives the first cards to be drawn, in order."""

    def cards_of(value: str | Sequence[Kind]) -> list[Kind]:
        return parse_cards(value) if isinstance(value, str) else list(value)

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
        if len(cards) > HAND_SIZE:
            raise ValueError(f"seat {seat} is given {len(cards)} cards, more than {HAND_SIZE}")
    if len(top) > DECK_SIZE - LIANG_INDEX - 1:
        raise ValueError("more wall cards than the wall holds")
    rest = [k for k in range(NUM_KINDS) for _ in range(left[k])]
    random.Random(seed).shuffle(rest)
    deck: list[Kind] = []
    for i in range(PLAYERS):
        cards = wanted.get((dealer + i) % PLAYERS, [])
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
