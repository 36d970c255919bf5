"""The native core (issue 14): the evaluator compiled from Rust (``native/``), when it is built.

``paohuzi`` installs and runs without a Rust toolchain. With cargo on the PATH, ``pip install``
also builds the extension ``paohuzi._native``, and this module plugs it into
:mod:`paohuzi.engine.evaluator` (:func:`~paohuzi.engine.evaluator.plug`, once):
:func:`~paohuzi.engine.evaluator.prepare`,
and with it :func:`~paohuzi.engine.evaluator.best_win`,
:func:`~paohuzi.engine.evaluator.best_complete`,
:func:`~paohuzi.engine.evaluator.waits`, :func:`~paohuzi.engine.evaluator.current_huxi` and
:func:`~paohuzi.engine.evaluator.forced_tianhu`, are then served by the native core (unless asked
``native=False``): ``prepare(...)`` gives the native ``paohuzi._native.PreparedHand``, with the
methods of :class:`~paohuzi.engine.evaluator.Prepared`, and every result is the same Python object
(``HuResult``, ``Wait``, ``Group``, ``Score``) with the same values, the same groups chosen
among equally good ones. :class:`~paohuzi.engine.evaluator.PreparedHand` is always the Python
evaluator, the reference, which serves any rule set the native core does not know (a 名堂 of
a shape other than ``paohuzi.engine.mingtang``'s three, a ``RuleSet`` subclass).

The environment variable ``PAOHUZI_NATIVE`` decides whether the extension is loaded: ``0``
runs pure Python, ``1`` requires the native core (importing ``paohuzi`` fails without it),
unset or empty uses it when built. Whether it is loaded is :data:`available` (and
:func:`describe`, which ``paohuzi --version`` prints); nothing is printed or warned otherwise.
Nothing turns it off afterwards: a game chooses its core (``Game(core=…)``, D84) and a caller
of the evaluator asks ``native=False`` (D86).

The search ranks arrangements by the native core's own 底数 (R10), computed from the values
read off the rule set here (the 名堂's facts combined by ``RuleSet.fan_combine``); the ``Score``
of a returned win is made by :func:`paohuzi.engine.scoring.score` from the win's own
:class:`~paohuzi.engine.mingtang.WinContext`, once per distinct score, and checked against the
native figure then (a disagreement raises ``RuntimeError``).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import Any

from paohuzi.engine import evaluator
from paohuzi.engine.cards import NUM_KINDS, Kind
from paohuzi.engine.evaluator import HuResult, NativeEvaluators, Wait
from paohuzi.engine.groups import SCORING_SEQUENCES, Group, GroupType
from paohuzi.engine.mingtang import AllTriplets, RedCount, SizeCount, WinContext
from paohuzi.engine.rules import RuleSet, fan_bound
from paohuzi.engine.scoring import Score, score

ENV = "PAOHUZI_NATIVE"

_SAME_KIND = (
    GroupType.PENG,
    GroupType.WEI,
    GroupType.CHOUWEI,
    GroupType.KAN,
    GroupType.PAO,
    GroupType.TI,
)
_SPECIAL = tuple(sorted(SCORING_SEQUENCES))
"""x1x2x3, x2x7x10, d1d2d3, d2d7d10: the order of the crate's ``Huxi::special``."""
_SIZES = {GroupType.PAIR: 2, GroupType.PAO: 4, GroupType.TI: 4}
_MAX_WEIGHT = 1000
"""The largest hu-xi of a scoring sequence the native core's tables hold."""
_MAX_CACHED = 64
_MAX_FAN = 1 << 40
"""The greatest 番 the native core's 64-bit figures take (with room for 等 times it). A
``RuleSet`` allows less (``paohuzi.engine.rules.MOST_FAN``, D66): the check stays as the core's
own."""


def _threes() -> list[tuple[Kind, ...]]:
    """The cards of each three-card shape, as ``native/src/engine/groups.rs`` numbers them."""
    runs = [(base + r, base + r + 1, base + r + 2) for base in (0, 10) for r in range(8)]
    jiaos = [cards for r in range(10) for cards in ((r, r, r + 10), (r, r + 10, r + 10))]
    return [*runs, (1, 6, 9), (11, 16, 19), *jiaos]


def group_table() -> list[Group | None]:
    """The ``Group`` of each group code (``type * 40 + shape``) the native core returns."""
    threes = _threes()
    table: list[Group | None] = []
    for gtype in GroupType:
        for shape in range(40):
            if gtype in (GroupType.CHI, GroupType.RUN, GroupType.JIAO):
                ok = shape < len(threes) and (
                    gtype is GroupType.CHI or (gtype is GroupType.RUN) == (shape < 18)
                )
                table.append(Group(gtype, threes[shape]) if ok else None)
            else:
                size = _SIZES.get(gtype, 3)
                table.append(Group(gtype, (shape,) * size) if shape < NUM_KINDS else None)
    return table


def _mingtang(rules: RuleSet) -> list[tuple[str, int, int, int, int]] | None:
    """The 名堂 table as the native core takes it, or None for a shape it does not know."""
    found: list[tuple[str, int, int, int, int]] = []
    for m in rules.mingtang:
        if type(m) is RedCount:
            found.append(("red", m.low, m.high, m.value, 0))
        elif type(m) is SizeCount:
            found.append(("size", int(m.big), m.threshold, m.value, m.per_extra))
        elif type(m) is AllTriplets:
            found.append(("triplets", m.value, 0, 0, 0))
        else:
            return None
    return found


def evaluator_args(rules: RuleSet, groups: list[Group | None]) -> dict[str, Any] | None:
    """The arguments of ``paohuzi._native.Evaluator`` for a rule set, or None for a rule set
    only Python serves. ``groups``: :func:`group_table`."""
    mingtang = _mingtang(rules)
    if type(rules) is not RuleSet or mingtang is None or rules.deng_step <= 0:
        return None
    bound = fan_bound(rules.mingtang, rules.fan_combine)
    if bound is None or bound + abs(rules.haidi_fan) > _MAX_FAN:
        return None
    huxi = rules.huxi
    special = [huxi.sequence(cards) for cards in _SPECIAL]
    if any(abs(w) > _MAX_WEIGHT for w in special):
        return None
    same_kind = [
        [huxi.same_kind(t, k) if t in _SAME_KIND else 0 for k in range(NUM_KINDS)]
        for t in GroupType
    ]

    def score_of(huxi: int, context: WinContext) -> Score:
        return score(huxi, context, rules)

    return {
        "same_kind": same_kind,
        "special": special,
        "min_huxi": rules.min_huxi,
        "deng_base": rules.deng_base,
        "deng_step": rules.deng_step,
        "tianhu_double": rules.tianhu_double,
        "self_draw_bonus": rules.self_draw_bonus,
        "mingtang": mingtang,
        "fan_combine": rules.fan_combine.value,
        "haidi_fan": rules.haidi_fan,
        "tianhu_partial_huxi": rules.tianhu_partial_huxi,
        "group_types": list(GroupType),
        "groups": groups,
        "score": score_of,
        "win_context": WinContext,
        "hu_result": HuResult,
        "wait": Wait,
    }


def _factory(extension: Any) -> Callable[[RuleSet], Any]:
    """Makes the native evaluator of a rule set, or None for one only Python serves."""
    groups = group_table()

    def make(rules: RuleSet) -> Any:
        args = evaluator_args(rules, groups)
        if args is None:
            return None
        try:
            return extension.Evaluator(**args)
        except OverflowError:  # a rule value beyond 64 bits
            return None

    return make


_extension: Any = None


def extension() -> Any:
    """The extension module ``paohuzi._native``; RuntimeError when it is not loaded."""
    if _extension is None:
        raise RuntimeError("the native core is not loaded")
    return _extension


def _load() -> tuple[NativeEvaluators | None, str]:
    """The native core if it is built and wanted, and why not otherwise."""
    wanted = os.environ.get(ENV, "")
    if wanted == "0":
        return None, f"pure Python ({ENV}=0)"
    try:
        extension = importlib.import_module("paohuzi._native")
    except ImportError as error:
        if wanted == "1":
            raise ImportError(
                f"{ENV}=1 but the native core is not built ({error}); install paohuzi "
                "with cargo on the PATH"
            ) from error
        return None, "pure Python (the native core is not built: install with cargo on the PATH)"
    global _extension
    _extension = extension
    core: NativeEvaluators = extension.Core(_factory(extension))
    return core, "native core (Rust)"


evaluators, _reason = _load()
"""The extension's maker of native evaluators, one per rule set it serves (plugged into
:mod:`paohuzi.engine.evaluator`); None when the native core is not loaded. (The game core is
the submodule :mod:`paohuzi.native.core`.)"""
available = evaluators is not None
"""Whether the native core is built and loaded (``PAOHUZI_NATIVE=0`` leaves it unloaded)."""
if evaluators is not None:
    evaluator.plug(evaluators)


def describe() -> str:
    """One line: whether the evaluator runs natively or in pure Python, and why."""
    return f"evaluator: {_reason}"
