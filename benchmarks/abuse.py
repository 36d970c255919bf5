"""The server under abuse (issue 10): a bystander's latency and the server's memory, with and
without abusers beside the same load.

Run: ``python benchmarks/abuse.py [--rooms 100] [--seconds 60] [--phase both] [--rounds 1]``.
Each phase starts ``paohuzi serve --bot-delay 0`` on a free loopback port with a fresh
database, and plays the same workload:

* history: ``--history-rooms`` rooms of three greedy bots each play one hand first, so that
  the history readers have more finished hands than the server caches;
* load: ``--rooms`` rooms of three client-side random players that think 0.5–1.5 × ``--think``
  seconds before each answer (``benchmarks/server.py``'s players);
* bystanders: ``--bystanders`` rooms whose seat 0 is a client-side random player and seats 1–2
  the server's greedy bot. Seat 0 answers ``--pause`` seconds after its state (the pause keeps
  these rooms from becoming the load themselves; it is not timed); its round trip is timed from
  the action sent to the next state of its own (the bots' quick answers included).

The abusers phase adds, for the same time:

* ``--expensive-rooms`` rooms whose seats 1–2 are the most expensive bot the server accepts
  (``--expensive``, default ``expert@10s``) and seat 0 a client-side random player;
* ``--spectators`` slow spectators on raw sockets: half never read (and reconnect every 15 s),
  half read 4 KB every 2 s (and reconnect when dropped); the first ones watch the bystander
  rooms, the rest the load rooms;
* ``--readers`` history readers looping, as fast as answered, over ``/api/rooms/{id}/hands``
  and each listed hand's ``/record`` and ``/frames``, across every room.

Two flood phases (issue 22) add, instead, for the same time:

* pings: ``--pingers`` spectator sockets sending WebSocket pings (protocol frames, answered
  by the WebSocket library before the application sees them) as fast as the socket takes
  them, reconnecting whenever the server closes them;
* history: ``--flooders`` clients asking for one room's history page as fast as answered on
  keep-alive connections, reconnecting whenever the server closes them.

* decoy: the ping flood aimed at a second server on this machine, not at the one measured: the
  flooder's own CPU and the kernel's copying still take the machine's two cores, so the
  bystanders' p99 under it is the floor a flood on one machine cannot go below; the ratio of
  the ping phase to this one is what the flood costs the server itself.

Their bar: the bystanders' p99 at most 1.5 times the baseline's.

The load, the bystanders and the abusers each run in a process of their own, so one client's
work does not delay another's clock. Timing starts ``--settle`` seconds after the clients
start (they all connect at once). It prints, per phase:

* the bystanders' round trip (this script's clock);
* the server-side action latency of every room from ``/api/metrics`` (arrival to states
  queued; the whole run) and its open connections;
* the server's RSS from ``/proc/PID/status`` at the start, middle and end of the timed window,
  and its growth (a least-squares slope over the window);
* the bytes waiting in the kernel's send buffers of the server's connections (``ss``: what
  clients that do not read cost the machine outside that RSS);
* the CPU seconds of the server and of its worker processes for bots and replays
  (``/proc/PID/stat``), of this script's processes (``time.process_time``), and the seconds
  the server's event loop was ready to run but waited for a CPU (``/proc/PID/schedstat``: how
  busy the machine was);

then the ratio of the bystanders' p99 with abusers to without (the issue's bar: at most 2) and
whether memory stayed flat. A fresh server grows at first whatever the load (caches filling, the
allocator), and the history readers fill the record and frame caches faster, so the verdict
compares the growth over the second half of the window, after the warm-up, with the baseline's
over the same half: flat when it exceeds it by less than ``--flat`` MB a minute. (Measured at
stop 52: the abusers alone over 300 s grew 123 → 142 MB in the first 150 s and 142 → 145 MB in
the last 150; over 60 s the whole window's slope had read +15.3 against +9.6 MB/min.)
``--rounds`` runs the phases in turn that many times and pools their round trips, to even out a
machine whose load changes. Traffic stays on 127.0.0.1; every loop stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import http.client
import json
import multiprocessing
import os
import queue
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

TICK = os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------------- the server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def get(url: str) -> Any:
    """A JSON answer; a 429 (this script's reads share one address's budget) waits a second."""
    for _ in range(60):
        try:
            return json.load(urllib.request.urlopen(url, timeout=30))
        except urllib.error.HTTPError as error:
            if error.code != 429:
                raise
            time.sleep(1)
    raise SystemExit(f"abuse: {url} answered 429 for a minute")


def post(url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    return json.load(urllib.request.urlopen(request, timeout=30))


def rss_mb(pid: int) -> float:
    """Resident memory of a process (VmRSS), in MB; 0 once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def cpu_seconds(pid: int) -> float:
    """User and system CPU time a process has used so far."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime (fields 14 and 15)


def cpu_wait(pid: int) -> float:
    """Seconds a process's main thread has been ready to run but waiting for a CPU."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


def send_queues_mb(port: int) -> float | None:
    """Bytes waiting in the kernel's send buffers of the server's TCP connections, in MB: memory
    that a client which does not read costs the machine, outside the server's RSS."""
    try:
        lines = subprocess.run(
            ["ss", "-tnH", "state", "all", "sport", "=", f":{port}"],
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return None
    return sum(int(line.split()[2]) for line in lines if len(line.split()) > 2) / 2**20


def descendants(pid: int) -> list[int]:
    """The processes a process started, and theirs (the server's workers: bots, replays)."""
    found: list[int] = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return found
    for task in tasks:
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for child in map(int, children):
            found += [child, *descendants(child)]
    return found


# ---------------------------------------------------------------------- clients


@dataclass
class Seat:
    room: str
    token: str | None
    """None: a spectator."""

    def path(self) -> str:
        return f"/ws/{self.room}"

    def hello(self) -> str:
        """The connection's first message: the seat's secret, never in the URL (D109)."""
        return json.dumps({"type": "hello"} | ({"token": self.token} if self.token else {}))


@dataclass
class Job:
    """What one client process does until ``until`` (wall clock, shared by the processes)."""

    role: str
    port: int
    until: float
    timed_from: float
    seats: list[Seat] = field(default_factory=list)
    think: float = 0.0
    watch: list[str] = field(default_factory=list)
    history: list[str] = field(default_factory=list)
    readers: int = 0
    pingers: int = 0
    flooders: int = 0


async def player(
    url: str,
    hello: str,
    job: Job,
    rng: random.Random,
    counts: dict[str, int],
    said: set[str],
    trips: list[float] | None = None,
) -> None:
    """One seat (``hello``: its first message) playing at random: after ``job.think``
    (0.5–1.5 ×) seconds, or, timed (with ``trips``), after exactly ``job.think`` seconds,
    measuring each action's round trip."""
    sent: tuple[int, float] | None = None
    dealt = -1
    async with connect(url, max_size=2**22) as ws:
        await ws.send(hello)
        while (remaining := job.until - time.time()) > 0:
            try:
                text = await asyncio.wait_for(ws.recv(), timeout=remaining)
            except TimeoutError:
                return
            now = time.monotonic()
            message = json.loads(text)
            if message.get("type") == "error":
                counts["errors"] += 1
                said.add(str(message.get("message"))[:100])
                continue
            if message.get("type") != "state":
                continue
            if sent is not None and message["seq"] > sent[0]:
                if trips is not None and time.time() >= job.timed_from:
                    trips.append(now - sent[1])
                sent = None
            if message["over"]:
                if message["you"] == 0 and message["hand_no"] != dealt:
                    dealt = message["hand_no"]
                    counts["hands"] += 1
                    await ws.send(json.dumps({"type": "next"}))
            elif message["legal"]:
                pause = job.think if trips is not None else rng.uniform(0.5, 1.5) * job.think
                await asyncio.sleep(pause)
                if time.time() >= job.until:
                    return
                action = rng.choice(message["legal"])
                counts["actions"] += 1
                sent = (message["seq"], time.monotonic())
                await ws.send(json.dumps({"type": "act", "action": action, "seq": message["seq"]}))


async def open_websocket(
    loop: asyncio.AbstractEventLoop, sock: socket.socket, port: int, room: str
) -> None:
    """Connect ``sock`` and send a spectator's WebSocket handshake for ``room`` (the answer
    is left unread: these clients never read, or read at their own pace)."""
    await loop.sock_connect(sock, ("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET /ws/{room} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        "Upgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    await loop.sock_sendall(sock, request.encode())


async def slow_spectator(job: Job, room: str, reads: bool, counts: dict[str, int]) -> None:
    """A spectator on a raw socket with a small receive buffer: never reads (reconnecting every
    15 s), or reads 4 KB every 2 s (reconnecting when the server drops it)."""
    loop = asyncio.get_running_loop()
    while time.time() < job.until:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        try:
            await open_websocket(loop, sock, job.port, room)
            counts["connections"] += 1
            opened = time.time()
            while time.time() < job.until:
                await asyncio.sleep(min(2.0, max(0.0, job.until - time.time())))
                if reads:
                    try:
                        chunk = sock.recv(4096)
                    except BlockingIOError:
                        continue
                    if not chunk:
                        counts["dropped"] += 1
                        break
                    counts["bytes"] += len(chunk)
                elif time.time() - opened >= 15:
                    break
        except OSError:
            counts["socket_errors"] += 1
            await asyncio.sleep(0.5)
        finally:
            sock.close()


PING_BURST = bytes([0x89, 0x80]) + b"\0\0\0\0"
"""One masked, empty client ping (the mask all zero)."""


class ServerFrames:
    """Reads the server's side of a WebSocket far enough to see its close frame (opcode 8):
    the server's frames are not masked; their payloads are skipped."""

    def __init__(self) -> None:
        self.buffer = b""
        self.closed = False

    def feed(self, data: bytes) -> None:
        self.buffer += data
        while len(self.buffer) >= 2:
            opcode, size = self.buffer[0] & 0x0F, self.buffer[1] & 0x7F
            head = 2 + {126: 2, 127: 8}.get(size, 0)
            if len(self.buffer) < head:
                return
            if size >= 126:
                size = int.from_bytes(self.buffer[2:head], "big")
            if len(self.buffer) < head + size:
                return
            self.buffer = self.buffer[head + size :]
            if opcode == 0x8:
                self.closed = True
                return


async def ping_flooder(job: Job, room: str, counts: dict[str, int]) -> None:
    """A spectator socket sending pings as fast as the socket takes them (64 KB a write),
    discarding what comes back, reconnecting whenever the server closes it."""
    loop = asyncio.get_running_loop()
    burst = PING_BURST * (65536 // len(PING_BURST))
    while time.time() < job.until:
        sock = socket.socket()
        sock.setblocking(False)
        try:
            await open_websocket(loop, sock, job.port, room)
            counts["connections"] += 1
            frames = ServerFrames()
            while time.time() < job.until and not frames.closed:
                try:
                    await asyncio.wait_for(loop.sock_sendall(sock, burst), 5)
                except TimeoutError:
                    counts["stalled"] += 1  # the server stopped reading us
                    break
                counts["pings"] += len(burst) // len(PING_BURST)
                with contextlib.suppress(BlockingIOError):
                    while chunk := sock.recv(65536):
                        counts["bytes"] += len(chunk)
                        frames.feed(chunk)
                    frames.closed = True  # end of stream: the server let go of the socket
            if frames.closed:
                counts["dropped"] += 1  # the server closed it (a close frame, or the socket)
        except OSError:
            counts["socket_errors"] += 1
            await asyncio.sleep(0.05)
        finally:
            sock.close()


def history_flooder(job: Job, counts: dict[str, int]) -> None:
    """Asks for one room's history page over and over as fast as answered (a thread),
    reconnecting whenever the server closes the connection."""
    path = f"/api/rooms/{job.history[0]}/hands"
    connection = http.client.HTTPConnection("127.0.0.1", job.port, timeout=30)
    while time.time() < job.until:
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
        except (OSError, http.client.HTTPException):
            connection.close()
            counts["reconnects"] += 1
            continue
        counts[f"status {response.status}"] = counts.get(f"status {response.status}", 0) + 1
        if response.will_close:
            connection.close()
            counts["reconnects"] += 1
    connection.close()


def history_reader(
    job: Job, seed: int, counts: dict[str, int], latency: dict[str, list[float]]
) -> None:
    """Reads every room's finished hands, their records and frames, over and over (a thread)."""
    rng = random.Random(seed)
    rooms = list(job.history)
    connection = http.client.HTTPConnection("127.0.0.1", job.port, timeout=30)

    def fetch(kind: str, path: str) -> Any:
        started = time.monotonic()
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            body = response.read()
        except (OSError, http.client.HTTPException):
            connection.close()
            counts["errors"] += 1
            return None
        latency[kind].append(time.monotonic() - started)
        counts[kind] += 1
        counts["bytes"] += len(body)
        if response.status != 200:
            counts["errors"] += 1
            return None
        return json.loads(body)

    while time.time() < job.until:
        rng.shuffle(rooms)
        for room in rooms:
            if time.time() >= job.until:
                break
            for hand in fetch("hands", f"/api/rooms/{room}/hands") or []:
                if time.time() >= job.until:
                    break
                fetch("record", f"/api/rooms/{room}/hands/{hand['n']}/record")
                fetch("frames", f"/api/rooms/{room}/hands/{hand['n']}/frames")
    connection.close()


async def play_job(job: Job) -> dict[str, Any]:
    counts: dict[str, int] = {
        k: 0
        for k in (
            "actions",
            "hands",
            "errors",
            "socket_errors",
            "connections",
            "dropped",
            "bytes",
            "hands_read",
            "record",
            "frames",
        )
    }
    trips: list[float] = []
    latency: dict[str, list[float]] = {"hands": [], "record": [], "frames": []}
    base = f"ws://127.0.0.1:{job.port}"
    rng = random.Random(job.role)
    tasks = []
    said: set[str] = set()
    for seat in job.seats:
        timed = trips if job.role == "bystanders" else None
        url, rand = base + seat.path(), random.Random(rng.random())
        task = player(url, seat.hello(), job, rand, counts, said, timed)
        tasks.append(asyncio.create_task(task))
    for i, room in enumerate(job.watch):
        tasks.append(asyncio.create_task(slow_spectator(job, room, i % 2 == 1, counts)))
    reader_counts = {"hands": 0, "record": 0, "frames": 0, "errors": 0, "bytes": 0}
    for i in range(job.readers):
        reading = asyncio.to_thread(history_reader, job, i, reader_counts, latency)
        tasks.append(asyncio.create_task(reading))
    flood: dict[str, int] = {"pings": 0, "connections": 0, "dropped": 0, "bytes": 0}
    flood |= {"socket_errors": 0, "reconnects": 0, "stalled": 0}
    for i in range(job.pingers):
        tasks.append(asyncio.create_task(ping_flooder(job, job.watch[i % len(job.watch)], flood)))
    for _ in range(job.flooders):
        tasks.append(asyncio.create_task(asyncio.to_thread(history_flooder, job, flood)))
    results = await asyncio.gather(*tasks, return_exceptions=True)
    failures = [r for r in results if isinstance(r, BaseException)]
    return {
        "counts": counts,
        "reads": reader_counts,
        "flood": flood,
        "trips": trips,
        "latency": latency,
        "failures": [f"{type(f).__name__}: {f}" for f in failures[:3]]
        + [f"the server said: {text}" for text in sorted(said)[:3]],
        "failed": len(failures),
        "cpu": time.process_time(),
    }


def run_job(job: Job, results: multiprocessing.Queue[tuple[str, dict[str, Any]]]) -> None:
    """A client process: one role, until the phase ends. The flooders run at the lowest
    priority: a real attacker spends its own machine's CPU, and on this one their sends
    (copied through the kernel by the sending process) would otherwise take a core from the
    server and the bystanders the bar is about."""
    if job.role == "flooders":
        os.nice(19)
    results.put((job.role, asyncio.run(play_job(job))))


# ---------------------------------------------------------------------- one phase


@dataclass
class Phase:
    name: str
    abusers: bool
    flood: str | None
    """None, or the flood phase: "pings", "decoy" (the pings aimed at another server) or
    "history"."""
    load: float
    trips: list[float]
    metrics: dict[str, Any]
    """``/api/metrics`` at the end; its connections in the middle of the timed window."""
    rss: list[tuple[float, float]]
    """(seconds into the timed window, MB) of the server, sampled every second."""
    workers_rss: float
    send_queues: tuple[float | None, float | None]
    """Kernel send buffers of the server's connections, MB, in the middle and at the end."""
    server_cpu: float
    server_wait: float
    workers_cpu: float
    clients_cpu: dict[str, float]
    jobs: dict[str, dict[str, Any]]
    log: list[str]
    history_hands: int
    seconds: float


def create(base: str, bots: list[str | None]) -> Any:
    return post(base + "/api/rooms", {"bots": bots, "timer": 0})


def run_phase(
    args: argparse.Namespace, name: str, abusers: bool, flood: str | None = None
) -> Phase:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        log_path = Path(tmp) / "server.log"
        with log_path.open("w") as log_file:
            server = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "paohuzi",
                    "serve",
                    "--port",
                    str(port),
                    "--db",
                    str(Path(tmp) / "abuse.db"),
                    "--bot-delay",
                    "0",
                    "--rooms-per-minute",
                    "1000000",
                    "--rooms-per-address",
                    "1000000",
                    # Every client of this script is 127.0.0.1: the budget of messages one
                    # address shares across its WebSocket connections is lifted (the load
                    # sends more); the others stay the server's defaults.
                    "--messages-per-address",
                    "1000000",
                ],
                stdout=subprocess.DEVNULL,
                stderr=log_file,
            )
        decoy = start_decoy(Path(tmp)) if flood == "decoy" else None
        try:
            return drive(args, name, abusers, flood, server.pid, base, port, log_path, decoy)
        finally:
            if decoy is not None:
                decoy[0].terminate()
                decoy[0].wait()
            workers = descendants(server.pid)
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
            for worker in workers:  # should they outlive the server
                with contextlib.suppress(OSError):
                    os.kill(worker, signal.SIGTERM)


def start_decoy(tmp: Path) -> tuple[subprocess.Popen[bytes], int, str]:
    """A second server on this machine for the decoy phase, with one room of people to
    watch: its process, port and room."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "paohuzi", "serve", "--port", str(port)]
        + ["--db", str(tmp / "decoy.db"), "--bot-delay", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            urllib.request.urlopen(base + "/healthz", timeout=1)
            break
        except OSError:
            time.sleep(0.1)
    return process, port, create(base, [None, None, None])["room"]


def drive(
    args: argparse.Namespace,
    name: str,
    abusers: bool,
    flood: str | None,
    pid: int,
    base: str,
    port: int,
    log_path: Path,
    decoy: tuple[subprocess.Popen[bytes], int, str] | None = None,
) -> Phase:
    for _ in range(300):
        try:
            urllib.request.urlopen(base + "/healthz", timeout=1)
            break
        except OSError:
            time.sleep(0.1)
    else:
        raise SystemExit("abuse: the server did not start:\n" + log_path.read_text()[-2000:])

    # Finished hands for the history readers: greedy rooms play one hand each, then wait.
    history = [create(base, ["greedy"] * 3)["room"] for _ in range(args.history_rooms)]
    give_up = time.monotonic() + 120
    finished = 0
    while time.monotonic() < give_up:
        finished = sum(get(f"{base}/api/rooms/{room}")["hands"] >= 1 for room in history)
        if finished == len(history):
            break
        time.sleep(1)

    load = [create(base, [None, None, None]) for _ in range(args.rooms)]
    bystanders = [create(base, [None, "greedy", "greedy"]) for _ in range(args.bystanders)]
    expensive = [
        create(base, [None, args.expensive, args.expensive])
        for _ in range(args.expensive_rooms if abusers else 0)
    ]

    def seats(rooms: list[Any], which: range) -> list[Seat]:
        return [Seat(r["room"], r["seats"][s]["token"]) for r in rooms for s in which]

    start = time.time() + 1.0  # time for the client processes to start
    timed_from = start + args.settle
    until = timed_from + args.seconds
    jobs = [
        Job("load", port, until, timed_from, seats(load, range(3)), args.think),
        Job("bystanders", port, until, timed_from, seats(bystanders, range(1)), args.pause),
    ]
    if flood is not None:
        jobs.append(
            Job(
                "flooders",
                port if decoy is None else decoy[1],
                until,
                timed_from,
                watch=[r["room"] for r in load] if decoy is None else [decoy[2]],
                history=[history[0]],
                pingers=args.pingers if flood in ("pings", "decoy") else 0,
                flooders=args.flooders if flood == "history" else 0,
            )
        )
    if abusers:
        watched = [r["room"] for r in bystanders + load]
        everyone = [r["room"] for r in bystanders + load + expensive] + history
        jobs.append(
            Job(
                "abusers",
                port,
                until,
                timed_from,
                seats(expensive, range(1)),
                args.think,
                [watched[i % len(watched)] for i in range(args.spectators)],
                everyone,
                args.readers,
            )
        )
    context = multiprocessing.get_context("spawn")
    results: multiprocessing.Queue[tuple[str, dict[str, Any]]] = context.Queue()
    processes = [context.Process(target=run_job, args=(job, results)) for job in jobs]
    load_average = os.getloadavg()[0]
    for process in processes:
        process.start()

    rss: list[tuple[float, float]] = []
    server_cpu = server_wait = workers_cpu = 0.0
    workers: list[int] = []
    done: dict[str, dict[str, Any]] = {}
    connections = None
    queued: list[float | None] = []
    while len(done) < len(jobs) and time.time() < until + 60:
        now = time.time()
        if connections is None and now >= timed_from + args.seconds / 2:
            connections = get(base + "/api/metrics").get("connections")
            queued.append(send_queues_mb(port))
        if len(queued) == 1 and now >= until - 1:
            queued.append(send_queues_mb(port))
        if now >= timed_from and not rss:
            server_cpu = cpu_seconds(pid)
            server_wait = cpu_wait(pid)
            workers = descendants(pid)
            workers_cpu = sum(map(cpu_seconds, workers))
        if timed_from <= now <= until + 0.5:
            rss.append((now - timed_from, rss_mb(pid)))
        try:
            role, result = results.get(timeout=max(0.05, 1.0 - (time.time() - now)))
            done[role] = result
        except queue.Empty:
            pass
    metrics = get(base + "/api/metrics") | {"connections": connections}
    server_cpu = cpu_seconds(pid) - server_cpu
    server_wait = cpu_wait(pid) - server_wait
    before = workers_cpu
    workers = sorted(set(workers) | set(descendants(pid)))
    workers_cpu = sum(map(cpu_seconds, workers)) - before
    workers_rss = sum(map(rss_mb, workers))
    for process in processes:
        process.join(10)
        if process.is_alive():
            process.terminate()
    clients_cpu = {role: float(result["cpu"]) for role, result in done.items()}
    trips = done.get("bystanders", {}).get("trips", [])
    log = [line for line in log_path.read_text().splitlines() if line.strip()]
    return Phase(
        name,
        abusers,
        flood,
        load_average,
        trips,
        metrics,
        rss,
        workers_rss,
        (queued[0] if queued else None, queued[1] if len(queued) > 1 else None),
        server_cpu,
        server_wait,
        workers_cpu,
        clients_cpu,
        done,
        log,
        finished,
        args.seconds,
    )


# ---------------------------------------------------------------------- report


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def slope(points: list[tuple[float, float]]) -> float:
    """Least-squares growth, MB a minute."""
    if len(points) < 2:
        return 0.0
    xs, ys = zip(*points, strict=True)
    return statistics.linear_regression(xs, ys).slope * 60


def second_half(points: list[tuple[float, float]], seconds: float) -> list[tuple[float, float]]:
    """The samples of the second half of a ``seconds`` window, after the warm-up."""
    return [p for p in points if p[0] >= seconds / 2]


def rss_at(points: list[tuple[float, float]], at: float) -> float:
    return min(points, key=lambda p: abs(p[0] - at))[1] if points else 0.0


def report(args: argparse.Namespace, phases: list[Phase]) -> None:
    rows: list[tuple[str, list[str]]] = []

    def row(label: str, value: Any) -> None:
        rows.append((label, [str(value(p)) for p in phases]))

    def job(p: Phase, role: str) -> dict[str, Any]:
        found: dict[str, Any] = p.jobs.get(role, {})
        return found

    def counts(p: Phase, role: str) -> dict[str, int]:
        found: dict[str, int] = job(p, role).get("counts", {})
        return found

    row("load average (1 min) at the start", lambda p: f"{p.load:.2f}")
    row("history hands ready (one a room)", lambda p: p.history_hands)
    row("bystander round trips timed", lambda p: len(p.trips))
    row("bystander round trip p50 ms  [client]", lambda p: ms(quantile(p.trips, 0.5)))
    row("bystander round trip p99 ms  [client]", lambda p: ms(quantile(p.trips, 0.99)))
    row("bystander round trip max ms  [client]", lambda p: ms(max(p.trips, default=0.0)))
    row("open connections, middle  [/api/metrics]", lambda p: p.metrics.get("connections"))
    for i, when in enumerate(("middle", "end")):
        row(
            f"socket send queues {when} MB  [ss Send-Q]",
            lambda p, i=i: "-" if p.send_queues[i] is None else f"{p.send_queues[i]:.1f}",
        )
    row("actions, every room  [/api/metrics]", lambda p: p.metrics.get("actions"))
    row("action p50 ms, every room  [/api/metrics]", lambda p: p.metrics.get("p50_ms"))
    row("action p99 ms, every room  [/api/metrics]", lambda p: p.metrics.get("p99_ms"))
    row("action max ms, every room  [/api/metrics]", lambda p: p.metrics.get("max_ms"))
    row("load hands finished  [client]", lambda p: counts(p, "load").get("hands", 0))
    row("bystander hands finished  [client]", lambda p: counts(p, "bystanders").get("hands", 0))
    row("server RSS start MB  [/proc VmRSS]", lambda p: f"{rss_at(p.rss, 0):.1f}")
    row("server RSS middle MB  [/proc VmRSS]", lambda p: f"{rss_at(p.rss, p.seconds / 2):.1f}")
    row("server RSS end MB  [/proc VmRSS]", lambda p: f"{rss_at(p.rss, p.seconds):.1f}")
    row("server RSS max MB  [/proc VmRSS]", lambda p: f"{max(m for _, m in p.rss):.1f}")
    row("server RSS growth MB/min  [fit]", lambda p: f"{slope(p.rss):+.2f}")
    row(
        "server RSS growth, second half  [fit]",
        lambda p: f"{slope(second_half(p.rss, args.seconds)):+.2f}",
    )
    row("workers RSS end MB  [/proc VmRSS]", lambda p: f"{p.workers_rss:.1f}")
    row("server CPU s  [/proc stat]", lambda p: f"{p.server_cpu:.1f}")
    row("server loop waiting for a CPU s  [/proc schedstat]", lambda p: f"{p.server_wait:.1f}")
    row("workers CPU s (bots, replays)  [/proc stat]", lambda p: f"{p.workers_cpu:.1f}")
    for role in ("load", "bystanders", "abusers", "flooders"):
        row(
            f"{role} clients CPU s  [process_time]",
            lambda p, r=role: f"{p.clients_cpu[r]:.1f}" if r in p.clients_cpu else "-",
        )
    row("expensive-bot room hands  [client]", lambda p: counts(p, "abusers").get("hands", "-"))
    row("spectator connections  [client]", lambda p: counts(p, "abusers").get("connections", "-"))
    row("spectators dropped, seen  [client]", lambda p: counts(p, "abusers").get("dropped", "-"))

    def reads(p: Phase, kind: str) -> str:
        done = job(p, "abusers").get("reads")
        if not done:
            return "-"
        times = job(p, "abusers")["latency"][kind]
        return f"{done[kind]} ({ms(quantile(times, 0.5))}/{ms(quantile(times, 0.99))})"

    for kind in ("hands", "record", "frames"):
        row(f"history {kind} reads (p50/p99 ms)", lambda p, k=kind: reads(p, k))
    row(
        "history read errors",
        lambda p: job(p, "abusers")["reads"]["errors"] if "abusers" in p.jobs else "-",
    )
    row(
        "spectator socket errors  [client]",
        lambda p: counts(p, "abusers").get("socket_errors", "-"),
    )
    row("flood: pings written to sockets  [client]", lambda p: flooded(p).get("pings", "-"))
    row("flood: connections opened  [client]", lambda p: flooded(p).get("connections", "-"))
    row("flood: closed by the server  [client]", lambda p: flooded(p).get("dropped", "-"))
    row("flood: sends stalled 5 s  [client]", lambda p: flooded(p).get("stalled", "-"))
    row("flood: pong bytes received  [client]", lambda p: flooded(p).get("bytes", "-"))
    row("flood: history 200s  [client]", lambda p: flooded(p).get("status 200", "-"))
    row("flood: history 429s  [client]", lambda p: flooded(p).get("status 429", "-"))
    row("flood: history reconnects  [client]", lambda p: flooded(p).get("reconnects", "-"))
    row("error replies to players / failed tasks", lambda p: errors(p))
    row("server log lines", lambda p: len(p.log))

    width = max(len(label) for label, _ in rows) + 2
    print(f"{'':{width}}" + "".join(f"{p.name:>18}" for p in phases))
    for label, values in rows:
        print(f"{label:{width}}" + "".join(f"{v:>18}" for v in values))
    for p in phases:
        for role, result in p.jobs.items():
            for failure in result["failures"]:
                print(f"{p.name} {role}: {failure}")
        for line in p.log[:5]:
            print(f"{p.name} server log: {line[:200]}")

    baselines = [p for p in phases if not p.abusers and p.flood is None]
    abused = [p for p in phases if p.abusers]
    for kind in ("pings", "decoy", "history"):
        flooded_phases = [p for p in phases if p.flood == kind]
        if baselines and flooded_phases:
            quiet = quantile([t for p in baselines for t in p.trips], 0.99)
            loud = quantile([t for p in flooded_phases for t in p.trips], 0.99)
            print(
                f"bystander p99 under the {kind} flood / quiet: {ms(loud)} / {ms(quiet)} ms = "
                f"{loud / quiet:.2f}× (bar: at most 1.5×): "
                f"{'held' if loud <= 1.5 * quiet else 'FAILED'}"
            )
    pings = [t for p in phases if p.flood == "pings" for t in p.trips]
    decoys = [t for p in phases if p.flood == "decoy" for t in p.trips]
    if pings and decoys:
        loud, machine = quantile(pings, 0.99), quantile(decoys, 0.99)
        print(
            f"bystander p99 under the pings flood / under the same flood at a decoy server: "
            f"{ms(loud)} / {ms(machine)} ms = {loud / machine:.2f}× (what the flood costs "
            "this server beyond what the flooder costs the machine)"
        )
    if baselines and abused:
        trips_without = [t for p in baselines for t in p.trips]
        trips_with = [t for p in abused for t in p.trips]
        p50_without, p99_without = quantile(trips_without, 0.5), quantile(trips_without, 0.99)
        p50_with, p99_with = quantile(trips_with, 0.5), quantile(trips_with, 0.99)
        ratio = p99_with / p99_without
        pooled = f" (the {len(abused)} runs of each pooled)" if len(abused) > 1 else ""
        print(
            f"bystander round trip{pooled}: p50 {ms(p50_without)} ms without abusers, "
            f"{ms(p50_with)} ms with; p99 {ms(p99_without)} ms without, {ms(p99_with)} ms with"
        )
        print(
            f"bystander p99 with abusers / without: {ratio:.2f}× (bar: at most 2×): "
            f"{'held' if ratio <= 2 else 'FAILED'}"
        )
        for before, after in zip(baselines, abused, strict=False):
            slope_without = slope(second_half(before.rss, args.seconds))
            slope_with = slope(second_half(after.rss, args.seconds))
            extra = slope_with - slope_without
            added = rss_at(after.rss, args.seconds) - rss_at(before.rss, args.seconds)
            print(
                f"server memory, {after.name} beside {before.name}: {added:+.1f} MB at the end; "
                f"growth over the second half {slope_with:+.2f} against {slope_without:+.2f} "
                "MB/min: "
                f"{'flat' if extra < args.flat else 'GREW'} (flat: under {args.flat:g} MB/min "
                "more)"
            )
    else:
        for p in phases:
            print(
                f"{p.name}: server memory grew {slope(p.rss):+.2f} MB/min, "
                f"{slope(second_half(p.rss, args.seconds)):+.2f} over the second half (no "
                "baseline beside it to compare with: --phase both)"
            )


def flooded(p: Phase) -> dict[str, int]:
    found: dict[str, int] = p.jobs.get("flooders", {}).get("flood", {})
    return found


def errors(p: Phase) -> str:
    found = sum(r["counts"]["errors"] for r in p.jobs.values())
    failed = sum(r["failed"] for r in p.jobs.values())
    return f"{found} / {failed}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=100, help="load rooms (100)")
    parser.add_argument("--seconds", type=float, default=60, help="timed window (60)")
    parser.add_argument(
        "--phase",
        choices=("both", "baseline", "abusers", "floods", "pings", "decoy", "history"),
        default="both",
        help="without abusers, with them, or both in turn (both); floods: the baseline, the "
        "ping flood, the ping flood aimed at a decoy server and the history flood in turn; "
        "pings, decoy, history: that flood alone",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="phases in turn this many times, pooling the round trips of each kind: evens out "
        "a machine whose load changes (1)",
    )
    parser.add_argument("--settle", type=float, default=5, help="untimed start, seconds (5)")
    parser.add_argument("--think", type=float, default=0.75, help="load players' mean think (0.75)")
    parser.add_argument("--bystanders", type=int, default=4, help="bystander rooms (4)")
    parser.add_argument("--pause", type=float, default=0.1, help="bystanders' pause (0.1)")
    parser.add_argument("--history-rooms", type=int, default=200, help="greedy rooms (200)")
    parser.add_argument("--expensive", default="expert@10s", help="abusers' bot (expert@10s)")
    parser.add_argument("--expensive-rooms", type=int, default=4, help="(4)")
    parser.add_argument("--spectators", type=int, default=20, help="slow spectators (20)")
    parser.add_argument("--readers", type=int, default=4, help="history readers (4)")
    parser.add_argument("--pingers", type=int, default=4, help="ping-flood sockets (4)")
    parser.add_argument("--flooders", type=int, default=1, help="history-flood clients (1)")
    parser.add_argument(
        "--flat",
        type=float,
        default=5.0,
        help="most RSS growth over the baseline's called flat, MB/min (5)",
    )
    args = parser.parse_args()
    print(
        f"abuse: {args.rooms} load rooms (3 random players, think {args.think:g} s), "
        f"{args.bystanders} bystander rooms (seat 0 answers after {args.pause:g} s, seats 1-2 "
        f"greedy), {args.history_rooms} greedy history rooms; abusers: {args.expensive_rooms} "
        f"rooms of {args.expensive}, {args.spectators} slow spectators, {args.readers} history "
        f"readers; {args.seconds:g} s timed after {args.settle:g} s; {os.cpu_count()} cores, "
        "shared by the server, its workers and these clients",
        flush=True,
    )
    phases = []
    kinds: tuple[tuple[bool, str | None], ...] = {
        "both": ((False, None), (True, None)),
        "baseline": ((False, None),),
        "abusers": ((True, None),),
        "floods": ((False, None), (False, "pings"), (False, "decoy"), (False, "history")),
        "pings": ((False, "pings"),),
        "decoy": ((False, "decoy"),),
        "history": ((False, "history"),),
    }[args.phase]
    for round_ in range(1, args.rounds + 1):
        for abusers, flood in kinds:
            name = ("abusers" if abusers else flood or "baseline") + (
                f" {round_}" if args.rounds > 1 else ""
            )
            phases.append(run_phase(args, name, abusers, flood))
            print(f"{name}: done (load average {os.getloadavg()[0]:.2f})", flush=True)
    report(args, phases)


if __name__ == "__main__":
    main()
