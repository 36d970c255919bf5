"""Worker processes that end with the process that started them (issue 22).

A worker pool's processes (the server's bots, reviews and replays, a tournament's games) wait
on a pipe from their parent for work; a parent killed with SIGKILL runs no shutdown, so they
waited on for ever (one expert worker and its multiprocessing resource tracker ran on for 48
minutes after a ``kill -9`` of its server; the tracker ends by itself once the last worker has
closed its end of the tracker's pipe). Each worker therefore starts by :func:`die_with_parent`:

* on Linux, ``prctl(PR_SET_PDEATHSIG)`` asks the kernel for a signal when the parent goes. The
  kernel sends it when the *thread* that started the worker ends, so the signal is not
  SIGKILL but SIGUSR1, whose handler ends the worker only if its parent process is gone;
* everywhere, a daemon thread looks at ``os.getppid()`` every :data:`WATCH_EVERY` seconds: an
  orphan is adopted by another process (init, a subreaper), so its parent id changes.

A worker that finds its parent gone exits at once with :data:`EXIT_ORPHANED`, without running
pending work or cleanup: its results would have nobody to go to.

A worker also ends quietly on SIGINT (:func:`leave`): a Ctrl-C reaches every process of the
terminal's foreground group, and the parent, which handles it, ends its pool. With the default
handler a worker printed a traceback ("Process SpawnPoolWorker-1: … KeyboardInterrupt") beside
the parent's clean stop; ignoring SIGINT instead (tried) sometimes left the stopped run waiting
on its workers (a Ctrl-C'd ``simulate --workers 2`` ran on past 60 s in 2 of 4 runs of a loaded
test suite). ``SystemExit`` ends the worker as the default handler did, without a word.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1
"""``prctl`` option: the signal the kernel sends a process when its parent ends (linux/prctl.h)."""
EXIT_ORPHANED = 70
"""A worker's exit status when it ended because its parent had gone."""
WATCH_EVERY = 1.0
"""Seconds between two looks at the parent process id by the fallback thread."""


def die_with_parent(parent: int) -> None:
    """In a worker process, first thing: end whenever ``parent`` (the pid of the process that
    started the worker, taken there) has ended; at once if it already has."""

    def check(*_: object) -> None:
        if os.getppid() != parent:
            os._exit(EXIT_ORPHANED)

    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError, ValueError):
            signal.signal(signal.SIGUSR1, check)
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGUSR1, 0, 0, 0)
    check()  # the parent may have gone before the signal was asked for

    def watch() -> None:
        while True:
            time.sleep(WATCH_EVERY)
            check()

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


EXIT_INTERRUPTED = 130
"""A worker's exit status when a Ctrl-C ended it (128 + SIGINT, as a shell reports it)."""


def leave(*_: object) -> None:
    """A worker's SIGINT handler: end now, quietly (``SystemExit`` lets go of what the worker
    holds on the way out; the process prints no traceback for it)."""
    raise SystemExit(EXIT_INTERRUPTED)


def start_worker(parent: int, nice: int = 0) -> None:
    """A pool's ``initializer``: :func:`die_with_parent`, end quietly on SIGINT (:func:`leave`:
    the parent's to report), then lower the scheduling priority by ``nice``. Give it
    ``initargs=(os.getpid(), nice)`` from the process making the pool."""
    die_with_parent(parent)
    signal.signal(signal.SIGINT, leave)
    if nice:
        os.nice(nice)
