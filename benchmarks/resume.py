"""A ladder killed halfway and resumed gives the table of an uninterrupted run (issue 26).

    nice -n 10 python benchmarks/resume.py [--deals 2000] [--bots random,greedy] [--workers 1]

Runs ``paohuzi ladder --out FILE.jsonl --json`` three times in a temporary directory (the
native core where it serves the rules, as ``paohuzi`` chooses): once uninterrupted; once
killed with SIGKILL as soon as its deal log holds half the deals (a last line may be cut off);
then that run again with ``--resume``. Then each log is read back with ``--resume`` (every deal
done, none played) for the text table. Compared byte for byte: the JSON results, the text
tables and the deal logs (neither holds a wall time: the only figures that differ between the
runs are their wall times, printed here). Exits 1 if anything differs.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def deals_in(log: Path) -> tuple[int, int]:
    """The whole deal lines in a run's log, and the bytes of a last line cut off."""
    raw = log.read_bytes() if log.exists() else b""
    lines = raw.count(b"\n")
    return max(0, lines - 1), len(raw) - (raw.rfind(b"\n") + 1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", default="random,greedy")
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=26)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    ladder = [sys.executable, "-m", "paohuzi", "ladder", "--bots", args.bots]
    ladder += ["--deals", str(args.deals), "--seed", str(args.seed)]
    ladder += ["--workers", str(args.workers)]

    def run(*extra: str) -> tuple[bytes, float]:
        start = time.monotonic()
        done = subprocess.run([*ladder, *extra], capture_output=True, check=True)
        return done.stdout, time.monotonic() - start

    from paohuzi.engine.rules import HUNAN
    from paohuzi.native.core import serves

    print(f"{' '.join(ladder[2:])}; native core: {serves(HUNAN)}")
    with tempfile.TemporaryDirectory() as tmp:
        whole, cut = Path(tmp, "whole.jsonl"), Path(tmp, "cut.jsonl")
        whole_json, whole_time = run("--out", str(whole), "--json")
        print(f"uninterrupted: {whole_time:.1f} s")

        start = time.monotonic()
        killed = subprocess.Popen(
            [*ladder, "--out", str(cut), "--json"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        while deals_in(cut)[0] < args.deals // 2 and killed.poll() is None:
            time.sleep(0.01)
        os.kill(killed.pid, signal.SIGKILL)
        killed.wait()
        first_time = time.monotonic() - start
        kept, partial = deals_in(cut)
        print(
            f"killed (SIGKILL) after {first_time:.1f} s with {kept} deals in its log"
            + (f" and a last line cut off after {partial} bytes" if partial else "")
        )
        resumed_json, resumed_time = run("--resume", str(cut), "--json")
        both = first_time + resumed_time
        print(f"resumed: {resumed_time:.1f} s (killed + resumed: {both:.1f} s)")

        whole_text, _ = run("--resume", str(whole))
        resumed_text, _ = run("--resume", str(cut))
        same = {
            "JSON result": whole_json == resumed_json,
            "text table": whole_text == resumed_text,
            "deal log": whole.read_bytes() == cut.read_bytes(),
        }
        for what, alike in same.items():
            print(f"{what}: {'identical' if alike else 'DIFFERENT'}")
        print(resumed_text.decode("utf-8"), end="")
    return 0 if all(same.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
