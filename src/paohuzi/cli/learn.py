"""``paohuzi learn``: the course of lessons in the terminal table (issue 27, docs/lessons.md)."""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.markup import escape

from paohuzi.cli import prompt
from paohuzi.cli.play import QUIT, Leave, TerminalTable, _card
from paohuzi.cli.prompt import Console
from paohuzi.cli.render import Lang, words
from paohuzi.engine.observation import observe
from paohuzi.engine.record import loads
from paohuzi.lessons import Lesson, LessonError, Text, Walk, check_lesson, load_lesson, shipped

PROGRESS_ENV = "PAOHUZI_PROGRESS"
"""An environment variable naming the progress file instead of the user's data directory."""

PROGRESS_FORMAT = "paohuzi-progress/1"

MAX_PROGRESS = 1 << 20
"""Bytes at most in a progress file (a course's is well under 1 KB): a larger one is left alone."""

# Every string the learner reads, Chinese first (docs/lessons.md).
DONE = Text("本课完成！", "Lesson complete!")
GO_ON = Text("按回车继续，q 退出", "Enter to go on, q to quit")
LOOK = Text("看这些牌", "look at")
PICK = Text(
    "输入课号开始（回车：下一课），q 退出",
    "lesson number to start (Enter: the next one), q to quit",
)
ALL_DONE = Text("全部课程都学完了。", "You have finished every lesson.")
NO_SUCH = Text("没有这一课", "there is no such lesson")
SAVED = Text("进度保存在", "progress is kept in")
COURSE = Text("跑胡子入门课程", "Learn to play 跑胡子 (Paohuzi)")


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "learn",
        help="learn to play: the course of lessons",
        description=(
            "The course of lessons in the terminal: each teaches one thing with a stacked "
            f"deck. Progress is kept in the user's data directory (or the file ${PROGRESS_ENV} "
            "names)."
        ),
    )
    parser.add_argument("lesson", nargs="?", help="a lesson's number or id: run just that one")
    parser.add_argument("--file", help="run the lesson in this file (a teacher's, say)")
    parser.add_argument(
        "--lang",
        choices=("both", "zh", "en"),
        default="both",
        help="the language of the texts (default both, Chinese first)",
    )
    parser.add_argument(
        "--restart", action="store_true", help="start the lesson from its first step"
    )
    parser.set_defaults(run=run)


def progress_path() -> Path:
    """Where progress is kept: ``$PAOHUZI_PROGRESS``, else the user's data directory."""
    named = os.environ.get(PROGRESS_ENV)
    if named:
        return Path(named)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "paohuzi" / "progress.json"


@dataclass
class Progress:
    """Per lesson id, the next step to show and whether the lesson was finished."""

    path: Path
    steps: dict[str, int] = field(default_factory=dict)
    done: set[str] = field(default_factory=set)
    kept: bool = True
    """Whether progress is saved: not where it cannot be (said once, on stderr)."""

    @classmethod
    def load(cls, path: Path) -> Progress:
        """The progress in ``path``: none for a missing file; a file that is not progress is
        set aside as ``PATH.corrupt`` (never overwritten); one that is not a regular file (a
        directory, a FIFO, a device), is larger than :data:`MAX_PROGRESS` or cannot be read
        leaves progress unsaved. A symbolic link is followed to the file it names."""
        progress = cls(path)
        try:
            raw = progress._read()
        except FileNotFoundError:
            return progress
        except OSError as error:
            progress.give_up(Text("读不了", error.strerror or str(error)))
            return progress
        if raw is None:
            return progress
        try:
            text: str | None = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None and not text.strip():
            return progress  # an empty file: nothing learnt yet
        try:
            data = None if text is None else loads(text)
        except ValueError:
            data = None
        if not isinstance(data, dict) or data.get("format") != PROGRESS_FORMAT:
            progress.set_aside()
            return progress
        lessons = data.get("lessons")
        for key, value in (lessons if isinstance(lessons, dict) else {}).items():
            if not isinstance(value, dict):
                continue
            step = value.get("step")
            if isinstance(step, int) and not isinstance(step, bool) and step >= 0:
                progress.steps[str(key)] = step
            if value.get("done") is True:
                progress.done.add(str(key))
        return progress

    def _read(self) -> bytes | None:
        """The bytes of the progress file, or None (said on stderr) when it is not a regular
        file or is too large. Looked at before it is opened (a device is never opened), then
        opened without blocking and looked at again: nothing waits on a FIFO put there
        meanwhile."""
        mode = self.path.stat().st_mode
        if not stat.S_ISREG(mode):
            self.give_up(_not_regular(mode))
            return None
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
        with open(os.open(self.path, flags), "rb") as file:
            mode = os.fstat(file.fileno()).st_mode
            if not stat.S_ISREG(mode):
                self.give_up(_not_regular(mode))
                return None
            raw = file.read(MAX_PROGRESS + 1)
        if len(raw) > MAX_PROGRESS:
            self.give_up(
                Text(f"文件超过 {MAX_PROGRESS} 字节", f"it is larger than {MAX_PROGRESS} bytes")
            )
            return None
        return raw

    def give_up(self, reason: Text) -> None:
        """Go on without saving progress, saying why (once: nothing is saved after)."""
        self.kept = False
        print(
            f"paohuzi learn: 进度不保存在 {self.path}：{reason.zh}；继续 / "
            f"cannot keep progress in {self.path}: {reason.en}; going on without",
            file=sys.stderr,
        )

    def set_aside(self) -> None:
        """Rename a file that is not progress out of the way (to a name not yet taken)."""
        aside = self.path.with_name(self.path.name + ".corrupt")
        number = 1
        while aside.exists():
            aside = self.path.with_name(f"{self.path.name}.corrupt.{number}")
            number += 1
        try:
            self.path.rename(aside)
        except OSError as error:
            self.give_up(
                Text(
                    f"不是进度文件，也挪不开：{error.strerror}",
                    f"it is not a progress file and cannot be moved ({error.strerror})",
                )
            )
            return
        print(
            f"paohuzi learn: {self.path} 不是进度文件：留作 {aside}，从头学起 / "
            f"{self.path} is not a progress file: kept as {aside}, starting afresh",
            file=sys.stderr,
        )

    def save(self) -> None:
        """Write the progress to a temporary file beside the target, then rename it over the
        target: only a regular file or none is replaced (a symbolic link is followed, so the
        file it names is). Anything else there is left alone, said once, and nothing is kept."""
        if not self.kept:
            return
        lessons = {
            key: {"step": self.steps.get(key, 0), "done": key in self.done}
            for key in sorted(set(self.steps) | self.done)
        }
        data = {"format": PROGRESS_FORMAT, "lessons": lessons}
        target = Path(os.path.realpath(self.path))
        try:
            mode = target.lstat().st_mode
        except FileNotFoundError:
            mode = None
        except OSError as error:
            self.give_up(Text("无法写入", error.strerror or str(error)))
            return
        if mode is not None and not stat.S_ISREG(mode):
            self.give_up(_not_regular(mode))
            return
        temporary = None
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(
                prefix=target.name + ".", suffix=".tmp", dir=target.parent
            )
            with open(handle, "w", encoding="utf-8") as file:
                file.write(json.dumps(data, ensure_ascii=False, indent=1) + "\n")
            os.replace(temporary, target)
        except OSError as error:
            if temporary is not None:
                Path(temporary).unlink(missing_ok=True)
            self.give_up(Text("无法写入", error.strerror or str(error)))


def _not_regular(mode: int) -> Text:
    """Why progress is not kept in a file of this mode (not a regular file)."""
    if stat.S_ISDIR(mode):
        return Text("这是一个目录", "it is a directory")
    return Text("不是普通文件（FIFO、设备……）", "it is not a regular file (a FIFO, a device …)")


class Learner:
    """Walks lessons in the terminal table."""

    def __init__(self, console: Console, lang: Lang, progress: Progress) -> None:
        self.console = console
        self.lang = lang
        self.progress = progress

    def say(self, text: Text, style: str = "") -> None:
        lines = [text.zh, text.en] if self.lang == "both" else [getattr(text, self.lang)]
        for line in lines:
            shown = f"[{style}]{escape(line)}[/{style}]" if style else line
            self.console.print(shown, markup=bool(style))

    def words(self, text: Text) -> str:
        return words(self.lang, text.zh, text.en)

    def ask(self, text: Text) -> str:
        answer = prompt.ask(self.console, self.words(text) + ": ").strip().lower()
        if answer in QUIT:
            raise Leave
        return answer

    def lesson(self, lesson: Lesson, restart: bool = False) -> None:
        """Walk one lesson to its end (raises :class:`Leave` on q), keeping progress."""
        start = (
            0
            if restart or lesson.id in self.progress.done
            else self.progress.steps.get(lesson.id, 0)
        )
        walk = Walk(lesson, start=min(start, len(lesson.steps) - 1))
        table = TerminalTable(self.console, lesson.seat, self.lang, relative=True)
        self.console.rule(f"[bold]{escape(self.words(lesson.title))}[/bold]")
        while (step := walk.step) is not None:
            self.progress.steps[lesson.id] = walk.index
            self.progress.save()
            obs = observe(walk.game, lesson.seat)
            table.news(obs)
            lit = frozenset(step.highlight)
            table.show(obs, None, lit)
            place = f"{walk.index + 1}/{len(lesson.steps)}"
            self.console.print(f"[dim]第 {place} 步 · step {place}[/dim]")
            self.say(step.text, "bold")
            if lit:
                self.console.print(
                    f"{self.words(LOOK)}: " + " ".join(_card(k, lit) for k in sorted(lit))
                )
            if step.move is None:
                self.ask(GO_ON)
            else:
                while True:
                    answer = walk.answer(table.choose(obs))
                    if answer.right:
                        break
                    if answer.text is not None:
                        self.say(answer.text, "yellow")
                if answer.text is not None:
                    table.news(observe(walk.game, lesson.seat))
                    self.say(answer.text, "green")
                    self.ask(GO_ON)
            walk.next()
        table.news(observe(walk.game, lesson.seat))
        self.say(DONE, "bold green")
        self.progress.done.add(lesson.id)
        self.progress.steps[lesson.id] = 0
        self.progress.save()

    def course(self, lessons: list[Lesson]) -> None:
        """The list of lessons, then the chosen ones, until q."""
        while True:
            self.console.rule(f"[bold]{self.words(COURSE)}[/bold]")
            for i, lesson in enumerate(lessons, 1):
                mark = "✓" if lesson.id in self.progress.done else " "
                self.console.print(f" {mark} {i:2d}. {self.words(lesson.title)}", markup=False)
            upcoming = [n for n, x in enumerate(lessons) if x.id not in self.progress.done]
            if not upcoming:
                self.say(ALL_DONE, "green")
            answer = self.ask(PICK)
            if not answer:
                index = upcoming[0] if upcoming else 0
            elif answer.isdecimal() and 1 <= int(answer) <= len(lessons):
                index = int(answer) - 1
            else:
                self.say(NO_SUCH, "yellow")
                continue
            self.lesson(lessons[index])


def _find(lessons: list[Lesson], name: str) -> Lesson | None:
    if name.isdecimal() and 1 <= int(name) <= len(lessons):
        return lessons[int(name) - 1]
    return next((lesson for lesson in lessons if lesson.id == name), None)


def run(args: argparse.Namespace) -> int:
    console = Console(highlight=False)
    try:
        # A teacher's file is checked as ``paohuzi lesson check`` checks it: a lesson the
        # engine contradicts could leave the learner on a step that no answer passes.
        lessons = [load_lesson(args.file)] if args.file else shipped()
        if args.file:
            check_lesson(lessons[0])
    except LessonError as error:
        print(f"paohuzi learn: error: {args.file or 'the course'}: {error}", file=sys.stderr)
        return 2
    chosen = None
    if args.lesson is not None:
        chosen = _find(lessons, args.lesson)
        if chosen is None:
            known = ", ".join(lesson.id for lesson in lessons)
            print(
                f"paohuzi learn: error: 没有这一课 {args.lesson!r}（有 {known}）/ "
                f"no lesson {args.lesson!r} (there are {known})",
                file=sys.stderr,
            )
            return 2
    learner = Learner(console, args.lang, Progress.load(progress_path()))
    try:
        if chosen is not None or args.file:
            learner.lesson(chosen or lessons[0], restart=args.restart)
        else:
            learner.course(lessons)
    except (KeyboardInterrupt, EOFError, Leave):
        console.print()
        if learner.progress.kept:
            learner.say(SAVED)
            console.print(str(learner.progress.path), markup=False)
    except LessonError as error:
        print(f"paohuzi learn: error: {error}", file=sys.stderr)
        return 2
    return 0
