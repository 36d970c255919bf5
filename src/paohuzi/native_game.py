"""Deprecated alias of :mod:`paohuzi.native_core` (issue 23), kept for one release.

``NativeGame``, ``new_game``, ``game_at`` and ``python_games`` are gone without an alias:
:class:`paohuzi.game.Game` is the one game class (``Game(rules, …, core="native")``,
``Game.from_position(…)``), D84.
"""

from __future__ import annotations

import warnings

from paohuzi.native_core import GROUP_CODES, NativeSampler, greedy_choice, serves

__all__ = ["GROUP_CODES", "NativeSampler", "greedy_choice", "serves"]

warnings.warn(
    "paohuzi.native_game is deprecated: import paohuzi.native_core (NativeGame is gone: "
    "use paohuzi.game.Game(..., core='native'))",
    DeprecationWarning,
    stacklevel=2,
)
