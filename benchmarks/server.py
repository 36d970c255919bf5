"""Server load: N concurrent rooms of bots playing through real WebSocket clients (issue 5).

Run: ``python benchmarks/server.py [--rooms 200] [--seconds 60]``. It starts ``paohuzi serve``
on a free loopback port with a fresh database, creates the rooms (three seats each, all taken
by client-side random players over their own WebSocket: 3 × N connections), plays hand after
hand for the given time, then prints the rooms held, the actions handled and the server-side
latency of an action (from its arrival to the last state sent: p50, p99) from ``/api/metrics``.
Traffic stays on 127.0.0.1 and stops by itself.

A hall (issue 16): ``--postgres`` starts a throwaway PostgreSQL (Debian's binaries) and
``--processes N`` that many servers on it; rooms are created on them in turn and each client
connects where a front proxy hashing the room id would send it (``--route hash``; a room held
by another process is then forwarded to it) or straight to the room's holder (``--route
holder``). It also prints the CPU the clients, the servers and everything else took.

Issue 22's one-process target, read as D111 says (people who think, an offered load above
1,000 actions/s): ``python benchmarks/server.py --postgres --rooms 120 --think 0.1 --seconds 20
--settle 3``; saturated (think 0), the server-side latency is the rooms waiting on one loop.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import zlib
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

SETTLE = 0.0
"""Seconds at the start whose answers are not timed (``--settle``): the clients connect then."""
_timed_from = 0.0
_HELLO: dict[str, str] = {"events": "new"}
"""What the clients add to their hello (``--whole-events``: nothing)."""


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
    url: str,
    stop: float,
    seed: int,
    think: float,
    counts: dict[str, int],
    round_trips: list[float],
    by_kind: dict[bool, list[float]],
) -> None:
    """One seat: answers at random after ``think`` seconds on average; times each answer
    until the state it caused comes back, in ``by_kind[True]`` too if it answered a claim window
    (such a state may wait, by the rules, for the other seats' answers, R8), else in
    ``by_kind[False]``."""
    rng = random.Random(seed)
    sent: tuple[int, float, bool] | None = None
    url, _, token = url.partition("#")
    async with connect(url, max_size=2**22) as ws:
        # As the web table does: the secret in the first message, and (unless told otherwise)
        # only the events not sent yet in each state (D100).
        await ws.send(json.dumps({"type": "hello", "token": token} | _HELLO))
        while time.monotonic() < stop:
            try:
                remaining = max(0.1, stop - time.monotonic())
                message = json.loads(await asyncio.wait_for(ws.recv(), timeout=remaining))
            except TimeoutError:
                return
            if message.get("type") != "state":
                continue
            if sent is not None and message["seq"] > sent[0]:
                if sent[1] >= _timed_from:
                    round_trips.append(time.monotonic() - sent[1])
                    by_kind[sent[2]].append(round_trips[-1])
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
                sent = (message["seq"], time.monotonic(), "pass" in message["legal"])
                await ws.send(json.dumps({"type": "act", "action": action, "seq": message["seq"]}))


async def lag_probe(stop: float, lags: list[float], every: float = 0.05) -> None:
    """How late this process's event loop wakes a sleeper: the clients' own lag, which a round
    trip includes (a reply is timed when the client's loop gets to it)."""
    while time.monotonic() < stop:
        before = time.monotonic()
        await asyncio.sleep(every)
        if before >= _timed_from:
            lags.append(time.monotonic() - before - every)


async def run(
    bases: list[str],
    rooms: int,
    seconds: float,
    think: float,
    round_trips: list[float],
    route: str,
    lags: list[float] | None = None,
    by_kind: dict[bool, list[float]] | None = None,
) -> dict[str, int]:
    counts = {"hands": 0}
    lags = [] if lags is None else lags
    by_kind = {True: [], False: []} if by_kind is None else by_kind
    tasks = []
    created = [
        (
            i % len(bases),
            post(
                bases[i % len(bases)] + "/api/rooms",
                {"bots": [None, None, None], "timer": 0, "seed": i},
            ),
        )
        for i in range(rooms)
    ]
    stop = time.monotonic() + seconds
    global _timed_from
    _timed_from = time.monotonic() + SETTLE
    for i, (holder, room) in enumerate(created):
        # A stable hash of the id, as nginx's ``hash $room consistent`` picks a process.
        target = holder if route == "holder" else zlib.crc32(room["room"].encode()) % len(bases)
        ws_base = bases[target].replace("http", "ws")
        for seat in range(3):
            url = f"{ws_base}/ws/{room['room']}#{room['seats'][seat]['token']}"
            task = player(url, stop, i * 3 + seat, think, counts, round_trips, by_kind)
            tasks.append(asyncio.create_task(task))
    tasks.append(asyncio.create_task(lag_probe(stop, lags)))
    await asyncio.gather(*tasks, return_exceptions=True)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument(
        "--think", type=float, default=0.0, help="mean seconds a client bot thinks (0: at once)"
    )
    parser.add_argument("--processes", type=int, default=1, help="server processes (a hall)")
    parser.add_argument(
        "--postgres", action="store_true", help="store in a throwaway PostgreSQL (else SQLite)"
    )
    parser.add_argument("--route", choices=("hash", "holder"), default="hash")
    parser.add_argument(
        "--settle",
        type=float,
        default=0.0,
        help="seconds at the start (the clients connecting) whose round trips are not timed (0)",
    )
    parser.add_argument(
        "--no-ws-compression", action="store_true", help="servers send uncompressed (serve's flag)"
    )
    parser.add_argument(
        "--client-gc-default",
        action="store_true",
        help="the clients keep Python's collector thresholds (their pauses then distort the "
        "round trips)",
    )
    parser.add_argument(
        "--whole-events",
        action="store_true",
        help="the clients ask for every state's whole log of events, as clients before D100 "
        "did (default: only the events not sent yet, as the web table does)",
    )
    args = parser.parse_args()
    global SETTLE, _HELLO
    SETTLE = args.settle
    if args.whole_events:
        _HELLO = {}
    if args.processes > 1 and not args.postgres:
        parser.error("a hall of processes shares a PostgreSQL: add --postgres")
    cluster: Any = None
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "load.db")
        if args.postgres:
            sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
            from tests.pgcluster import Cluster, wait_ready

            cluster = Cluster()
            cluster.start()
            wait_ready(cluster.url)
            db = cluster.url
        ports = [free_port() for _ in range(args.processes)]
        servers = [
            subprocess.Popen(
                [sys.executable, "-m", "paohuzi", "serve", "--port", str(port), "--db", db]
                + ["--bot-delay", "0", "--max-rooms", str(10 * args.rooms)]
                + ["--rooms-per-minute", "100000", "--rooms-per-address", "100000"]
                + ["--messages-per-address", "1000000", "--connections-per-minute", "1000000"]
                + ["--dev-seeded-deals"]  # the rooms are created with seeds
                + (["--no-ws-compression"] if args.no_ws_compression else []),
                stdout=subprocess.DEVNULL,
            )
            for port in ports
        ]
        bases = [f"http://127.0.0.1:{port}" for port in ports]
        try:
            for base in bases:
                for _ in range(200):
                    try:
                        urllib.request.urlopen(base + "/api/metrics", timeout=1)
                        break
                    except OSError:
                        time.sleep(0.1)
            round_trips: list[float] = []
            lags: list[float] = []
            by_kind: dict[bool, list[float]] = {True: [], False: []}
            if not args.client_gc_default:
                # 1,500 clients in this one process: with the default thresholds (700, 10, 10)
                # the collector took 8 s of a 35 s run here, in pauses of up to 0.3 s (gen 1)
                # and 0.8 s (gen 2), each late for every reply waiting meanwhile.
                gc.freeze()
                gc.set_threshold(50_000, 20, 100)
            cpu = Cpu([s.pid for s in servers])
            counts = asyncio.run(
                run(
                    bases,
                    args.rooms,
                    args.seconds,
                    args.think,
                    round_trips,
                    args.route,
                    lags,
                    by_kind,
                )
            )
            used = cpu.used()
            each = [
                json.load(urllib.request.urlopen(base + "/api/metrics", timeout=10))
                for base in bases
            ]
        finally:
            for server in servers:
                server.terminate()
                server.wait()
            if cluster is not None:
                cluster.stop()
    metrics = {
        "rooms": sum(m["rooms"] for m in each),
        "actions": sum(m["actions"] for m in each),
        "p50_ms": "/".join(str(m.get("p50_ms")) for m in each),
        "p99_ms": "/".join(str(m.get("p99_ms")) for m in each),
        "max_ms": "/".join(str(m.get("max_ms")) for m in each),
        "send": " ".join(
            f"p50 {m.get('send_p50_ms')} / p99 {m.get('send_p99_ms')} / max {m.get('send_max_ms')}"
            for m in each
        ),
    }
    commits = sum(m.get("commits", 0) for m in each)
    writes = sum(m.get("writes", 0) for m in each)
    trips = sorted(round_trips)
    windows, turns = sorted(by_kind[True]), sorted(by_kind[False])
    lags.sort()

    def pct(p: float, values: list[float] = trips) -> float:
        if not values:
            return 0.0
        return round(values[min(len(values) - 1, int(p * len(values)))] * 1000, 1)

    store = "PostgreSQL" if args.postgres else "SQLite"
    print(f"{args.processes} server process(es) on {store}, clients routed by {args.route}")
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
    print(f"server-side send (a message queued to its socket's write): {metrics['send']} ms")
    print(
        "client round trip (answer sent to its state received"
        + (f", after the first {SETTLE:g} s" if SETTLE else "")
        + "): "
        f"p50 {pct(0.5)} ms, p99 {pct(0.99)} ms"
    )
    print(
        f"  of which {len(turns)} moves on one's turn: p50 {pct(0.5, turns)} ms, "
        f"p99 {pct(0.99, turns)} ms; {len(windows)} answers in a claim window (their state may "
        f"wait for the other seats' answers, R8): p50 {pct(0.5, windows)} ms, "
        f"p99 {pct(0.99, windows)} ms"
    )
    print(
        f"the clients' own event loop lag (a 50 ms sleeper woken late): p50 {pct(0.5, lags)} ms, "
        f"p99 {pct(0.99, lags)} ms, max {pct(1.0, lags)} ms"
    )
    print(
        f"CPU (cores busy on average): clients {used['clients']:.2f}, servers "
        f"{used['servers']:.2f}, everything else (PostgreSQL, other users) {used['other']:.2f}, "
        f"of {os.cpu_count()}"
    )
    server_seconds = used["servers"] * args.seconds
    if server_seconds:
        print(f"actions per server CPU-second: {metrics['actions'] / server_seconds:,.0f}")
    if commits:  # servers since issue 22 count their commits (group commit, D74)
        print(f"database: {writes} writes in {commits} commits ({writes / commits:.1f} a commit)")
    sent = sum(m.get("sent", 0) for m in each)
    if sent and metrics["actions"]:
        print(f"messages sent: {sent} ({sent / metrics['actions']:.1f} an action)")


class Cpu:
    """CPU time taken from now on by this process (the clients), the servers, and the rest of
    the machine (from /proc)."""

    def __init__(self, servers: list[int]) -> None:
        self.servers = servers
        self.start = self._now()

    def _now(self) -> tuple[float, float, float, float]:
        tick = os.sysconf("SC_CLK_TCK")
        clients = sum(os.times()[:2])
        servers = 0.0
        for pid in self.servers:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            servers += (int(fields[11]) + int(fields[12])) / tick
        busy = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
        total = (sum(map(int, busy)) - int(busy[3]) - int(busy[4])) / tick  # less idle, iowait
        return time.monotonic(), clients, servers, total

    def used(self) -> dict[str, float]:
        end = self._now()
        wall = end[0] - self.start[0]
        clients, servers, total = (end[i] - self.start[i] for i in (1, 2, 3))
        return {
            "clients": clients / wall,
            "servers": servers / wall,
            "other": max(0.0, total - clients - servers) / wall,
        }


if __name__ == "__main__":
    main()
