"""``paohuzi train``: train the learned bot by Deep Monte-Carlo (docs/learned.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from paohuzi.tools.dmc_settings import Settings


def add_parser(commands: Any) -> None:
    d = Settings()
    parser = commands.add_parser(
        "train",
        help="train the learned bot (NumPy, CPU)",
        description="Train the learned bot's network by Deep Monte-Carlo: play hands (greedy "
        "bots first, then the network with ε-exploration against itself and greedy), fit the "
        "network to each decision's final payment, repeat. Resumes from --checkpoint if it "
        "exists; writes it after every round, and the weights alone to --out at the end (or "
        "when --minutes stops it).",
    )
    parser.add_argument(
        "--hands", type=int, default=d.hands, help=f"hands to play in all (default {d.hands})"
    )
    parser.add_argument("--round-hands", type=int, default=d.round_hands, help="hands between fits")
    parser.add_argument("--warmup", type=int, default=d.warmup, help="rounds of greedy play")
    parser.add_argument("--steps", type=int, default=d.steps, help="Adam steps a round")
    parser.add_argument("--batch", type=int, default=d.batch, help="rows a step")
    parser.add_argument("--lr", type=float, default=d.lr, help="Adam's step size")
    parser.add_argument("--epsilon", type=float, default=d.epsilon, help="share of random choices")
    parser.add_argument("--hidden", default=",".join(map(str, d.hidden)), help="hidden layer sizes")
    add_run_arguments(parser, d.seed)
    parser.set_defaults(run=run)


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
    """What is wrong with the shared options, if anything."""
    if args.workers < 1:
        return "--workers must be at least 1"
    if args.minutes is not None and not args.minutes >= 0:
        return "--minutes must be 0 or more"
    return None


def _fail(message: str) -> int:
    print(f"paohuzi train: error: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    from paohuzi.tools.dmc import State, export, train  # NumPy: only to train

    try:
        hidden = tuple(int(h) for h in args.hidden.split(","))
    except ValueError:
        return _fail(f"--hidden takes sizes separated by commas, not {args.hidden!r}")
    if min(args.hands, args.round_hands, args.batch, *hidden) < 1 or args.steps < 0:
        return _fail("--hands, --round-hands, --batch and --hidden must be at least 1")
    problem = check_run_arguments(args)
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
    )
    console = Console(stderr=True)
    progress = Progress(
        TextColumn("hands"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("loss {task.fields[loss]:.4f}"),
        TimeRemainingColumn(),
        console=console,
        disable=not console.is_terminal,
    )
    task = progress.add_task("hands", total=args.hands, loss=0.0)

    def on_round(state: State) -> None:
        progress.update(task, completed=state.hands, loss=state.loss)
        if not console.is_terminal:
            print(f"round {state.rounds}: {state.hands} hands, loss {state.loss:.4f}", flush=True)

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
    except (OSError, ValueError, KeyError) as error:
        return _fail(str(error))
    export(state, Path(args.out))
    print(f"{state.hands} hands in {state.rounds} rounds; weights written to {args.out}")
    if state.hands < args.hands:
        print(
            f"stopped after {args.minutes:g} minutes; the same command without --fresh goes "
            f"on from {args.checkpoint}"
        )
    return 0
