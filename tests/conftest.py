"""The test session: with ``PAOHUZI_TEST_STORE=postgres``, one throwaway PostgreSQL for all
workers, started here (tests/pgcluster.py); JAX's compilation cache shared by every test."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

from tests.pgcluster import ENV, URL, Cluster, wait_ready

_cluster: Cluster | None = None

# The trainer's tests (test_deep, and the processes they start) compile the same JAX
# functions again and again: a compilation cache on disk shared by the whole run compiles each
# once (D163: test_deep.py 63 -> 41 CPU-s). A new directory each run, made by the first process
# to import this file (xdist's workers and the processes tests start inherit the variable), and
# removed at its end: an entry cut short (a run killed while writing) is never read again.
_jax_cache: str | None = None
if "JAX_COMPILATION_CACHE_DIR" not in os.environ:
    _jax_cache = tempfile.mkdtemp(prefix="paohuzi-tests-jax-")
    os.environ["JAX_COMPILATION_CACHE_DIR"] = _jax_cache
    os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")


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
    if _jax_cache is not None:
        shutil.rmtree(_jax_cache, ignore_errors=True)
    if _cluster is not None:
        _cluster.stop()
        os.environ.pop(URL, None)
        _cluster = None
