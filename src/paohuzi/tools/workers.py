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
A worker still starting (Python importing what unpickling the job needs, about a second) had
no such handler yet and printed a ``KeyboardInterrupt`` traceback: :func:`worker_pool` makes
its workers with SIGINT blocked (a blocked signal stays blocked through fork and exec), and
:func:`start_worker` unblocks it once :func:`leave` handles it; a Ctrl-C that came meanwhile
is then taken, by both.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from multiprocessing import resource_tracker
from multiprocessing.pool import Pool

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
    if hasattr(signal, "pthread_sigmask"):  # blocked by worker_pool while the worker started
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    if nice:
        os.nice(nice)


@contextlib.contextmanager
def worker_pool(workers: int) -> Iterator[Pool]:
    """A pool of ``workers`` spawned processes that run :func:`start_worker` (they end with
    this process, and quietly on a Ctrl-C), terminated on leaving. SIGINT is blocked in this
    thread while the pool makes them, so they start with it blocked until they handle it; a
    Ctrl-C meanwhile is raised here once the pool is made (and then terminates it)."""
    context = multiprocessing.get_context("spawn")
    if not hasattr(signal, "pthread_sigmask"):
        with context.Pool(workers, start_worker, (os.getpid(),)) as pool:
            yield pool
        return
    # multiprocessing's resource tracker, started by the pool's first lock, unblocks SIGINT
    # in this thread once it is spawned: start it before.
    resource_tracker.ensure_running()
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        made = context.Pool(workers, start_worker, (os.getpid(),))
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        raise
    with made:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        yield made
