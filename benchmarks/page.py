"""Page weight and first render of the web table on loopback (issue 12).

    python benchmarks/page.py [--runs 5]

Starts ``paohuzi serve`` on a free port, opens a room in headless Chromium (Debian's, as the
tests do) and prints the bytes of every file the page loads (HTML, scripts, styles, fonts) and
the time from navigation to the table drawn in the shipped fonts: the hand's cards on screen
and ``document.fonts.ready``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

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


def measure(base: str, runs: int) -> None:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"], headless=True)
        times = []
        sizes: dict[str, int] = {}
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
            page.goto(base + f"/room/{room['room']}#token={room['seats'][0]['token']}")
            page.wait_for_function("window.__drawn !== undefined")
            times.append(page.evaluate("window.__drawn"))
            entries = page.evaluate(
                "performance.getEntriesByType('navigation').concat("
                "performance.getEntriesByType('resource'))"
                ".filter(e => !e.name.includes('/api/'))"
                ".map(e => [e.name.replace(location.origin, ''), e.encodedBodySize])"
            )
            sizes = {name.split("?")[0]: size for name, size in entries}
            context.close()
        browser.close()
    for name, size in sorted(sizes.items(), key=lambda item: -item[1]):
        print(f"{size / 1024:8.1f} KB  {name}")
    print(f"{sum(sizes.values()) / 1024:8.1f} KB  page weight (HTML + JS + CSS + fonts)")
    print(
        f"first render: median {statistics.median(times):.0f} ms, "
        f"worst {max(times):.0f} ms over {runs} loads (fresh browser context each)"
    )


if __name__ == "__main__":
    main()
