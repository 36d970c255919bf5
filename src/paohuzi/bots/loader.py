"""Bots by name, wherever they come from: a built-in level, a checkpoint, ``module:factory`` or
``cmd:…``.

A *bot spec* is a string, so it pickles and crosses process and machine boundaries (the
``--workers`` pool, Ray): each process builds its own bot from it.

* a built-in name (:data:`paohuzi.bots.BOTS`, ``expert@N``, ``expert@Xs``);
* ``learned:PATH`` — the learned bot's network alone (as ``learned@0``, D156) playing the
  weights of a checkpoint (a NumPy ``.npz``, :func:`checkpoint_bot`; D130);
  ``learned@N:PATH`` the same weights searching N samples a decision as ``learned@N`` does,
  ``learned@search:PATH`` with the search of ``learned`` (about 4 ms a decision, D186);
* ``module:factory`` — ``factory(seed)`` from a module importable here or from the current
  directory (as ``python -m`` finds it) returns the bot (an object with ``name`` and
  ``act(observation)``, :class:`paohuzi.bots.Bot`);
* ``cmd:PROGRAM ARGS`` — a program speaking the bot protocol (docs/protocol.md), started for
  the bot and ended by :func:`close_bot`; :class:`Programs` keeps programs running from hand
  to hand of a run.

Only an operator or a local user names ``module:`` and ``cmd:`` bots: they run code. The
server's lobby offers a fixed list the operator chose (``paohuzi serve --offer-bots``).
"""

from __future__ import annotations

import importlib
import os
import re
import shlex
import sys
import zipfile
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

from paohuzi.bots import BOTS, SAMPLES, Bot, learned_samples, make_bot
from paohuzi.bots.protocol import SubprocessBot

CMD = "cmd:"
LEARNED = "learned:"
SEARCH = "search"
"""The setting of ``learned@search:PATH``: the time-bound search of the built-in ``learned``."""
_SEARCHING = re.compile(r"learned@([^:]*):")
"""The start of ``learned@N:PATH`` and ``learned@search:PATH`` (D186)."""
_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def spec_kind(spec: str) -> str:
    """``builtin``, ``checkpoint``, ``module`` or ``cmd``."""
    if spec.startswith(CMD):
        return "cmd"
    if spec.startswith(LEARNED) or _SEARCHING.match(spec):
        return "checkpoint"
    if ":" in spec:
        return "module"
    return "builtin"


def load_bot(spec: str, seed: int | None = None) -> Bot:
    """The bot a spec names; ValueError when it cannot be made (unknown name, module or
    factory, a program that does not start)."""
    kind = spec_kind(spec)
    if kind == "builtin":
        return make_bot(spec, seed)
    if kind == "cmd":
        program = _program(spec)
        program.seed = seed
        return program
    if kind == "checkpoint":
        return _checkpoint_spec(spec, seed)
    factory = _factory(spec)
    try:
        bot: Any = factory(seed)
    except (Exception, SystemExit) as error:  # a wrong signature, a raise, an exit
        raise ValueError(
            f"bot {spec!r}: {spec.partition(':')[2]}(seed) raised {type(error).__name__}: {error}"
        ) from None
    if not callable(getattr(bot, "act", None)):
        raise ValueError(f"{spec}: the factory returned {type(bot).__name__}, which has no act()")
    if not isinstance(getattr(bot, "name", None), str):
        bot.name = spec
    return bot  # type: ignore[no-any-return]


def check_spec(spec: str) -> None:
    """Raise ValueError if ``spec`` cannot name a bot; starts no program."""
    kind = spec_kind(spec)
    if kind == "builtin":
        make_bot(spec)
    elif kind == "cmd":
        _command(spec)
    elif kind == "checkpoint":
        _checkpoint_spec(spec)
    else:  # the factory is called once, so that one that cannot make a bot says so now
        close_bot(load_bot(spec, 0))


def spec_notes(specs: Iterable[str]) -> list[str]:
    """Lines a run prints, once each, about specs that play otherwise than their names may
    suggest: ``learned:PATH`` of a network that could search plays it alone (D130, D188; a
    tournament meant to compare searching bots once compared a network alone). Reads the
    checkpoints (cached) of ``learned:PATH`` only; a spec that names no bot has no note."""
    notes = []
    for spec in dict.fromkeys(specs):
        if not spec.startswith(LEARNED):
            continue
        try:
            bot = _checkpoint_spec(spec)
        except ValueError:
            continue
        from paohuzi.bots.learned import LearnedBot  # NumPy is there: the checkpoint was read

        if isinstance(bot, LearnedBot):  # not the deep network: it has no search to leave out
            notes.append(
                f"note: {spec} plays the checkpoint's network alone (as learned@0); "
                f"learned@{SEARCH}:{spec[len(LEARNED) :]} plays it with the search of learned"
            )
    return notes


def close_bot(bot: Bot) -> None:
    """End what a bot holds (a protocol bot's program); nothing for the others."""
    close = getattr(bot, "close", None)
    if callable(close):
        close()


class Programs:
    """The protocol programs (``cmd:``) of a run: each started when a seat first needs it and
    kept from hand to hand, lent to one seat at a time (D130). Other specs are made afresh
    for every hand, as :func:`load_bot` makes them."""

    def __init__(self) -> None:
        self._idle: dict[str, list[SubprocessBot]] = {}
        self._running: list[SubprocessBot] = []

    def bot(self, spec: str, seed: int | None = None) -> Bot:
        """The bot of ``spec`` for one hand: a running program if one is free (told ``seed``
        in the hand's ``start``), else a new bot; give it back with :meth:`release`."""
        if spec_kind(spec) != "cmd":
            return load_bot(spec, seed)
        idle = self._idle.get(spec)
        if idle:
            program = idle.pop()
        else:
            program = _program(spec)
            self._running.append(program)
        program.seed = seed
        program.new_hand()
        return program

    def release(self, bot: Bot) -> None:
        """The hand is over: a program waits for the next one; any other bot is closed."""
        if isinstance(bot, SubprocessBot) and bot in self._running:
            self._idle.setdefault(bot.name, []).append(bot)
        else:
            close_bot(bot)

    def close(self) -> None:
        """End every program."""
        for program in self._running:
            program.close()
        self._running.clear()
        self._idle.clear()

    def __len__(self) -> int:
        return len(self._running)


def describe_specs() -> str:
    """The kinds of bot names, for help texts."""
    return (
        f"{', '.join(BOTS)} (expert@N, learned@N: N samples a decision), learned:CHECKPOINT.npz "
        "(the network alone; learned@N:CHECKPOINT.npz or learned@search:CHECKPOINT.npz "
        "searching), module:factory or cmd:PROGRAM"
    )


def _command(spec: str) -> list[str]:
    try:
        command = shlex.split(spec[len(CMD) :])
    except ValueError as error:
        raise ValueError(f"cannot read {spec!r}: {error}") from None
    if not command:
        raise ValueError("cmd: needs a program to run, as in cmd:./mybot")
    return command


def _program(spec: str) -> SubprocessBot:
    command = _command(spec)
    try:
        return SubprocessBot(command, name=spec)
    except OSError as error:
        raise ValueError(f"cannot start {command[0]}: {error.strerror}") from None


def _factory(spec: str) -> Any:
    module_name, _, attribute = spec.partition(":")
    if not _MODULE.fullmatch(module_name) or not attribute.isidentifier():
        raise ValueError(f"bad bot {spec!r}: write module:factory, as in mypackage.bots:make")
    _look_here()
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ValueError(f"bot {spec!r}: cannot import {module_name}: {error}") from None
    except Exception as error:  # the module's own code failed: a SyntaxError, a raise
        raise ValueError(
            f"bot {spec!r}: importing {module_name} raised {type(error).__name__}: {error}"
        ) from None
    factory = getattr(module, attribute, None)
    if not callable(factory):
        raise ValueError(f"bot {spec!r}: {module_name} has no callable {attribute}")
    return factory


def _look_here() -> None:
    """Let imports find modules in the current directory, as ``python -m`` does; after the
    installed ones, so that a file here cannot stand in for the standard library (D130)."""
    here = os.getcwd()
    if here not in sys.path and "" not in sys.path:
        sys.path.append(here)


def _checkpoint_spec(spec: str, seed: int | None = None) -> Bot:
    """The bot of ``learned:PATH``, ``learned@N:PATH`` or ``learned@search:PATH``."""
    if spec.startswith(LEARNED):
        return checkpoint_bot(spec[len(LEARNED) :], spec, seed=seed)
    match = _SEARCHING.match(spec)
    assert match is not None  # spec_kind said so
    setting = match.group(1)
    if setting == SEARCH:
        samples = None
    else:
        try:
            samples = learned_samples(setting)
        except ValueError:
            raise ValueError(
                f"bad learned setting {setting!r}: learned@N:PATH with N samples a decision "
                f"(0–{SAMPLES[1]}; 0: the network alone) or learned@{SEARCH}:PATH (the search "
                "of learned)"
            ) from None
    return checkpoint_bot(spec[match.end() :], spec, seed=seed, samples=samples)


def checkpoint_bot(
    path: str, name: str | None = None, *, seed: int | None = None, samples: int | None = 0
) -> Bot:
    """The bot playing the weights of the checkpoint at ``path`` (a NumPy ``.npz`` of arrays,
    no pickled objects), chosen by the arrays it holds: ``w0, b0, w1, b1, …`` are the learned
    first learned bot's value network (:class:`paohuzi.bots.learned.QNet`), ``s0_w, s0_b, …``
    the deep network's (:class:`paohuzi.bots.deep.DeepNet`): the weights ``paohuzi train``
    exports, or its resumable checkpoint. ``samples`` as in ``learned@N`` (0: the network
    alone; None: the search of ``learned``, about 4 ms); the deep network has no search.
    ValueError in one line for a file that is missing, holds no bot's weights, or is asked
    for a search it does not have."""
    label = name or f"{LEARNED}{path}"
    if not path:
        raise ValueError(f"{label} names no checkpoint: write {label}PATH")
    file = Path(path)
    try:
        stat = file.stat()
    except OSError as error:
        raise ValueError(f"{label}: {error.strerror}") from None
    make = _checkpoint(str(file.resolve()), stat.st_mtime_ns, stat.st_size, label)
    bot: Any = make(seed, samples)
    bot.name = label
    return bot  # type: ignore[no-any-return]


@cache
def _checkpoint(path: str, mtime: int, size: int, label: str) -> Any:
    """A maker of the bot for a checkpoint file, read once a version of the file; ``label``
    (the bot's name) begins its errors."""
    del mtime, size  # in the key: a rewritten file is read again
    try:
        import numpy as np

        from paohuzi.bots.learned import LearnedBot, QNet, input_width
    except ModuleNotFoundError as missing:
        raise ValueError(
            f"a checkpoint needs NumPy ({missing.name} is not installed): "
            "pip install 'paohuzi[train]'"
        ) from None
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise ValueError(f"{label}: not a NumPy .npz checkpoint ({error})") from None
    if "s0_w" in arrays:  # the deep network (D126): exported weights or a training checkpoint
        from paohuzi.bots.deep import DeepBot, DeepNet

        deep = DeepNet.of(arrays, label)

        def deep_bot(seed: int | None, samples: int | None) -> Bot:
            if samples != 0:
                raise ValueError(
                    f"{label}: the deep network (learned-deep) has no search: name it {LEARNED}PATH"
                )
            return DeepBot(net=deep)

        return deep_bot
    if "w0" in arrays and "b0" in arrays:
        from paohuzi.bots.deep import real_array

        layers = _layers(label, arrays, input_width(arrays["w0"]))
        net = QNet({k: real_array(label, k, arrays[k]) for k in layers})
        return lambda seed, samples: LearnedBot(seed, net=net, samples=samples)
    held = ", ".join(sorted(arrays)[:8]) or "no arrays"
    raise ValueError(f"{label}: holds no bot's weights ({held})")


def _layers(label: str, arrays: dict[str, Any], features: int) -> list[str]:
    """The names of a value network's arrays, checked to chain from ``features`` inputs to
    one output (``label`` begins the error)."""
    names: list[str] = []
    width = features
    i = 0
    while f"w{i}" in arrays:
        w, b = arrays[f"w{i}"], arrays.get(f"b{i}")
        if w.ndim != 2 or w.shape[0] != width or b is None or b.shape != (w.shape[1],):
            raise ValueError(
                f"{label}: layer {i} does not fit ({width} inputs expected, "
                f"w{i} {w.shape}, b{i} {None if b is None else b.shape})"
            )
        names += [f"w{i}", f"b{i}"]
        width = w.shape[1]
        i += 1
    if width != 1:
        raise ValueError(f"{label}: the last layer has {width} outputs, not 1")
    return names
