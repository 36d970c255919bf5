"""A real server process for the browser and restart tests."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests import clock
from tests.pgcluster import db_url

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that drives the browser ``browser``: the PostgreSQL pass of scripts/test
    leaves them out (D160: every statement they send the store, the other server tests send)."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Server:
    """``paohuzi serve`` in a subprocess on a free port of 127.0.0.1."""

    def __init__(self, db: Path, bot_delay: float = 0.0) -> None:
        self.db = db
        self.port = free_port()
        self.bot_delay = bot_delay
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        command = [sys.executable, "-m", "paohuzi", "serve", "--port", str(self.port)]
        command += [
            "--db",
            db_url(self.db),
            "--bot-delay",
            str(self.bot_delay),
            "--dev-seeded-deals",
        ]
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = clock.deadline()
        while not clock.expired(deadline):
            try:
                urllib.request.urlopen(self.url + "/api/metrics", timeout=1).read()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("the server did not start")

    def kill(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=clock.PATIENCE)

    def post(self, path: str, body: dict[str, Any]) -> Any:
        request = urllib.request.Request(
            self.url + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )
        return json.load(urllib.request.urlopen(request, timeout=clock.PATIENCE))

    def get(self, path: str) -> Any:
        return json.load(urllib.request.urlopen(self.url + path, timeout=clock.PATIENCE))


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    found = Server(tmp_path / "server.db")
    found.start()
    yield found
    found.stop()


CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One headless Chromium (Debian's) for the tests of a module."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        found = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield patient(found)
        found.close()


MOTION = "no-preference" if os.environ.get("PAOHUZI_SCREENSHOTS") else "reduce"
"""The pages' ``prefers-reduced-motion`` unless a test asks (``reduced_motion=``): reduced, so
that no card flies and nothing glows, as the page does for a player who asks it (D163); the
tests of the table in motion ask for it (the whole hand of test_web, test_web_layout's whole
hands), and screenshots are taken of the page as most players see it, moving."""


def patient(browser: Browser) -> Browser:
    """``browser`` whose new contexts and pages wait :data:`clock.PATIENCE` for a selector,
    a navigation or a click, not Playwright's 30 s: a wait there is for progress (a bot's
    frame, a turn that comes late in a hand, a server back up), which a loaded machine
    slows but never stops (tests/clock.py); and which reduce motion unless asked
    (:data:`MOTION`)."""
    new_context, new_page = browser.new_context, browser.new_page

    def context(*args: Any, **kwargs: Any) -> BrowserContext:
        kwargs.setdefault("reduced_motion", MOTION)
        made = new_context(*args, **kwargs)
        made.set_default_timeout(clock.PATIENCE * 1000)
        return made

    def page(*args: Any, **kwargs: Any) -> Page:
        kwargs.setdefault("reduced_motion", MOTION)
        made = new_page(*args, **kwargs)
        made.set_default_timeout(clock.PATIENCE * 1000)
        return made

    browser.new_context = context  # type: ignore[method-assign]
    browser.new_page = page  # type: ignore[method-assign]
    return browser


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server for the tests that only read or create rooms (each its own)."""
    found = Server(tmp_path_factory.mktemp("site") / "server.db")
    found.start()
    yield found
    found.stop()


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = os.environ.get("PAOHUZI_SCREENSHOTS")
    path = Path(folder) if folder else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path
