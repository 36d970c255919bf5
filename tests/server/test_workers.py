"""Workers die with their server (issue 22): after a kill -9 of a server, an expert worker and
its multiprocessing resource tracker ran on for 48 minutes."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from tests import clock
from tests.server.harness import LoggedServer

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _parents() -> dict[int, int]:
    """Every live process's parent, from /proc (a zombie counts as gone)."""
    found: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue  # it ended meanwhile
        state, ppid = stat.rpartition(")")[2].split()[:2]
        if state != "Z":
            found[int(entry)] = int(ppid)
    return found


def descendants(pid: int) -> set[int]:
    """The processes below ``pid``: its children, theirs, and so on."""
    parents = _parents()
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _wait(what: str, ready: object, seconds: float = clock.PATIENCE) -> None:
    deadline = clock.deadline(seconds)
    while not callable(ready) or not ready():
        assert not clock.expired(deadline), f"no {what} within {seconds:g} s"
        time.sleep(0.2)


SEED = 3
"""The deal of the test's room: its dealer, seat 0, has decisions to review."""


def test_every_worker_ends_when_its_server_is_killed(tmp_path: Path) -> None:
    """A server with its expert bots', review and replay workers (and their resource tracker)
    killed with SIGKILL: every process it started is gone soon after."""
    # A fixed deal (seed): a random one may give seat 0 no decision with more than one choice
    # (a dealer's 天胡, a hand won before its turn), and a review of no decision starts no
    # worker (it failed CI once that way).
    server = LoggedServer(tmp_path / "db", "--dev-seeded-deals")
    server.start()
    started: set[int] = set()
    try:
        assert server.process is not None
        pid = server.process.pid
        body = {"bots": ["expert@0.05s", "expert@0.05s", "greedy"], "timer": 0, "seed": SEED}
        room = server.post("/api/rooms", body)["room"]
        _wait("finished hand", lambda: server.get(f"/api/rooms/{room}/hands"))
        path = f"/api/rooms/{room}/hands/0/review"
        server.post(path, {"seat": 0, "samples": 1})

        def reviewing() -> bool:
            status = server.get(path + "?seat=0&samples=1")
            assert status["state"] != "failed", status
            return bool(status["total"] or status["state"] in ("done", "timeout"))

        _wait("review", reviewing)
        assert server.get(path + "?seat=0&samples=1")["total"] > 0, "no decision to review"
        server.get(f"/api/rooms/{room}/hands/0/frames")
        # Bot workers, a review worker, a replay worker, and the resource tracker.
        _wait("workers", lambda: len(descendants(pid)) >= 4)
        started = descendants(pid)
        os.kill(pid, signal.SIGKILL)
        server.process.wait()
        # A generous deadline: the point is that they end, not how fast (a loaded machine).
        deadline = clock.deadline()
        while started & set(_parents()) and not clock.expired(deadline):
            time.sleep(0.2)
        left = started & set(_parents())
        assert not left, f"still running {clock.PATIENCE:g} s after the server's kill -9: {left}"
    finally:
        for orphan in started & set(_parents()):
            os.kill(orphan, signal.SIGKILL)  # the processes this test's server started
        server.stop()
