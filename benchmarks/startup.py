"""How soon a server listens, on an empty database and on one with stored rooms (issue 21).

    python benchmarks/startup.py [--rooms 1000] [--runs 3]

Stores ``--rooms`` rooms of three people a few random actions into their hands (as
``tests/server/test_startup.py`` does), then starts ``paohuzi serve`` on a free loopback port
``--runs`` times on each database and prints the seconds from the process's start to its first
answer of ``/api/metrics`` (Python's own start included). Startup replays no stored room (the
test counts that); this prints what it costs in time on this machine, with its load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.server.conftest import Server
from tests.server.test_startup import stored_rooms


def listen_seconds(db: Path) -> float:
    server = Server(db)
    started = time.monotonic()
    server.start()  # returns once /api/metrics answers
    took = time.monotonic() - started
    server.stop()
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        empty, many = Path(tmp) / "empty.db", Path(tmp) / "many.db"
        made = time.monotonic()
        stored_rooms(many, args.rooms)
        print(f"stored {args.rooms} rooms in {time.monotonic() - made:.1f} s")
        for name, db in (("empty database", empty), (f"{args.rooms} stored rooms", many)):
            times = [listen_seconds(db) for _ in range(args.runs)]
            print(
                f"{name}: listening after median {statistics.median(times):.2f} s, "
                f"max {max(times):.2f} s over {args.runs} starts"
            )
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
