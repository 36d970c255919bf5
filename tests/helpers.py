"""Readable test inputs: cards and groups in F1/F2 notation."""

from __future__ import annotations

from paohuzi.engine.cards import Kind, parse_cards, parse_kind
from paohuzi.engine.groups import Group, parse_group, parse_groups


def C(text: str) -> list[Kind]:
    """Cards."""
    return parse_cards(text)


def K(text: str) -> Kind:
    """One kind."""
    return parse_kind(text)


def G(text: str) -> Group:
    """One group."""
    return parse_group(text)


def T(text: str) -> list[Group]:
    """Table groups."""
    return parse_groups(text)


def names(groups: object) -> list[str]:
    """F2 text of groups, sorted, for order-free comparison."""
    assert isinstance(groups, (list, tuple))
    return sorted(str(g) for g in groups)
