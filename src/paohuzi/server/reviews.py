"""Reviews in the background: the expert's opinion of a finished hand, for the web.

A review is queued (at most ``review_queue`` waiting or running), run one at a time (or
``review_workers``) in worker processes of their own at the lowest CPU priority (nice 19), one
decision a job, so a live table's bots and the server's event loop are served first. Each hand
has ``review_limit`` seconds; a review that runs out of time stops with what it found. Results
are kept for each (room, hand, seat, samples) in a small cache: a finished hand never changes.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from paohuzi.bots.expert import ExpertBot
from paohuzi.engine.record import Record
from paohuzi.server.botrunner import worker_pool
from paohuzi.tools.review import (
    Decision,
    decisions,
    judge,
    mistakes,
    offer_name,
    rule,
    seeds,
)

JSON = dict[str, Any]
Key = tuple[str, int, int, int]
"""Room, hand, seat, samples."""
SEED = 0
"""The reviewing expert's seed: the one ``paohuzi review`` uses by default, so the browser
shows what ``paohuzi review RECORD --seat S --samples K`` prints."""
TOP = 5
"""Mistakes listed, the biggest first."""
KEEP = 256
"""Finished reviews kept."""


def _judge(decision: Decision, samples: int, seed: int, limit: float) -> JSON:
    """In a worker process: one decision, judged."""
    expert = ExpertBot(samples=samples)
    expert.time_limit = limit
    return offer_name(judge(decision, expert, seed))


class Busy(Exception):
    """The review queue is full."""


@dataclass
class Review:
    """A review's progress and, once done, its findings."""

    key: Key
    state: str = "queued"
    """queued, running, done, timeout (stopped at the time limit with what it found) or
    failed."""
    done: int = 0
    total: int = 0
    decisions: list[JSON] = field(default_factory=list)
    error: str = ""

    def to_json(self) -> JSON:
        _, hand, seat, samples = self.key
        data: JSON = {
            "hand": hand,
            "seat": seat,
            "samples": samples,
            "state": self.state,
            "done": self.done,
            "total": self.total,
        }
        if self.state in ("done", "timeout"):
            data["decisions"] = self.decisions
            data["mistakes"] = mistakes(self.decisions, TOP)
            data |= rule()
        if self.error:
            data["error"] = self.error
        return data


class Reviews:
    """The server's review queue."""

    def __init__(self, workers: int, queue: int, limit: float) -> None:
        self.workers = workers
        self.queue = queue
        self.limit = limit
        self._slots = asyncio.Semaphore(workers)
        self._pool: Executor | None = None
        self._active: dict[Key, Review] = {}
        self._done: OrderedDict[Key, Review] = OrderedDict()
        self._tasks: set[asyncio.Task[None]] = set()

    def _executor(self) -> Executor:
        if self._pool is None:
            self._pool = worker_pool(self.workers, nice=19)  # after everything else
        return self._pool

    def get(self, key: Key) -> Review | None:
        found = self._active.get(key) or self._done.get(key)
        if found is not None and key in self._done:
            self._done.move_to_end(key)
        return found

    def start(self, key: Key, record: JSON) -> Review:
        """The review of ``key`` (started now if it is not known); raises Busy."""
        found = self.get(key)
        if found is not None:
            return found
        if len(self._active) >= self.queue:
            raise Busy("the reviewer is busy; try again in a minute")
        review = Review(key)
        self._active[key] = review
        task = asyncio.create_task(self._run(review, record))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return review

    async def _run(self, review: Review, record: JSON) -> None:
        try:
            async with self._slots:
                review.state = "running"
                await self._review(review, record)
        except Exception as error:  # a bad record, a dead worker: say so, keep serving
            review.state = "failed"
            review.error = f"{type(error).__name__}: {error}"[:200]
            if isinstance(error, BrokenProcessPool):
                self._pool = None
        finally:
            del self._active[review.key]
            self._done[review.key] = review
            while len(self._done) > KEEP:
                self._done.popitem(last=False)

    async def _review(self, review: Review, record: JSON) -> None:
        _, _, seat, samples = review.key
        found = await asyncio.to_thread(lambda: list(decisions(Record.from_json(record), seat)))
        review.total = len(found)
        ends = time.monotonic() + self.limit
        loop = asyncio.get_running_loop()
        for decision, seed in zip(found, seeds(SEED, len(found)), strict=True):
            left = ends - time.monotonic()
            if left <= 0:
                review.state = "timeout"
                return
            job = loop.run_in_executor(self._executor(), _judge, decision, samples, seed, left)
            try:
                review.decisions.append(await asyncio.wait_for(job, left + 5))
            except TimeoutError:
                review.state = "timeout"
                return
            review.done += 1
        review.state = "done"

    def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
