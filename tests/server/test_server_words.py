"""Every refusal a room sends a connection reads in the table's language: the page's
``SERVER_WORDS`` (static/shared.js) maps each message of the server to a text of i18n.js, in
Chinese and in English. The messages are read from the server's source, so a new one that the
page does not know fails here."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import paohuzi.server.config as config_module
import paohuzi.server.rooms as rooms_module
import paohuzi.server.routes.play as play_module

STATIC = Path(rooms_module.__file__).parent / "static"

# The room's methods a message of a connection reaches (routes/play.py's _handle), and the
# functions whose ValueError such a method returns as its message.
ROOM_METHODS = {"act", "rename", "start", "say", "set_auto", "next_hand"}
RAISING = {(rooms_module, "clean_name"), (config_module, "bot_spec")}


def _text(node: ast.expr, module: ast.Module) -> str | None:
    """The message ``node`` makes (an f-string: its words before the first value); None for
    what is not a message (None itself, a call, a dict)."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr):
        first = node.values[0]
        assert isinstance(first, ast.Constant), ast.unparse(node)  # a message starts in words
        return str(first.value)
    if isinstance(node, ast.Name):  # a module constant (SAVE_FAILED, CLOSED_NOW)
        for statement in module.body:
            if isinstance(statement, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == node.id for t in statement.targets
            ):
                return _text(statement.value, module)
    return None


def _returned(function: ast.AST, module: ast.Module) -> list[str]:
    found = []
    for node in ast.walk(function):
        if isinstance(node, ast.Return) and node.value is not None:
            text = _text(node.value, module)
            if text is not None:
                found.append(text)
            else:  # whatever else it returns is no message it makes up on the spot
                assert not (
                    isinstance(node.value, ast.Call)
                    and isinstance(node.value.func, ast.Name)
                    and node.value.func.id == "str"
                    and getattr(function, "name", "") not in {"rename", "start"}
                ), ast.unparse(node)
        if isinstance(node, ast.Dict):  # {"type": "error", "message": …}
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "message":
                    text = _text(value, module)
                    if text is not None:
                        found.append(text)
    return found


def server_messages() -> list[str]:
    messages = []
    rooms = ast.parse(Path(rooms_module.__file__).read_text("utf-8"))
    for node in ast.walk(rooms):
        if isinstance(node, ast.AsyncFunctionDef | ast.FunctionDef) and node.name in ROOM_METHODS:
            messages += _returned(node, rooms)
    play = ast.parse(Path(play_module.__file__).read_text("utf-8"))
    for node in ast.walk(play):
        if isinstance(node, ast.AsyncFunctionDef | ast.FunctionDef) and node.name in {
            "_handle",
            "handle",
            "play",
        }:
            messages += _returned(node, play)
    for module, name in RAISING:
        tree = ast.parse(Path(module.__file__ or "").read_text("utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == name:
                for raised in ast.walk(node):
                    if (
                        isinstance(raised, ast.Raise)
                        and isinstance(raised.exc, ast.Call)
                        and isinstance(raised.exc.func, ast.Name)
                        and raised.exc.func.id == "ValueError"
                    ):
                        text = _text(raised.exc.args[0], tree)
                        assert text is not None, ast.unparse(raised)
                        messages.append(text)
    return messages


def page_words() -> list[tuple[re.Pattern[str], str]]:
    shared = (STATIC / "shared.js").read_text("utf-8")
    table = shared[
        shared.index("const SERVER_WORDS") : shared.index("];", shared.index("const SERVER_WORDS"))
    ]
    return [(re.compile(p), key) for p, key in re.findall(r'\[/(.+?)/, "(\w+)"\]', table)]


def i18n_keys(language: str) -> set[str]:
    text = (STATIC / "i18n.js").read_text("utf-8")
    start = text.index(f"  {language}: {{")
    end = text.index("\n  },", start)
    return set(re.findall(r"\b(\w+): \"", text[start:end]))


def test_every_refusal_of_a_room_has_the_tables_words_in_both_languages() -> None:
    messages = server_messages()
    # The reading above finds what it should: a message of each kind of source.
    for known in (
        "it is not your turn",  # Room.act
        "spectators watch in silence",  # Room.say
        "the room closed meanwhile: reconnect",  # CLOSED_NOW, a constant
        "unknown message type ",  # _handle, an f-string
        "messages are JSON text, not binary",  # the connection's loop, a dict
        "a name needs at least one visible character",  # clean_name's ValueError
        "unknown bot ",  # Config.bot_spec's ValueError
    ):
        assert known in messages, (known, messages)
    words = page_words()
    assert len(words) > 10
    zh, en = i18n_keys("zh"), i18n_keys("en")
    unmapped = [m for m in messages if not any(p.match(m) for p, _ in words)]
    assert unmapped == [], unmapped
    for _, key in words:
        assert key in zh and key in en, key


def test_the_page_says_a_refusal_in_the_tables_words() -> None:
    """The mapping itself, on messages as the server sends them (an f-string filled in)."""
    words = page_words()

    def key_of(message: str) -> str | None:
        return next((key for p, key in words if p.match(message)), None)

    assert key_of("illegal action peng: not one of your options") == "e_illegal"
    assert key_of("illegal action: the wall is empty") == "e_illegal"
    assert key_of("unreadable action: unknown action 'fly' (discard, chi, peng, hu, pass)") == (
        "e_protocol"
    )
    assert key_of("a name has at most 16 characters") == "e_name_long"
    assert key_of("stale action: the game has moved on (seq does not match)") == "e_stale"
    assert key_of("something the page never heard of") is None
