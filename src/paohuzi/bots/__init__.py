"""Computer players. Each sees one seat's observation only (see :mod:`paohuzi.bots.base`)."""

from __future__ import annotations

from collections.abc import Callable

from paohuzi.bots.base import Bot, play_hand
from paohuzi.bots.expert import ExpertBot
from paohuzi.bots.greedy import GreedyBot
from paohuzi.bots.random_bot import RandomBot

BOTS: dict[str, Callable[[int | None], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "expert": ExpertBot,
}
"""The built-in bots by level name."""


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A bot by level name; raises ValueError for an unknown one. ``expert@N`` is the expert
    searching a fixed N samples per decision (reproducible), ``expert@0.5s`` a time budget."""
    level, _, setting = name.partition("@")
    if level == "expert" and setting:
        try:
            if setting.endswith("s"):
                return ExpertBot(seed, budget=float(setting[:-1]))
            return ExpertBot(seed, samples=int(setting))
        except ValueError:
            raise ValueError(f"bad expert setting {setting!r} (expert@32 or expert@0.5s)") from None
    try:
        return BOTS[name](seed)
    except KeyError:
        raise ValueError(f"unknown bot {name!r} (known: {', '.join(BOTS)})") from None


def is_bot_name(name: str) -> bool:
    """Whether ``make_bot`` knows this name."""
    try:
        make_bot(name)
    except ValueError:
        return False
    return True


__all__ = [
    "BOTS",
    "Bot",
    "ExpertBot",
    "GreedyBot",
    "RandomBot",
    "is_bot_name",
    "make_bot",
    "play_hand",
]
