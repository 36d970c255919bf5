"""paohuzi: the reference implementation of 跑胡子 (Paohuzi), Hunan rules.

The engine (:mod:`paohuzi.engine`: cards, groups, rules, evaluator, scoring, the game) is pure
standard-library Python; the evaluator and the game are served by a native core compiled from
Rust when it is built (:mod:`paohuzi.native`). Bots (:mod:`paohuzi.bots`), tools
(:mod:`paohuzi.tools`), environments (:mod:`paohuzi.env`), the server and the CLI sit on top::

    >>> from paohuzi import best_win, parse_cards, parse_kind
    >>> hand = parse_cards("d1 d1 d1 d2 d7 d10 x1 x2 x3 x5 x5 x5 d4 d5 d6 x7 x8 x9 d8 d9")
    >>> result = best_win(hand, [], parse_kind("d10"), self_drawn=False)
    >>> result.huxi, result.score.deng, result.points
    (18, 2, 2)
"""

from paohuzi import _moved, native  # native: plugs the native core in when it is built
from paohuzi.engine.cards import Kind, NotationError, format_cards, parse_cards, parse_kind
from paohuzi.engine.evaluator import (
    HuResult,
    InvalidHolding,
    Wait,
    best_complete,
    best_win,
    check_holding,
    current_huxi,
    forced_tianhu,
    waits,
)
from paohuzi.engine.groups import Group, GroupType, make_group, parse_group, parse_groups
from paohuzi.engine.rules import HUNAN, LUZHOU, PRESETS, HuxiTable, Points, RuleSet
from paohuzi.engine.scoring import Score, payments

__version__ = "0.1.0"

_moved.install()  # the old module names, for one release (D102)

__all__ = [
    "HUNAN",
    "LUZHOU",
    "PRESETS",
    "Group",
    "GroupType",
    "HuResult",
    "HuxiTable",
    "InvalidHolding",
    "Kind",
    "NotationError",
    "Points",
    "RuleSet",
    "Score",
    "Wait",
    "best_complete",
    "best_win",
    "check_holding",
    "current_huxi",
    "forced_tianhu",
    "format_cards",
    "make_group",
    "native",
    "parse_cards",
    "parse_group",
    "parse_groups",
    "parse_kind",
    "payments",
    "waits",
]
