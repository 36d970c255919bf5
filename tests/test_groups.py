"""R3 group shapes and F2 group notation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paohuzi.engine.cards import NotationError, parse_cards
from paohuzi.engine.groups import (
    Group,
    GroupType,
    is_jiao,
    is_sequence,
    make_group,
    parse_group,
    parse_groups,
)


def cards(text: str) -> tuple[int, ...]:
    return tuple(sorted(parse_cards(text)))


@pytest.mark.parametrize("text", ["x1x2x3", "x8x9x10", "d1d2d3", "d8d9d10", "x2x7x10", "d2d7d10"])
def test_r3_sequences(text: str) -> None:
    assert is_sequence(cards(text))


@pytest.mark.parametrize("text", ["x1x2d3", "x2x7d10", "x9x10d1", "x1x3x5", "x2x7x9", "x1x1x2"])
def test_r3_not_sequences_small_and_big_never_mix(text: str) -> None:
    assert not is_sequence(cards(text))


def test_r3_jiao_is_one_rank_not_all_one_size() -> None:
    assert is_jiao(cards("x2x2d2")) and is_jiao(cards("x2d2d2"))
    assert not is_jiao(cards("x2x2x2")) and not is_jiao(cards("d2d2d2"))


def test_f2_format_full_and_canonical() -> None:
    assert str(parse_group("peng:x5")) == "peng:x5x5x5"
    assert str(parse_group("ti:d10")) == "ti:d10d10d10d10"
    assert str(parse_group("pair:d1")) == "pair:d1d1"
    assert str(parse_group("chi:d2x2d2")) == "chi:x2d2d2"
    assert str(parse_group("run:x10x2x7")) == "run:x2x7x10"
    assert str(parse_group("chouwei:二二二")) == "chouwei:x2x2x2"


def test_f2_group_lists() -> None:
    groups = parse_groups("peng:x5 chi:x1x2x3, ti:d10")
    assert [str(g) for g in groups] == ["peng:x5x5x5", "chi:x1x2x3", "ti:d10d10d10d10"]
    assert parse_groups("") == []
    assert parse_groups("chi:x1 x2 x3") == [Group(GroupType.CHI, (0, 1, 2))]


@pytest.mark.parametrize(
    "text, message",
    [
        ("peng:x5x6", "not 3 identical"),
        ("chi:x1x2x4", "neither a sequence nor"),
        ("run:x2x2d2", "not a sequence"),
        ("jiao:x1x2x3", "not a 绞"),
        ("zhao:x5", "unknown group type"),
        ("x5x5x5", "not a group"),
        ("peng:", "has no cards"),
        ("pao:x5x5x5", "not 4 identical"),
    ],
)
def test_f2_bad_groups(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        parse_groups(text)


_SHAPES = [
    make_group(t, c)
    for t in GroupType
    for c in (
        [(k,) for k in range(20)]
        if t not in (GroupType.CHI, GroupType.RUN, GroupType.JIAO)
        else [cards(x) for x in ("x1x2x3", "x2x7x10", "d8d9d10", "x4x4d4", "x9d9d9")]
    )
    if not (t is GroupType.RUN and is_jiao(c)) and not (t is GroupType.JIAO and is_sequence(c))
]


@given(st.sampled_from(_SHAPES))
def test_f2_format_parse_round_trip(group: Group) -> None:
    assert parse_group(str(group)) == group
