"""Computer players. Each sees one seat's observation only (see :mod:`paohuzi.bots.base`)."""

from __future__ import annotations

from collections.abc import Callable

from paohuzi.bots.base import Bot, play_hand
from paohuzi.bots.greedy import GreedyBot
from paohuzi.bots.random_bot import RandomBot

BOTS: dict[str, Callable[[int | None], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
}
"""The built-in bots by level name."""


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A bot by level name; raises ValueError for an unknown one."""
    try:
        return BOTS[name](seed)
    except KeyError:
        raise ValueError(f"unknown bot {name!r} (known: {', '.join(BOTS)})") from None


__all__ = ["BOTS", "Bot", "GreedyBot", "RandomBot", "make_bot", "play_hand"]
