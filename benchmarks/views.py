"""What a frame's states cost to make (``Room.view_texts``, D107, D108), in microseconds.

    python benchmarks/views.py [--hands 4]

A room of one person and two greedy bots is played through the test harness's in-process
server (``tests/server/harness.py``), the person taking its last legal action, for
``--hands`` hands. At each state the person receives, in the room's own event loop (so that
nothing moves meanwhile), the states of the three seats and the spectators are made once more
as a frame makes them, the room's kept parts and events first put back as they were after the
state before (what the frame itself found), so that each figure is what the frame paid: the
parts that changed made again, the rest taken as kept. Printed: the frames timed, the median,
90th percentile and mean microseconds a frame, and those with nothing kept (every part made
afresh, the cost before D108's memo), with the machine's load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from paohuzi.server.rooms import Room
from paohuzi.server.views import SeatEvents, StateParts
from tests.server.harness import FAST, PERSON, app_client, new_room, receive, room_of

VIEWERS: list[int | None] = [0, 1, 2, None]


def kept_copy(parts: StateParts, events: SeatEvents) -> tuple[StateParts, SeatEvents]:
    return parts.copy(), events.copy()


class Timer:
    """The frames' times, with the kept parts as the last frame left them."""

    def __init__(self) -> None:
        self.kept: tuple[StateParts, SeatEvents] | None = None
        self.frames: list[float] = []
        self.afresh: list[float] = []

    def time(self, room: Room) -> None:
        if self.kept is not None:
            room._parts, room._seat_events = kept_copy(*self.kept)
        started = time.perf_counter()
        room.view_texts(VIEWERS)
        self.frames.append(time.perf_counter() - started)
        self.kept = kept_copy(room._parts, room._seat_events)
        room._parts, room._seat_events = StateParts(), SeatEvents()
        started = time.perf_counter()
        room.view_texts(VIEWERS)
        self.afresh.append(time.perf_counter() - started)


def line(name: str, seconds: list[float]) -> str:
    micro = sorted(s * 1e6 for s in seconds)
    p90 = micro[int(0.9 * (len(micro) - 1))]
    return (
        f"{name}: median {statistics.median(micro):.0f} µs, p90 {p90:.0f} µs, "
        f"mean {statistics.fmean(micro):.0f} µs a frame of {len(VIEWERS)} states"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=4)
    args = parser.parse_args()
    timer = Timer()
    with tempfile.TemporaryDirectory() as tmp, app_client(Path(tmp) / "db", **FAST) as client:
        data = new_room(client, PERSON)
        room, token = data["room"], data["seats"][0]["token"]
        with client.websocket_connect(f"/ws/{room}") as ws:
            ws.send_json({"type": "hello", "token": token})
            for _ in range(args.hands):
                state: dict[str, Any] = {"over": False}
                while not state["over"]:
                    state = receive(ws)
                    if state["type"] != "state":
                        continue
                    ws.portal.call(timer.time, room_of(client, room))
                    if state["legal"]:
                        action = state["legal"][-1]
                        ws.send_json({"type": "act", "action": action, "seq": state["seq"]})
                ws.send_json({"type": "ready"})
    print(f"{len(timer.frames)} frames over {args.hands} hands")
    print(line("as the room makes them", timer.frames))
    print(line("nothing kept", timer.afresh))
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
