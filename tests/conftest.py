"""The test session: with ``PAOHUZI_TEST_STORE=postgres``, one throwaway PostgreSQL for all
workers, started here (tests/pgcluster.py)."""

from __future__ import annotations

import os

import pytest

from tests.pgcluster import ENV, URL, Cluster, wait_ready

_cluster: Cluster | None = None


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
