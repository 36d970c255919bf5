"""Bot decisions for the server: never on the event loop's time, never past a deadline.

Quick bots (random, greedy, ``learned`` and ``learned@0``) decide in the event loop (greedy:
about 2 ms on average, tens of milliseconds at worst, measured; ``learned`` about 3.3 ms, its
search stopping 4 ms after the question, D156). A searching bot (the experts, ``learned@N``)
decides in a small pool of worker processes, so its search takes no time from the server
process; its search is bounded from inside (``time_limit``, whatever samples its level asks
for) and its
answer awaited for at most the deadline, past which the greedy bot's choice is played. A bot
that raises is replaced by the greedy bot for that decision.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Protocol, runtime_checkable

from paohuzi.bots import EXPERTS, GreedyBot, make_bot
from paohuzi.bots.loader import close_bot, load_bot, spec_kind
from paohuzi.engine.actions import Action
from paohuzi.engine.observation import Observation
from paohuzi.tools.workers import start_worker

log = logging.getLogger("paohuzi.server")

MARGIN = 0.5
"""Seconds between the search's own limit and the hard deadline: room to send the answer."""
HIDDEN_SHARE = 0.7
"""Part of a hidden question's time limit the search itself may use (the rest: the trip
to the worker and back)."""
NICE = 10
"""How much lower the workers' scheduling priority is than the server's: on a busy machine
the kernel runs the event loop first, and a search gets the CPU time left over."""


def worker_pool(workers: int, nice: int = NICE) -> ProcessPoolExecutor:
    """Worker processes at a lower priority than the server's, that end when the server does
    (:mod:`paohuzi.tools.workers`, even after a kill -9). Spawned, not forked: the server
    process has threads and an event loop."""
    return ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=start_worker,
        initargs=(os.getpid(), nice),
    )


def stop(pool: ProcessPoolExecutor) -> None:
    """Stop a pool's workers now, whatever they are doing. Its own shutdown only asks them to
    stop when they are free, from a thread that a server exiting on a signal never runs: they
    outlived the server, one set for every start."""
    for process in list(pool._processes.values()):
        process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)


def searches(spec: str) -> bool:
    """Whether the bot of this spec runs in a worker process: either expert searches, a
    ``learned@N`` searches N samples whatever the time (D156), and a bot from an operator's
    module, program or checkpoint (``learned:PATH``, ``learned@N:PATH``, D186) may cost
    anything. The built-in ``learned`` (its search stops about 4 ms after the question, D156)
    and ``learned@0`` (the network alone) decide in the event loop."""
    level, _, setting = spec.partition("@")
    if level == "learned" and spec_kind(spec) == "builtin":
        return setting.strip("0") != ""
    return spec_kind(spec) != "builtin" or level in EXPERTS


@runtime_checkable
class Bounded(Protocol):
    """A bot whose search a time limit bounds, whatever its level asks for."""

    time_limit: float | None


def _decide(spec: str, seed: int, observation: Observation, limit: float) -> Action:
    """In a worker process: one decision of a fresh bot."""
    bot = load_bot(spec, seed)
    if isinstance(bot, Bounded):  # the experts, and a client's learned@1000 (D156); an
        bot.time_limit = limit  # operator's bot with such an attribute is bounded as well
    try:
        return bot.act(observation)
    finally:
        close_bot(bot)


class BotRunner:
    """Runs the bots of every room of a server."""

    def __init__(self, workers: int, deadline: float, spec_of: Callable[[str], str] = str) -> None:
        self.workers = workers
        self.deadline = deadline
        self.spec_of = spec_of
        """A room's bot name → the bot spec to run (the operator's offer, Config.bot_spec)."""
        self._pool: ProcessPoolExecutor | None = None

    def _executor(self) -> Executor:
        if self._pool is None:
            self._pool = worker_pool(self.workers)
        return self._pool

    async def decide(
        self, name: str, seed: int, observation: Observation, *, limit: float | None = None
    ) -> tuple[Action, str | None]:
        """The bot's action, and what went wrong if it had to be replaced by the greedy bot.
        ``limit`` bounds a search below the deadline (for questions whose asking is hidden)."""
        try:
            spec = self.spec_of(name)
            if searches(spec):
                action, trouble = await self._search(spec, seed, observation, limit)
            else:
                action, trouble = make_bot(spec, seed).act(observation), None
        except BrokenProcessPool:
            self._pool = None
            action, trouble = None, "its worker process died"
        except Exception as error:  # a bot's bug must not stop a room
            action, trouble = None, f"{type(error).__name__}: {error}"
        if action is not None and action not in observation.legal:
            action, trouble = None, f"illegal answer {action}"
        if action is None:
            return self._fallback(observation), trouble
        return action, trouble

    async def _search(
        self, name: str, seed: int, observation: Observation, limit: float | None
    ) -> tuple[Action | None, str | None]:
        # With a limit (a hidden question) the answer is awaited no longer than the limit, even
        # when the workers are busy with other rooms' searches: past it the greedy bot answers.
        wait = min(self.deadline, limit) if limit else self.deadline
        search = max(0.01, min(self.deadline - MARGIN, HIDDEN_SHARE * limit if limit else wait))
        future = self._executor().submit(_decide, name, seed, observation, search)
        try:
            action: Action = await asyncio.wait_for(asyncio.wrap_future(future), wait)
        except TimeoutError:
            future.cancel()
            return None, None if limit else f"no answer within {self.deadline:g} s"
        return action, None

    def warm(self) -> None:
        """Start the worker processes now, so a first search does not wait for them."""
        for _ in range(self.workers):
            self._executor().submit(int)

    @staticmethod
    def _fallback(observation: Observation) -> Action:
        return GreedyBot().act(observation)

    def close(self) -> None:
        if self._pool is not None:
            stop(self._pool)
            self._pool = None
