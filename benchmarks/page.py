"""Page weight and first render of the web table on loopback (issues 12 and 24).

    python benchmarks/page.py [--runs 5]

Starts ``paohuzi serve`` on a free port and opens a seat's invite link in headless Chromium
(Debian's, as the tests do), each run in a fresh browser context (a first visit), then reloads
it (a repeat visit: the same context, its cache). Prints the bytes over the wire (headers and
encoded bodies, as Chromium counts them) of every file the page loads (HTML, scripts, styles,
fonts) on a first and on a repeat visit, and the time from navigation to the table drawn in the
shipped fonts (the hand's cards on screen and ``document.fonts.ready``) on each, with the
machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

from playwright.sync_api import Page, Response, sync_playwright

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRAWN = """
new MutationObserver((_, observer) => {
  if (document.querySelector("#hand .card")) {
    observer.disconnect();
    document.fonts.ready.then(() => { window.__drawn = performance.now(); });
  }
}).observe(document, {childList: true, subtree: true});
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen(
            [sys.executable, "-m", "paohuzi", "serve", "--port", str(port)]
            + ["--db", str(Path(tmp) / "page.db"), "--bot-delay", "0.4"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            for _ in range(200):
                try:
                    urllib.request.urlopen(base + "/healthz", timeout=1).read()
                    break
                except OSError:
                    time.sleep(0.05)
            measure(base, args.runs)
        finally:
            server.terminate()
            server.wait()


def transferred(responses: list[Response]) -> dict[str, int]:
    """Bytes over the wire of each of the page's own files (the API left out): headers and
    encoded body, nothing for a file the cache gave."""
    sizes: dict[str, int] = {}
    for response in responses:
        path = urllib.parse.urlsplit(response.url).path
        if path.startswith("/api/"):
            continue
        size = response.request.sizes()
        sizes[path] = max(0, size["responseHeadersSize"] + size["responseBodySize"])
    return sizes


def drawn(page: Page) -> float:
    deadline = time.monotonic() + 60
    while page.evaluate("window.__drawn === undefined"):
        if time.monotonic() > deadline:
            raise SystemExit("page.py: the table was not drawn within a minute")
        page.wait_for_timeout(20)
    found: float = page.evaluate("window.__drawn")
    return found


def measure(base: str, runs: int) -> None:
    load = os.getloadavg()[0]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"], headless=True)
        times: dict[str, list[float]] = {"first": [], "repeat": []}
        sizes: dict[str, dict[str, int]] = {}
        seen: list[Response] = []
        for _ in range(runs):
            request = urllib.request.Request(
                base + "/api/rooms",
                data=json.dumps({"bots": [None, "greedy", "greedy"], "timer": 0}).encode(),
                headers={"Content-Type": "application/json"},
            )
            room = json.load(urllib.request.urlopen(request))
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            page = context.new_page()
            page.add_init_script(DRAWN)
            seen.clear()
            page.on("response", lambda response: seen.append(response))
            page.goto(base + f"/room/{room['room']}#token={room['seats'][0]['token']}")
            times["first"].append(drawn(page))
            sizes["first"] = transferred(seen)
            seen.clear()
            page.reload()
            times["repeat"].append(drawn(page))
            sizes["repeat"] = transferred(seen)
            context.close()
        browser.close()
    print(f"{'first':>9} {'repeat':>9}  bytes over the wire, by file (the last run)")
    for name, size in sorted(sizes["first"].items(), key=lambda item: -item[1]):
        print(f"{size / 1024:6.1f} KB {sizes['repeat'].get(name, 0) / 1024:6.1f} KB  {name}")
    for visit in ("first", "repeat"):
        print(
            f"{visit} visit: {sum(sizes[visit].values()) / 1024:.1f} KB (HTML + JS + CSS + fonts),"
            f" drawn after median {statistics.median(times[visit]):.0f} ms,"
            f" worst {max(times[visit]):.0f} ms over {runs} loads"
        )
    print(f"load average {load:.2f} before, {os.getloadavg()[0]:.2f} after ({os.cpu_count()} CPUs)")


if __name__ == "__main__":
    main()
