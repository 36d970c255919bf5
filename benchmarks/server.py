"""Server load: N concurrent rooms of bots playing through real WebSocket clients (issue 5).

Run: ``python benchmarks/server.py [--rooms 200] [--seconds 60]``. It starts ``paohuzi serve``
on a free loopback port with a fresh database, creates the rooms (three seats each, all taken
by client-side random players over their own WebSocket: 3 × N connections), plays hand after
hand for the given time, then prints the rooms held, the actions handled and the server-side
latency of an action (from its arrival to the last state sent: p50, p99) from ``/api/metrics``.
Traffic stays on 127.0.0.1 and stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def post(url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    return json.load(urllib.request.urlopen(request, timeout=30))


async def player(
    url: str, stop: float, seed: int, think: float, counts: dict[str, int], round_trips: list[float]
) -> None:
    """One seat: answers at random after ``think`` seconds on average; times each answer
    until the state it caused comes back."""
    rng = random.Random(seed)
    sent: tuple[int, float] | None = None
    async with connect(url, max_size=2**22) as ws:
        while time.monotonic() < stop:
            try:
                remaining = max(0.1, stop - time.monotonic())
                message = json.loads(await asyncio.wait_for(ws.recv(), timeout=remaining))
            except TimeoutError:
                return
            if message.get("type") != "state":
                continue
            if sent is not None and message["seq"] > sent[0]:
                round_trips.append(time.monotonic() - sent[1])
                sent = None
            if message["over"]:
                if message["ready"][message["you"]]:
                    continue  # said already; waiting for the others
                if message["you"] == 0:
                    counts["hands"] += 1
                await ws.send(json.dumps({"type": "ready"}))  # every person says it
            elif message["legal"]:
                if think:
                    await asyncio.sleep(rng.uniform(0.5 * think, 1.5 * think))
                action = rng.choice(message["legal"])
                sent = (message["seq"], time.monotonic())
                await ws.send(json.dumps({"type": "act", "action": action, "seq": message["seq"]}))


async def run(
    base: str, rooms: int, seconds: float, think: float, round_trips: list[float]
) -> dict[str, int]:
    counts = {"hands": 0}
    tasks = []
    created = [
        post(base + "/api/rooms", {"bots": [None, None, None], "timer": 0, "seed": i})
        for i in range(rooms)
    ]
    stop = time.monotonic() + seconds
    ws_base = base.replace("http", "ws")
    for i, room in enumerate(created):
        for seat in range(3):
            url = f"{ws_base}/ws/{room['room']}?token={room['seats'][seat]['token']}"
            task = player(url, stop, i * 3 + seat, think, counts, round_trips)
            tasks.append(asyncio.create_task(task))
    await asyncio.gather(*tasks, return_exceptions=True)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument(
        "--think", type=float, default=0.0, help="mean seconds a client bot thinks (0: at once)"
    )
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "load.db"
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "paohuzi",
                "serve",
                "--port",
                str(port),
                "--db",
                str(db),
                "--bot-delay",
                "0",
                "--dev-seeded-deals",  # the rooms are created with seeds
            ],
            stdout=subprocess.DEVNULL,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(200):
                try:
                    urllib.request.urlopen(base + "/api/metrics", timeout=1)
                    break
                except OSError:
                    time.sleep(0.1)
            round_trips: list[float] = []
            counts = asyncio.run(run(base, args.rooms, args.seconds, args.think, round_trips))
            metrics = json.load(urllib.request.urlopen(base + "/api/metrics", timeout=10))
        finally:
            server.terminate()
            server.wait()
    trips = sorted(round_trips)

    def pct(p: float) -> float:
        return round(trips[min(len(trips) - 1, int(p * len(trips)))] * 1000, 1) if trips else 0.0

    print(
        f"{metrics['rooms']} rooms, {3 * args.rooms} WebSocket clients, think {args.think:g} s, "
        f"{args.seconds:g} s: {metrics['actions']} actions "
        f"({metrics['actions'] / args.seconds:,.0f}/s), "
        f"{counts['hands']} hands finished"
    )
    print(
        f"server-side action latency (arrival to states queued): p50 {metrics.get('p50_ms')} ms, "
        f"p99 {metrics.get('p99_ms')} ms, max {metrics.get('max_ms')} ms"
    )
    print(
        "client round trip (answer sent to its state received): "
        f"p50 {pct(0.5)} ms, p99 {pct(0.99)} ms"
    )


if __name__ == "__main__":
    main()
