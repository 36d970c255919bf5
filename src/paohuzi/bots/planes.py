"""One seat's observation as a fixed-shape NumPy array (docs/env.md lists every field): the
environments' observation and the learned bot's input (NumPy only, no environment library).

The array has ``planes(seats)`` rows of 20 columns, one column per kind (``x1``…``d10``). Seats
are relative to the observer: seat r is (observer + r) modulo the table's seats — 0 itself, 1
its 下家 (next), the last its 上家 (previous). It is built from
:class:`~paohuzi.engine.observation.Observation` alone, so it holds nothing the seat may not
see. The module constants are the layout of the three-seat table; :func:`layout` gives any table's.

:func:`observation_arrays` is what the environments call: a game on the native core encodes
the seat's view itself (the identical array, from the same visible state, D39); on the Python
core, :func:`encode` and :func:`action_mask` of its :class:`~paohuzi.engine.observation.Observation`
(the one Python fallback, D85).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paohuzi.engine.action_ids import NUM_ACTIONS, action_to_id
from paohuzi.engine.actions import ActionType
from paohuzi.engine.cards import NUM_KINDS
from paohuzi.engine.game import EventType, Game
from paohuzi.engine.groups import GroupType
from paohuzi.engine.observation import Observation, observe
from paohuzi.engine.position import Source
from paohuzi.engine.rules import DEALT, HAND_SIZE

TABLE_PLANES = 5
"""Per relative seat: cards in 吃 groups, 碰, visible 偎/臭偎, 跑/提, cards in front of it."""


@dataclass(frozen=True)
class Layout:
    """Where each field goes for a table of ``seats`` seats (docs/env.md): plane indices, then
    positions in the flat vector of scalars laid row by row over the scalar planes."""

    seats: int
    hand: int
    kans: int
    table: int
    """Planes ``table + 5r + i`` for relative seat r: i = 0 cards in 吃 groups, 1 碰, 2 visible
    偎/臭偎, 3 跑/提, 4 cards in front of it (discarded or passed)."""
    last_row: int
    """Planes ``last_row + r``: the most recent card in front of relative seat r (one-hot)."""
    unseen: int
    chou: int
    discarded: int
    """Planes ``discarded + r``: kinds relative seat r has discarded (never 吃/碰 them, R7.1)."""
    offer: int
    scalars: int
    """The first scalar plane; there are as many as the scalars need, 20 to a plane."""
    liang: int
    chou_hu: int
    """Kinds the seat declined to win on and may not win on while its hu-xi is unchanged
    (臭胡, R9.3): 1 each."""
    planes: int
    wall: int
    hand_sizes: int
    hidden_wei: int
    dealer: int
    turn: int
    source: int
    decision: int


@cache
def layout(seats: int) -> Layout:
    """The layout of a table of ``seats`` seats."""
    table = 2
    last_row = table + TABLE_PLANES * seats
    unseen = last_row + seats
    discarded = unseen + 2
    offer = discarded + seats
    scalars = offer + 1
    hand_sizes = 1
    hidden_wei = hand_sizes + seats
    dealer = hidden_wei + seats
    turn = dealer + seats
    source = turn + seats
    decision = source + 3
    liang = scalars + -(-(decision + 3) // NUM_KINDS)
    return Layout(
        seats=seats,
        hand=0,
        kans=1,
        table=table,
        last_row=last_row,
        unseen=unseen,
        chou=unseen + 1,
        discarded=discarded,
        offer=offer,
        scalars=scalars,
        liang=liang,
        chou_hu=liang + 1,
        planes=liang + 2,
        wall=0,
        hand_sizes=hand_sizes,
        hidden_wei=hidden_wei,
        dealer=dealer,
        turn=turn,
        source=source,
        decision=decision,
    )


_THREE = layout(DEALT)
HAND, KANS, TABLE = _THREE.hand, _THREE.kans, _THREE.table
LAST_ROW = _THREE.last_row
UNSEEN = _THREE.unseen
CHOU = _THREE.chou
DISCARDED = _THREE.discarded
OFFER = _THREE.offer
SCALARS = _THREE.scalars
LIANG = _THREE.liang
CHOU_HU = _THREE.chou_hu
PLANES = _THREE.planes
"""Planes of the three-seat table's array."""

# Columns of the three-seat table's scalar plane.
WALL = _THREE.wall
HAND_SIZES = _THREE.hand_sizes  # 1–3: hand size / 21 per relative seat
HIDDEN_WEI = _THREE.hidden_wei  # 4–6: face-down 偎 count / 7 per relative seat
DEALER = _THREE.dealer  # 7–9: one-hot relative seat of the dealer
TURN = _THREE.turn  # 10–12: one-hot relative seat whose turn it is
SOURCE = _THREE.source  # 13–15: the card on offer is the 亮张 / drawn / discarded
DECISION = _THREE.decision  # 16–18: deciding a claim / a discard / a win after a forced 偎 or 提


def planes(seats: int) -> int:
    """Rows of the observation array of a table of ``seats`` seats."""
    return layout(seats).planes


_TABLE_INDEX = {
    GroupType.CHI: 0,
    GroupType.PENG: 1,
    GroupType.WEI: 2,
    GroupType.CHOUWEI: 2,
    GroupType.PAO: 3,
    GroupType.TI: 3,
}
_SOURCES = {Source.LIANG: 0, Source.DRAWN: 1, Source.DISCARDED: 2}
_MOST_IN_HAND = HAND_SIZE + 1
_MOST_WEI = 7
_WALL_SIZE = 19


def encode(obs: Observation) -> NDArray[np.float32]:
    """The observation array of shape (planes(seats), 20)."""
    assert obs.seat is not None
    seats = len(obs.tables)
    lay = layout(seats)
    out = np.zeros((lay.planes, NUM_KINDS), dtype=np.float32)
    out[lay.hand] = obs.hand
    out[lay.kans] = out[lay.hand] == 3
    scalars = np.zeros((lay.liang - lay.scalars) * NUM_KINDS, dtype=np.float32)
    scalars[lay.wall] = obs.wall / _WALL_SIZE
    for r in range(seats):
        s = (obs.seat + r) % seats
        base = lay.table + TABLE_PLANES * r
        hidden = 0
        for group in obs.tables[s]:
            if group.cards is None:
                hidden += 1
                continue
            plane = out[base + _TABLE_INDEX[group.type]]
            for k in group.cards:
                plane[k] += 1
        row = out[base + 4]
        for k in obs.rows[s]:
            row[k] += 1
        if obs.rows[s]:
            out[lay.last_row + r, obs.rows[s][-1]] = 1
        for k in obs.discarded[s]:
            out[lay.discarded + r, k] = 1
        scalars[lay.hand_sizes + r] = obs.hand_sizes[s] / _MOST_IN_HAND
        scalars[lay.hidden_wei + r] = hidden / _MOST_WEI
        if s == obs.dealer:
            scalars[lay.dealer + r] = 1
        if s == obs.turn:
            scalars[lay.turn + r] = 1
    if obs.offer is not None:
        out[lay.offer, obs.offer] = 1
    # Not seen: all that is not in the hand, on a table face up, in front of a seat or on offer
    # (the same count as Observation.unseen).
    tables = out[lay.table : lay.table + TABLE_PLANES * seats].sum(axis=0)
    seen = out[lay.hand] + tables + out[lay.offer]
    out[lay.unseen] = np.maximum(4 - seen, 0)
    for k in obs.chou:
        out[lay.chou, k] = 1
    if obs.offer_source is not None:
        scalars[lay.source + _SOURCES[obs.offer_source]] = 1
    if obs.legal:
        first = obs.legal[0].type
        if obs.offer is not None:
            scalars[lay.decision] = 1
        elif first is ActionType.DISCARD:
            scalars[lay.decision + 1] = 1
        else:
            scalars[lay.decision + 2] = 1
    out[lay.scalars : lay.liang] = scalars.reshape(-1, NUM_KINDS)
    out[lay.liang, obs.liang] = 1
    for k, _ in obs.chou_hu:
        out[lay.chou_hu, k] = 1
    return out


HISTORY_EVENTS = tuple(EventType)
"""The event types of a history row, in column order."""
HISTORY_WIDTH = len(HISTORY_EVENTS) + 4 + NUM_KINDS
"""Columns of a history row: the event type (one-hot), its relative seat (one-hot, four
columns whatever the table), the card (one-hot; all 0 when hidden from the seat or none)."""


def encode_history(obs: Observation, length: int) -> NDArray[np.float32]:
    """The seat's last ``length`` events (as it saw them), oldest first, as an array of shape
    (length, HISTORY_WIDTH); rows before the first event are 0. Needs an observation made
    with its events (``observe(…, events=True)``)."""
    assert obs.seat is not None
    seats = len(obs.tables)
    out = np.zeros((length, HISTORY_WIDTH), dtype=np.float32)
    recent = obs.events[-length:] if length else ()
    first = length - len(recent)
    types = len(HISTORY_EVENTS)
    for i, event in enumerate(recent):
        row = out[first + i]
        row[_EVENT_INDEX[event.type]] = 1
        row[types + (event.seat - obs.seat) % seats] = 1
        if event.card is not None:
            row[types + 4 + event.card] = 1
    return out


_EVENT_INDEX = {t: i for i, t in enumerate(HISTORY_EVENTS)}


def action_mask(obs: Observation) -> NDArray[np.int8]:
    """1 for each legal action id of the observing seat, 0 elsewhere (all 0 if not to act)."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    for action in obs.legal:
        mask[action_to_id(action)] = 1
    return mask


def observation_arrays(game: Game, seat: int) -> dict[str, NDArray[Any]]:
    """``{"observation": encode(obs), "action_mask": action_mask(obs)}`` of ``seat``'s
    observation of ``game``: the environments' observation, computed inside the game's core
    where it can (the core encodes the seats that play the hand; at four seats the one sitting
    it out, R12, is encoded here, as the privileged ``state()`` asks for every seat)."""
    encoded = game.encoded(seat) if seat in game.seating.playing else None
    if encoded is not None:
        mask = game.mask(seat)
        assert mask is not None  # a core that encodes makes the mask too
        lay = layout(game.rules.players)
        array = np.frombuffer(encoded, dtype=np.float32).reshape(lay.planes, NUM_KINDS)
        return {"observation": array, "action_mask": np.frombuffer(mask, dtype=np.int8)}
    obs = observe(game, seat, events=False)
    return {"observation": encode(obs), "action_mask": action_mask(obs)}
