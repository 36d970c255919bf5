"""Reviews must not slow live tables (issue 13): the round trip of live actions with and
without four reviews in the background.

Run: ``python benchmarks/review_load.py [--rooms 30] [--seconds 20] [--review-workers 1]``. It
starts ``paohuzi serve`` on a free loopback port with a fresh database, lets four rooms of bots
finish a hand each (the hands to review), then plays ``--rooms`` live rooms through real
WebSocket clients (three seats each, answering after a short think) for ``--seconds``: first
alone, then while four reviews of 200 samples a decision are asked for (they run
``--review-workers`` at a time, the others wait in the queue). It prints the client round trip
of an action (answer sent to its state received: p50, p99) in both phases and their ratio, and
how far the reviews got. Traffic stays on 127.0.0.1 and stops by itself.
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

SAMPLES = 200


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def call(url: str, body: dict[str, Any] | None = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(request, timeout=30))


async def player(
    url: str, token: str, stop: float, seed: int, think: float, trips: list[float]
) -> None:
    """One seat (``token``: its secret, sent in the first message, D109): answers at random
    after about ``think`` seconds; times each answer until the state it caused comes back."""
    rng = random.Random(seed)
    sent: tuple[int, float] | None = None
    async with connect(url, max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        while time.monotonic() < stop:
            try:
                left = max(0.1, stop - time.monotonic())
                message = json.loads(await asyncio.wait_for(ws.recv(), timeout=left))
            except TimeoutError:
                return
            if message.get("type") != "state":
                continue
            if sent is not None and message["seq"] > sent[0]:
                trips.append(time.monotonic() - sent[1])
                sent = None
            if message["over"]:
                if not message["ready"][message["you"]]:
                    await ws.send(json.dumps({"type": "ready"}))
            elif message["legal"]:
                await asyncio.sleep(rng.uniform(0.5 * think, 1.5 * think))
                action = rng.choice(message["legal"])
                sent = (message["seq"], time.monotonic())
                await ws.send(json.dumps({"type": "act", "action": action, "seq": message["seq"]}))


async def phase(base: str, rooms: list[Any], seconds: float, think: float) -> list[float]:
    trips: list[float] = []
    stop = time.monotonic() + seconds
    ws_base = base.replace("http", "ws", 1)
    tasks = [
        asyncio.create_task(
            player(
                f"{ws_base}/ws/{room['room']}",
                room["seats"][seat]["token"],
                stop,
                i * 3 + seat,
                think,
                trips,
            )
        )
        for i, room in enumerate(rooms)
        for seat in range(3)
    ]
    await asyncio.gather(*tasks, return_exceptions=True)
    return sorted(trips)


def pct(trips: list[float], p: float) -> float:
    return trips[min(len(trips) - 1, int(p * len(trips)))] * 1000 if trips else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--think", type=float, default=0.05, help="mean seconds a client thinks")
    parser.add_argument("--review-workers", type=int, default=1)
    args = parser.parse_args()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "paohuzi", "serve", "--port", str(port)]
        command += ["--db", str(Path(tmp) / "load.db"), "--bot-delay", "0", "--dev-seeded-deals"]
        command += ["--review-workers", str(args.review_workers), "--review-limit", "600"]
        command += ["--rooms-per-minute", "1000"]
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        try:
            for _ in range(200):
                try:
                    urllib.request.urlopen(base + "/healthz", timeout=1)
                    break
                except OSError:
                    time.sleep(0.1)
            reviewed = [
                call(base + "/api/rooms", {"bots": ["greedy"] * 3, "timer": 0, "seed": 100 + i})
                for i in range(4)
            ]
            for room in reviewed:
                while not call(f"{base}/api/rooms/{room['room']}/hands"):
                    time.sleep(0.1)
            live = [
                call(base + "/api/rooms", {"bots": [None] * 3, "timer": 0, "seed": i})
                for i in range(args.rooms)
            ]
            alone = asyncio.run(phase(base, live, args.seconds, args.think))
            urls = [f"{base}/api/rooms/{room['room']}/hands/0/review" for room in reviewed]
            for url in urls:
                call(url, {"seat": 0, "samples": SAMPLES})
            busy = asyncio.run(phase(base, live, args.seconds, args.think))
            progress = [
                urllib.request.urlopen(f"{url}?seat=0&samples={SAMPLES}", timeout=30).read()
                for url in urls
            ]
        finally:
            server.terminate()
            server.wait()
    states = [json.loads(p) for p in progress]
    print(
        f"{args.rooms} live rooms ({3 * args.rooms} WebSocket clients, think {args.think:g} s), "
        f"{args.seconds:g} s a phase, review workers {args.review_workers}"
    )
    for name, trips in (("without reviews", alone), ("with 4 reviews ", busy)):
        print(
            f"  {name}: {len(trips)} actions, round trip p50 {pct(trips, 0.5):.1f} ms, "
            f"p99 {pct(trips, 0.99):.1f} ms"
        )
    ratio = pct(busy, 0.99) / max(1e-9, pct(alone, 0.99))
    print(f"  p99 with reviews / without: {ratio:.2f} (the bound: 2)")
    print("  reviews: " + ", ".join(f"{s['state']} {s['done']}/{s['total']}" for s in states))


if __name__ == "__main__":
    main()
