"""Sampling the hidden cards: complete positions consistent with one seat's observation.

What a seat knows, besides the cards it sees:

* a hand only ever loses cards after the deal (draws are shown or laid down, claims go to the
  table), so what is true of another hand at some moment stays true of what is left of it;
* a card shown from another seat's own draw proves he held at most one of that kind then (a
  pair would have made a 偎, a 坎 a 提, R4.1);
* a card shown or discarded by anyone else, with no 跑 following, proves he held no 坎 of it
  then (R5.2); and after the latest of his face-down 偎, none of them is of such a kind — but
  not the card still on offer: a 胡 is asked before a 跑, so its 跑 may be yet to come;
* if this seat is offered a 吃 or 碰, nobody must 跑 on the card (only 胡 would be offered, R8);
* a seat holds none of a kind it took into a 碰 or a 偎 (it held two: three would have made a
  跑 or 提, R4) or claimed with a 吃 (every copy it held is laid down with it, 比, R7) — a face-down
  偎's too, whose kind the sample chooses: the fourth copy is elsewhere, and a dealer whose 偎
  is of the 亮张's kind put the 亮张 into it (D175).

Within those limits every completion is equally likely: the unseen cards are dealt uniformly
at random (rejection sampling), and a face-down 偎 takes a kind with a weight of the number of
ways to choose its three cards. Where the native core serves the rule set, the constraints are
worked out here once per observation and the samples drawn inside the core (D41); the Python
sampler here is the reference and the fallback (``sample(..., core="python")``, D85).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from math import comb

from paohuzi.engine.actions import PASS, Action, ActionType
from paohuzi.engine.cards import NUM_KINDS, Kind
from paohuzi.engine.core import Waits
from paohuzi.engine.game import CoreName, EventType, Game
from paohuzi.engine.groups import Group, GroupType
from paohuzi.engine.observation import Observation, observe
from paohuzi.engine.position import (
    ClaimWindow,
    Discarding,
    Phase,
    Position,
    SeatState,
    SelfHu,
    Source,
)
from paohuzi.native.core import NativeSampler, serves

REJECTION_TRIES = 300
"""Deals tried by rejection before the exact way, on either core."""


class SamplingError(ValueError):
    """No completion satisfies the constraints (an observation that cannot happen)."""


_TAKEN_WHOLE = frozenset({EventType.PENG, EventType.CHI, EventType.WEI, EventType.CHOUWEI})
"""Takes after which their seat holds none of the card's kind."""


def limits(obs: Observation) -> tuple[dict[int, list[int]], dict[int, set[Kind]]]:
    """Per other seat: the most copies of each kind its hand can hold now, and the kinds its
    face-down 偎 cannot be."""
    assert obs.seat is not None
    others = [s for s in obs.seating.playing if s != obs.seat]
    caps = {o: [3] * NUM_KINDS for o in others}
    not_wei: dict[int, set[Kind]] = {o: set() for o in others}
    events = obs.events
    last_wei = {
        o: max(
            (i for i, e in enumerate(events) if e.type is EventType.WEI and e.seat == o), default=-1
        )
        for o in others
    }
    shown = [i for i, e in enumerate(events) if e.type in (EventType.SHOW, EventType.DISCARD)]
    # The card on offer is the latest shown or discarded; whoever can 跑 on it has not been
    # asked yet if this seat is asked first about a 胡 (R8), so it proves no 坎 (D125).
    pending = shown[-1] if obs.offer is not None and shown else -1
    for i, event in enumerate(events):
        if event.card is None or event.type not in (EventType.SHOW, EventType.DISCARD):
            continue
        k = event.card
        runner = next(
            (e.seat for e in events[i + 1 : i + 3] if e.type is EventType.PAO and e.card == k), None
        )
        for o in others:
            if runner == o:
                continue
            if event.type is EventType.SHOW and event.seat == o:
                caps[o][k] = min(caps[o][k], 1)
            elif event.seat != o and i != pending:
                caps[o][k] = min(caps[o][k], 2)
                if i > last_wei[o]:
                    not_wei[o].add(k)
    # A seat that took a kind into a 碰, a 偎 or a 吃 holds none of it since: a 碰 or 偎 takes
    # the two it held (three would have made a 跑 or 提, R4), a 吃 lays down every copy it held
    # (比, R7), and a hand takes no card after the deal (D175). (Its face-down 偎, whose kind
    # only a sample says, the completion sees to.)
    for event in events:
        if event.seat in caps and event.card is not None and event.type in _TAKEN_WHOLE:
            caps[event.seat][event.card] = 0
    if obs.offer is not None and any(
        a.type in (ActionType.CHI, ActionType.PENG) for a in obs.legal
    ):
        for o in others:
            caps[o][obs.offer] = min(caps[o][obs.offer], 2)
            not_wei[o].add(obs.offer)
    return caps, not_wei


Caps = dict[int, tuple[int, ...]]
"""Per other seat, the most copies of each kind its hand may hold now."""


def sample(
    obs: Observation, rng: random.Random, *, core: CoreName = "auto", caps: Caps | None = None
) -> Game:
    """A game consistent with ``obs``, at the decision the observing seat faces, on ``core``
    (as ``Game(core=…)`` chooses it). On the native core the sample is drawn inside it
    (:class:`~paohuzi.native.core.NativeSampler`, with a 64-bit seed from ``rng``) under the
    same constraints (D41); on the Python core, here. ``caps``: tighter limits than the
    rules' on the others' hands (a model of their play, :mod:`paohuzi.bots.beliefs`)."""
    seat = obs.seat
    if seat is None or not obs.legal:
        raise ValueError("sampling needs the observation of a seat that is to act")
    if core == "native" and not serves(obs.rules):
        raise ValueError("the native core does not serve this rule set (or is not built)")
    if core != "python" and serves(obs.rules):
        found = _native_sampler(obs, caps).sample(rng.getrandbits(64), REJECTION_TRIES)
        if isinstance(found, str):
            raise SamplingError(found)
        return found
    unseen = obs.unseen()
    limit, not_wei = _limits(obs, tighter=caps)
    others = [s for s in obs.seating.playing if s != seat]
    tables: list[list[Group | None]] = [[] for _ in obs.tables]
    slots: list[tuple[int, int]] = []
    for s, seen in enumerate(obs.tables):
        for group in seen:
            if group.cards is None:
                slots.append((s, len(tables[s])))
            tables[s].append(None if group.cards is None else Group(group.type, group.cards))
    sizes = {o: obs.hand_sizes[o] for o in others}
    if sum(sizes.values()) + obs.wall + 3 * len(slots) != sum(unseen):
        raise SamplingError("the unseen cards do not fill the hidden places")
    keeper = obs.dealer if _liang_may_be_kept(obs, others) else None
    completion = quick_draw(unseen, slots, not_wei, sizes, limit, keeper, obs.liang, rng)
    if completion is None:
        completions = Completions(unseen, slots, not_wei, sizes, limit, keeper, obs.liang)
        completion = completions.draw(rng)
    if completion is None:
        raise SamplingError("no deal of the unseen cards respects what is known")
    weis, hands = completion
    for (s, index), k in zip(slots, weis, strict=True):
        tables[s][index] = Group(GroupType.WEI, (k,) * 3)
    wall = hands.pop(-1)
    hands[seat] = list(obs.hand)
    seats = tuple(
        SeatState(
            hand=tuple(hands.get(s, [0] * NUM_KINDS)),
            table=tuple(g for g in tables[s] if g is not None),
            row=obs.rows[s],
            discarded=obs.discarded[s],
            chou=obs.chou if s == seat else frozenset(),
            chou_hu=obs.chou_hu if s == seat else (),
        )
        for s in range(len(obs.tables))
    )
    position = Position(obs.dealer, obs.liang, tuple(wall), seats, _phase(obs, seat))
    return Game.from_position(position, obs.rules, core="python")


def _liang_may_be_kept(obs: Observation, others: list[int]) -> bool:
    """The 亮张 went into the dealer's hand: it is still there unless he has let a card of that
    kind go since (a discard, a group on his table) — if a copy of it is unseen."""
    return (
        obs.dealer in others
        and obs.offer_source is not Source.LIANG
        and not any(
            e.seat == obs.dealer
            and (e.card == obs.liang or any(obs.liang in g.cards for g in e.groups))
            and e.type not in (EventType.LIANG, EventType.DRAW, EventType.SHOW)
            for e in obs.events
        )
    )


def _limits(
    obs: Observation, tighter: Caps | None
) -> tuple[dict[int, list[int]], dict[int, set[Kind]]]:
    """:func:`limits`, with the caps lowered to ``tighter``'s where it has them."""
    caps, not_wei = limits(obs)
    for o, more in (tighter or {}).items():
        caps[o] = [min(a, b) for a, b in zip(caps[o], more, strict=True)]
    return caps, not_wei


_last: tuple[Observation, Caps | None, NativeSampler] | None = None
"""The sampler of the observation sampled last (the expert samples one many times)."""


def sample_payments(
    obs: Observation,
    rng: random.Random,
    candidates: Sequence[Action],
    waits: Waits,
    *,
    caps: Caps | None = None,
) -> list[int] | None:
    """``rollout_payments(sample(obs, rng, caps=caps), candidates, obs.seat, waits=waits)``
    inside the native core in one call, drawing the same game from ``rng`` as :func:`sample`
    (a search's sample, D159); None when the native core does not serve ``obs.rules`` (then
    nothing is drawn from ``rng``). SamplingError as :func:`sample`."""
    seat = obs.seat
    if seat is None or not obs.legal:
        raise ValueError("sampling needs the observation of a seat that is to act")
    if not serves(obs.rules):
        return None
    found = _native_sampler(obs, caps).sample_rollout(
        rng.getrandbits(64), REJECTION_TRIES, candidates, seat, waits
    )
    if isinstance(found, str):
        raise SamplingError(found)
    return found


def _native_sampler(obs: Observation, tighter: Caps | None = None) -> NativeSampler:
    global _last
    last = _last  # read once: another thread may replace it
    if last is not None and last[0] is obs and last[1] == tighter:
        return last[2]
    seat = obs.seat
    assert seat is not None
    caps, not_wei = _limits(obs, tighter)
    others = [s for s in obs.seating.playing if s != seat]
    seats = [
        (
            obs.hand if s == seat else (0,) * NUM_KINDS,
            [Group(g.type, g.cards) if g.cards is not None else None for g in table],
            obs.rows[s],
            obs.discarded[s],
            obs.chou if s == seat else frozenset(),
            obs.chou_hu if s == seat else (),
        )
        for s, table in enumerate(obs.tables)
    ]
    found = NativeSampler(
        obs.rules,
        obs.dealer,
        obs.liang,
        obs.wall,
        seats,
        [not_wei.get(s, set()) for s in range(len(obs.tables))],
        obs.unseen(),
        [(o, obs.hand_sizes[o], caps[o]) for o in others],
        _liang_may_be_kept(obs, others),
        _phase(obs, seat),
    )
    _last = (obs, tighter, found)
    return found


def _phase(obs: Observation, seat: int) -> Phase:
    """The decision the observing seat faces, as a phase of the sampled position."""
    if obs.offer is not None:
        assert obs.turn is not None and obs.offer_source is not None  # a card on offer has both
        order = obs.seating.order_from(obs.turn)
        asking = order[order.index(seat) :]
        offered = tuple(a for a in obs.legal if a != PASS)
        return ClaimWindow(obs.offer, obs.turn, obs.offer_source, asking, offered)
    if all(a.type in (ActionType.HU, ActionType.PASS) for a in obs.legal):
        # Right after his forced 偎 or 提 of the card he drew: the latest event (R4.1 step 3).
        card = next((e.card for e in reversed(obs.events) if e.seat == seat), None)
        if card is None:
            raise ValueError("sampling a win after a forced 偎/提 needs the observation's events")
        return SelfHu(seat, card)
    return Discarding(seat)


Found = tuple[list[Kind], dict[int, list[int]]]
"""A completion: the kind of each face-down 偎 (in the order of the slots) and the hidden
hands as counts, the wall (key -1) as cards in order."""


def quick_draw(
    unseen: list[int],
    slots: list[tuple[int, int]],
    not_wei: dict[int, set[Kind]],
    sizes: dict[int, int],
    caps: dict[int, list[int]],
    keeper: int | None,
    liang: Kind,
    rng: random.Random,
) -> Found | None:
    """The quick way, kept from before (the same draws for the same generator): each face-down
    偎 in turn takes a kind weighted by the ways to choose its three cards, then the unseen
    cards are dealt uniformly at random until a deal respects the caps; None after
    ``REJECTION_TRIES`` deals, or if no kind fits a 偎."""
    left = list(unseen)
    weis = []
    for s, _ in slots:
        kinds = [k for k in range(NUM_KINDS) if left[k] >= 3 and k not in not_wei[s]]
        if not kinds:
            return None
        k = rng.choices(kinds, weights=[comb(left[k], 3) for k in kinds])[0]
        left[k] -= 3
        weis.append(k)
    sizes = dict(sizes)
    caps = {o: list(c) for o, c in caps.items()}
    own = {(s, k) for (s, _), k in zip(slots, weis, strict=True)}
    for s, k in own:
        if s in caps:  # (a face-down 偎 is always another seat's, whose hand is hidden)
            caps[s][k] = 0  # no card of his own 偎's kind (R4.1: he held two, drew the third)
    # The 亮张 is kept unless his own 偎 took it; kept against a cap of 0 (tighter caps), no
    # deal fits (the cap goes below 0) and the exact way decides, as it does.
    kept = keeper is not None and left[liang] > 0 and (keeper, liang) not in own
    if keeper is not None and kept:
        left[liang] -= 1
        sizes[keeper] -= 1
        caps[keeper][liang] -= 1
    pool = [k for k in range(NUM_KINDS) for _ in range(left[k])]
    for _ in range(REJECTION_TRIES):
        rng.shuffle(pool)
        hands: dict[int, list[int]] = {}
        start = 0
        for o, size in sizes.items():
            counts = [0] * NUM_KINDS
            for k in pool[start : start + size]:
                counts[k] += 1
            start += size
            if any(c > cap for c, cap in zip(counts, caps[o], strict=True)):
                break
            hands[o] = counts
        else:
            if keeper is not None and kept:
                hands[keeper][liang] += 1
            hands[-1] = pool[start:]
            return weis, hands
    return None


class Completions:
    """Every completion within the constraints, counted kind by kind (D125): the exact way
    when the quick one fails, which finds one whenever one exists.

    A completion chooses, kind by kind, which face-down 偎 (if any) takes three of its unseen
    copies, how many each hidden hand holds (within its caps; none of its own 偎's kind; the
    dealer at least the kept 亮张, unless his 偎 took it) and leaves the rest to the wall. It
    counts as many times as there are ways to choose its physical cards — the 偎's three of
    the copies, then the deal of the rest — the model of the quick way, and :meth:`draw` picks
    one with exactly that probability: the number of completions from each state (the kind,
    what each hand still needs, the 偎 each seat still has to fill) is counted once, then the
    draw walks the kinds choosing each step in proportion to the completions below it. The
    wall's order is then shuffled uniformly."""

    def __init__(
        self,
        unseen: list[int],
        slots: list[tuple[int, int]],
        not_wei: dict[int, set[Kind]],
        sizes: dict[int, int],
        caps: dict[int, list[int]],
        keeper: int | None,
        liang: Kind,
    ) -> None:
        self.unseen = unseen
        self.slots = slots
        self.wei_seats = sorted({s for s, _ in slots})
        self.not_wei = not_wei
        self.hands = list(sizes)
        self.sizes = tuple(sizes.values())
        self.caps = caps
        self.keeper = keeper
        self.liang = liang
        # Per hand and kind: the most it can still take from that kind on (a bound to prune).
        self.room = [
            [
                sum(min(caps[o][j], unseen[j]) for j in range(k, NUM_KINDS))
                for k in range(NUM_KINDS + 1)
            ]
            for o in self.hands
        ]
        self.memo: dict[tuple[int, tuple[int, ...], tuple[int, ...]], int] = {}

    def steps(
        self, k: Kind, need: tuple[int, ...], weis: tuple[int, ...]
    ) -> list[tuple[int, int, tuple[int, ...], tuple[int, ...]]]:
        """The choices at kind ``k``: (the seat whose 偎 takes it or -1, the ways to choose
        the cards, what the hands need after it, the 偎 left to fill)."""
        found = []
        wei_choices = [(-1, 1, weis)]
        if self.unseen[k] >= 3:
            for i, s in enumerate(self.wei_seats):
                if weis[i] and k not in self.not_wei[s]:
                    after = weis[:i] + (weis[i] - 1,) + weis[i + 1 :]
                    # which of his unfilled 偎, and which three of the copies
                    wei_choices.append((s, weis[i] * comb(self.unseen[k], 3), after))
        for s, ways, after in wei_choices:
            copies = self.unseen[k] - (3 if s >= 0 else 0)
            # A seat holds no card of its own face-down 偎's kind (R4.1: two in hand and the
            # third drawn), so a dealer whose 偎 is the 亮张's kind has not kept it.
            forced = int(self.keeper not in (None, s) and k == self.liang and copies > 0)
            pool = copies - forced
            for held, dealt in self._splits(k, need, pool, forced, s):
                left = tuple(n - c for n, c in zip(need, held, strict=True))
                found.append((s, ways * _multinomial(pool, dealt), left, after))
        return found

    def _splits(
        self, k: Kind, need: tuple[int, ...], pool: int, forced: int, wei: int
    ) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        """How many of kind ``k`` each hand holds, and how many of those are dealt from the
        ``pool`` (all but the keeper's forced copy); the seat ``wei`` (-1: none), whose 偎
        takes the kind, holds none."""
        splits: list[tuple[tuple[int, ...], tuple[int, ...]]] = [((), ())]
        for h, o in enumerate(self.hands):
            extra = forced if o == self.keeper else 0
            top = 0 if o == wei else min(self.caps[o][k], need[h])
            splits = [
                (held + (c,), dealt + (c - extra,))
                for held, dealt in splits
                for c in range(extra, top + 1)
                if sum(dealt) + c - extra <= pool
            ]
        return splits

    def count(self, k: Kind, need: tuple[int, ...], weis: tuple[int, ...]) -> int:
        """The completions from kind ``k`` on."""
        if k == NUM_KINDS:
            return int(not any(need) and not any(weis))
        key = (k, need, weis)
        if key in self.memo:
            return self.memo[key]
        if any(n > self.room[h][k] for h, n in enumerate(need)) or sum(weis) > sum(
            1 for j in range(k, NUM_KINDS) if self.unseen[j] >= 3
        ):
            total = 0
        else:
            total = sum(
                ways * self.count(k + 1, n, w) for _, ways, n, w in self.steps(k, need, weis)
            )
        self.memo[key] = total
        return total

    def draw(self, rng: random.Random) -> Found | None:
        """One completion with its probability, or None if there is none."""
        weis0 = tuple(sum(1 for s, _ in self.slots if s == seat) for seat in self.wei_seats)
        if self.count(0, self.sizes, weis0) == 0:
            return None
        need, weis = self.sizes, weis0
        hands = {o: [0] * NUM_KINDS for o in self.hands}
        open_slots = {
            seat: [i for i, (s, _) in enumerate(self.slots) if s == seat] for seat in self.wei_seats
        }
        kinds: list[Kind] = [0] * len(self.slots)
        wall: list[Kind] = []
        for k in range(NUM_KINDS):
            options = [
                (s, ways * self.count(k + 1, n, w), n, w)
                for s, ways, n, w in self.steps(k, need, weis)
            ]
            pick = rng.randrange(sum(ways for _, ways, _, _ in options))
            chosen = 0
            while pick >= options[chosen][1]:
                pick -= options[chosen][1]
                chosen += 1
            s, _, n, w = options[chosen]
            taken = 0
            for h, o in enumerate(self.hands):
                hands[o][k] = need[h] - n[h]
                taken += hands[o][k]
            if s >= 0:
                slot = open_slots[s].pop(rng.randrange(len(open_slots[s])))
                kinds[slot] = k
                taken += 3
            wall += [k] * (self.unseen[k] - taken)
            need, weis = n, w
        rng.shuffle(wall)
        found: dict[int, list[int]] = dict(hands)
        found[-1] = wall
        return kinds, found


def _multinomial(n: int, parts: tuple[int, ...]) -> int:
    """The ways to deal ``n`` distinct cards into places of the sizes ``parts`` and the rest."""
    ways = 1
    for part in parts:
        ways *= comb(n, part)
        n -= part
    return ways


def is_consistent(game: Game, obs: Observation) -> bool:
    """Whether a sampled game shows the observing seat what it observed: its hand, every
    table as it sees it, the discards, the wall size, the card on offer and its choices."""
    assert obs.seat is not None
    mine = observe(game, obs.seat)
    return (
        not game.is_over
        and mine.hand == obs.hand
        and mine.hand_sizes == obs.hand_sizes
        and mine.tables == obs.tables
        and mine.rows == obs.rows
        and mine.wall == obs.wall
        and mine.offer == obs.offer
        and set(mine.legal) == set(obs.legal)
    )
