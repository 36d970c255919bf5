"""A throwaway PostgreSQL for the tests (issue 16): Debian's binaries, a cluster in a temporary
folder, listening on loopback only, stopped at the end.

``PAOHUZI_TEST_STORE=postgres`` runs the server tests on it: :func:`db_url` then turns each
test's database path into a schema of its own in the one cluster (schemas are made in
milliseconds, databases in a tenth of a second each).
"""

from __future__ import annotations

import glob
import hashlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from tests import clock

ENV = "PAOHUZI_TEST_STORE"
URL = "PAOHUZI_TEST_PG_URL"
"""Set by the test session for its workers: the cluster's base URL."""
LOG = "PAOHUZI_TEST_PG_LOG"
"""A folder: when set, every cluster logs each statement it runs (``log_statement=all``) and
leaves its log there when stopped (``scripts/pg_statements.py`` compares two runs', D160)."""


def on_postgres() -> bool:
    """Whether this test run stores in PostgreSQL."""
    return os.environ.get(ENV) == "postgres"


sqlite_only = pytest.mark.skipif(
    os.environ.get(ENV) == "postgres", reason="about the SQLite file itself"
)


def postgres_bin() -> Path | None:
    """The folder of Debian's PostgreSQL server binaries (newest), if installed."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).resolve().parent if initdb else None


class Cluster:
    """``initdb`` + ``pg_ctl start`` on a free loopback port; as the ``postgres`` user when
    run as root (PostgreSQL refuses to run as root)."""

    def __init__(self) -> None:
        binaries = postgres_bin()
        if binaries is None:
            raise RuntimeError("PostgreSQL is not installed: apt-get install postgresql")
        self.bin = binaries
        self.folder = Path(tempfile.mkdtemp(prefix="paohuzi-pg-"))
        self.data = self.folder / "data"
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port: int = s.getsockname()[1]
        self.user: str | None = None
        if os.geteuid() == 0:
            self.user = "postgres"
            account = pwd.getpwnam(self.user)
            os.chown(self.folder, account.pw_uid, account.pw_gid)

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *command: str) -> None:
        prefix = ["runuser", "-u", self.user, "--"] if self.user else []
        subprocess.run(
            [*prefix, *command], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )

    def start(self) -> None:
        self._run(
            str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "-A", "trust",
            "--no-sync", "-E", "UTF8",
        )  # fmt: skip
        # Durability as a real server keeps it (fsync on), but no socket folder of its own.
        options = f"-h 127.0.0.1 -p {self.port} -k {self.folder} -c max_connections=300"
        if os.environ.get(LOG):
            options += " -c log_statement=all"
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options, "-w",
            "-l", str(self.folder / "log"), "start",
        )  # fmt: skip

    def stop(self) -> None:
        try:
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        finally:
            log = self.folder / "log"
            if (folder := os.environ.get(LOG)) and log.exists():
                os.makedirs(folder, exist_ok=True)
                shutil.copy(log, Path(folder) / f"{self.folder.name}.log")
            shutil.rmtree(self.folder, ignore_errors=True)


def db_url(path: Path | str) -> str:
    """The database a test names by ``path``: that file (SQLite), or on PostgreSQL a schema of
    its own, made now, for the same path the same schema (a restarted server finds its rooms)."""
    base = os.environ.get(URL)
    if os.environ.get(ENV) != "postgres" or not base:
        return str(path)
    import psycopg

    schema = "t" + hashlib.sha1(str(path).encode()).hexdigest()[:20]
    with psycopg.connect(base, autocommit=True) as connection:
        connection.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
    return f"{base}?options=-csearch_path%3D{schema}"


def wait_ready(url: str, seconds: float = clock.PATIENCE) -> None:
    import psycopg

    deadline = clock.deadline(seconds)
    while True:
        try:
            psycopg.connect(url).close()
            return
        except psycopg.OperationalError:
            if clock.expired(deadline):
                raise
            time.sleep(0.1)
