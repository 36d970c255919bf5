"""What the others' play says about their hidden hands: weights on sampled deals (issue 26, D135).

The sampler (:mod:`paohuzi.bots.sampler`) draws the hidden cards uniformly among the deals the
rules allow. Play says more than the rules: a player who let a card go by when he held a
pair of it passed a 碰 (R8), one who discarded a card he had a pair of broke the pair. Such
deals can happen, but a sensible player makes them less often. This module reads, from one
seat's observation only, the moments where another seat's choice depended on its hand
(:class:`Clue`), and says what a sampled deal makes of each (:class:`Verdict`):

* a card another seat showed or discarded, that went by (passed, or taken by a 吃 of a third
  seat, which a 碰 outranks), was a 碰 offer to every other seat holding a pair of it then
  (``PASSED_PENG``), and a 吃 offer to the next seat (and, for a draw, to the drawer) if his
  hand then made one (``PASSED_CHI``); the first such pass makes the kind 臭 for him (R7.1),
  so only the first moment his hand made an offer counts;
* a discarded card broke a pair if its seat held another of that kind then (``BROKE_PAIR``),
  and else left a partner behind if it held a card it could have made a sequence or 绞 with
  (``LEFT_PARTNER``, PARTNERS), or was alone in his hand.

A hand only loses cards after the deal (a draw is shown or laid down, a claim goes to the
table), so the hand at a past moment is the sampled hand now plus the cards the seat has been
seen letting go of since (its discards, the hand cards of its 吃 and 碰); its face-down 偎
since are not counted (they take three of a kind, which a 碰 or 吃 never uses).

The model: a deal's weight is the product of the :data:`FACTORS` of its verdicts, the odds
ratios measured on greedy self-play (D135: how much less often a verdict is true of the true
deal than of the deals the sampler draws, against its alternative). Breaking a pair is rare
(odds 0.07) and is made a cap, weight 0: the sampler never gives a seat a kind it discarded
(:attr:`Beliefs.caps`), which costs nothing. The rest are mild (a passed 碰 0.8, a passed 吃
1, a discard that left a partner 0.5); :func:`draw` applies them by resampling among
``choices`` capped deals, which the expert leaves at 1 (D136).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from paohuzi.bots.sampler import Caps, SamplingError, sample, sample_payments
from paohuzi.engine.actions import Action
from paohuzi.engine.cards import NUM_KINDS, Kind
from paohuzi.engine.chi import chi_options
from paohuzi.engine.core import Waits
from paohuzi.engine.game import Event, EventType, Game
from paohuzi.engine.groups import PARTNERS
from paohuzi.engine.observation import Observation

PASSED_PENG = 0.8
"""Factor of a deal in which a seat let a card go by holding a pair of it (a 碰 passed)."""
PASSED_CHI = 1.0
"""Factor of a deal in which the seat offered a 吃 of a card that went by could make one
(measured 0.93: the greedy player passes most 吃, so a pass says next to nothing)."""
LEFT_PARTNER = 0.5
"""Factor of a deal in which a seat discarded a card it held a partner of (against one in
which the card was alone in his hand)."""
CHOICES = 1
"""Deals :func:`draw` draws for each sample it gives, one of them kept by weight; 1 (the
expert's, D136): the caps alone, for the factors move the deals drawn too little to pay for
the draws and weights."""


class Verdict(Enum):
    """What a clue makes of a deal: the seat passed a claim, or discarded against its hand."""

    PASSED_PENG = "passed a 碰"
    PASSED_CHI = "passed a 吃"
    BROKE_PAIR = "broke a pair"
    LEFT_PARTNER = "left a partner"


FACTORS = {
    Verdict.PASSED_PENG: PASSED_PENG,
    Verdict.PASSED_CHI: PASSED_CHI,
    Verdict.BROKE_PAIR: 0.0,
    Verdict.LEFT_PARTNER: LEFT_PARTNER,
}
"""The factor of each verdict."""


class ClueType(Enum):
    """What a clue says the seat did."""

    WENT_BY = "went by"
    """A card it could have claimed went by (``chi``: it was the seat offered a 吃)."""
    DISCARDED = "discarded"


@dataclass(frozen=True, slots=True)
class Clue:
    """One choice of another seat that depended on its hidden hand: at that moment it held
    its hand now plus ``since`` (the cards per kind it has been seen letting go of since)."""

    type: ClueType
    seat: int
    card: Kind
    since: tuple[int, ...]
    chi: bool = False


def clues(obs: Observation) -> list[Clue]:
    """The clues in ``obs``'s events, in order (public events only: what any seat sees)."""
    me = obs.seat
    assert me is not None
    seating = obs.seating
    events = obs.events
    pending = obs.offer is not None
    running = [[0] * NUM_KINDS for _ in obs.tables]  # let go of after the current event
    for e in events:
        for k in _let_go(e):
            running[e.seat][k] += 1
    found: list[Clue] = []
    discarded: list[set[Kind]] = [set() for _ in obs.tables]
    for i, e in enumerate(events):
        for k in _let_go(e):
            running[e.seat][k] -= 1
        if e.card is None or e.type not in (EventType.SHOW, EventType.DISCARD):
            continue
        last = i == len(events) - 1
        if e.type is EventType.DISCARD:
            if e.seat != me:
                found.append(Clue(ClueType.DISCARDED, e.seat, e.card, tuple(running[e.seat])))
            discarded[e.seat].add(e.card)
        if last and pending:
            continue  # still on offer: nobody has answered yet
        outcome = events[i + 1] if i + 1 < len(events) else None
        if outcome is None:
            continue
        went_by = outcome.type is EventType.PASSED
        chi_by = outcome.seat if outcome.type is EventType.CHI else None
        if not went_by and chi_by is None:
            continue
        chi_seats = {seating.next(e.seat)}
        if e.type is EventType.SHOW:
            chi_seats.add(e.seat)
        for s in seating.order_from(e.seat):
            if s in (me, chi_by) or e.card in discarded[s]:
                continue
            if s == e.seat and e.type is EventType.DISCARD:
                continue
            # A 碰 outranks a 吃, so a seat that could 碰 was asked even after a 吃 was
            # claimed; a 吃 by the next seat means the drawer (asked first) passed his own.
            chi = s in chi_seats and (went_by or s == e.seat)
            if s == e.seat and not chi:
                continue  # the drawer may not 碰 his own draw
            found.append(Clue(ClueType.WENT_BY, s, e.card, tuple(running[s]), chi))
    return found


def _plus(a: tuple[int, ...], b: tuple[int, ...]) -> list[int]:
    return [x + y for x, y in zip(a, b, strict=True)]


def _let_go(e: Event) -> list[Kind]:
    """The hand cards a public event shows its seat letting go of."""
    if e.type is EventType.DISCARD and e.card is not None:
        return [e.card]
    if e.type is EventType.PENG and e.card is not None:
        return [e.card, e.card]
    if e.type is EventType.CHI and e.card is not None:
        cards = [k for g in e.groups for k in g.cards]
        cards.remove(e.card)
        return cards
    return []


class Beliefs:
    """The clues of one observation, ready to weigh many sampled deals."""

    def __init__(self, obs: Observation, *, choices: int = CHOICES) -> None:
        self.choices = choices
        """Deals :func:`draw` draws for each sample (1: the capped sample, unweighted)."""
        self.clues = clues(obs)
        self.caps: Caps = {}
        """A seat holds no card of a kind it discarded (it would have broken a pair), unless
        it has been seen letting one go since (then the deal cannot change that)."""
        for c in self.clues:
            if c.type is ClueType.DISCARDED and not c.since[c.card]:
                cap = list(self.caps.get(c.seat, (3,) * NUM_KINDS))
                cap[c.card] = 0
                self.caps[c.seat] = tuple(cap)
        # What weight() reads: per discard (uncapped ones always broke a pair: the same in
        # every deal), the partners and what was let go of them since; per seat and kind that
        # went by, its chances in order.
        self._partners = [
            (c.seat, tuple((p, c.since[p]) for p in PARTNERS[c.card]))
            for c in self.clues
            if c.type is ClueType.DISCARDED and not c.since[c.card]
        ]
        chances: dict[tuple[int, Kind], list[tuple[tuple[int, ...], bool]]] = {}
        for c in self.clues:
            if c.type is ClueType.WENT_BY:
                chances.setdefault((c.seat, c.card), []).append((c.since, c.chi))
        self._chances = [(s, k, moments) for (s, k), moments in chances.items()]

    def weight(self, hands: tuple[tuple[int, ...], ...]) -> float:
        """The weight of a deal with these hands (per seat, counts per kind): the product of
        :data:`FACTORS` over :meth:`verdicts`, worked out without the 吃 a verdict does not
        need (:data:`PASSED_CHI` is 1)."""
        w = 1.0
        for seat, partners in self._partners:
            hand = hands[seat]
            if any(hand[p] + n for p, n in partners):
                w *= LEFT_PARTNER
        for seat, k, moments in self._chances:
            held = hands[seat][k]
            for i, (since, _) in enumerate(moments):
                if held + since[k] == 2:
                    # a 碰 passed, unless a 吃 he passed before made the kind 臭 (R7.1)
                    then = hands[seat]
                    if not any(
                        chi and chi_options(_plus(then, before), k, must_discard=False)
                        for before, chi in moments[:i]
                    ):
                        w *= PASSED_PENG
                    break
        return w

    def verdicts(self, hands: tuple[tuple[int, ...], ...]) -> list[Verdict | None]:
        """What the deal makes of each discard, and of each seat's first chance at each kind
        that went by (None: nothing the model weighs)."""
        found: list[Verdict | None] = []
        answered: dict[tuple[int, Kind], int] = {}
        for c in self.clues:
            hand = hands[c.seat]
            k = c.card
            if c.type is ClueType.DISCARDED:
                if c.since[k]:
                    found.append(None)  # he let another go since: the same in every deal
                elif hand[k]:
                    found.append(Verdict.BROKE_PAIR)
                elif any(hand[p] + c.since[p] for p in PARTNERS[k]):
                    found.append(Verdict.LEFT_PARTNER)
                else:
                    found.append(None)
                continue
            key = (c.seat, k)
            if key not in answered:
                answered[key] = len(found)
                found.append(None)
            elif found[answered[key]] is not None:
                continue  # 臭 for him since his first pass (R7.1)
            if hand[k] + c.since[k] == 2:
                found[answered[key]] = Verdict.PASSED_PENG
            elif c.chi:
                then = [n + m for n, m in zip(hand, c.since, strict=True)]
                if chi_options(then, k, must_discard=False):
                    found[answered[key]] = Verdict.PASSED_CHI
        return found


def draw(obs: Observation, beliefs: Beliefs, rng: random.Random) -> Game:
    """A sampled game for ``obs``: :data:`CHOICES` deals drawn within the rules and
    ``beliefs.caps`` (within the rules only if no deal respects the caps), one of them kept
    with probability in proportion to its weight (sampling-importance-resampling: the
    proportion of weights is approached, not reached, with few deals)."""
    caps: Caps | None = beliefs.caps
    drawn = []
    for _ in range(beliefs.choices):
        try:
            game = sample(obs, rng, caps=caps)
        except SamplingError:
            caps = None  # the model's caps fit no deal: the rules' alone
            game = sample(obs, rng)
        if beliefs.choices == 1:
            return game
        drawn.append((beliefs.weight(game.hands), game))
    total = sum(w for w, _ in drawn)
    pick = rng.random() * total
    for w, game in drawn:
        pick -= w
        if pick < 0:
            return game
    return drawn[-1][1]


def draw_payments(
    obs: Observation,
    beliefs: Beliefs,
    rng: random.Random,
    candidates: Sequence[Action],
    waits: Waits,
) -> list[int] | None:
    """:func:`draw`'s game and the candidates' payments on it (``rollout_payments``) in one
    call to the native core (:func:`paohuzi.bots.sampler.sample_payments`), the same game
    drawn from ``rng``; None when that cannot be (``beliefs.choices`` above 1, or a rule set
    the native core does not serve), and then nothing is drawn from ``rng``."""
    if beliefs.choices != 1:
        return None
    try:
        return sample_payments(obs, rng, candidates, waits, caps=beliefs.caps)
    except SamplingError:
        return sample_payments(obs, rng, candidates, waits)  # the rules' caps alone, as draw
