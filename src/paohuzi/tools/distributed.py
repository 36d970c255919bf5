"""Running many independent jobs: in this process, in local processes, or on a Ray cluster.

Every job is a pure function of its arguments (seeded decks and choices), so all backends
give identical results, in job order.

Jobs are handed out a few at a time (:data:`AHEAD` a worker), not all at once, so that a run
told to stop (``stop``) hands out no more and finishes only the few under way (issue 26).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from paohuzi.tools.workers import worker_pool

J = TypeVar("J")
R = TypeVar("R")

BACKENDS = ("local", "ray")
AHEAD = 2
"""Jobs handed out and unfinished, per worker: one running, one waiting to start."""


def run_jobs(
    fn: Callable[[J], R],
    jobs: Iterable[J],
    *,
    backend: str = "local",
    workers: int = 1,
    address: str | None = None,
    stop: Callable[[], bool] | None = None,
) -> Iterator[R]:
    """``fn(job)`` for every job, yielded in job order as results come in.

    ``local`` runs in this process (``workers`` ≤ 1) or a pool of ``workers`` processes;
    ``ray`` submits one Ray task per job, to the cluster at ``address`` or to a local Ray
    instance started for the purpose. ``stop`` is asked before each job after the first is
    handed out (so between two results, in the caller's thread): once it answers True, no
    further job is, and those handed out already are finished and yielded.
    """
    if backend == "local":
        if workers <= 1:
            for i, job in enumerate(jobs):
                if i and stop is not None and stop():
                    return
                yield fn(job)
            return
        # Workers end with this process, even killed (paohuzi.tools.workers).
        with worker_pool(workers) as pool:
            yield from _ahead(lambda job: pool.apply_async(fn, (job,)).get, jobs, workers, stop)
        return
    if backend != "ray":
        raise ValueError(f"unknown backend {backend!r} ({', '.join(BACKENDS)})")
    try:
        import ray
    except ImportError:
        raise ValueError("the ray backend needs Ray: pip install 'paohuzi[ray]'") from None
    if not ray.is_initialized():
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if address:
            options["address"] = address
        elif workers > 1:
            options["num_cpus"] = workers
        ray.init(**options)
    remote = ray.remote(fn)

    def submit(job: J) -> Callable[[], R]:
        ref = remote.remote(job)
        return lambda: ray.get(ref)

    resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
    yield from _ahead(submit, jobs, max(workers, int(resources.get("CPU", 1))), stop)


def _ahead(
    submit: Callable[[J], Callable[[], R]],
    jobs: Iterable[J],
    workers: int,
    stop: Callable[[], bool] | None,
) -> Iterator[R]:
    """The results of ``jobs`` in order, :data:`AHEAD` jobs a worker handed out (``submit``
    hands one out and gives what waits for its result), none after ``stop`` answers True.
    ``jobs`` is taken one at a time as they go out: a run of a hundred million deals does not
    make them all first."""
    waiting: deque[Callable[[], R]] = deque()
    pending = iter(jobs)
    handed = 0
    while True:
        while len(waiting) < AHEAD * workers and not (handed and stop is not None and stop()):
            job = next(pending, _END)
            if job is _END:
                break
            waiting.append(submit(job))  # type: ignore[arg-type]
            handed += 1
        if not waiting:
            return
        yield waiting.popleft()()


_END = object()


def batches(count: int, size: int) -> list[range]:
    """``range(count)`` in consecutive batches of ``size``."""
    return [range(start, min(count, start + size)) for start in range(0, count, size)]
