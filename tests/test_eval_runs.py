"""Evaluation that survives (issue 26, D124): bot errors, the deal log, resume, time limit."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from paohuzi.bots import make_bot
from paohuzi.cli import main, runs
from paohuzi.engine.observation import Observation
from paohuzi.tools import distributed, tournament
from paohuzi.tools.workers import leave
from tests.clock import wait_until


class Flaky:
    """Greedy, but raises at every third decision."""

    name = "flaky"

    def __init__(self, seed: int | None) -> None:
        self.greedy: Any = make_bot("greedy", seed)
        self.calls = 0

    def act(self, observation: Observation) -> Any:
        self.calls += 1
        if self.calls % 3 == 0:
            raise RuntimeError("no deal of the unseen cards\nsecond line")
        return self.greedy.act(observation)


def make_flaky(seed: int | None) -> Flaky:
    return Flaky(seed)


FLAKY = f"{__name__}:make_flaky"


def _json(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[Any, str]:
    assert main(args + ["--json"]) == 0
    captured = capsys.readouterr()
    return json.loads(captured.out), captured.err


def test_a_raising_bot_is_recorded_and_replaced(capsys: pytest.CaptureFixture[str]) -> None:
    data, err = _json(["tournament", "--bots", f"{FLAKY},greedy,random", "--deals", "2"], capsys)
    errors = {b["name"]: b["errors"] for b in data["bots"]}
    assert errors[FLAKY] > 0 and errors["greedy"] == errors["random"] == 0
    assert data["hands"] == 12
    assert f"bot error: {FLAKY} deal 0 seat" in err
    assert "RuntimeError: no deal of the unseen cards (greedy" in err
    assert all(
        line.endswith("(greedy chose instead)")
        for line in err.splitlines()
        if line.startswith(f"bot error: {FLAKY} deal ")
    )


def test_a_protocol_programs_errors_say_the_protocols_default_was_played(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # docs/protocol.md: a refused answer is replaced by pass or the first legal action.
    script = tmp_path / "nonsense.py"
    script.write_text("import sys\nfor line in sys.stdin: print('bye', flush=True)\n")
    spec = f"cmd:{sys.executable} {script}"
    data, err = _json(["tournament", "--bots", f"{spec},greedy,greedy", "--deals", "1"], capsys)
    assert {b["name"]: b["errors"] for b in data["bots"]}[spec] > 0
    lines = [line for line in err.splitlines() if line.startswith(f"bot error: {spec} deal ")]
    assert lines and all(
        line.endswith("(pass or the first legal action played instead)") for line in lines
    )


def test_ladder_counts_errors(capsys: pytest.CaptureFixture[str]) -> None:
    data, _ = _json(["ladder", "--bots", f"greedy,{FLAKY}", "--deals", "2"], capsys)
    assert data["errors"][FLAKY] > 0 and "greedy" not in data["errors"]
    pair = data["pairs"][0]
    assert pair["ci95"][0] <= pair["points_per_hand"] <= pair["ci95"][1]


@pytest.mark.parametrize("command", ["tournament", "ladder"])
def test_resume_gives_the_figures_of_an_uninterrupted_run(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bots = "greedy,random,random" if command == "tournament" else "greedy,random"
    base = [command, "--bots", bots, "--seed", "3"]
    whole, _ = _json(base + ["--deals", "5", "--out", str(tmp_path / "a.jsonl")], capsys)
    log = tmp_path / "b.jsonl"
    part, _ = _json(base + ["--deals", "2", "--out", str(log)], capsys)
    assert part["deals"] == 2 and part != whole
    assert len(log.read_text().splitlines()) == 3  # the run, two deals
    with log.open("a") as file:
        file.write('{"deal": 2, "ha')  # a line cut off by a kill
    resumed, _ = _json(base + ["--deals", "5", "--resume", str(log)], capsys)
    assert resumed == whole
    assert log.read_text() == (tmp_path / "a.jsonl").read_text()
    # Another run's file is refused, and so is starting over into a used one.
    assert main([command, "--bots", bots, "--seed", "4", "--resume", str(log)]) == 2
    assert main(base + ["--out", str(log)]) == 2
    assert "--resume" in capsys.readouterr().err


def test_a_log_edited_by_hand_is_refused_naming_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Each edit used to end in a traceback, count a deal twice, or cut the log at the line
    # (every later deal dropped silently and played again); the deal lines must be this
    # run's deals 0, 1, 2 … Only the last line may be cut short (by a kill): played again.
    base = ["tournament", "--bots", "greedy,random,random", "--seed", "3", "--deals", "4"]
    log = tmp_path / "run.jsonl"
    whole, _ = _json([*base, "--out", str(log)], capsys)
    lines = log.read_text().splitlines()
    deal = json.loads(lines[2])
    hand = deal["hands"][0]
    edits = {
        "no hands": dict(deal, hands=[]),
        "text payments": dict(deal, hands=[dict(hand, payments=["1", "-1", "0"])]),
        "one payment": dict(deal, hands=[dict(hand, payments=[0])]),
        "huge payments": dict(deal, hands=[dict(hand, payments=[1e308, -1e308, 0])]),
        "another bot": dict(deal, hands=[dict(hand, seating=["expert", "random", "random"])]),
        "renumbered": dict(deal, deal=-5),
        "repeated": json.loads(lines[1]),
        "not JSON": "{",
    }
    for how, edit in edits.items():
        text = edit if isinstance(edit, str) else json.dumps(edit)
        log.write_text("\n".join([*lines[:2], text, *lines[3:]]) + "\n")
        assert main([*base, "--resume", str(log), "--json"]) == 2, how
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "line 3: not this run's next deal" in err, (how, err)
        assert log.read_text().splitlines()[3:] == lines[3:]  # nothing after it lost
    # a last line that is not a deal is one cut short: played again, to the same figures
    log.write_text("\n".join([*lines[:-1], "{"]) + "\n")
    resumed, _ = _json([*base, "--resume", str(log)], capsys)
    assert resumed == whole and log.read_text().splitlines() == lines


@pytest.mark.parametrize("command", ["tournament", "ladder"])
def test_minutes_stops_after_the_deal_in_progress(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bots = "greedy,random,random" if command == "tournament" else "greedy,random"
    log = tmp_path / "run.jsonl"
    args = [command, "--bots", bots, "--deals", "50", "--minutes", "0", "--out", str(log)]
    data, _ = _json(args, capsys)
    assert data["deals"] == 1
    assert len(log.read_text().splitlines()) == 2


@pytest.mark.parametrize(("command", "workers"), [("tournament", 1), ("ladder", 2)])
def test_a_time_stop_begins_no_deal_and_writes_those_in_progress(
    command: str,
    workers: int,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Counted in deals, not time: the time is up once 5 deals are in the log. In this
    process the 5th is the last; with workers the deals handed out by then (two a worker, one
    of them the 5th) are finished and written, and no other is begun."""
    log = tmp_path / "run.jsonl"

    def written() -> int:
        return len(log.read_text().splitlines()) - 1

    monkeypatch.setattr(tournament, "stop_after", lambda minutes: lambda: written() >= 5)
    bots = "greedy,random,random" if command == "tournament" else "greedy,random"
    args = [command, "--bots", bots, "--deals", "40", "--minutes", "1", "--out", str(log)]
    data, _ = _json([*args, "--workers", str(workers)], capsys)
    in_flight = distributed.AHEAD * workers - 1 if workers > 1 else 0
    assert data["deals"] == written() == 5 + in_flight
    deals = [json.loads(line)["deal"] for line in log.read_text().splitlines()[1:]]
    assert deals == list(range(5 + in_flight))


def test_progress_lines_and_paired_differences(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--bots", "greedy,random,random", "--deals", "3"]) == 0
    captured = capsys.readouterr()
    assert "deals 1/3" in captured.err and "deals 3/3" in captured.err
    assert "paired, greedy − random on the same deals:" in captured.out
    data, _ = _json(["tournament", "--bots", "greedy,random,random", "--deals", "3"], capsys)
    (diff,) = data["paired"]
    assert diff["bot"] == "greedy" and diff["minus"] == "random"
    means = {b["name"]: b["mean"] for b in data["bots"]}
    assert diff["mean"] == pytest.approx(means["greedy"] - means["random"], abs=1e-3)


def test_a_ladder_killed_with_sigkill_resumes_to_the_uninterrupted_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The acceptance run in small (``benchmarks/resume.py`` runs 2,000 deals): a ladder
    process killed with SIGKILL once its log holds 60 of 300 deals, resumed, gives the result
    and the log of an uninterrupted run, byte for byte."""
    base = ["ladder", "--bots", "random,greedy", "--deals", "300", "--seed", "5"]
    log = tmp_path / "killed.jsonl"
    killed = subprocess.Popen(
        [sys.executable, "-m", "paohuzi", *base, "--out", str(log)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )

    def deals() -> int:
        return log.read_bytes().count(b"\n") - 1 if log.exists() else 0

    try:
        wait_until(lambda: deals() >= 60 or killed.poll() is not None, "no deals", progress=deals)
    finally:
        os.kill(killed.pid, signal.SIGKILL)
        killed.wait()
    assert killed.returncode == -signal.SIGKILL and 60 <= deals() < 300
    resumed, _ = _json([*base, "--resume", str(log)], capsys)
    whole, _ = _json([*base, "--out", str(tmp_path / "whole.jsonl")], capsys)
    assert resumed == whole and resumed["deals"] == 300
    assert log.read_bytes() == (tmp_path / "whole.jsonl").read_bytes()


@pytest.mark.parametrize("value", ["nan", "-1", "inf", "soon"])
def test_minutes_are_a_finite_number_or_refused(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit:  # nan meant no limit, -1 and inf were taken
        main(["tournament", "--bots", "greedy,random,random", "--minutes", value])
    assert exit.value.code == 2 and "--minutes" in capsys.readouterr().err


def test_a_run_of_a_billion_deals_makes_its_jobs_as_they_go(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # "--deals 1000000000 --minutes 60" is the way to say "play for an hour": the run made
    # every deal's job first (7.6 GB in 20 s); and no more processes than jobs are started
    asked: list[int] = []
    real = distributed.run_jobs

    def counting(*args: Any, workers: int = 1, **kwargs: Any) -> Any:
        asked.append(workers)
        return real(*args, workers=workers, **kwargs)

    monkeypatch.setattr("paohuzi.tools.tournament.run_jobs", counting)
    big = ["tournament", "--bots", "greedy,random,random", "--deals", "1000000000"]
    data, _ = _json([*big, "--minutes", "0"], capsys)
    assert data["deals"] == 1 and asked == [1]
    data, _ = _json(
        ["tournament", "--bots", "greedy,random,random", "--deals", "1", "--workers", "40"], capsys
    )
    assert data["deals"] == 1 and asked[-1] == 1  # one deal: played here, no pool of 40


def test_parallel_jobs_hold_one_deal_until_one_is_back_then_what_is_played_in_2_s() -> None:
    # issue 26: each deal written as it is played; with 47 deals a job, an expert run wrote
    # nothing for its first 3 min 45 s and a kill lost the work of up to 94 deals
    slow = tournament.JobSizes(cap=100)
    assert [slow.next() for _ in range(4)] == [1, 1, 1, 1]  # handed out before any came back
    slow.record(1, 5.0)
    assert slow.next() == 1  # 5 s a deal: one deal a job
    slow.record(1, 1.5)
    assert slow.next() == 1  # 3.25 s a deal
    fast = tournament.JobSizes(cap=100)
    fast.record(10, 1.0)
    assert fast.next() == 20  # 0.1 s a deal, JOB_SECONDS = 2
    fast.record(400, 1.0)
    assert fast.next() == 100  # the cap


@pytest.mark.parametrize("stop", [False, True])
def test_a_parallel_runs_job_sizes_follow_what_came_back(
    monkeypatch: pytest.MonkeyPatch, stop: bool
) -> None:
    sizes: list[int] = []
    real = distributed.run_jobs

    def counting(fn: Any, jobs: Any, **kwargs: Any) -> Any:
        def seen() -> Any:
            for job in jobs:
                sizes.append(len(job[2]))
                yield job

        return real(fn, seen(), **kwargs)

    monkeypatch.setattr("paohuzi.tools.tournament.run_jobs", counting)
    monkeypatch.setattr(tournament, "JOB_SECONDS", 1e9)  # any deal's time: the cap
    names = ["greedy", "random", "random"]
    deals = list(
        tournament.run_deals(names, 80, 3, workers=2, stop=(lambda: False) if stop else None)
    )
    assert [d[0].deal for d in deals] == list(range(80))
    if stop:  # a run that may stop goes one deal a job
        assert sizes == [1] * 80
    else:  # 2 jobs a worker go out before one is back; then the cap, 80 ÷ (4 × 2)
        assert sizes[:4] == [1, 1, 1, 1] and set(sizes[4:-1]) == {10} and sum(sizes) == 80


def test_pool_workers_leave_ctrl_c_to_their_parent() -> None:
    handlers = distributed.run_jobs(signal.getsignal, [signal.SIGINT] * 2, workers=2)
    assert list(handlers) == [leave] * 2


def _children(pid: int) -> list[int]:
    """The processes ``pid`` started (Linux's /proc)."""
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


@pytest.mark.parametrize("when", ["running", "starting"])
@pytest.mark.parametrize(
    "command",
    [
        ["tournament", "--bots", "greedy,greedy,greedy", "--deals", "100000"],
        ["simulate", "--loop", "python", "--games", "100000000"],
    ],
    ids=["tournament", "simulate"],
)
def test_ctrl_c_stops_a_run_on_workers_in_one_line(
    command: list[str], when: str, tmp_path: Path
) -> None:
    """A Ctrl-C reaches the terminal's whole process group, the pool's workers too: the run
    stops (the parent's KeyboardInterrupt) without a worker's traceback, whether the workers
    are playing (after a progress line) or still starting (importing, as soon as they exist)."""
    err = tmp_path / "err.txt"
    with err.open("w") as stderr:
        run = subprocess.Popen(
            [sys.executable, "-m", "paohuzi", *command, "--workers", "2"],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
            start_new_session=True,  # its own process group, as a terminal's foreground job
            # As a terminal's job takes Ctrl-C, even where this test runs in a background job
            # (whose SIGINT a shell ignores, and a child would inherit it ignored).
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
    try:
        if when == "running":
            wait_until(lambda: "/" in err.read_text() or run.poll() is not None, "no progress line")
        else:  # the pool's two workers (and multiprocessing's resource tracker) just started
            wait_until(lambda: len(_children(run.pid)) >= 3 or run.poll() is not None, "no pool")
        assert run.poll() is None
        os.killpg(run.pid, signal.SIGINT)
        run.wait(timeout=60)  # does not hang: a bound, not a speed
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
    text = err.read_text()
    assert run.returncode == 130, text
    assert "Traceback" not in text and "SpawnPoolWorker" not in text, text


def test_a_broken_bot_prints_ten_error_lines_then_one_saying_more_are_counted(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data, err = _json(["tournament", "--bots", f"{FLAKY},greedy,random", "--deals", "3"], capsys)
    (flaky,) = [b for b in data["bots"] if b["name"] == FLAKY]
    assert flaky["errors"] > runs.ERROR_LINES + 1  # some were not printed
    lines = [line for line in err.splitlines() if line.startswith("bot error: ")]
    assert len(lines) == runs.ERROR_LINES + 1
    assert all(" deal " in line for line in lines[:-1])
    assert lines[-1] == f"bot error: {FLAKY}: more errors not shown (counted at the end)"
    assert f"bot errors {flaky['errors']}" in err.splitlines()[-1]


@pytest.mark.parametrize("command", ["tournament", "ladder"])
def test_one_deal_has_no_confidence_interval(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bots = "greedy,random,random" if command == "tournament" else "greedy,random"
    args = [command, "--bots", bots, "--deals", "1"]
    if command == "ladder":
        args += ["--out", str(tmp_path)]
    assert main(args) == 0
    out = capsys.readouterr().out
    if command == "ladder":
        out += (tmp_path / "ladder.md").read_text(encoding="utf-8")
    assert "[+0.000, +0.000]" not in out  # was printed whatever the scores
    # two bots and one pair; the ladder's in its text and in ladder.md
    assert out.count("n/a") == (3 if command == "tournament" else 6)
    keys = ("bots", "paired") if command == "tournament" else ("standings", "pairs")
    one, _ = _json(args, capsys)
    two, _ = _json([command, "--bots", bots, "--deals", "2"], capsys)
    for key in keys:
        assert [entry["ci95"] for entry in one[key]] == [None] * len(two[key])
        assert all(len(entry["ci95"]) == 2 for entry in two[key])


@pytest.mark.parametrize("command", ["tournament", "ladder"])
@pytest.mark.parametrize(
    ("options", "says"),
    [
        (["--out", ""], "--out is empty"),
        (["--resume", ""], "--resume is empty"),
        (["--out", "{tmp}/a.jsonl", "--resume", "{tmp}/b.jsonl"], "--resume continues the log"),
    ],
)
def test_an_empty_out_or_out_beside_resume_is_refused_in_one_line(
    command: str,
    options: list[str],
    says: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bots = "greedy,random,random" if command == "tournament" else "greedy,random"
    (tmp_path / "b.jsonl").write_text("")
    options = [option.format(tmp=tmp_path) for option in options]
    assert main([command, "--bots", bots, "--deals", "1", *options]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith(f"paohuzi {command}: error: {says}")
    assert not (tmp_path / "a.jsonl").exists()


def test_out_and_resume_of_the_same_log_go_on_with_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = str(tmp_path / "run.jsonl")
    base = ["tournament", "--bots", "greedy,random,random", "--seed", "2"]
    _json([*base, "--deals", "1", "--out", log], capsys)
    data, _ = _json([*base, "--deals", "2", "--out", log, "--resume", log], capsys)
    assert data["deals"] == 2 and len(Path(log).read_text().splitlines()) == 3
