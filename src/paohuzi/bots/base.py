"""The bot interface: a bot sees one seat's observation and answers with one legal action.

Nothing else reaches a bot: :func:`play_hand` builds each seat's :class:`Observation` (which
holds no hidden card) and passes only that.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from paohuzi.actions import Action
from paohuzi.game import Game
from paohuzi.native_game import NativeGame
from paohuzi.observation import Observation, observe
from paohuzi.position import GameResult


class Bot(Protocol):
    """A computer player."""

    name: str

    def act(self, observation: Observation) -> Action:
        """One of ``observation.legal``."""
        ...


def play_hand(game: Game | NativeGame, bots: Sequence[Bot]) -> GameResult:
    """Play ``game`` to its end, seat ``s`` choosing with ``bots[s]``, and return how it
    ended. A bot with an ``end`` method is shown its final observation.

    On a native game, a bot with a ``native_act`` method (the built-in random and greedy bots)
    chooses through it: the same choice as ``act`` on the seat's observation, computed by the
    native core from what the seat sees (D37)."""
    native = isinstance(game, NativeGame)
    fast = [getattr(bot, "native_act", None) if native else None for bot in bots]
    while (seat := game.to_act) is not None:
        choose = fast[seat]
        if choose is not None:
            game.apply(choose(game))
        else:
            game.apply(bots[seat].act(observe(game, seat)))
    for seat, bot in enumerate(bots):
        end = getattr(bot, "end", None)
        if end is not None:
            end(observe(game, seat))
    result = game.result
    assert result is not None  # played to the end
    return result
