"""One seat's observation as a fixed-shape NumPy array (docs/env.md lists every field).

The array has ``PLANES`` rows of 20 columns, one column per kind (``x1``…``d10``). Seats are
relative to the observer: 0 itself, 1 its 下家 (next), 2 its 上家 (previous). It is built
from :class:`~paohuzi.observation.Observation` alone, so it holds nothing the seat may not see.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from paohuzi.action_ids import NUM_ACTIONS, action_to_id
from paohuzi.actions import ActionType
from paohuzi.cards import NUM_KINDS
from paohuzi.game import Source
from paohuzi.groups import GroupType
from paohuzi.observation import Observation

HAND, KANS = 0, 1
TABLE = 2
"""Planes 2–16: for relative seat r, plane 2 + 5r + i with i: 0 cards in 吃 groups, 1 碰,
2 visible 偎/臭偎, 3 跑/提, 4 cards in front of it (discarded or passed)."""
LAST_ROW = 17
"""Planes 17–19: the most recent card in front of each relative seat (one-hot)."""
UNSEEN = 20
CHOU = 21
DISCARDED = 22
"""Planes 22–24: kinds each relative seat has discarded (it may never 吃/碰 them, R7.1)."""
OFFER = 25
SCALARS = 26
LIANG = 27
PLANES = 28

# Columns of the scalar plane.
WALL = 0
HAND_SIZES = 1  # 1–3: hand size / 21 per relative seat
HIDDEN_WEI = 4  # 4–6: face-down 偎 count / 7 per relative seat
DEALER = 7  # 7–9: one-hot relative seat of the dealer
TURN = 10  # 10–12: one-hot relative seat whose turn it is
SOURCE = 13  # 13–15: the card on offer is the 亮张 / drawn / discarded
DECISION = 16  # 16–18: deciding a claim / a discard / a win after a forced 偎 or 提

_TABLE_INDEX = {
    GroupType.CHI: 0,
    GroupType.PENG: 1,
    GroupType.WEI: 2,
    GroupType.CHOUWEI: 2,
    GroupType.PAO: 3,
    GroupType.TI: 3,
}
_SOURCES = {Source.LIANG: 0, Source.DRAWN: 1, Source.DISCARDED: 2}


def encode(obs: Observation) -> NDArray[np.float32]:
    """The observation array of shape (PLANES, 20)."""
    assert obs.seat is not None
    out = np.zeros((PLANES, NUM_KINDS), dtype=np.float32)
    out[HAND] = obs.hand
    out[KANS] = out[HAND] == 3
    scalars = out[SCALARS]
    scalars[WALL] = obs.wall / 19
    for r in range(3):
        s = (obs.seat + r) % 3
        base = TABLE + 5 * r
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
            out[LAST_ROW + r, obs.rows[s][-1]] = 1
        for k in obs.discarded[s]:
            out[DISCARDED + r, k] = 1
        scalars[HAND_SIZES + r] = obs.hand_sizes[s] / 21
        scalars[HIDDEN_WEI + r] = hidden / 7
        if s == obs.dealer:
            scalars[DEALER + r] = 1
        if s == obs.turn:
            scalars[TURN + r] = 1
    if obs.offer is not None:
        out[OFFER, obs.offer] = 1
    # Not seen: all that is not in the hand, on a table face up, in front of a seat or on offer
    # (the same count as Observation.unseen).
    seen = out[HAND] + out[TABLE : TABLE + 15].sum(axis=0) + out[OFFER]
    out[UNSEEN] = np.maximum(4 - seen, 0)
    for k in obs.chou:
        out[CHOU, k] = 1
    if obs.offer_source is not None:
        scalars[SOURCE + _SOURCES[obs.offer_source]] = 1
    if obs.legal:
        first = obs.legal[0].type
        if obs.offer is not None:
            scalars[DECISION] = 1
        elif first is ActionType.DISCARD:
            scalars[DECISION + 1] = 1
        else:
            scalars[DECISION + 2] = 1
    out[LIANG, obs.liang] = 1
    return out


def action_mask(obs: Observation) -> NDArray[np.int8]:
    """1 for each legal action id of the observing seat, 0 elsewhere (all 0 if not to act)."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    for action in obs.legal:
        mask[action_to_id(action)] = 1
    return mask
