"""A stable integer id for every action F3 can express (for learning agents, docs/env.md).

Ids 0–19 discard kinds ``x1``…``d10``; 20 ``peng``; 21 ``hu``; 22 ``pass``; then every 吃
with its 比 groups (R7) that any hand could make, in the order of their F3 text. The table is
built from the rules alone, so it never changes between runs or machines.
"""

from __future__ import annotations

from itertools import combinations_with_replacement

from paohuzi.engine.actions import HU, PASS, PENG, Action, chi, discard
from paohuzi.engine.cards import COPIES, NUM_KINDS
from paohuzi.engine.chi import TRIPLES_WITH


def _chi_actions() -> list[Action]:
    found: dict[str, Action] = {}
    for card in range(NUM_KINDS):
        triples = TRIPLES_WITH[card]
        for take in triples:
            for n in range(COPIES - 1):  # a hand holds at most two more copies of the card
                for bis in combinations_with_replacement(triples, n):
                    used = [0] * NUM_KINDS
                    for k in (*take, *(k for b in bis for k in b)):
                        used[k] += 1
                    # The taken card plus at most two in hand; any other kind at most a pair
                    # (a third would be a 坎, which never takes part).
                    if used[card] - 1 < n or used[card] > 3:
                        continue
                    if all(used[k] <= 2 for k in range(NUM_KINDS) if k != card):
                        action = chi(take, bis)
                        found[str(action)] = action
    return [found[text] for text in sorted(found)]


ACTIONS: tuple[Action, ...] = (
    *(discard(k) for k in range(NUM_KINDS)),
    PENG,
    HU,
    PASS,
    *_chi_actions(),
)
NUM_ACTIONS = len(ACTIONS)
_IDS = {action: i for i, action in enumerate(ACTIONS)}


def action_to_id(action: Action) -> int:
    """The id of an action; raises KeyError for one no hand can make."""
    return _IDS[action]


def id_to_action(action_id: int) -> Action:
    """The action of an id; raises IndexError outside ``range(NUM_ACTIONS)``."""
    if not 0 <= action_id < NUM_ACTIONS:
        raise IndexError(f"action id {action_id} is not in 0…{NUM_ACTIONS - 1}")
    return ACTIONS[action_id]
