"""Researcher ergonomics (issue 26 point 5): a checkpoint named as a bot, module bots from the
current directory, protocol programs kept from hand to hand and told the rule set, tables that
a pipe does not cut."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from paohuzi.bots import GreedyBot, RandomBot, play_hand
from paohuzi.bots.learned import NUM_FEATURES, LearnedBot, QNet
from paohuzi.bots.loader import Programs, check_spec, load_bot, spec_notes
from paohuzi.bots.protocol import SubprocessBot, observation_from_json
from paohuzi.cli import main
from paohuzi.engine.game import Game
from paohuzi.engine.observation import observe
from paohuzi.engine.rules import LUZHOU
from paohuzi.tools.ladder import ladder
from paohuzi.tools.tournament import PROGRAMS, tournament
from tests.scenario import random_decisions

ROOT = Path(__file__).resolve().parent.parent


def _paohuzi(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The command as a user runs it, its output going to pipes (not a terminal)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    env.pop("COLUMNS", None)
    return subprocess.run(
        [sys.executable, "-m", "paohuzi", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )


# ---------------------------------------------------------------- learned:PATH


def _weights(path: Path, hidden: tuple[int, ...] = (6,), seed: int = 5) -> QNet:
    net = QNet.new(hidden, seed)
    np.savez(path, **net.params)  # type: ignore[arg-type]
    return net


def test_learned_path_plays_the_weights_of_the_checkpoint(tmp_path: Path) -> None:
    path = tmp_path / "mine.npz"
    net = _weights(path)
    spec = f"learned:{path}"
    check_spec(spec)
    bot = load_bot(spec)
    assert bot.name == spec
    reference = LearnedBot(net=net, samples=0)
    shipped = LearnedBot(samples=0)
    differ = 0
    for game, seat, _ in random_decisions(range(3)):
        obs = observe(game, seat)
        assert bot.act(obs) == reference.act(obs)
        differ += bot.act(obs) != shipped.act(obs)
    assert differ  # its own weights, not the shipped ones


def test_learned_at_n_path_searches_with_the_checkpoints_weights(tmp_path: Path) -> None:
    """D186: ``learned@N:PATH`` is the checkpoint's network searching N samples, as
    ``learned@N`` searches with the shipped one; ``learned@0:PATH`` is ``learned:PATH``."""
    path = tmp_path / "mine.npz"
    net = _weights(path)
    spec = f"learned@3:{path}"
    check_spec(spec)
    bot = load_bot(spec, seed=7)
    assert bot.name == spec
    reference = LearnedBot(7, net=net, samples=3)
    alone = LearnedBot(net=net, samples=0)
    zero = load_bot(f"learned@0:{path}")
    differ = 0
    for game, seat, _ in random_decisions(range(4)):
        obs = observe(game, seat)
        choice = bot.act(obs)
        assert choice == reference.act(obs)
        assert zero.act(obs) == alone.act(obs)
        differ += choice != alone.act(obs)
    assert differ  # it searched: the network alone chose otherwise somewhere
    timed = load_bot(f"learned@search:{path}")
    assert isinstance(bot, LearnedBot) and isinstance(timed, LearnedBot)
    assert timed.samples is None
    assert all(np.array_equal(timed.net.params[k], net.params[k]) for k in net.params)
    assert main(["tournament", "--bots", f"{spec},greedy,greedy", "--deals", "1"]) == 0


def test_a_run_says_that_learned_path_plays_the_network_alone(tmp_path: Path) -> None:
    """D188: ``learned:PATH`` of a network that can search is named in a note on stderr, once,
    with the name that searches; no note for the searching names, the deep network or bad
    specs, nor before a refusal (which stays one line)."""
    path = tmp_path / "mine.npz"
    _weights(path)
    alone = f"learned:{path}"
    [note] = spec_notes([alone, "greedy", alone])
    assert "network alone" in note and f"learned@search:{path}" in note
    deep = ROOT / "src" / "paohuzi" / "bots" / "deep.npz"
    quiet = [f"learned@search:{path}", f"learned@0:{path}", f"learned:{deep}", "learned"]
    quiet += [f"learned:{tmp_path / 'missing.npz'}", "greedy", "expert@8"]
    assert spec_notes(quiet) == []
    for command, bots in (("tournament", f"{alone},greedy,{alone}"), ("ladder", f"{alone},greedy")):
        result = _paohuzi(command, "--bots", bots, "--deals", "1")
        assert result.returncode == 0, result.stderr
        notes = [line for line in result.stderr.splitlines() if "network alone" in line]
        assert notes == [f"paohuzi {command}: {note}"]
    result = _paohuzi("ladder", "--bots", f"learned@search:{path},greedy", "--deals", "1")
    assert result.returncode == 0, result.stderr
    assert "network alone" not in result.stderr
    result = _paohuzi("tournament", "--bots", f"{alone},greedy,greedy", "--deals", "0")
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_a_bad_search_setting_of_a_checkpoint_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "mine.npz"
    _weights(path)
    deep = ROOT / "src" / "paohuzi" / "bots" / "deep.npz"
    cases = {
        f"learned@x:{path}": "bad learned setting 'x'",
        f"learned@1001:{path}": "bad learned setting '1001'",
        f"learned@:{path}": "bad learned setting ''",
        f"learned@8:{deep}": "the deep network (learned-deep) has no search",
        f"learned@search:{tmp_path / 'missing.npz'}": "No such file",
        f"learned@8:{tmp_path / 'missing.npz'}": f"learned@8:{tmp_path / 'missing.npz'}: No such",
        "learned@8:": "learned@8: names no checkpoint: write learned@8:PATH",
        "learned:": "learned: names no checkpoint: write learned:PATH",
    }
    for spec, problem in cases.items():
        with pytest.raises(ValueError, match=problem.replace("(", r"\(").replace(")", r"\)")):
            check_spec(spec)
    result = _paohuzi("tournament", "--bots", f"learned@x:{path},greedy,greedy", "--deals", "1")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "learned@N:PATH" in lines[0], result.stderr
    assert "learned@search:PATH" in lines[0]


def test_learned_path_takes_the_trainers_resumable_checkpoint(tmp_path: Path) -> None:
    from paohuzi.tools.dmc import State, train
    from paohuzi.tools.dmc_settings import Settings

    checkpoint = tmp_path / "run.npz"
    settings = Settings(hands=3, round_hands=3, warmup=0, steps=2, batch=16, hidden=(5,))
    train(settings, checkpoint)
    bot = load_bot(f"learned:{checkpoint}")
    saved = LearnedBot(net=State.load(checkpoint, settings.lr).net, samples=0)
    for game, seat, _ in random_decisions(range(1)):
        obs = observe(game, seat)
        assert bot.act(obs) == saved.act(obs)
    assert (
        main(["tournament", "--bots", f"learned:{checkpoint},greedy,greedy", "--deals", "1"]) == 0
    )


def test_a_missing_or_bad_checkpoint_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    text = tmp_path / "notes.npz"
    text.write_text("not a zip\n")
    wrong = tmp_path / "wrong.npz"
    np.savez(wrong, w0=np.zeros((NUM_FEATURES + 1, 4)), b0=np.zeros(4))
    other = tmp_path / "other.npz"
    np.savez(other, something=np.zeros(3))
    cases = {
        tmp_path / "missing.npz": "No such file",
        text: "not a NumPy .npz",
        wrong: "layer 0 does not fit",
        other: "holds no bot's weights (something)",
    }
    for path, problem in cases.items():
        with pytest.raises(ValueError, match=problem.replace("(", r"\(").replace(")", r"\)")):
            check_spec(f"learned:{path}")
        result = _paohuzi("tournament", "--bots", f"learned:{path},greedy,greedy", "--deals", "1")
        assert result.returncode == 2
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and problem in lines[0] and "Traceback" not in result.stderr


# ---------------------------------------------------------------- module:factory


def test_module_bots_are_found_in_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "my_lab_bots.py").write_text(
        "from paohuzi.bots import GreedyBot\n\n\n"
        "def make(seed):\n    bot = GreedyBot(seed)\n    bot.name = 'mine'\n    return bot\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    monkeypatch.delitem(sys.modules, "my_lab_bots", raising=False)
    check_spec("my_lab_bots:make")
    assert load_bot("my_lab_bots:make", 1).name == "mine"
    assert sys.path[-1] == str(tmp_path)  # after the installed modules, not before
    assert main(["tournament", "--bots", "my_lab_bots:make,greedy,greedy", "--deals", "1"]) == 0


# ---------------------------------------------------------------- train --workers --minutes

TINY = [
    "--net",
    "mlp",
    "--round-hands",
    "4",
    "--warmup",
    "1",
    "--steps",
    "3",
    "--batch",
    "16",
    "--hidden",
    "6",
]


@pytest.mark.xdist_group("workers")
def test_train_on_two_workers_gives_the_rows_and_weights_of_one(tmp_path: Path) -> None:
    from paohuzi.tools.dmc import play_round, players
    from paohuzi.tools.dmc_settings import Settings

    settings = Settings(hands=8, round_hands=4, warmup=1, steps=3, batch=16, hidden=(6,))
    net = QNet.new(settings.hidden, 9)
    alone = play_round(net, settings, 30, 30)
    with players(2) as pool:
        shared = play_round(net, settings, 30, 30, pool)
    assert len(alone[0]) > 200
    assert np.array_equal(alone[0], shared[0]) and np.array_equal(alone[1], shared[1])
    weights = []
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}.npz"
        args = ["train", "--hands", "8", *TINY, "--workers", workers, "--out", str(out)]
        assert main([*args, "--checkpoint", str(tmp_path / f"c{workers}.npz")]) == 0
        with np.load(out) as data:
            weights.append({k: data[k] for k in data.files})
    assert weights[0].keys() == weights[1].keys()
    assert all(np.array_equal(weights[0][k], weights[1][k]) for k in weights[0])


def test_train_minutes_stops_after_the_round_and_the_checkpoint_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from paohuzi.tools.dmc import State

    checkpoint = tmp_path / "c.npz"
    args = ["train", "--hands", "12", *TINY, "--checkpoint", str(checkpoint)]
    args += ["--out", str(tmp_path / "w.npz")]
    assert main([*args, "--minutes", "0"]) == 0  # the deadline has passed when round 1 ends
    assert "stopped after 0 minutes" in capsys.readouterr().out
    assert (State.load(checkpoint, 1e-3).hands, State.load(checkpoint, 1e-3).rounds) == (4, 1)
    load_bot(f"learned:{tmp_path / 'w.npz'}")  # the weights so far are written too
    assert main(args) == 0
    assert "12 hands in 3 rounds" in capsys.readouterr().out
    for bad in (["--workers", "0"], ["--minutes", "-1"]):
        assert main([*args, *bad]) == 2


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--lr", "nan"),
        ("--lr", "-1"),
        ("--epsilon", "2"),
        ("--epsilon", "-1"),
        ("--hidden", "100000000"),
        ("--seed", "-1"),
        ("--out", "/nonexistent-directory/w.npz"),
        ("--checkpoint", "/nonexistent-directory/c.npz"),
    ],
)
def test_bad_mlp_training_options_are_refused_before_a_hand_is_played(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: str, value: str
) -> None:
    args = ["train", "--hands", "4", *TINY, "--checkpoint", str(tmp_path / "c.npz")]
    assert main([*args, "--out", str(tmp_path / "w.npz"), flag, value]) == 2
    err = capsys.readouterr().err
    assert err.startswith("paohuzi train: error: ") and flag in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_a_checkpoint_the_mlp_trainer_cannot_resume_is_named_in_one_line_and_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.npz"
    empty.write_bytes(b"")
    deep = tmp_path / "deep.npz"
    np.savez(deep, meta=np.array("{}"), leaf0=np.zeros(3))
    weights = tmp_path / "weights.npz"
    _weights(weights)
    narrow = tmp_path / "narrow.npz"
    args = ["train", "--hands", "4", *TINY, "--out", str(tmp_path / "w.npz")]
    assert main([*args, "--checkpoint", str(narrow)]) == 0
    cases = {
        empty: f"{empty}: not a checkpoint (not a NumPy .npz archive)",
        deep: f"{deep} is a checkpoint of the other trainer (--net deep): use --checkpoint or "
        "--fresh",
        weights: f"{weights}: not a checkpoint of this trainer (missing m_w0)",
        narrow: f"{narrow} has hidden layers 6: resume it with --hidden 6, or start afresh "
        "with --fresh",
    }
    capsys.readouterr()
    for path, problem in cases.items():
        kept = path.read_bytes()
        more = ["--hands", "8", "--hidden", "8"] if path == narrow else []
        assert main([*args, *more, "--checkpoint", str(path)]) == 2
        assert capsys.readouterr().err == f"paohuzi train: error: {problem}\n"
        assert path.read_bytes() == kept


def test_the_weights_are_written_where_out_names_and_said_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "myweights"
    args = ["train", "--hands", "4", *TINY, "--checkpoint", str(tmp_path / "c.npz")]
    assert main([*args, "--out", str(out)]) == 0
    assert f"weights written to {out}\n" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.npz", "myweights"]
    load_bot(f"learned:{out}")


# ---------------------------------------------------------------- cmd: programs

LOGGING_BOT = """
import json, os, random, sys
first = not os.path.exists(sys.argv[1])
log = open(sys.argv[1], "a")
log.write("started\\n"); log.flush()
die_at = int(sys.argv[2]) if first else 0  # only the first program dies
starts = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        starts += 1
        log.write(line); log.flush()
        rng = random.Random(message["seed"])
    elif message["type"] == "ask":
        if starts == die_at:
            sys.exit(3)
        print(json.dumps({"action": rng.choice(message["legal"])}), flush=True)
"""


def _logging_bot(tmp_path: Path, name: str, die_at: int = 0) -> tuple[str, Path]:
    script = tmp_path / "logging_bot.py"
    script.write_text(LOGGING_BOT)
    log = tmp_path / f"{name}.log"
    return f"cmd:{sys.executable} {script} {log} {die_at}", log


def _starts(log: Path) -> tuple[int, list[dict[str, object]]]:
    lines = log.read_text().splitlines()
    return lines.count("started"), [json.loads(x) for x in lines if x != "started"]


def test_a_program_is_started_once_for_a_whole_tournament(tmp_path: Path) -> None:
    spec, log = _logging_bot(tmp_path, "t")
    hands, stats = tournament([spec, "greedy", "random"], 4, 3)
    assert hands == 24 and all(s.errors == 0 for s in stats)
    started, starts = _starts(log)
    assert started == 1  # was 24: one program a hand
    assert len(starts) == 24 and len({s["seed"] for s in starts}) == 24
    assert len(PROGRAMS) == 0  # ended with the run


def test_a_program_at_two_seats_runs_twice_and_a_ladder_keeps_its_programs(
    tmp_path: Path,
) -> None:
    spec, log = _logging_bot(tmp_path, "l")
    result = ladder([spec, "greedy"], 2, 1)
    assert result.hands == 2 * 2 * 3
    started, starts = _starts(log)
    assert started == 2  # at the table A, A, B two copies play at once
    assert len(starts) == 2 * 3 * 1 + 2 * 3 * 2


def test_a_program_that_dies_is_recorded_and_started_again(tmp_path: Path) -> None:
    spec, log = _logging_bot(tmp_path, "d", die_at=2)  # exits at its second hand's first ask
    hands, stats = tournament([spec, "greedy", "random"], 2, 3)
    errors = {s.name: s.errors for s in stats}
    assert errors == {spec: 1, "greedy": 0, "random": 0}  # the exit, recorded once (D124)
    started, starts = _starts(log)
    assert started == 2 and len(starts) == hands == 12  # started again for the third hand


def test_programs_lend_one_running_program_a_seat_at_a_time(tmp_path: Path) -> None:
    spec, log = _logging_bot(tmp_path, "p")
    programs = Programs()
    lent: list[SubprocessBot] = []
    try:
        for hand in range(3):
            bot = programs.bot(spec, hand)
            assert isinstance(bot, SubprocessBot)
            lent.append(bot)
            play_hand(Game(seed=hand), [bot, GreedyBot(), RandomBot(hand)])
            programs.release(bot)
        assert len(programs) == 1 and lent[0] is lent[1] is lent[2]
        assert lent[0].starts == 1 and lent[0].errors == []
    finally:
        programs.close()
    started, starts = _starts(log)
    assert started == 1 and [s["seed"] for s in starts] == [0, 1, 2]


def test_start_carries_the_rule_set_and_observations_read_it(tmp_path: Path) -> None:
    spec, log = _logging_bot(tmp_path, "r")
    bot = load_bot(spec)
    try:
        game = Game(LUZHOU, seed=2)
        play_hand(game, [bot, GreedyBot(), RandomBot(1)])
    finally:
        bot.close()  # type: ignore[attr-defined]
    _, starts = _starts(log)
    (start,) = starts
    assert start["rules"] == LUZHOU.to_json() and start["protocol"] == "paohuzi-bot/1"
    assert {"seed", "legal", "seat", "hand"} <= set(start) and start["seed"] is None
    assert observation_from_json(start).rules == LUZHOU


# ---------------------------------------------------------------- tables on a pipe


def test_tables_printed_to_a_pipe_are_not_cut(tmp_path: Path) -> None:
    long_name = "a_rather_long_module_name_for_a_bot_of_mine"
    (tmp_path / f"{long_name}.py").write_text(
        "from paohuzi.bots import GreedyBot\n\n\ndef make_the_bot(seed):\n    return GreedyBot(seed)\n"
    )
    spec = f"{long_name}:make_the_bot"
    result = _paohuzi("tournament", "--bots", f"{spec},greedy,random", "--deals", "2", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    rows = [line.strip() for line in result.stdout.splitlines() if line.strip().startswith(spec)]
    assert len(rows) == 1 and "…" not in result.stdout
    assert rows[0].split()[1:] and rows[0].split()[-1] == "0"  # every column, errors last
    result = _paohuzi("ladder", "--bots", f"{spec},random", "--deals", "1", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "…" not in result.stdout and spec in result.stdout
