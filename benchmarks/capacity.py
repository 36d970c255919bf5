"""The capacity model's figures, measured (issue 16, docs/capacity.md), and what they mean for
1,000, 10,000 and 100,000 tables.

Run: ``python benchmarks/capacity.py [--postgres] [--rooms 40] [--seconds 20] [--idle 500]``.
It starts one ``paohuzi serve`` (SQLite, or a throwaway PostgreSQL) and measures

* **actions per CPU-second** of the server process: rooms of client-side random players
  playing at once, actions handled ÷ CPU seconds the server took. Per CPU-second rather than
  per wall second, so a machine shared with other work still gives the server's own cost;
* **database writes per action**: PostgreSQL's own counters (``pg_stat_database``:
  transactions committed, rows inserted and updated) over the run ÷ actions;
* **memory per room**: the server's resident memory before and after ``--idle`` rooms with a
  dealt hand and one watcher each.

Then it prints what a hall needs for each number of tables at a table's pace (``--pace``:
actions a second a table of people makes, bots and timeouts included).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server import free_port, post, run
from websockets.asyncio.client import connect


def rss(pid: int) -> int:
    """Resident memory of a process, in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pg_counters(url: str) -> tuple[int, int]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as pg:
        pg.execute("SELECT pg_stat_clear_snapshot()")
        row = pg.execute(
            "SELECT xact_commit, tup_inserted + tup_updated FROM pg_stat_database"
            " WHERE datname = current_database()"
        ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


async def idle_rooms(base: str, count: int) -> list[Any]:
    """Rooms of three people, dealt, one watcher each, nobody acting."""
    made = [
        post(base + "/api/rooms", {"bots": [None, None, None], "timer": 0}) for _ in range(count)
    ]
    ws_base = base.replace("http", "ws")
    sockets = []
    for room in made:
        ws = await connect(f"{ws_base}/ws/{room['room']}", max_size=2**22)
        await ws.send(json.dumps({"type": "hello"}))  # a spectator's: no waiting for one (D71)
        await ws.recv()
        sockets.append(ws)
    return sockets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", action="store_true")
    parser.add_argument("--rooms", type=int, default=40, help="rooms playing at once")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--idle", type=int, default=500, help="rooms for memory per room")
    parser.add_argument(
        "--pace", type=float, default=0.5, help="actions a second one table of people makes"
    )
    args = parser.parse_args()
    cluster: Any = None
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "capacity.db")
        if args.postgres:
            sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
            from tests.pgcluster import Cluster, wait_ready

            cluster = Cluster()
            cluster.start()
            wait_ready(cluster.url)
            db = cluster.url
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "paohuzi", "serve", "--port", str(port), "--db", db]
            + ["--bot-delay", "0", "--dev-seeded-deals", "--max-rooms", "100000"]
            + ["--rooms-per-minute", "100000", "--rooms-per-address", "100000"]
            + ["--messages-per-address", "1000000", "--connections-per-minute", "1000000"],
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
            before_cpu = cpu_seconds(server.pid)
            before_db = pg_counters(db) if cluster else (0, 0)
            asyncio.run(run([base], args.rooms, args.seconds, 0.0, [], "holder"))
            spent = cpu_seconds(server.pid) - before_cpu
            after_db = pg_counters(db) if cluster else (0, 0)
            actions = json.load(urllib.request.urlopen(base + "/api/metrics"))["actions"]
            memory_before = rss(server.pid)

            async def hold() -> int:
                sockets = await idle_rooms(base, args.idle)
                found = rss(server.pid)
                for ws in sockets:
                    await ws.close()
                return found

            memory_after = asyncio.run(hold())
        finally:
            server.terminate()
            server.wait()
            if cluster is not None:
                cluster.stop()
    per_core = actions / spent
    per_room = (memory_after - memory_before) / args.idle
    commits = (after_db[0] - before_db[0]) / actions if cluster else None
    rows = (after_db[1] - before_db[1]) / actions if cluster else None
    print(f"store: {'PostgreSQL' if cluster else 'SQLite'}; {actions} actions in {spent:.1f} CPU s")
    print(f"actions per server CPU-second (one core): {per_core:,.0f}")
    if commits is not None and rows is not None:
        print(f"database per action: {commits:.2f} commits, {rows:.2f} rows written")
    print(f"memory per room (dealt, one watcher): {per_room / 1024:,.0f} KiB")
    print(f"at {args.pace:g} actions/s a table, cores busy at 50% headroom:")
    for tables in (1_000, 10_000, 100_000):
        rate = tables * args.pace
        cores = rate / per_core / 0.5
        line = (
            f"  {tables:>7,} tables: {rate:>8,.0f} actions/s, {cores:6.1f} server cores, "
            f"{tables * per_room / 2**30:5.1f} GiB of rooms"
        )
        if commits is not None:
            line += f", {rate * commits:>8,.0f} commits/s"
        print(line)


if __name__ == "__main__":
    main()
