"""R3: hu-xi of every group, small and big; R12 Luzhou table."""

from __future__ import annotations

import pytest

from paohuzi.engine.rules import HUNAN, LUZHOU
from tests.helpers import G


@pytest.mark.parametrize(
    "group, huxi",
    [
        ("run:x4x5x6", 0),
        ("run:d4d5d6", 0),
        ("chi:x8x9x10", 0),
        ("run:x1x2x3", 3),
        ("run:d1d2d3", 6),
        ("chi:x1x2x3", 3),
        ("chi:d1d2d3", 6),
        ("run:x2x7x10", 3),
        ("run:d2d7d10", 6),
        ("chi:x2x7x10", 3),
        ("chi:d2d7d10", 6),
        ("jiao:x2x2d2", 0),
        ("chi:x2d2d2", 0),
        ("jiao:x1d1d1", 0),
        ("kan:x6x6x6", 3),
        ("kan:d6d6d6", 6),
        ("peng:x5", 1),
        ("peng:d5", 3),
        ("wei:x3", 3),
        ("wei:d3", 6),
        ("chouwei:x2", 3),
        ("chouwei:d2", 6),
        ("pao:x9", 6),
        ("pao:d9", 9),
        ("ti:x10", 9),
        ("ti:d10", 12),
        ("pair:d1", 0),
        ("pair:x1", 0),
    ],
)
def test_r3_huxi_table(group: str, huxi: int) -> None:
    assert HUNAN.huxi.group(G(group)) == huxi


@pytest.mark.parametrize(
    "group, huxi",
    [
        ("peng:x5", 1),
        ("peng:d5", 3),
        ("peng:x7", 6),  # red kinds score more in Luzhou
        ("peng:d10", 9),
        ("kan:x5", 6),
        ("kan:d2", 12),
        ("wei:x3", 6),
        ("pao:x3", 9),  # 招 = 坎 + 3
        ("pao:d7", 15),
        ("ti:x3", 12),  # 垅 = 招 + 3
        ("ti:d2", 18),  # at most 18
        ("run:x1x2x3", 3),
        ("run:d1d2d3", 6),
        ("run:x2x7x10", 6),
        ("run:d2d7d10", 9),
        ("jiao:x2x2d2", 0),
    ],
)
def test_r12_luzhou_huxi_table(group: str, huxi: int) -> None:
    assert LUZHOU.huxi.group(G(group)) == huxi
