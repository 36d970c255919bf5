"""``paohuzi learn`` driven through a pseudo-terminal: a lesson walked to its end (issue 27)."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.test_cli_play import as_from_a_shell

SRC = Path(__file__).parent.parent / "src"
CLAIM = re.compile(r"choose 1-(\d+), h for a hint, q to quit: ")
DISCARD = re.compile(r"card to discard \(x9, 九 or 9\), h for a hint, q to quit: ")
GO_ON = "按回车继续，q 退出 / Enter to go on, q to quit: "
GO_ON_EN = "Enter to go on, q to quit: "
STEP = re.compile(r"step (\d+)/(\d+)")


def lesson(name: str = "03-chi-bi.json") -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        resources.files("paohuzi.lessons").joinpath(name).read_text(encoding="utf-8")
    )
    return data


def spawn(*args: str, progress: Path) -> pexpect.spawn:
    return pexpect.spawn(
        sys.executable,
        ["-m", "paohuzi", "learn", *args],
        cwd=str(progress.parent),
        encoding="utf-8",
        timeout=60,
        dimensions=(60, 200),
        env={
            "PATH": "/usr/bin:/bin",
            "TERM": "xterm",
            "PYTHONPATH": str(SRC),
            "PAOHUZI_PROGRESS": str(progress),
        },
        preexec_fn=as_from_a_shell,
    )


def label(move: str) -> str:
    """How the terminal lists an F3 move of a claim (spelled out: what a player reads)."""
    name, *groups = move.split()[1:]
    if name == "chi":
        text = "吃 chi " + groups[0]
        return text + ("  比 " + " ".join(groups[1:]) if groups[1:] else "")
    return {"peng": "碰 peng", "hu": "胡 hu — win", "pass": "过 pass"}[name]


def choice(listing: str, move: str) -> str:
    """The number the listing gives the move."""
    found: list[tuple[str, str]] = re.findall(r"^\s+(\d+)\) (.*)$", listing, re.M)
    options = {text.strip(): number for number, text in found}
    return options[label(move)]


def typed(move: str, listing: str, claim: bool) -> str:
    return choice(listing, move) if claim else move.split()[2]


def test_a_lesson_walked_to_its_end_with_a_wrong_move_explained(tmp_path: Path) -> None:
    progress = tmp_path / "progress.json"
    steps = lesson()["steps"]
    child = spawn("chi-bi", progress=progress)
    wrong_shown = False
    while (found := child.expect([CLAIM, DISCARD, GO_ON, "Lesson complete!"])) < 3:
        if found == 2:
            child.sendline("")
            continue
        step = steps[int(STEP.findall(child.before)[-1][0]) - 1]
        listing = child.before
        if not wrong_shown:
            # Passing the first card is legal and wrong: the lesson says why, then asks again.
            child.sendline(choice(listing, "0 pass"))
            child.expect(re.escape(step["wrong"]["en"][:40]))
            child.expect(CLAIM)
            wrong_shown = True
        child.sendline(typed(step["move"], listing, found == 0))
        if "right" in step:
            child.expect(re.escape(step["right"]["en"][:30]))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and wrong_shown
    kept = json.loads(progress.read_text(encoding="utf-8"))
    assert kept["lessons"]["chi-bi"]["done"] is True


def test_a_lesson_left_with_q_resumes_at_its_step(tmp_path: Path) -> None:
    progress = tmp_path / "progress.json"
    steps = lesson()["steps"]
    child = spawn("chi-bi", "--lang", "en", progress=progress)
    child.expect(CLAIM)
    child.sendline(choice(child.before, steps[0]["move"]))
    child.expect("Enter to go on, q to quit: ")
    child.sendline("")
    child.expect(DISCARD)
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert json.loads(progress.read_text(encoding="utf-8"))["lessons"]["chi-bi"]["step"] == 1
    again = spawn("chi-bi", "--lang", "en", progress=progress)
    again.expect(DISCARD)
    assert "step 2/3" in again.before and steps[1]["text"]["en"][:30] in again.before
    again.sendline("q")
    again.expect(pexpect.EOF)
    again.close()


def test_the_course_lists_the_lessons_and_starts_the_next_unfinished(tmp_path: Path) -> None:
    progress = tmp_path / "progress.json"
    kept = {"format": "paohuzi-progress/1", "lessons": {"cards": {"step": 0, "done": True}}}
    progress.write_text(json.dumps(kept), encoding="utf-8")
    child = spawn("--lang", "en", progress=progress)
    child.expect(r"lesson number to start \(Enter: the next one\), q to quit: ")
    listing = child.before
    assert re.search(r"✓\s+1\. The cards", listing) and re.search(r"\s 2\. Groups", listing)
    child.sendline("")
    child.expect("step 1/5")
    child.expect("Enter to go on, q to quit: ")
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    saved = json.loads(progress.read_text(encoding="utf-8"))["lessons"]
    assert saved["cards"]["done"] is True and saved["groups"] == {"step": 0, "done": False}


LESSONS = sorted(
    entry.name
    for entry in resources.files("paohuzi.lessons").iterdir()
    if entry.name.endswith(".json")
)


@pytest.mark.parametrize("name", LESSONS)
def test_every_lesson_can_be_walked_in_the_terminal(tmp_path: Path, name: str) -> None:
    data = lesson(name)
    steps = data["steps"]
    child = spawn(data["id"], progress=tmp_path / "progress.json")
    seen = []
    read = []
    while (found := child.expect([CLAIM, DISCARD, GO_ON, "Lesson complete!"])) < 3:
        read.append(child.before)
        place = int(STEP.findall(child.before)[-1][0]) if STEP.search(child.before) else None
        if place is not None:
            seen.append(place)
        if found == 2:
            child.sendline("")
            continue
        step = steps[seen[-1] - 1]
        child.sendline(typed(step["move"], child.before, found == 0))
    read.append(child.before)
    child.expect(pexpect.EOF)
    read.append(child.before)
    child.close()
    assert child.exitstatus == 0
    assert sorted(set(seen)) == list(range(1, len(steps) + 1))
    # The lessons name seats from the learner (下家, Left …), and so does the table beside them.
    assert not re.search(r"\d号位|\b[Ss]eat \d", "".join(read))
    assert "你 / you" in "".join(read)


def _quit_at_once(progress: Path) -> str:
    """What lesson "cards" says with ``progress`` as its progress file, quit at the first
    question (and that it exits 0)."""
    child = spawn("cards", "--lang", "en", progress=progress)
    child.expect(GO_ON_EN)
    said: str = child.before
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    rest: str = child.before
    return said + rest


def test_progress_that_cannot_be_kept_is_said_once_and_the_lesson_goes_on(tmp_path: Path) -> None:
    place = tmp_path / "a-directory"
    place.mkdir()
    said = _quit_at_once(place)
    assert said.count(f"cannot keep progress in {place}: it is a directory") == 1
    assert "progress is kept in" not in said
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-directory"]


def test_a_progress_file_that_is_not_one_is_set_aside_not_lost(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from paohuzi.cli.learn import Progress

    path = tmp_path / "progress.json"
    for number, text in enumerate(["my notes", "[" * 100_000, '{"format": "other"}']):
        path.write_text(text, encoding="utf-8")
        progress = Progress.load(path)
        assert progress.kept and not progress.steps and not path.exists()
        aside = tmp_path / ("progress.json.corrupt" + (f".{number}" if number else ""))
        assert aside.read_text(encoding="utf-8") == text
        assert capsys.readouterr().err == (
            f"paohuzi learn: {path} 不是进度文件：留作 {aside}，从头学起 / "
            f"{path} is not a progress file: kept as {aside}, starting afresh\n"
        )
        progress.steps["cards"] = 2
        progress.save()
        assert Progress.load(path).steps == {"cards": 2}
        path.unlink()
    path.write_text("", encoding="utf-8")  # empty: nothing learnt yet, nothing to keep
    assert Progress.load(path).kept and capsys.readouterr().err == ""


def test_a_lesson_text_with_square_brackets_is_shown_as_written(tmp_path: Path) -> None:
    data = lesson("01-cards.json")
    data["title"] = {"zh": "牌 [/bold]", "en": "Cards [/bold] oops"}
    data["steps"][0]["text"] = {"zh": "看 [/] 这里", "en": "see [/] here [link=x]y[/link]\\"}
    path = tmp_path / "brackets.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    child = spawn("--file", str(path), progress=tmp_path / "progress.json")
    child.expect(GO_ON)
    said = child.before
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "牌 [/bold] / Cards [/bold] oops" in said
    assert "看 [/] 这里" in said and "see [/] here [link=x]y[/link]\\" in said


def test_a_fifo_or_a_link_to_one_as_progress_is_neither_read_nor_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    link = tmp_path / "link"
    link.symlink_to(fifo)
    for place in (fifo, link):
        said = _quit_at_once(place)
        assert said.count(f"cannot keep progress in {place}: it is not a regular file") == 1
        assert "progress is kept in" not in said
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "link"]


@pytest.mark.parametrize("kind", ["fifo", "link to a fifo", "directory"])
def test_progress_is_never_saved_over_what_is_not_a_regular_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    from paohuzi.cli.learn import Progress

    path = tmp_path / "progress.json"
    if kind == "directory":
        path.mkdir()
    else:
        os.mkfifo(tmp_path / "fifo")
        if kind == "fifo":
            os.rename(tmp_path / "fifo", path)
        else:
            path.symlink_to(tmp_path / "fifo")
    before = sorted(p.name for p in tmp_path.iterdir())
    progress = Progress(path)  # as if the FIFO or directory came after the progress was read
    progress.steps["cards"] = 1
    progress.save()
    progress.save()
    assert not progress.kept
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert stat.S_ISDIR(path.stat().st_mode) if kind == "directory" else path.is_fifo()
    assert path.is_symlink() == (kind == "link to a fifo")
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"paohuzi learn: 进度不保存在 {path}")
    assert f"cannot keep progress in {path}: it is " in err


def test_a_progress_file_too_large_is_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from paohuzi.cli.learn import Progress

    path = tmp_path / "progress.json"
    kept = {"format": "paohuzi-progress/1", "lessons": {"cards": {"step": 2, "done": False}}}
    text = json.dumps(kept) + " " * (2 << 20)  # progress, but 2 MB of it: not read
    path.write_text(text, encoding="utf-8")
    progress = Progress.load(path)
    assert not progress.kept and not progress.steps
    progress.save()
    assert path.read_text(encoding="utf-8") == text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["progress.json"]
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"paohuzi learn: 进度不保存在 {path}：文件超过 ")
    assert f"cannot keep progress in {path}: it is larger than " in err


def test_a_progress_file_behind_a_link_is_read_and_saved_through_it(tmp_path: Path) -> None:
    from paohuzi.cli.learn import Progress

    real = tmp_path / "real.json"
    kept = {"format": "paohuzi-progress/1", "lessons": {"cards": {"step": 2, "done": False}}}
    real.write_text(json.dumps(kept), encoding="utf-8")
    link = tmp_path / "progress.json"
    link.symlink_to(real)
    progress = Progress.load(link)
    assert progress.kept and progress.steps == {"cards": 2}
    progress.steps["cards"] = 3
    progress.save()
    assert link.is_symlink() and Progress.load(real).steps == {"cards": 3}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["progress.json", "real.json"]


@pytest.mark.parametrize("key", ["intr", "eof"])
@pytest.mark.parametrize("at", ["course", "go on", "claim", "discard"])
def test_leaving_at_a_prompt_ends_the_output_with_a_newline(
    tmp_path: Path, at: str, key: str
) -> None:
    steps = lesson()["steps"]
    child = spawn(
        *(() if at == "course" else ("chi-bi",)), "--lang", "en", progress=tmp_path / "p.json"
    )
    if at == "course":
        child.expect(r"q to quit: ")
    else:
        child.expect(CLAIM)
        if at != "claim":
            child.sendline(choice(child.before, steps[0]["move"]))
            child.expect(GO_ON_EN)
            if at == "discard":
                child.sendline("")
                child.expect(DISCARD)
    if key == "intr":
        child.sendintr()
    else:
        child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert child.before.endswith("\r\n") and "progress is kept in" in child.before


@pytest.mark.parametrize("closed", [0, 1], ids=["stdin", "stdout"])
def test_a_closed_standard_stream_is_the_end_of_input_not_a_traceback(
    tmp_path: Path, closed: int
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "paohuzi", "learn", "1"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
        env={**os.environ, "PAOHUZI_PROGRESS": str(tmp_path / "progress.json")},
        preexec_fn=lambda: os.close(closed),
    )
    assert "Traceback" not in done.stderr and done.returncode == 0, done.stderr
