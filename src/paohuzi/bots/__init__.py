"""Computer players. Each sees one seat's observation only (see :mod:`paohuzi.bots.base`)."""

from __future__ import annotations

from collections.abc import Callable

from paohuzi.bots.base import Bot, play_hand
from paohuzi.bots.expert import DEFAULT_BUDGET, ExpertBot, ExpertV2Bot
from paohuzi.bots.expert_v1 import ExpertV1Bot
from paohuzi.bots.greedy import GreedyBot
from paohuzi.bots.random_bot import RandomBot


def _needs_numpy(missing: ModuleNotFoundError) -> ValueError:
    return ValueError(
        f"the learned bot needs NumPy ({missing.name} is not installed): "
        "pip install 'paohuzi[train]'"
    )


def learned_bot(seed: int | None = None, samples: int | None = None) -> Bot:
    """The learned bot (:mod:`paohuzi.bots.learned`, 45 chosen features and a few milliseconds
    of search, D156; ``samples`` as ``learned@N``); NumPy only (D55)."""
    try:
        from paohuzi.bots.learned import LearnedBot  # NumPy only when asked for
    except ModuleNotFoundError as missing:
        raise _needs_numpy(missing) from None
    return LearnedBot(seed, samples=samples)


def learned_deep_bot(seed: int | None = None) -> Bot:
    """The deep Q-network over the observation planes (:mod:`paohuzi.bots.deep`, D126);
    NumPy only. Not yet stronger than ``learned`` (docs/learned.md)."""
    try:
        from paohuzi.bots.deep import DeepBot
    except ModuleNotFoundError as missing:
        raise _needs_numpy(missing) from None
    return DeepBot(seed)


BOTS: dict[str, Callable[[int | None], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "expert": ExpertBot,
    "expert-v2": ExpertV2Bot,
    "expert-v1": ExpertV1Bot,
    "learned": learned_bot,
    "learned-deep": learned_deep_bot,
}
"""The built-in bots by level name."""


EXPERTS: dict[str, type[ExpertV1Bot]] = {
    "expert": ExpertBot,
    "expert-v2": ExpertV2Bot,
    "expert-v1": ExpertV1Bot,
}
"""The searching bots, which take an ``@`` setting."""
MAX_NAME = 32
"""Longest bot name accepted."""
SAMPLES = (1, 1000)
"""Fewest and most samples a decision ``expert@N`` may ask for (``learned@N`` from 0: the
network alone)."""
BUDGET = (0.05, 10.0)
"""Shortest and longest time budget in seconds ``expert@Xs`` may ask for."""


def make_bot(name: str, seed: int | None = None) -> Bot:
    """A bot by level name; raises ValueError for an unknown one or a setting out of bounds.
    ``expert@N`` is the expert searching a fixed N samples per decision (reproducible, N in
    1–1000), ``expert@0.5s`` a time budget (0.05–10 s); ``expert-v2`` and ``expert-v1`` (the
    experts before, kept for comparison) take the same settings. ``learned@N`` is the learned
    bot searching N samples a decision instead of its time budget (0–1000; 0: the network
    alone, D156)."""
    if len(name) > MAX_NAME:
        raise ValueError(f"a bot name has at most {MAX_NAME} characters")
    level, _, setting = name.partition("@")
    if level == "learned" and setting:
        return learned_bot(seed, learned_samples(setting))
    if level in EXPERTS and setting:
        budget, samples = _expert_setting(setting)
        if samples is not None:
            return EXPERTS[level](seed, samples=samples)
        return EXPERTS[level](seed, budget=budget)
    try:
        return BOTS[name](seed)
    except KeyError:
        raise ValueError(f"unknown bot {name!r} (known: {', '.join(BOTS)})") from None


def _expert_setting(setting: str) -> tuple[float, int | None]:
    """``expert@N`` or ``expert@Xs`` as (budget, samples), checked against the bounds."""
    bad = f"bad expert setting {setting!r}: expert@N with N samples "
    bad += f"({SAMPLES[0]}–{SAMPLES[1]}) or expert@Xs with X seconds ({BUDGET[0]}–{BUDGET[1]:g})"
    try:
        if setting.endswith("s"):
            budget = float(setting[:-1])
            if not BUDGET[0] <= budget <= BUDGET[1]:  # also refuses nan and inf
                raise ValueError
            return budget, None
        if not (setting.isascii() and setting.isdigit()):
            raise ValueError
        samples = int(setting)
        if not SAMPLES[0] <= samples <= SAMPLES[1]:
            raise ValueError
        return DEFAULT_BUDGET, samples
    except ValueError:
        raise ValueError(bad) from None


def learned_samples(setting: str) -> int:
    """``learned@N``'s N (also ``learned@N:PATH``'s), checked against the bounds."""
    if setting.isascii() and setting.isdigit() and 0 <= int(setting) <= SAMPLES[1]:
        return int(setting)
    raise ValueError(
        f"bad learned setting {setting!r}: learned@N with N samples (0–{SAMPLES[1]}; "
        "0: the network alone)"
    )


def is_bot_name(name: str) -> bool:
    """Whether ``make_bot`` knows this name."""
    try:
        make_bot(name)
    except ValueError:
        return False
    return True


__all__ = [
    "BOTS",
    "EXPERTS",
    "Bot",
    "ExpertBot",
    "ExpertV1Bot",
    "ExpertV2Bot",
    "GreedyBot",
    "RandomBot",
    "is_bot_name",
    "learned_samples",
    "make_bot",
    "play_hand",
]
