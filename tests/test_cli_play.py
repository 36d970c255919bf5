"""``paohuzi play`` driven through a pseudo-terminal, as a person would type."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

PROMPT = re.compile(r"choose 1-(\d+), h for a hint: ")


def spawn(*args: str, cwd: Path) -> pexpect.spawn:
    return pexpect.spawn(
        sys.executable,
        ["-m", "paohuzi", "play", *args],
        cwd=str(cwd),
        encoding="utf-8",
        timeout=60,
        dimensions=(50, 160),
        env={
            "PATH": "/usr/bin:/bin",
            "TERM": "xterm",
            "PYTHONPATH": str(Path(__file__).parent.parent / "src"),
        },
    )


def test_a_whole_hand_to_the_settlement_from_typed_keys(tmp_path: Path) -> None:
    child = spawn("--seed", "3", "--bots", "greedy,greedy", "--hands", "1", cwd=tmp_path)
    asked = 0
    hinted = False
    while True:
        found = child.expect([PROMPT, "payments", pexpect.EOF])
        if found != 0:
            break
        asked += 1
        if not hinted:
            child.sendline("h")
            child.expect("current hu-xi")
            child.expect(PROMPT)
            hinted = True
        child.sendline("1")
    assert found == 1, child.before
    child.expect("current hu-xi of the others")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and asked > 3


def test_ctrl_c_ends_cleanly_and_offers_to_save_the_record(tmp_path: Path) -> None:
    child = spawn("--seed", "5", "--bots", "random,greedy", cwd=tmp_path)
    child.expect(PROMPT)
    child.sendline("1")
    child.expect([PROMPT, "payments"])
    child.sendintr()
    child.expect(r"Save the record of this hand\? \[y/N\]")
    child.sendline("y")
    child.expect("saved ")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    saved = list(tmp_path.glob("paohuzi-*.phz.json"))
    assert len(saved) == 1 and '"format": "paohuzi-record/1"' in saved[0].read_text()


def test_bad_keys_are_refused_politely(tmp_path: Path) -> None:
    child = spawn("--seed", "3", "--hands", "1", cwd=tmp_path)
    child.expect(PROMPT)
    child.sendline("zz")
    child.expect("type a number from the list")
    child.sendline("999")
    child.expect("type a number from the list")
    child.sendintr()
    child.expect(r"\[y/N\]")
    child.sendline("n")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


@pytest.mark.parametrize("program", ["/nonexistent/bot", ""])
def test_a_bot_program_that_cannot_start_is_one_line(program: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "paohuzi", "play", "--bots", f"cmd:{program},greedy"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).parent.parent / "src")},
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("paohuzi play: error: ")
    assert (program or "cmd:") in done.stderr  # names what could not start
