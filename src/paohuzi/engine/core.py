"""The core protocol (D84): what a :class:`paohuzi.engine.game.Game` asks of the core that
plays it, and the names of the cores (:data:`CoreName`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

from paohuzi.engine.actions import Action
from paohuzi.engine.cards import (
    Kind,
)
from paohuzi.engine.position import (
    GameResult,
    Phase,
    Position,
    SeatState,
)
from paohuzi.engine.python_core import Event
from paohuzi.engine.rules import RuleSet, Seating

CoreName = Literal["auto", "native", "python"]
"""Which core plays a :class:`Game`: ``"python"`` (:class:`PythonCore`), ``"native"``
(:class:`paohuzi.native.core.NativeCore`, compiled from Rust), or ``"auto"``: the native core
where it serves the rule set, the Python core otherwise (D84)."""

Waits = bool | Literal["seat"]
"""Who counts their waits in a rollout (:meth:`Core.rollout`): nobody (False: every seat plays
the cheap rollout policy, ``GreedyBot(count_waits=False)``), every seat (True:
``GreedyBot(count_waits=True)``), or ``"seat"``: the seat whose payment is asked, the others
the rollout policy (half the cost of True; D158)."""


class Core(Protocol):
    """What a :class:`Game` asks of the core that plays it: the state, the transitions, and the
    capabilities only a compiled core has, each answering None where the core has none (the one
    Python fallback is then the caller's, named with each method). Two cores implement it:
    :class:`PythonCore` (the reference) and :class:`paohuzi.native.core.NativeCore`; both give
    the same positions, the same actions in the same order, the same results and logs after
    every action (tests/test_native_game.py)."""

    rules: RuleSet
    dealer: int
    seating: Seating

    @property
    def name(self) -> Literal["native", "python"]:
        """Which core this is (:attr:`Game.core`)."""
        ...

    @property
    def liang(self) -> Kind: ...
    @property
    def phase(self) -> Phase: ...
    @property
    def to_act(self) -> int | None: ...
    @property
    def result(self) -> GameResult | None: ...
    @property
    def is_over(self) -> bool: ...
    @property
    def wall(self) -> int: ...
    @property
    def dealt(self) -> bool: ...
    @property
    def deck(self) -> tuple[Kind, ...]: ...
    @property
    def seats(self) -> tuple[SeatState, ...]: ...
    @property
    def history(self) -> list[tuple[int, Action]]: ...
    @property
    def log(self) -> list[Event]: ...
    @property
    def paused(self) -> bool: ...
    @property
    def event_count(self) -> int:
        """``len(log)``, without making the list."""
        ...

    def events_since(self, start: int) -> list[Event]:
        """``log[start:]``, without making the rest."""
        ...

    def resume(self) -> None: ...

    def keep_over(self, game: object) -> bool:
        """Keep ``game.is_over``, an attribute of the :class:`Game` playing this core, current
        from now on (set it now and when the hand ends): whether the core does (fallback: the
        game sets it after each of its moves, :class:`paohuzi.engine.game.Game`)."""
        ...

    def position(self) -> Position: ...
    def huxi(self, seat: int) -> int: ...
    def legal_actions(self) -> list[Action]: ...
    def apply(self, action: Action) -> None: ...
    def why_illegal(self, action: Action) -> str: ...
    def clone(self) -> Core: ...

    def greedy(self, count_waits: bool) -> Action | None:
        """``GreedyBot(count_waits=count_waits)``'s choice for the seat to act (fallback:
        :meth:`paohuzi.bots.greedy.GreedyBot.act` on the seat's observation)."""
        ...

    def rollout(
        self, candidates: Sequence[Action], seat: int, *, waits: Waits = False
    ) -> list[int] | None:
        """:func:`paohuzi.bots.rollout.rollout_payments` inside the core (fallback there);
        ``waits``: who counts their waits (:data:`Waits`)."""
        ...

    def encode(self, seat: int) -> bytearray | None:
        """``seat``'s observation array as float32 bytes (fallback:
        :func:`paohuzi.env.encoding.observation_arrays`)."""
        ...

    def mask(self, seat: int) -> bytearray | None:
        """``seat``'s action mask, a byte per action id (fallback as :meth:`encode`)."""
        ...
