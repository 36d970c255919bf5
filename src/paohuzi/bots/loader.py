"""Bots by name, wherever they come from: a built-in level, ``module:factory`` or ``cmd:…``.

A *bot spec* is a string, so it pickles and crosses process and machine boundaries (the
``--workers`` pool, Ray): each process builds its own bot from it.

* a built-in name (:data:`paohuzi.bots.BOTS`, ``expert@N``, ``expert@Xs``);
* ``module:factory`` — ``factory(seed)`` from an importable module returns the bot (an object
  with ``name`` and ``act(observation)``, :class:`paohuzi.bots.Bot`);
* ``cmd:PROGRAM ARGS`` — a program speaking the bot protocol (docs/protocol.md), started for
  the bot and ended by :func:`close_bot`.

Only an operator or a local user names ``module:`` and ``cmd:`` bots: they run code. The
server's lobby offers a fixed list the operator chose (``paohuzi serve --offer-bots``).
"""

from __future__ import annotations

import importlib
import re
import shlex
from typing import Any

from paohuzi.bots import BOTS, Bot, make_bot
from paohuzi.bots.protocol import SubprocessBot

CMD = "cmd:"
_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def spec_kind(spec: str) -> str:
    """``builtin``, ``module`` or ``cmd``."""
    if spec.startswith(CMD):
        return "cmd"
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
        return _program(spec)
    factory = _factory(spec)
    bot: Any = factory(seed)
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
    else:
        _factory(spec)


def close_bot(bot: Bot) -> None:
    """End what a bot holds (a protocol bot's program); nothing for the others."""
    close = getattr(bot, "close", None)
    if callable(close):
        close()


def describe_specs() -> str:
    """The kinds of bot names, for help texts."""
    return f"{', '.join(BOTS)} (expert@N: N samples a decision), module:factory or cmd:PROGRAM"


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
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ValueError(f"bot {spec!r}: cannot import {module_name}: {error}") from None
    factory = getattr(module, attribute, None)
    if not callable(factory):
        raise ValueError(f"bot {spec!r}: {module_name} has no callable {attribute}")
    return factory
