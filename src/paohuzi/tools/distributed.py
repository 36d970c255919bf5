"""Running many independent jobs: in this process, in local processes, or on a Ray cluster.

Every job is a pure function of its arguments (seeded decks and choices), so all backends
give identical results, in job order.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from paohuzi.tools.workers import start_worker

J = TypeVar("J")
R = TypeVar("R")

BACKENDS = ("local", "ray")


def run_jobs(
    fn: Callable[[J], R],
    jobs: Sequence[J],
    *,
    backend: str = "local",
    workers: int = 1,
    address: str | None = None,
) -> Iterator[R]:
    """``fn(job)`` for every job, yielded in job order as results come in.

    ``local`` runs in this process (``workers`` ≤ 1) or a pool of ``workers`` processes;
    ``ray`` submits one Ray task per job, to the cluster at ``address`` or to a local Ray
    instance started for the purpose.
    """
    if backend == "local":
        if workers <= 1:
            yield from map(fn, jobs)
            return
        context = multiprocessing.get_context("spawn")
        # Workers end with this process, even killed (paohuzi.tools.workers).
        with context.Pool(workers, start_worker, (os.getpid(),)) as pool:
            yield from pool.imap(fn, jobs)
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
    refs = [remote.remote(job) for job in jobs]
    for ref in refs:
        yield ray.get(ref)


def batches(count: int, size: int) -> list[range]:
    """``range(count)`` in consecutive batches of ``size``."""
    return [range(start, min(count, start + size)) for start in range(0, count, size)]
