"""Layering checks (issues 11, 23): the engine imports only the standard library and itself,
nothing below the CLI imports it, nothing outside the engine reads a private engine attribute,
and no module but the rules writes the number of seats as a literal."""

from __future__ import annotations

import ast
import importlib
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
PACKAGE = ROOT / "src" / "paohuzi"
ENGINE_DIR = PACKAGE / "engine"
ENGINE = {p.stem for p in ENGINE_DIR.glob("*.py")} - {"__init__"}
"""The engine's modules (paohuzi.engine.<name>): pure standard library, no I/O (STYLE.md)."""


def _sources() -> list[Path]:
    found = [p for p in PACKAGE.rglob("*.py")]
    for folder in ("tests", "benchmarks", "examples"):
        found += (ROOT / folder).rglob("*.py")
    return sorted(found)


def _is_engine(path: Path) -> bool:
    return path.parent == ENGINE_DIR


NATIVE_PLUG = {"paohuzi.native", "paohuzi._native", "paohuzi.native.core"}
"""What the engine may import of the optional compiled core: the core behind ``Game``, asked
for where a game is made (D84)."""


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports, anywhere in it (functions too), with its line; a
    relative import is resolved against the package."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = ".".join(path.relative_to(PACKAGE.parent).parts[: -node.level])
                found.append((node.lineno, f"{package}.{node.module}" if node.module else package))
            else:
                found.append((node.lineno, node.module or ""))
    return found


def test_the_engine_imports_only_the_standard_library_and_itself() -> None:
    assert {"cards", "rules", "evaluator", "core", "python_core", "game", "record"} <= ENGINE
    engine = {f"paohuzi.engine.{name}" for name in ENGINE} | {"paohuzi.engine"}
    found = []
    checked = 0
    for name in sorted(ENGINE):
        path = ENGINE_DIR / f"{name}.py"
        for line, module in _imports(path):
            checked += 1
            top = module.partition(".")[0]
            if top == "paohuzi":
                if module not in engine | NATIVE_PLUG | {"paohuzi"}:
                    found.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
            elif top not in sys.stdlib_module_names and top != "__future__":
                found.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert checked > 100 and found == []  # every engine module's imports were read


def test_nothing_below_the_cli_imports_it() -> None:
    found = []
    scanned = 0
    for path in sorted(PACKAGE.rglob("*.py")):
        inside = path.relative_to(PACKAGE).parts
        if inside[0] == "cli" or inside == ("__main__.py",):
            continue
        scanned += 1
        for line, module in _imports(path):
            if module == "paohuzi.cli" or module.startswith("paohuzi.cli."):
                found.append(f"{path.relative_to(ROOT)}:{line} imports {module}")
    assert scanned > 50 and found == []


def _private(name: str) -> bool:
    return name.startswith("_") and not name.endswith("__")


def _engine_private_names() -> set[str]:
    """Private names the engine defines: module names, methods, attributes set on ``self``."""
    names: set[str] = set()
    for path in _sources():
        if not _is_engine(path):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and _private(node.name):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                if _private(node.attr):
                    names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                if _private(node.id):
                    names.add(node.id)
            elif (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name)
                and _private(node.target.id)
            ):
                names.add(node.target.id)
    return names


def test_no_module_outside_the_engine_reads_a_private_engine_attribute() -> None:
    private = _engine_private_names()
    assert {"_phase", "_seats", "_options", "_derived"} <= private  # the check sees the engine
    found = []
    scanned = 0
    for path in _sources():
        if _is_engine(path):
            continue
        scanned += 1
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("paohuzi"):
                if (node.module or "").startswith("paohuzi.engine"):
                    found += [f"{where} imports {a.name}" for a in node.names if _private(a.name)]
            elif isinstance(node, ast.Attribute) and node.attr in private:
                owner = node.value
                if not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
                    found.append(f"{where} reads .{node.attr}")
    assert scanned > 80 and found == []  # the modules outside the engine were read


SEAT_COUNT = re.compile(
    r"range\(3\)|\(0, 1, 2\)|\[0, 1, 2\]|% 3\b|\bPLAYERS\b|randrange\(3\)|\[0, 0, 0\]|"
    r"\bthree seats\b|\b2 opponents\b"
)


def test_no_literal_seat_count_outside_the_rules() -> None:
    found = []
    lines = 0
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == ENGINE_DIR / "rules.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            lines += 1
            if SEAT_COUNT.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert lines > 10_000 and found == []  # the package's modules were read


def test_a_module_that_moved_keeps_a_deprecated_alias() -> None:
    from paohuzi._moved import MOVED

    assert len(MOVED) >= 25 and "paohuzi.game" in MOVED and "paohuzi.native_game" in MOVED
    for old, new in sorted(MOVED.items()):
        moved = importlib.import_module(new)
        sys.modules.pop(old, None)
        with pytest.warns(DeprecationWarning, match=f"{old} is deprecated: import {new}"):
            alias = importlib.import_module(old)
        assert alias is moved, old  # the very module: its classes are the same classes
    native_game = importlib.import_module("paohuzi.native_game")
    assert not hasattr(native_game, "NativeGame")  # gone without an alias (issue 23)
    assert not (PACKAGE / "game.py").exists()  # no module is left at its old place


def test_the_layout_shows_the_layers() -> None:
    """Issue 23, point 6: the engine, the native core, the tools, then what sits on top."""
    flat = {p.stem for p in PACKAGE.glob("*.py")}
    assert flat == {"__init__", "__main__", "_moved"}
    assert {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()} == {
        "bots",
        "cli",
        "engine",
        "env",
        "lessons",
        "native",
        "server",
        "tools",
    }
