"""The ``paohuzi`` commands as a new user meets them (issue 17): help texts, a taken port, the
files ``serve`` leaves behind. Run as separate processes, as a user runs them."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent


def paohuzi(
    *args: str, cwd: Path | None = None, encoding: str = "utf-8"
) -> subprocess.CompletedProcess[str]:
    # A wide terminal: argparse keeps each option's help on its own line.
    env = dict(os.environ, COLUMNS="200", PYTHONIOENCODING=encoding)
    return subprocess.run(
        [sys.executable, "-m", "paohuzi", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        stdin=subprocess.DEVNULL,
        timeout=60,
    )


def option_help(text: str) -> dict[str, str]:
    """Each option of a ``--help`` text and the help written beside it."""
    options = text.split("options:\n", 1)[1]
    entries = re.split(r"\n(?=  -)", options.strip("\n"))
    helps = {}
    for entry in entries:
        invocation, _, written = entry.strip().partition("  ")
        helps[invocation.split(",")[-1].split()[0]] = " ".join(written.split())
    return helps


def test_tournament_help_prints_a_percent_sign_once() -> None:
    done = paohuzi("tournament", "--help")
    assert done.returncode == 0
    assert "95% confidence" in done.stdout and "%%" not in done.stdout


def test_serve_help_explains_every_option_and_where_the_database_goes() -> None:
    done = paohuzi("serve", "--help")
    assert done.returncode == 0
    helps = option_help(done.stdout)
    assert {"--host", "--port", "--db", "--bot-delay"} <= set(helps)
    assert [name for name, written in helps.items() if not written] == []
    assert "paohuzi.db in the current folder" in helps["--db"]


def test_serve_on_a_taken_port_says_so_before_anything_starts(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = paohuzi("serve", "--port", str(port), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""  # no "open http://…" for a server that never ran
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("paohuzi serve: error: ")
    assert f"port {port}" in done.stderr and "taken" in done.stderr and "--port" in done.stderr
    assert list(tmp_path.iterdir()) == []  # no database created either


def test_the_server_database_is_ignored_by_git() -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    names = ["paohuzi.db", "paohuzi.db-wal", "paohuzi.db-shm"]
    done = subprocess.run(
        ["git", "check-ignore", *names], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.split() == names


def test_version_says_whether_the_evaluator_runs_natively() -> None:
    from paohuzi import native

    done = paohuzi("--version")
    assert done.returncode == 0
    assert done.stdout.startswith("paohuzi 0.1.0; evaluator: ")
    assert ("native core (Rust)" in done.stdout) == native.available


@pytest.mark.parametrize(
    "args",
    [
        ["replay", str(ROOT / "tests/golden/ti-from-draw.phz.json"), "--json"],
        ["analyze", "--hand", "d1 d1 d1 x5 x5 x5 x3 x3 x3 x8", "--table", "ti:x9 peng:d4 wei:d6"]
        + ["--win", "x8", "--self-drawn", "--json"],
    ],
    ids=["replay", "analyze"],
)
def test_json_on_an_ascii_stdout_is_the_same_json(args: list[str]) -> None:
    # 红胡 and 乌胡 are in these answers: an ASCII stdout raised UnicodeEncodeError
    utf8 = paohuzi(*args)
    ascii = paohuzi(*args, encoding="ascii")
    assert utf8.returncode == ascii.returncode == 0 and ascii.stderr == ""
    assert not utf8.stdout.isascii() and ascii.stdout.isascii()
    assert json.loads(ascii.stdout) == json.loads(utf8.stdout)


def test_text_on_an_ascii_stdout_is_escaped_not_a_traceback() -> None:
    done = paohuzi("replay", str(ROOT / "tests/golden/bi.phz.json"), encoding="ascii")
    assert done.returncode == 0 and done.stderr == ""
    assert "\\u89c4\\u5219 hunan" in done.stdout  # 规则 hunan
