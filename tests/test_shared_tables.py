"""One source for the tables both cores share (issue 23, point 7), checked by reading both
sides: the native core numbers event kinds, group types and card sources by the order of the
Python enums (the binding hands ints across), and lays out the encoded observation with the
same constants. A variant added, removed or moved on one side only fails here, before any
game could disagree."""

from __future__ import annotations

import re
from enum import Enum
from pathlib import Path

import pytest

from paohuzi.engine.game import EventType
from paohuzi.engine.groups import GroupType
from paohuzi.engine.position import Source
from paohuzi.env import encoding

NATIVE = Path(__file__).parent.parent / "native" / "src"


def rust_source(pattern: str) -> tuple[str, re.Match[str]]:
    """The native core's file holding ``pattern`` (exactly one does), and the match."""
    found = [
        (path.name, match)
        for path in sorted(NATIVE.rglob("*.rs"))
        if (match := re.search(pattern, path.read_text(encoding="utf-8"), re.S)) is not None
    ]
    assert len(found) == 1, (pattern, [name for name, _ in found])
    return found[0]


def rust_enum(name: str) -> list[str]:
    """The variants of the native core's ``pub enum name``, in order (comments and attributes
    skipped), checking that explicit discriminants count up from 0."""
    file, found = rust_source(r"pub enum " + name + r"\s*\{(.*?)\n\}")
    variants: list[str] = []
    for line in found.group(1).splitlines():
        line = line.split("//")[0].strip()
        if not line or line.startswith("#"):
            continue
        variant = re.fullmatch(r"([A-Z][A-Za-z0-9]*)\s*(?:=\s*(\d+))?\s*,?", line)
        assert variant is not None, f"{file}: cannot read {line!r} in enum {name}"
        if variant.group(2) is not None:
            assert int(variant.group(2)) == len(variants), f"{file}: {line!r} out of order"
        variants.append(variant.group(1))
    return variants


def python_names(enum: type[Enum]) -> list[str]:
    return ["".join(part.capitalize() for part in member.name.split("_")) for member in enum]


@pytest.mark.parametrize(
    ("rust", "python"), [("EventType", EventType), ("Source", Source), ("GType", GroupType)]
)
def test_the_native_core_numbers_an_enum_in_the_python_order(rust: str, python: type[Enum]) -> None:
    assert rust_enum(rust) == python_names(python)


def test_the_observation_layout_has_one_set_of_constants() -> None:
    _, planes = rust_source(r"const TABLE_PLANES: usize = (\d+);")
    assert int(planes.group(1)) == encoding.TABLE_PLANES
    # The layout function's arithmetic, line by line: each field of the Rust layout is the
    # Python one's expression (the Python side spells ceil-division with negation).
    _, body = rust_source(r"fn layout\(seats: usize\) -> Layout \{(.*?)\n\}")
    rust = dict(re.findall(r"let (\w+) = ([^;]+);", body.group(1)))
    literal = body.group(1).split("Layout {", 1)[1]
    for name, expression in re.findall(r"^\s*(\w+): ([^,\n]+),", literal, re.M):
        rust[name] = expression.split("//")[0]
    for seats in (3, 4):
        lay = encoding.layout(seats)
        values = {"seats": seats, "NUM_KINDS": 20, "TABLE_PLANES": encoding.TABLE_PLANES}
        for name, expression in rust.items():
            expression = re.sub(r"\(([^()]+)\)\.div_ceil\((\w+)\)", r"-(-(\1) // \2)", expression)
            values[name] = eval(expression, {}, dict(values))  # the Rust arithmetic, in Python
            if hasattr(lay, name):
                assert values[name] == getattr(lay, name), (seats, name, expression)
    assert {"table", "unseen", "offer", "liang", "chou", "planes", "decision"} <= set(rust)
