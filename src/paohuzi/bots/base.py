"""The bot interface: a bot sees one seat's observation and answers with one legal action.

Nothing else reaches a bot: :func:`play_hand` builds each seat's :class:`Observation` (which
holds no hidden card) and passes only that.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from paohuzi.engine.actions import Action
from paohuzi.engine.game import Game
from paohuzi.engine.observation import Observation, observe
from paohuzi.engine.position import GameResult


class Bot(Protocol):
    """A computer player."""

    name: str

    def act(self, observation: Observation) -> Action:
        """One of ``observation.legal``."""
        ...


def bot_choice(bot: Bot, game: Game, seat: int) -> Action:
    """The bot's action for ``seat`` (to act in ``game``): ``bot.act`` on the seat's
    observation, or the bot's ``game_act`` when it has one (the built-in random and greedy
    bots: the same choice, computed from what the seat sees, inside the native core where the
    game's core is native, D37, D85)."""
    choose = getattr(bot, "game_act", None)
    if choose is not None:
        found: Action = choose(game)
        return found
    return bot.act(observe(game, seat))


def tell(bots: Sequence[Bot | None], game: Game, hook: str) -> None:
    """Show each bot that has a ``hook`` method (``begin``: the hand is dealt; ``end``: it is
    over) its seat's observation of ``game``."""
    for seat, bot in enumerate(bots):
        call = getattr(bot, hook, None)
        if call is not None:
            call(observe(game, seat))


def play_hand(game: Game, bots: Sequence[Bot]) -> GameResult:
    """Play ``game`` to its end, seat ``s`` choosing with ``bots[s]``, and return how it
    ended (each choice by :func:`bot_choice`). A bot with a ``begin`` method is shown its
    observation of the deal first, one with an ``end`` method its final observation."""
    tell(bots, game, "begin")
    while (seat := game.to_act) is not None:
        game.apply(bot_choice(bots[seat], game, seat))
    tell(bots, game, "end")
    result = game.result
    assert result is not None  # played to the end
    return result
