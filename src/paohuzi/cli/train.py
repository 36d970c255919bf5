"""``paohuzi train``: train the learned bot by Deep Monte-Carlo (docs/learned.md)."""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from paohuzi.tools.dmc_settings import Settings

MAX_HIDDEN = 4096
"""The widest hidden layer ``--hidden`` takes (--net mlp): wider ones do not fit in memory
long before they would help."""
MAX_LAYERS = 16


def add_parser(commands: Any) -> None:
    d = Settings()
    deep = _deep_defaults()
    parser = commands.add_parser(
        "train",
        help="train the learned bot (JAX on CPU; --net mlp: NumPy)",
        description="Train the learned bot's network. The deep network (default, D126, needs "
        "the train extra: JAX, optax): play hands on the native core, the network at each "
        "seat with chance 1 − --greedy-share (ε-exploring) and the greedy bot elsewhere; label "
        "every legal action of every network decision with the seat's payment when it takes "
        "it and every seat then plays the rollout policy from the true deal; fit the network "
        "to each action's label against its decision's mean; repeat. --net mlp: the learned "
        "bot's network (45 chosen features, NumPy; Deep Monte-Carlo, or with --samples the "
        "expert's values, D155). --samples N labels every action by its mean payment over N "
        "deals drawn from what the seat knows instead of one rollout from the true deal. "
        "Resumes from "
        "--checkpoint if it exists; writes it after every round, and the weights alone to "
        "--out at the end (or when --minutes stops it).",
    )
    parser.add_argument(
        "--net",
        choices=("deep", "mlp"),
        default="deep",
        help="the deep network (default) or the learned bot's (mlp)",
    )
    parser.add_argument(
        "--hands",
        type=int,
        help=f"hands to play in all (default {deep.hands}; mlp {d.hands})",
    )
    parser.add_argument(
        "--round-hands",
        type=int,
        help=f"hands between fits (default {deep.round_hands}; mlp {d.round_hands})",
    )
    parser.add_argument(
        "--batch",
        type=int,
        help=f"decisions a step (default {deep.batch}); mlp: rows a step ({d.batch})",
    )
    parser.add_argument(
        "--lr", type=float, help=f"Adam's step size (default {deep.lr:g}; mlp {d.lr:g})"
    )
    parser.add_argument(
        "--epsilon",
        type=float,
        help=f"share of random choices (default {deep.epsilon:g}; mlp {d.epsilon:g})",
    )
    parser.add_argument(
        "--envs",
        type=int,
        default=deep.envs,
        help=f"deep: hands played at once, one forward pass for all (default {deep.envs})",
    )
    parser.add_argument(
        "--passes",
        type=float,
        default=deep.passes,
        help=f"deep: passes over a round's decisions (default {deep.passes:g})",
    )
    parser.add_argument(
        "--greedy-share",
        type=float,
        default=deep.greedy_share,
        help=f"deep: chance a seat is the greedy bot (default {deep.greedy_share:g})",
    )
    parser.add_argument(
        "--samples",
        type=int,
        default=deep.samples,
        help="label every action by its mean payment over this many deals drawn from what "
        "the seat knows, as the expert searches (D155); 0: deep, one rollout from the true "
        f"deal; mlp, Deep Monte-Carlo (default {deep.samples})",
    )
    parser.add_argument(
        "--label-waits",
        choices=("all", "seat"),
        default="all",
        help="mlp with --samples: who counts their waits in the labels' rollouts, every seat "
        "or the deciding seat alone, as learned searches (D161; default all)",
    )
    parser.add_argument(
        "--label-deals",
        choices=("drawn", "true"),
        default="drawn",
        help="mlp with --samples: play the labels' rollouts on deals drawn from what the seat "
        "knows, or on the hand's true deal with the wall's order drawn again (D180; default "
        "drawn)",
    )
    parser.add_argument(
        "--label-losses",
        type=float,
        default=1.0,
        metavar="X",
        help="mlp with --samples: how many times a loss counts in the labels' rollouts, as "
        "if the others won more often than greedy bots do (D190; default 1)",
    )
    parser.add_argument(
        "--eval-every",
        type=int,
        help="rounds between learning-curve points, 0 none "
        f"(default {deep.eval_every}; mlp {d.eval_every})",
    )
    parser.add_argument(
        "--eval-deals",
        type=int,
        help="duplicate deals of a curve point against two greedy bots "
        f"(default {deep.eval_deals}; mlp: 0 none)",
    )
    parser.add_argument(
        "--eval-expert-deals",
        type=int,
        help="mlp: duplicate deals of a curve point against two experts (expert@32), 0 none "
        f"(default {d.eval_expert_deals})",
    )
    parser.add_argument("--plot", help="draw the learning curve to this PNG or SVG file at the end")
    parser.add_argument(
        "--warmup", type=int, default=d.warmup, help=f"mlp: rounds of greedy play ({d.warmup})"
    )
    parser.add_argument(
        "--steps", type=int, default=d.steps, help=f"mlp: Adam steps a round ({d.steps})"
    )
    parser.add_argument(
        "--buffer", type=int, default=d.buffer, help=f"mlp: rows kept to fit on ({d.buffer})"
    )
    parser.add_argument(
        "--hidden",
        default=",".join(map(str, d.hidden)),
        help=f"mlp: hidden layer sizes ({','.join(map(str, d.hidden))})",
    )
    add_run_arguments(parser, d.seed)
    parser.set_defaults(run=run)


def _deep_defaults() -> Any:
    """The deep trainer's settings, without importing JAX (its settings are plain data)."""
    from paohuzi.tools.deep_settings import Settings as DeepSettings

    return DeepSettings()


def add_run_arguments(parser: argparse.ArgumentParser, seed: int = 0) -> None:
    """The options every trainer takes: where its state goes, its seed, and how long and on
    how many processes it runs (D131)."""
    parser.add_argument("--seed", type=int, default=seed, help="decks and generators")
    parser.add_argument(
        "--checkpoint",
        default="train-checkpoint.npz",
        help="resumable state, rewritten every round (default train-checkpoint.npz)",
    )
    parser.add_argument("--fresh", action="store_true", help="ignore an existing checkpoint")
    parser.add_argument(
        "--out", default="learned.npz", help="the weights alone, as the bot ships them"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="processes playing each round's hands (default 1; the same run with any number)",
    )
    parser.add_argument(
        "--minutes",
        type=float,
        help="stop after the round in progress once M minutes passed; the checkpoint resumes",
    )


def check_run_arguments(args: argparse.Namespace) -> str | None:
    """What is wrong with the shared options, if anything: checked before a hand is played,
    so that no run ends in a file it cannot write."""
    if args.workers < 1:
        return "--workers must be at least 1"
    if args.minutes is not None and not args.minutes >= 0:
        return "--minutes must be 0 or more"
    if args.seed < 0:
        return "--seed must be 0 or more"
    for flag, name in (("--checkpoint", args.checkpoint), ("--out", args.out)):
        problem = _unwritable(flag, Path(name))
        if problem is not None:
            return problem
    return None


def _unwritable(flag: str, path: Path) -> str | None:
    """Why ``path`` cannot be written, if it obviously cannot."""
    if path.is_dir():
        return f"{flag} {path} is a directory, not a file"
    if not path.parent.is_dir():
        return f"{flag} {path}: the directory {path.parent} does not exist"
    return None


def _progress() -> tuple[Console, Progress]:
    """The progress bar of a training run on stderr (off when stderr is not a terminal: the
    trainers then print a line a round)."""
    console = Console(stderr=True)
    progress = Progress(
        TextColumn("hands"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("loss {task.fields[loss]:.4f} {task.fields[curve]}"),
        TimeRemainingColumn(),
        console=console,
        disable=not console.is_terminal,
    )
    return console, progress


def _plot_problem(plot: str | None) -> str | None:
    """What is wrong with ``--plot``, if anything."""
    if not plot:
        return None
    path = Path(plot)
    problem = _unwritable("--plot", path)
    if problem is None and path.suffix.lower() not in (".png", ".svg"):
        problem = f"--plot draws a .png or .svg file, not {path.name!r}"
    if problem is None and importlib.util.find_spec("matplotlib") is None:
        # checked before a hand is played: a run is not to end in an import error
        problem = "--plot needs matplotlib (not installed): pip install 'paohuzi[train]'"
    return problem


def _point_text(point: dict[str, float] | None) -> str:
    """A learning-curve point in a few words (nothing for none)."""
    if point is None:
        return ""
    names = (("vs_greedy", "vs greedy"), ("alone", "alone"), ("vs_expert", "vs expert"))
    shown = ", ".join(f"{text} {point[key]:+.2f}" for key, text in names if key in point)
    return f"{shown} at {int(point['hands'])}" if shown else ""


def _fail(message: str) -> int:
    print(f"paohuzi train: error: {message}", file=sys.stderr)
    return 2


def _reason(error: Exception) -> str:
    """One line for a file that cannot be written or a checkpoint that is refused."""
    if isinstance(error, OSError) and error.strerror:
        return f"{error.filename}: {error.strerror}" if error.filename else error.strerror
    return str(error)


def run(args: argparse.Namespace) -> int:
    for name, default in (("label_waits", "all"), ("label_deals", "drawn"), ("label_losses", 1.0)):
        if getattr(args, name) != default and (args.net == "deep" or not args.samples):
            flag = "--" + name.replace("_", "-")
            return _fail(f"{flag} labels --net mlp --samples N's rollouts only")
    if args.net == "deep":
        return run_deep(args)
    try:
        from paohuzi.tools.curve import plot
        from paohuzi.tools.dmc import CURVE_LABELS, State, export, train  # NumPy: to train
    except ModuleNotFoundError as missing:
        return _fail(
            f"--net mlp needs NumPy ({missing.name} is not installed): pip install 'paohuzi[train]'"
        )

    d = Settings()
    for name in (
        "hands",
        "round_hands",
        "batch",
        "lr",
        "epsilon",
        "eval_every",
        "eval_deals",
        "eval_expert_deals",
    ):
        if getattr(args, name) is None:
            setattr(args, name, getattr(d, name))

    try:
        hidden = tuple(int(h) for h in args.hidden.split(","))
    except ValueError:
        return _fail(f"--hidden takes sizes separated by commas, not {args.hidden!r}")
    if min(args.hands, args.round_hands, args.batch, args.buffer, *hidden) < 1 or args.steps < 0:
        return _fail("--hands, --round-hands, --batch, --buffer and --hidden must be at least 1")
    if max(hidden) > MAX_HIDDEN or len(hidden) > MAX_LAYERS:
        return _fail(f"--hidden takes at most {MAX_LAYERS} sizes of at most {MAX_HIDDEN}")
    if not 0 <= args.samples <= 1000:
        return _fail("--samples must be between 0 and 1000")
    if not (math.isfinite(args.lr) and 0 < args.lr <= 1):
        return _fail("--lr must be above 0 and at most 1")
    if not 0 <= args.epsilon <= 1:
        return _fail("--epsilon must be between 0 and 1")
    if not 1 <= args.label_losses <= 10:  # NaN fails too
        return _fail("--label-losses must be between 1 and 10")
    if min(args.eval_every, args.eval_deals, args.eval_expert_deals) < 0:
        return _fail("--eval-every, --eval-deals and --eval-expert-deals must be 0 or more")
    problem = check_run_arguments(args) or _plot_problem(args.plot)
    if problem is not None:
        return _fail(problem)
    settings = Settings(
        hands=args.hands,
        round_hands=args.round_hands,
        warmup=args.warmup,
        steps=args.steps,
        batch=args.batch,
        lr=args.lr,
        epsilon=args.epsilon,
        hidden=hidden,
        seed=args.seed,
        buffer=args.buffer,
        samples=args.samples,
        label_waits=True if args.label_waits == "all" else "seat",
        label_deals=args.label_deals,
        label_losses=args.label_losses,
        eval_every=args.eval_every,
        eval_deals=args.eval_deals,
        eval_expert_deals=args.eval_expert_deals,
    )
    console, progress = _progress()
    task = progress.add_task("hands", total=args.hands, loss=0.0, curve="")

    def on_round(state: State) -> None:
        curve = _point_text(state.curve[-1] if state.curve else None)
        progress.update(task, completed=state.hands, loss=state.loss, curve=curve)
        if not console.is_terminal:
            print(
                f"round {state.rounds}: {state.hands} hands, loss {state.loss:.4f}"
                + (f", {curve}" if curve else ""),
                flush=True,
            )

    try:
        with progress:
            state = train(
                settings,
                Path(args.checkpoint),
                resume=not args.fresh,
                on_round=on_round,
                workers=args.workers,
                minutes=args.minutes,
            )
        export(state, Path(args.out))
        if args.plot:
            plot(state.curve, Path(args.plot), CURVE_LABELS)
    except (OSError, ValueError, KeyError) as error:
        return _fail(_reason(error))
    print(f"{state.hands} hands in {state.rounds} rounds; weights written to {args.out}")
    if args.plot:
        print(f"learning curve drawn in {args.plot}")
    if state.hands < args.hands:
        print(
            f"stopped after {args.minutes:g} minutes; the same command without --fresh goes "
            f"on from {args.checkpoint}"
        )
    return 0


def run_deep(args: argparse.Namespace) -> int:
    """``paohuzi train`` of the deep network (D126)."""
    from dataclasses import replace

    d = _deep_defaults()
    given = {
        name: getattr(args, name)
        for name in ("hands", "round_hands", "batch", "lr", "epsilon", "eval_every", "eval_deals")
        if getattr(args, name) is not None
    }
    if args.eval_expert_deals is not None:
        return _fail("--eval-expert-deals measures --net mlp's curve only")
    problem = check_run_arguments(args) or _plot_problem(args.plot)
    if problem is not None:
        return _fail(problem)
    settings = replace(
        d,
        **given,
        envs=args.envs,
        passes=args.passes,
        greedy_share=args.greedy_share,
        samples=args.samples,
        seed=args.seed,
    )
    problem = settings.problem()
    if problem is not None:
        return _fail(problem)
    try:
        from paohuzi.tools import deep_train  # JAX: only to train
    except ModuleNotFoundError as missing:
        return _fail(
            f"training needs JAX and optax ({missing.name} is not installed): "
            "pip install 'paohuzi[train]'"
        )
    console, progress = _progress()
    task = progress.add_task("hands", total=settings.hands, loss=0.0, curve="")

    def on_round(state: deep_train.State) -> None:
        curve = _point_text(state.curve[-1] if state.curve else None)
        progress.update(task, completed=state.hands, loss=state.loss, curve=curve)
        if not console.is_terminal:
            print(
                f"round {state.rounds}: {state.hands} hands, loss {state.loss:.4f}"
                + (f", {curve}" if curve else ""),
                flush=True,
            )

    try:
        with progress:
            state = deep_train.train(
                settings,
                Path(args.checkpoint),
                resume=not args.fresh,
                on_round=on_round,
                workers=args.workers,
                minutes=args.minutes,
            )
        deep_train.export(state, Path(args.out))
        if args.plot:
            from paohuzi.tools.curve import plot

            plot(state.curve, Path(args.plot))
    except (OSError, ValueError, KeyError) as error:
        return _fail(_reason(error))
    print(f"{state.hands} hands in {state.rounds} rounds; weights written to {args.out}")
    if args.plot:
        print(f"learning curve drawn in {args.plot}")
    if state.hands < settings.hands:
        print(
            f"stopped after {args.minutes:g} minutes; the same command without --fresh goes "
            f"on from {args.checkpoint}"
        )
    return 0
