"""The test session: with ``PAOHUZI_TEST_STORE=postgres``, one throwaway PostgreSQL for all
workers, started here (tests/pgcluster.py); JAX's compilation cache shared by every test."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from tests.pgcluster import ENV, URL, Cluster, wait_ready

_cluster: Cluster | None = None

# The trainer's tests (test_deep, and the processes they start) compile the same JAX
# functions again and again: a compilation cache on disk, shared by the whole run and kept
# from run to run, compiles each once (D163: test_deep.py 63 -> 41 CPU-s from an empty cache).
# Set before any test imports JAX; the processes the tests start inherit it.
os.environ.setdefault(
    "JAX_COMPILATION_CACHE_DIR",
    str(Path(tempfile.gettempdir()) / f"paohuzi-tests-jax-{os.getuid()}"),
)
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "0")


def pytest_configure(config: pytest.Config) -> None:
    global _cluster
    worker = hasattr(config, "workerinput")
    if os.environ.get(ENV) == "postgres" and not worker and not os.environ.get(URL):
        _cluster = Cluster()
        _cluster.start()
        os.environ[URL] = _cluster.url
        wait_ready(_cluster.url)


def pytest_unconfigure(config: pytest.Config) -> None:
    global _cluster
    if _cluster is not None:
        _cluster.stop()
        os.environ.pop(URL, None)
        _cluster = None
