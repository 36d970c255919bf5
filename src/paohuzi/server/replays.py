"""Finished hands step by step for the replay viewer, made in a worker process.

Replaying a hand is pure Python (a few ms a hand). In a thread of the server it held the GIL
the event loop waits for, so history readers slowed every room; in a process of lower
priority (as the bots') it costs the server only the sending of a record and the receiving
of JSON text. This module imports nothing of the web framework: the worker stays small.
"""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from paohuzi.bots.protocol import event_json
from paohuzi.record import Record, position_json, result_json
from paohuzi.server.botrunner import stop, worker_pool


def frames_of(data: dict[str, Any]) -> list[dict[str, Any]]:
    """A finished hand step by step for the replay viewer: the referee's view after each
    action (the hand is over, so nothing is secret any more)."""
    record = Record.from_json(data)
    game = record.new_game()
    frames: list[dict[str, Any]] = [
        {
            "action": None,
            "events": [event_json(e) for e in game.log],
            "position": position_json(game),
        }
    ]
    for text in record.actions:
        before = len(game.log)
        game.apply_text(text)
        frames.append(
            {
                "action": text,
                "events": [event_json(e) for e in game.log[before:]],
                "position": position_json(game),
            }
        )
    frames[-1]["result"] = result_json(game.result)
    return frames


def frames_json(data: dict[str, Any]) -> bytes:
    """:func:`frames_of` as JSON text (in the worker process)."""
    return json.dumps(frames_of(data), ensure_ascii=False).encode()


class Replays:
    """One worker process, started on first use, that turns records into frames."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None

    async def frames(self, data: dict[str, Any]) -> bytes:
        """The frames of a finished hand's record, as JSON text."""
        if self._pool is None:
            self._pool = worker_pool(1)
        try:
            return await asyncio.wrap_future(self._pool.submit(frames_json, data))
        except BrokenProcessPool:
            self._pool = None  # the next request starts a new worker
            raise

    def close(self) -> None:
        if self._pool is not None:
            stop(self._pool)
            self._pool = None
