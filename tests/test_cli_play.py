"""``paohuzi play`` driven through a pseudo-terminal, as a person would type."""

from __future__ import annotations

import io
import json
import os
import random
import re
import signal
import subprocess
import sys
import termios
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pexpect
import pytest

from paohuzi.cli.play import TerminalTable, _save
from paohuzi.cli.prompt import Console
from paohuzi.cli.render import Lang, group_text
from paohuzi.engine.cards import KIND_NAMES
from paohuzi.engine.match import Match
from paohuzi.engine.observation import observe
from paohuzi.engine.position import Over
from paohuzi.engine.record import record_of
from paohuzi.engine.rules import PRESETS

SRC = Path(__file__).parent.parent / "src"
CLAIM = re.compile(r"choose 1-(\d+), h for a hint, q to quit: ")
DISCARD = re.compile(r"card to discard \(x9, 九 or 9\), h for a hint, q to quit: ")
PROMPTS = [CLAIM, DISCARD]
LISTED = re.compile(r"you may discard: .*?([xd]\d+)", re.S)
# Spelled out, not taken from paohuzi.engine.cards: the tests say what a player types.
NAMES = [f"x{r}" for r in range(1, 11)] + [f"d{r}" for r in range(1, 11)]
GLYPHS = "一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾"
SEED = 3


def as_from_a_shell() -> None:
    """In the child, before ``paohuzi play`` starts: Ctrl-C as a terminal's shell leaves it
    (SIGINT handled by default, not blocked), whatever the test process did with it. A test
    worker that ignores or blocks SIGINT would otherwise hand that on through fork and exec,
    and the program would never see the Ctrl-C the test types (seen once on a loaded CI run)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def after_ctrl_c(child: pexpect.spawn, pattern: str) -> None:
    """Wait for the program's answer to the Ctrl-C just typed. If none comes, fail with what the
    kernel says of the program (state, what it waits in, threads, signals pending, blocked,
    ignored and caught, the terminal's foreground group and local modes), so that a lost
    signal can be told from a hang. Two CI runs failed here (stops 44 and 46): the second said
    the program slept in the terminal's read with SIGINT caught and nothing pending, a Ctrl-C
    Python had noted just before the read began; ``paohuzi.cli.prompt.ask`` now waits so that
    none is lost (tests/test_cli_prompt.py). A third (stop 48) slept in that wait with nothing
    on the screen after the ^C: the Ctrl-C had come as rich ended a print and left it writing
    nothing ever after; ``paohuzi.cli.prompt.Console`` now raises it when the print is done."""
    try:
        child.expect(pattern)
    except pexpect.TIMEOUT:
        facts = []
        proc = Path(f"/proc/{child.pid}")
        for line in (proc / "status").read_text().splitlines():
            if line.split(":")[0] in {
                "State",
                "Threads",
                "SigPnd",
                "ShdPnd",
                "SigBlk",
                "SigIgn",
            } or line.startswith("SigCgt"):
                facts.append(line.replace("\t", " "))
        facts.append(f"wchan {(proc / 'wchan').read_text()!r}")
        facts.append(f"pgrp {os.getpgid(child.pid)}, foreground {os.tcgetpgrp(child.child_fd)}")
        facts.append(f"lflag {termios.tcgetattr(child.child_fd)[3]:#x}")
        raise AssertionError(
            f"no answer to Ctrl-C: {'; '.join(facts)}; the screen ends {child.before[-200:]!r}"
        ) from None


def spawn(*args: str, cwd: Path, lang: str = "en") -> pexpect.spawn:
    """``paohuzi play`` with ``args``, in English unless ``lang`` says (the default is both)."""
    return pexpect.spawn(
        sys.executable,
        ["-m", "paohuzi", "play", *args, *(["--lang", lang] if lang else [])],
        cwd=str(cwd),
        encoding="utf-8",
        timeout=60,
        dimensions=(50, 160),
        env={"PATH": "/usr/bin:/bin", "TERM": "xterm", "PYTHONPATH": str(SRC)},
        preexec_fn=as_from_a_shell,
    )


def answer(child: pexpect.spawn, found: int, shown: str | None = None) -> None:
    """Take the first choice offered (``shown`` with the prompt's choices, if not just before):
    option 1 of a claim, the first card listed to discard."""
    text = child.before if shown is None else shown
    child.sendline("1" if PROMPTS[found] is CLAIM else LISTED.findall(text)[-1])


class Transcript:
    """A pexpect log that keeps everything the program printed."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, data: str) -> None:
        self.text += data

    def flush(self) -> None:
        pass


def test_a_whole_hand_to_the_settlement_from_typed_keys(tmp_path: Path) -> None:
    child = spawn("--seed", str(SEED), "--bots", "greedy,greedy", "--hands", "1", cwd=tmp_path)
    asked = 0
    hinted = False
    while True:
        found = child.expect([*PROMPTS, "payments", pexpect.EOF])
        if found >= len(PROMPTS):
            break
        asked += 1
        shown = child.before
        if not hinted:
            child.sendline("h")
            child.expect("current hu-xi")
            found = child.expect(PROMPTS)
            hinted = True
        answer(child, found, shown)
    assert found == len(PROMPTS), child.before
    child.expect("current hu-xi of (the seats that did not win|every seat)")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and asked > 3


CLAIM_ZH = re.compile(r"选 1-(\d+)，h 提示，q 退出: ")
DISCARD_ZH = re.compile(r"打哪张（x9、九 或 9），h 提示，q 退出: ")
LISTED_ZH = re.compile(r"可以打: .*?([xd]\d+)", re.S)
ENGLISH = re.compile(r"\b(you|seat|payments|discard|choose|hint|wins|hand|chi|peng|pass|hu)\b")


def test_a_whole_hand_in_chinese_to_the_settlement(tmp_path: Path) -> None:
    """``--lang zh``: the table's own words, its prompts, the hint, a refused card and the
    settlement are Chinese (card names such as x7 stay, as the card notation, F1)."""
    child = spawn("--seed", str(SEED), "--hands", "1", cwd=tmp_path, lang="zh")
    child.logfile_read = transcript = Transcript()
    hinted = refused = False
    while (found := child.expect([CLAIM_ZH, DISCARD_ZH, "输赢", pexpect.EOF])) < 2:
        shown = child.before
        if not hinted:
            child.sendline("h")
            child.expect("听牌")
            found = child.expect([CLAIM_ZH, DISCARD_ZH])
            hinted = True
        if found == 1 and not refused:
            child.sendline("11")
            child.expect("没有 11 这张牌：牌是 1 到 10")
            child.expect(DISCARD_ZH)
            refused = True
        child.sendline("1" if found == 0 else LISTED_ZH.findall(shown)[-1])
    assert found == 2, child.before
    child.expect("各家现在的胡息")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    text = transcript.text
    assert refused and "第1局" in text and "你的手牌" in text and "总分" in text
    assert ENGLISH.findall(text) == []
    # The others are named from you, as at the web table and in `learn`, the settlement too.
    plain = re.sub(r"\x1b\[[0-9;]*m", "", text)
    assert not re.search(r"\d号位", plain)
    assert re.search(r"输赢\s+你: [+-]?\d+\s+下家: [+-]?\d+\s+上家: [+-]?\d+", plain), plain[-800:]


def test_the_table_speaks_both_languages_by_default(tmp_path: Path) -> None:
    child = spawn("--seed", str(SEED), "--dealer", "0", "--hands", "1", cwd=tmp_path, lang="")
    child.expect("打哪张（x9、九 或 9），h 提示，q 退出 / card to discard")
    child.sendline("q")
    child.expect(r"离开。保存这一局的记录吗？ / Leaving. Save the record of this hand\? \[y/N\]")
    child.sendline("y")
    child.expect("已保存 / saved ")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and len(list(tmp_path.glob("paohuzi-*.phz.json"))) == 1


def test_every_line_of_the_table_log_is_a_sentence(tmp_path: Path) -> None:
    """Issue 17: "you discard", not "seat 0 (you) discards"; no "seat 1 — nobody takes"."""
    child = spawn("--seed", str(SEED), "--hands", "1", cwd=tmp_path)
    child.logfile_read = transcript = Transcript()
    while (found := child.expect([*PROMPTS, pexpect.EOF])) < len(PROMPTS):
        answer(child, found)
    lines = [line[4:] for line in transcript.text.splitlines() if line.startswith("  · ")]
    sentence = re.compile(
        r"(you (?!\S*s\b)\S+|(Right|Left) \S+s|荒庄 \S+)( |$)"
        r"|nobody takes [xd]\d+; it goes to (your|Right's|Left's) discards$"
    )
    assert len(lines) > 10 and any(line.startswith("you discard ") for line in lines)
    assert [line for line in lines if not sentence.match(line) or "(you)" in line] == []


def first_decision() -> tuple[list[int], list[int]]:
    """The kinds seat 0 may discard at its first decision of ``--seed 3 --dealer 0``, and the
    kinds of its 坎, as the engine (not the terminal) has them."""
    game = Match(PRESETS["hunan"], seed=SEED, dealer=0).new_game()
    legal = game.legal_actions()
    assert game.to_act == 0 and all(a.card is not None for a in legal), "not a discard"
    hand = game.hand_cards(0)
    kans = sorted(k for k in set(hand) if hand.count(k) == 3)
    return sorted(a.card for a in legal if a.card is not None), kans


def leave_and_save(child: pexpect.spawn, tmp_path: Path, key: str) -> dict[str, Any]:
    """Type ``key`` at the next prompt and accept the offer to save: the record saved."""
    child.expect(PROMPTS)
    child.sendline(key)
    child.expect(r"Save the record of this hand\? \[y/N\]")
    child.sendline("y")
    child.expect("saved ")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    (saved,) = tmp_path.glob("paohuzi-*.phz.json")
    record: dict[str, Any] = json.loads(saved.read_text(encoding="utf-8"))
    return record


def _one_of_a_rank(legal: list[int]) -> int:
    """A legal kind whose other size is not legal, so its bare rank names it."""
    return next(k for k in legal if (k + 10) % 20 not in legal)


@pytest.mark.parametrize(
    "pick, typed",
    [
        (max, lambda k: NAMES[k]),
        (min, lambda k: NAMES[k].upper()),
        (min, lambda k: GLYPHS[k]),
        (max, lambda k: GLYPHS[k]),
        (_one_of_a_rank, lambda k: str(k % 10 + 1)),
    ],
    ids=["name", "capitals", "small glyph", "big glyph", "bare rank"],
)
def test_a_discard_is_chosen_by_naming_the_card(pick: Any, typed: Any, tmp_path: Path) -> None:
    legal, _ = first_decision()
    assert min(legal) < 10 <= max(legal), "a seed that may discard small and big cards"
    kind = pick(legal)
    child = spawn("--seed", str(SEED), "--dealer", "0", cwd=tmp_path)
    child.expect(DISCARD)
    child.sendline(typed(kind))
    record = leave_and_save(child, tmp_path, "q")
    assert record["actions"][0] == f"0 discard {NAMES[kind]}"


def test_an_ambiguous_rank_a_kan_card_or_a_missing_card_says_what_to_type(
    tmp_path: Path,
) -> None:
    legal, kans = first_decision()
    both = next(r for r in range(1, 11) if r - 1 in legal and r + 9 in legal)
    missing = next(k for k in range(20) if k not in legal and k not in kans)
    child = spawn("--seed", str(SEED), "--dealer", "0", cwd=tmp_path)
    child.expect(DISCARD)
    child.sendline(str(both))
    child.expect(f"type x{both} .* or d{both} ")
    child.sendline(NAMES[kans[0]])
    child.expect("坎")
    child.sendline(NAMES[missing])
    child.expect(f"you have no {NAMES[missing]}")
    child.sendline("11")
    child.expect("no card 11")
    child.sendline("zz")
    child.expect("type a card")
    child.sendline(f"d{both}")
    record = leave_and_save(child, tmp_path, "quit")
    assert record["actions"][0] == f"0 discard d{both}"


@pytest.mark.parametrize("key", ["q", "quit", "Q"])
def test_q_leaves_at_any_prompt_and_offers_to_save(key: str, tmp_path: Path) -> None:
    record = leave_and_save(spawn("--seed", "5", cwd=tmp_path), tmp_path, key)
    # Left at its first prompt: the record stops before seat 0's first choice.
    assert record["format"] == "paohuzi-record/1"
    assert not [a for a in record["actions"] if a.startswith("0 ")]


def test_ctrl_c_ends_cleanly_and_offers_to_save_the_record(tmp_path: Path) -> None:
    child = spawn("--seed", "5", "--bots", "random,greedy", cwd=tmp_path)
    found = child.expect(PROMPTS)
    answer(child, found)
    child.expect([*PROMPTS, "payments"])
    child.sendintr()
    after_ctrl_c(child, r"Save the record of this hand\? \[y/N\]")
    child.sendline("y")
    child.expect("saved ")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    saved = list(tmp_path.glob("paohuzi-*.phz.json"))
    assert len(saved) == 1 and '"format": "paohuzi-record/1"' in saved[0].read_text()


def test_bad_keys_are_refused_politely(tmp_path: Path) -> None:
    child = spawn("--seed", str(SEED), "--dealer", "0", "--hands", "1", cwd=tmp_path)
    child.expect(DISCARD)
    child.sendline("1")
    child.expect(CLAIM)
    child.sendline("zz")
    child.expect("type a number from the list")
    child.sendline("999")
    child.expect("type a number from the list")
    child.sendintr()
    after_ctrl_c(child, r"\[y/N\]")
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
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(SRC)},
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("paohuzi play: error: ")
    assert (program or "cmd:") in done.stderr  # names what could not start


@pytest.mark.parametrize(
    ("args", "zh", "en"),
    [
        (["--seat", "3"], "--seat 要 0–2 号座位，不是 3", "--seat must be a seat 0–2, not 3"),
        (["--dealer", "4", "--players", "4"], "--dealer 要 0–3 号座位，不是 4", "0–3, not 4"),
        (["--bots", "greedy"], "--bots 要 2 个对手，不是 1 个", "--bots takes 2 opponents, not 1"),
    ],
)
def test_a_seat_off_the_table_or_a_wrong_number_of_bots_is_one_line_in_both_languages(
    args: list[str], zh: str, en: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from paohuzi.cli import main

    assert main(["play", *args]) == 2
    said = capsys.readouterr()
    assert said.out == "" and said.err.count("\n") == 1
    assert said.err.startswith(f"paohuzi play: error: {zh}") and en in said.err


STARTS = """
import json, sys
log = open(sys.argv[1], "a", encoding="utf-8")
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        log.write(json.dumps(message["seed"]) + "\\n")
        log.flush()
    elif message["type"] == "ask":
        print(message["legal"][0], flush=True)
"""


def test_a_protocol_opponent_is_told_a_seed_of_its_own_each_hand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/protocol.md: ``seed`` is the seat's for the hand, so a program that seeds itself
    from each ``start`` does not replay the same choices hand after hand (it was ``--seed``
    plus the seat's place, every hand)."""
    from paohuzi.cli import main

    script, log = tmp_path / "starts.py", tmp_path / "seeds.txt"
    script.write_text(STARTS, encoding="utf-8")
    monkeypatch.setattr(TerminalTable, "choose", lambda self, obs: obs.legal[0])
    monkeypatch.setattr("paohuzi.cli.play.ask", lambda *_, **__: "n")  # no record saved
    bots = f"cmd:{sys.executable} {script} {log},greedy"
    assert main(["play", "--bots", bots, "--seed", "7", "--hands", "3"]) == 0
    capsys.readouterr()
    seeds = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(seeds) == 3 and len(set(seeds)) == 3
    assert all(isinstance(seed, int) for seed in seeds)
    # Not the seed of the hand's shuffle (Match: seed * 1_000_003 + hand).
    assert not set(seeds) & {7 * 1_000_003 + hand for hand in range(3)}


@pytest.mark.parametrize("players", [3, 4])
def test_the_default_opponents_fill_every_other_seat(
    players: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # README: `paohuzi play --seed 6 --players 4` (the default was two greedy bots: refused).
    from paohuzi.cli import main

    monkeypatch.setattr(TerminalTable, "choose", lambda self, obs: obs.legal[0])
    monkeypatch.setattr("paohuzi.cli.play.ask", lambda *_, **__: "n")
    args = ["play", "--seed", "6", "--players", str(players), "--hands", "2"]
    assert main(args) == 0
    assert capsys.readouterr().err == ""


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _table_tokens(text: str) -> tuple[Counter[str], Counter[str]]:
    """The discarded cards and the groups a printed table shows (between its title and the
    hand), each whole word that is one."""
    lines = ANSI.sub("", text).splitlines()
    end = next(i for i, line in enumerate(lines) if re.search(r"your hand:|你的手牌:", line))
    words = " ".join(lines[1:end]).split()
    return (
        Counter(w for w in words if re.fullmatch(r"[xd]\d+", w)),
        Counter(w for w in words if re.fullmatch(r"\S+:[xd0-9?]+", w)),
    )


@pytest.mark.parametrize("width", [40, 80, 100, 120])
@pytest.mark.parametrize("lang", ["both", "zh", "en"])
def test_the_table_shows_every_discard_and_group_in_full_at_any_width(
    width: int, lang: Lang
) -> None:
    """Cells wrap between cards, never cut one (a tester saw ``x10 x4 x1…`` for Left's
    discards x10 x4 x10 d2 x10 at 100 columns): every position of a random hand."""
    game = Match(PRESETS["hunan"], seed=0, dealer=0).new_game()
    rng = random.Random(0)
    longest = 0
    while not isinstance(phase := game.phase, Over):
        obs = observe(game, phase.to_act)
        out = io.StringIO()
        console = Console(file=out, width=width, highlight=False, color_system="standard")
        TerminalTable(console, phase.to_act, lang, relative=True).show(obs, [0, 0, 0])
        discards, groups = _table_tokens(out.getvalue())
        assert discards == Counter(KIND_NAMES[k] for row in obs.rows for k in row)
        assert groups == Counter(group_text(g, lang) for t in obs.tables for g in t)
        assert "…" not in out.getvalue()
        longest = max(longest, max(len(row) for row in obs.rows))
        game.apply(rng.choice(sorted(obs.legal, key=str)))
    assert longest >= 5  # long rows were shown


@pytest.mark.parametrize("lang, label", [("en", "kan: "), ("zh", "坎: "), ("both", "坎 / kan: ")])
def test_the_kan_of_the_hand_is_labelled_in_the_tables_language(lang: Lang, label: str) -> None:
    game = Match(PRESETS["hunan"], seed=SEED, dealer=0).new_game()
    out = io.StringIO()
    console = Console(file=out, width=200, highlight=False, color_system=None)
    TerminalTable(console, 0, lang).show(observe(game, 0), None)
    (hand,) = [line for line in out.getvalue().splitlines() if "hand:" in line or "手牌:" in line]
    assert label in hand and hand.count("坎") == label.count("坎")


def test_saved_records_of_the_same_second_keep_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two saves in one second: the second takes -2, the first stays as it was."""
    monkeypatch.setattr(time, "strftime", lambda _: "20260101-120000")
    first = Match(PRESETS["hunan"], seed=1, dealer=0).new_game()
    second = Match(PRESETS["hunan"], seed=2, dealer=0).new_game()
    out = io.StringIO()
    console = Console(file=out, width=200, highlight=False, color_system=None)
    _save(console, first, str(tmp_path))
    _save(console, second, str(tmp_path))
    _save(console, second, str(tmp_path))
    names = ["paohuzi-20260101-120000", "paohuzi-20260101-120000-2", "paohuzi-20260101-120000-3"]
    assert out.getvalue().splitlines() == [f"saved {tmp_path / n}.phz.json" for n in names]
    assert {p.name for p in tmp_path.iterdir()} == {f"{n}.phz.json" for n in names}
    saved = json.loads((tmp_path / f"{names[0]}.phz.json").read_text(encoding="utf-8"))
    assert saved == json.loads(json.dumps(record_of(first).to_json()))


@pytest.mark.parametrize("directory", ["games[old]", "q[/x]", "[bold]"])
def test_a_save_dir_is_printed_as_it_is_not_as_markup(directory: str, tmp_path: Path) -> None:
    target = tmp_path / directory
    target.mkdir(parents=True)
    out = io.StringIO()
    console = Console(file=out, width=500, highlight=False, color_system=None)
    game = Match(PRESETS["hunan"], seed=1, dealer=0).new_game()
    _save(console, game, str(target))
    (saved,) = target.glob("paohuzi-*.phz.json")
    assert out.getvalue() == f"saved {saved}\n"
    _save(console, game, str(tmp_path / directory / "missing"))  # could not save: named too
    assert f"could not save {tmp_path / directory / 'missing'}/paohuzi-" in out.getvalue()


def _play(*args: str, stdin: str = "", cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "paohuzi", "play", "--lang", "en", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        input=stdin,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(SRC)},
    )


@pytest.mark.parametrize("answer", ["", "zz", "h"])
def test_answers_from_a_pipe_that_never_choose_end_the_match(answer: str, tmp_path: Path) -> None:
    """``yes "" | paohuzi play`` asked for ever; now 100 answers that choose nothing leave as
    q does, offering to save (the next line, an answer too, says no)."""
    done = _play("--seed", "1", stdin=f"{answer}\n" * 1000, cwd=tmp_path)
    assert done.returncode == 0 and done.stderr == ""
    assert "100 answers in a row chose nothing: leaving" in done.stdout
    assert done.stdout.count("h for a hint, q to quit: ") == 100
    assert "Save the record of this hand? [y/N]" in done.stdout
    assert list(tmp_path.iterdir()) == []


def test_the_end_of_input_at_the_save_question_ends_the_line(tmp_path: Path) -> None:
    done = _play("--seed", "1", stdin="q\n", cwd=tmp_path)
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.endswith("Save the record of this hand? [y/N] \n")


@pytest.mark.parametrize("hands", ["-1", "-5", "x"])
def test_hands_below_zero_is_a_usage_error(hands: str, tmp_path: Path) -> None:
    done = _play("--hands", hands, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "--hands" in done.stderr


def _play_on(tmp_path: Path, **stdout: Any) -> subprocess.CompletedProcess[str]:
    """``paohuzi play --seed 1`` with no input, its standard output as ``stdout`` says."""
    return subprocess.run(
        [sys.executable, "-m", "paohuzi", "play", "--seed", "1"],
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(SRC)},
        **stdout,
    )


def test_a_closed_standard_output_is_a_one_line_error(tmp_path: Path) -> None:
    done = _play_on(tmp_path, preexec_fn=lambda: os.close(1))
    assert done.returncode == 2
    assert done.stderr == "paohuzi play: error: 标准输出已关闭 / standard output is closed\n"


def test_a_broken_pipe_on_standard_output_ends_quietly(tmp_path: Path) -> None:
    """``paohuzi play | head -1``: the reader is gone; exit 0 without a word (rich exited 1)."""
    reader, writer = os.pipe()
    os.close(reader)  # the reader is gone before the first line
    try:
        done = _play_on(tmp_path, stdout=writer)
    finally:
        os.close(writer)
    assert (done.returncode, done.stderr) == (0, "")
