"""The bot interface: a bot sees one seat's observation and answers with one legal action.

Nothing else reaches a bot: :func:`play_hand` builds each seat's :class:`Observation` (which
holds no hidden card) and passes only that.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from paohuzi.actions import Action
from paohuzi.game import Game
from paohuzi.observation import Observation, observe
from paohuzi.position import GameResult, Over


class Bot(Protocol):
    """A computer player."""

    name: str

    def act(self, observation: Observation) -> Action:
        """One of ``observation.legal``."""
        ...


def play_hand(game: Game, bots: Sequence[Bot]) -> GameResult:
    """Play ``game`` to its end, seat ``s`` choosing with ``bots[s]``, and return how it
    ended. A bot with an ``end`` method is shown its final observation."""
    while not isinstance(phase := game.phase, Over):
        seat = phase.to_act
        game.apply(bots[seat].act(observe(game, seat)))
    for seat, bot in enumerate(bots):
        end = getattr(bot, "end", None)
        if end is not None:
            end(observe(game, seat))
    return phase.result
