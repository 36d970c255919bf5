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


class Bot(Protocol):
    """A computer player."""

    name: str

    def act(self, observation: Observation) -> Action:
        """One of ``observation.legal``."""
        ...


def play_hand(game: Game, bots: Sequence[Bot]) -> None:
    """Play ``game`` to its end, seat ``s`` choosing with ``bots[s]``. A bot with an ``end``
    method is shown its final observation."""
    while not game.is_over:
        seat = game.to_act
        assert seat is not None
        game.apply(bots[seat].act(observe(game, seat)))
    for seat, bot in enumerate(bots):
        end = getattr(bot, "end", None)
        if end is not None:
            end(observe(game, seat))
