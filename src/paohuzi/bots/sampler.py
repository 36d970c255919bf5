"""Sampling the hidden cards: complete positions consistent with one seat's observation.

What a seat knows, besides the cards it sees:

* a hand only ever loses cards after the deal (draws are shown or laid down, claims go to the
  table), so what is true of another hand at some moment stays true of what is left of it;
* a card shown from another seat's own draw proves he held at most one of that kind then (a
  pair would have made a 偎, a 坎 a 提, R4.1);
* a card shown or discarded by anyone else, with no 跑 following, proves he held no 坎 of it
  then (R5.2); and after the latest of his face-down 偎, none of them is of such a kind — but
  not the card still on offer: a 胡 is asked before a 跑, so its 跑 may be yet to come;
* if this seat is offered a 吃 or 碰, nobody must 跑 on the card (only 胡 would be offered, R8).

Within those limits every completion is equally likely: the unseen cards are dealt uniformly
at random (rejection sampling), and a face-down 偎 takes a kind with a weight of the number of
ways to choose its three cards. Where the native core serves the rule set, the constraints are
worked out here once per observation and the samples drawn inside the core (D41); the Python
sampler here is the reference and the fallback (``sample(..., core="python")``, D85).
"""

from __future__ import annotations

import random
from math import comb

from paohuzi.engine.actions import PASS, ActionType
from paohuzi.engine.cards import NUM_KINDS, Kind
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


class SamplingError(ValueError):
    """No completion satisfies the constraints (an observation that cannot happen)."""


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
    if obs.offer is not None and any(
        a.type in (ActionType.CHI, ActionType.PENG) for a in obs.legal
    ):
        for o in others:
            caps[o][obs.offer] = min(caps[o][obs.offer], 2)
            not_wei[o].add(obs.offer)
    return caps, not_wei


def sample(obs: Observation, rng: random.Random, *, core: CoreName = "auto") -> Game:
    """A game consistent with ``obs``, at the decision the observing seat faces, on ``core``
    (as ``Game(core=…)`` chooses it). On the native core the sample is drawn inside it
    (:class:`~paohuzi.native.core.NativeSampler`, with a 64-bit seed from ``rng``) under the
    same constraints (D41); on the Python core, here."""
    seat = obs.seat
    if seat is None or not obs.legal:
        raise ValueError("sampling needs the observation of a seat that is to act")
    if core == "native" and not serves(obs.rules):
        raise ValueError("the native core does not serve this rule set (or is not built)")
    if core != "python" and serves(obs.rules):
        found = _native_sampler(obs).sample(rng.getrandbits(64))
        if isinstance(found, str):
            raise SamplingError(found)
        return found
    unseen = obs.unseen()
    caps, not_wei = limits(obs)
    others = [s for s in obs.seating.playing if s != seat]
    tables: list[list[Group]] = [[] for _ in obs.tables]
    for s, seen in enumerate(obs.tables):
        for group in seen:
            if group.cards is not None:
                tables[s].append(Group(group.type, group.cards))
                continue
            kinds = [k for k in range(NUM_KINDS) if unseen[k] >= 3 and k not in not_wei[s]]
            if not kinds:
                raise SamplingError(f"no kind fits seat {s}'s face-down 偎")
            k = rng.choices(kinds, weights=[comb(unseen[k], 3) for k in kinds])[0]
            unseen[k] -= 3
            tables[s].append(Group(GroupType.WEI, (k,) * 3))
    sizes = {o: obs.hand_sizes[o] for o in others}
    if sum(sizes.values()) + obs.wall != sum(unseen):
        raise SamplingError("the unseen cards do not fill the hidden places")
    kept = _liang_may_be_kept(obs, others) and unseen[obs.liang] > 0
    if kept:
        unseen[obs.liang] -= 1
        sizes[obs.dealer] -= 1
        caps[obs.dealer][obs.liang] -= 1
    pool = [k for k in range(NUM_KINDS) for _ in range(unseen[k])]
    hands = _deal(pool, sizes, caps, rng)
    if kept:
        hands[obs.dealer][obs.liang] += 1
    wall = hands.pop(-1)
    hands[seat] = list(obs.hand)
    seats = tuple(
        SeatState(
            hand=tuple(hands.get(s, [0] * NUM_KINDS)),
            table=tuple(tables[s]),
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


_last: tuple[Observation, NativeSampler] | None = None
"""The sampler of the observation sampled last (the expert samples one many times)."""


def _native_sampler(obs: Observation) -> NativeSampler:
    global _last
    last = _last  # read once: another thread may replace it
    if last is not None and last[0] is obs:
        return last[1]
    seat = obs.seat
    assert seat is not None
    caps, not_wei = limits(obs)
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
    _last = (obs, found)
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


def _deal(
    pool: list[Kind], sizes: dict[int, int], caps: dict[int, list[int]], rng: random.Random
) -> dict[int, list[int]]:
    """Deal ``pool`` into the other hands (as counts) and the wall (key -1, as cards in
    order), uniformly among the deals that respect ``caps``."""
    for _ in range(REJECTION_TRIES):
        rng.shuffle(pool)
        hands: dict[int, list[int]] = {}
        start = 0
        ok = True
        for o, size in sizes.items():
            counts = [0] * NUM_KINDS
            for k in pool[start : start + size]:
                counts[k] += 1
            start += size
            if any(c > cap for c, cap in zip(counts, caps[o], strict=True)):
                ok = False
                break
            hands[o] = counts
        if ok:
            hands[-1] = pool[start:]
            return hands
    # Rare: the constraints bind hard. Fill each hand card by card within its caps.
    rng.shuffle(pool)
    left = list(pool)
    hands = {}
    for o, size in sizes.items():
        counts = [0] * NUM_KINDS
        rest = []
        for k in left:
            if sum(counts) < size and counts[k] < caps[o][k]:
                counts[k] += 1
            else:
                rest.append(k)
        if sum(counts) < size:
            raise SamplingError("no deal of the unseen cards respects what is known")
        hands[o] = counts
        left = rest
    hands[-1] = left
    return hands


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
