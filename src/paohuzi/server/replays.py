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

from paohuzi.bots.protocol import event_json, observation_json
from paohuzi.engine.observation import observe
from paohuzi.engine.record import Record, position_json, result_json
from paohuzi.server.botrunner import stop, worker_pool
from paohuzi.server.rooms import reveal_of


def frames_of(data: dict[str, Any]) -> list[dict[str, Any]]:
    """A finished hand step by step for the replay board: the referee's view after each
    action (the hand is over, so nothing is secret any more). Each frame holds the public
    table (the card on offer, whose turn, the wall, the 亮张), every hand and group face up
    with its 胡息, who decides next and among how many choices; the last frame the result
    and everything the settlement shows."""
    record = Record.from_json(data)
    game = record.new_game()
    frames = [_frame(game, None, 0)]
    for text in record.actions:
        before = len(game.log)
        seat = int(text.split(" ", 1)[0])
        game.apply_text(text)
        frames.append(_frame(game, text, before, seat))
    frames[-1]["result"] = result_json(game.result)
    frames[-1]["reveal"] = reveal_of(game)
    return frames


def _frame(game: Any, action: str | None, before: int, seat: int | None = None) -> dict[str, Any]:
    public = observation_json(observe(game, None, events=False))
    for private in ("seat", "hand", "legal"):
        del public[private]
    to_act = None if game.is_over else game.to_act
    return public | {
        "action": action,
        "by": seat,
        "events": [event_json(e) for e in game.log[before:]],
        "position": position_json(game),
        "table_huxi": [[game.rules.huxi.group(g) for g in table] for table in game.tables],
        "to_act": to_act,
        "choices": len(game.legal_actions()) if to_act is not None else 0,
    }


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
