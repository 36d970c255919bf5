"""R1 cards and F1 notation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paohuzi.engine.cards import (
    DECK_SIZE,
    RED_KINDS,
    NotationError,
    format_cards,
    full_deck,
    is_big,
    parse_cards,
    parse_kind,
    rank,
)


def test_r1_eighty_cards_four_of_each_of_twenty_kinds() -> None:
    deck = full_deck()
    assert len(deck) == DECK_SIZE == 80
    assert all(deck.count(k) == 4 for k in range(20))


def test_r1_red_cards_are_2_7_10_of_both_sizes() -> None:
    assert sorted(RED_KINDS) == parse_cards("x2 x7 x10 d2 d7 d10")
    assert sum(k in RED_KINDS for k in full_deck()) == 24


def test_r1_rank_ignores_size() -> None:
    assert rank(parse_kind("伍")) == rank(parse_kind("五")) == 5
    assert is_big(parse_kind("d5")) and not is_big(parse_kind("x5"))


def test_f1_names_and_canonical_order() -> None:
    kinds = parse_cards("x1 x2 x3 x4 x5 x6 x7 x8 x9 x10 d1 d2 d3 d4 d5 d6 d7 d8 d9 d10")
    assert kinds == list(range(20))


def test_f1_glyphs_and_separators() -> None:
    assert parse_cards("一二三四五六七八九十") == list(range(10))
    assert parse_cards("壹贰叁肆伍陆柒捌玖拾") == list(range(10, 20))
    assert parse_cards("x1x2x3") == parse_cards("x1 x2 x3") == parse_cards("x1,x2,x3") == [0, 1, 2]
    assert parse_cards("x10d10x1") == [9, 19, 0]
    assert parse_cards("  ") == []


def test_f1_format_is_canonical_and_space_separated() -> None:
    assert format_cards(parse_cards("d10 x1 拾 x10")) == "x1 x10 d10 d10"


@pytest.mark.parametrize(
    "text, bad", [("x11", "x11"), ("x1 y2", "y2"), ("x0", "x0"), ("d", "d"), ("x1 五x", "x")]
)
def test_f1_bad_token_is_named(text: str, bad: str) -> None:
    with pytest.raises(NotationError, match=repr(bad).replace("'", ".")):
        parse_cards(text)


def test_f1_parse_kind_wants_exactly_one() -> None:
    with pytest.raises(NotationError):
        parse_kind("x1 x2")


@given(st.lists(st.integers(0, 19), max_size=30))
def test_f1_format_parse_round_trip(kinds: list[int]) -> None:
    text = format_cards(kinds)
    assert parse_cards(text) == sorted(kinds)
    assert format_cards(parse_cards(text)) == text
