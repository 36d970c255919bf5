"""A one-step heuristic player: it scores the hand each choice leaves and takes the best.

The score of a hand (:func:`hand_value`) counts its current hu-xi (R10.6), the cards that
already work together (坎, pairs, cards with a partner for a sequence or 绞) against the
isolated ones, and, once it is 听牌, how many unseen cards would win. A discard also weighs
what it may give away: the next player may 吃 it unless he discarded that kind himself (R7.1).

With the native core built and serving the rule set, the choice is made by its port
(``native/src/policy/greedy.rs``, D38), the same choice to the tie; this module stays the reference.
"""

from __future__ import annotations

from collections.abc import Sequence

from paohuzi.engine.actions import HU, PASS, Action, ActionType
from paohuzi.engine.cards import NUM_KINDS
from paohuzi.engine.evaluator import prepare_counts
from paohuzi.engine.game import Game
from paohuzi.engine.groups import PARTNERS, Group, GroupType
from paohuzi.engine.observation import Observation, observe
from paohuzi.engine.rules import RuleSet, holding_limit
from paohuzi.native.core import greedy_choice

CLAIM_MARGIN = 0.5
"""A 吃 or 碰 must beat passing by this much: taking shows cards and commits the hand."""


def hand_value(
    hand: Sequence[int],
    table: Sequence[Group],
    rules: RuleSet,
    unseen: Sequence[int],
    *,
    count_waits: bool = True,
) -> float:
    """How good a hand and table are (higher is better); ``count_waits``: count the live winning
    cards of a 听牌 hand (the costly part)."""
    prepared = prepare_counts(hand, table, rules)
    value = 1.2 * prepared.current_huxi()
    isolated = 0
    for k in range(NUM_KINDS):
        n = hand[k]
        if n == 0 or n == 3:
            continue
        if n == 2:
            value += 1.5 + 0.3 * unseen[k]
        elif any(hand[p] for p in PARTNERS[k]):
            value += 0.8
        else:
            isolated += 1
            value -= 1.2
    holding = sum(hand) + sum(len(g.cards) for g in table)
    fours = sum(g.is_four for g in table)
    if count_waits and isolated <= 2 and holding == holding_limit(fours):
        live = sum(unseen[w.win] for w in prepared.waits())
        if live:
            value += 6 + 2.5 * live
    return value


class GreedyBot:
    """Always wins when it can; otherwise takes the choice whose hand scores best."""

    name = "greedy"

    def __init__(self, seed: int | None = None, *, count_waits: bool = True) -> None:
        del seed  # deterministic
        self.count_waits = count_waits

    def act(self, observation: Observation) -> Action:
        if HU in observation.legal:
            return HU
        found = greedy_choice(observation, count_waits=self.count_waits)
        return self.python_choice(observation) if found is None else found

    def game_act(self, game: Game) -> Action:
        """:meth:`act` for the seat to act in ``game``: computed inside the game's core from
        what the seat sees where the core can (:meth:`paohuzi.engine.game.Game.greedy`), else by
        :meth:`python_choice` on the seat's observation, the Python fallback (a game on the
        Python core is the reference throughout, D85; :func:`paohuzi.bots.base.bot_choice`)."""
        found = game.greedy(count_waits=self.count_waits)
        if found is not None:
            return found
        seat = game.to_act
        assert seat is not None  # called for the seat to act
        return self.python_choice(observe(game, seat))

    def python_choice(self, observation: Observation) -> Action:
        """The choice as this module computes it (the reference of the native one)."""
        if HU in observation.legal:
            return HU
        scores = self.scores(observation)
        # Ties go to passing (a claim must be worth it), then to the first in F3 order.
        return max(observation.legal, key=lambda a: (scores[a], a == PASS))

    def scores(self, observation: Observation) -> dict[Action, float]:
        """How good the hand each legal choice leaves is (a win scores infinitely well)."""
        legal = observation.legal
        if legal[0].type is ActionType.DISCARD:
            hand = list(observation.hand)
            table = observation.own_table()
            return {a: self._after_discard(observation, hand, table, a) for a in legal}
        return self._claims(observation)

    def _after_discard(
        self, observation: Observation, hand: list[int], table: list[Group], action: Action
    ) -> float:
        card = action.card
        assert card is not None
        hand[card] -= 1
        value = hand_value(
            hand, table, observation.rules, observation.unseen(), count_waits=self.count_waits
        )
        hand[card] += 1
        assert observation.seat is not None
        nxt = observation.seating.next(observation.seat)
        if card not in observation.discarded[nxt]:
            value -= 0.6  # the next player may 吃 it (R4.2, R7.1)
        return value

    def _best_discard_value(
        self, observation: Observation, hand: list[int], table: list[Group]
    ) -> float:
        unseen = observation.unseen()
        best = None
        for k in range(NUM_KINDS):
            if 0 < hand[k] < 3:
                hand[k] -= 1
                value = hand_value(
                    hand, table, observation.rules, unseen, count_waits=self.count_waits
                )
                hand[k] += 1
                best = value if best is None else max(best, value)
        return (
            hand_value(hand, table, observation.rules, unseen, count_waits=self.count_waits)
            if best is None
            else best
        )

    def _claims(self, observation: Observation) -> dict[Action, float]:
        unseen = observation.unseen()
        hand = list(observation.hand)
        table = observation.own_table()
        keep = hand_value(hand, table, observation.rules, unseen, count_waits=self.count_waits)
        scores = {PASS: keep + CLAIM_MARGIN}
        card = observation.offer
        for action in observation.legal:
            if action.type is ActionType.HU:
                scores[action] = float("inf")
                continue
            if action.type is ActionType.PASS:
                continue
            assert card is not None
            after = list(hand)
            new = list(table)
            if action.type is ActionType.PENG:
                after[card] -= 2
                new.append(Group(GroupType.PENG, (card,) * 3))
            else:
                after[card] += 1
                for cards in action.groups:
                    for k in cards:
                        after[k] -= 1
                    new.append(Group(GroupType.CHI, cards))
            holding = sum(after) + sum(len(g.cards) for g in new)
            fours = sum(g.is_four for g in new)
            if holding > holding_limit(fours):
                value = self._best_discard_value(observation, after, new)
            else:
                value = hand_value(
                    after, new, observation.rules, unseen, count_waits=self.count_waits
                )
            if hand[card] == 2:
                value += 0.5  # passing would make a kind it holds a pair of 臭 (R7.1)
            scores[action] = value
        return scores
