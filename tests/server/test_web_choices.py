"""What the table offers and marks (issue 24): a 吃 is one choice per result (R7: a 吃 and its
比 named in either order lay the same groups), and the settlement marks the one card that won,
not every card of its kind (R10.6)."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, ViewportSize, WebSocketRoute

from paohuzi.engine.game import Game
from paohuzi.engine.groups import GroupType
from paohuzi.server.rooms import reveal_of, winning_group
from tests.server.conftest import Server
from tests.server.test_web import (
    DESKTOP,
    FAKE_ROOM,
    PHONE,
    SMALL_PHONE,
    Table,
    four_seat_state,
    wait_js,
)

pytestmark = pytest.mark.xdist_group("browser")

CLAIM = four_seat_state(0) | {
    "hand": "x8 x9 x10 x1 x2 d9 d9 d2 d2 d2 d3 d3 d6",
    "hand_sizes": [13, 15, 16, 0], "turn": 2, "offer": "x9", "offer_source": "discarded",
    "seq": 16, "deadline": None, "timer": 0,
    # Found in real play (engine, seed 0): the first two lay the same two groups.
    "legal": ["chi x8x9x10 x9d9d9", "chi x9d9d9 x8x9x10", "chi x9x9d9", "pass"],
}  # fmt: skip


def fake_room(page: Any, first: dict[str, Any], sent: list[str]) -> None:
    """The page's WebSocket answered by this test: ``first`` is the one state it gets."""

    def fake(ws: WebSocketRoute) -> None:
        ws.on_message(lambda message: sent.append(str(message)))
        ws.send(json.dumps(first))

    page.route_web_socket(re.compile(r"/ws/"), fake)
    page.route("**/api/rooms/*/hands", lambda r: r.fulfill(json=[]))
    page.route(re.compile(r"/api/rooms/f{32}$"), lambda r: r.fulfill(json=FAKE_ROOM))
    page.route("**/api/rooms/*/hands/*/record", lambda r: r.fulfill(json={}))


@pytest.mark.parametrize(
    "viewport", [DESKTOP, PHONE, SMALL_PHONE], ids=["desktop", "phone", "phone-small"]
)
def test_a_chi_is_one_choice_per_result(
    site: Server, browser: Browser, shots: Path, viewport: ViewportSize
) -> None:
    table = Table(browser, shots, viewport)
    page = table.page
    sent: list[str] = []
    fake_room(page, CLAIM, sent)
    page.goto(site.url + "/room/" + "f" * 32 + "#token=t")
    page.wait_for_selector("#prompt .claim-chi-open")
    page.keyboard.press("c")
    options = page.locator("#prompt .chi-option")
    # Three actions, two results: 八九十 比 九玖玖 (either way round), and 九九玖.
    assert options.count() == 2
    assert [o.get_attribute("data-action") for o in options.all()] == [
        "chi x8x9x10 x9d9d9",
        "chi x9x9d9",
    ]
    table.shot("chi-results")
    page.keyboard.press("2")  # the second choice is the second result, not a duplicate
    wait_js(page, "document.querySelector('#prompt').hidden")
    acts = [json.loads(m) for m in sent if '"act"' in m]
    assert acts == [{"type": "act", "action": "chi x9x9d9", "seq": 16}]
    table.close()


SETTLED = four_seat_state(0) | {
    "over": True, "legal": [], "turn": None, "offer": None,
    "totals": [30, -10, 0, -20], "ready": [False, True, False, True],
    "result": {
        "winner": 0, "winning_card": "d6", "self_drawn": False, "tianhu": False,
        "haidi": False, "huxi": 21, "deng": 2, "fan": 1, "score": 2,
        "mingtang": [], "payments": [4, -2, 0, -2], "other_huxi": {"1": 3, "3": 0},
        # A 坎 of 陆 held before the win, and the fourth 陆 that won in 伍陆柒.
        "groups": ["peng:x8x8x8", "chi:x4x5x6", "kan:d6d6d6", "run:d5d6d7",
                   "run:x1x2x3", "pair:d2d2", "kan:x9x9x9"],
    },
    "reveal": {
        "hands": ["", "x1 x2", "", "d1 d1"], "tables": [["peng:x8x8x8", "chi:x4x5x6"], [], [], []],
        "wall": "x3 x4", "group_huxi": [1, 0, 6, 0, 3, 0, 3], "self_draw_deng": 0,
        "haidi_fan": 0, "winning_group": 3,
    },
}  # fmt: skip


@pytest.mark.parametrize(
    "viewport", [DESKTOP, PHONE, SMALL_PHONE], ids=["desktop", "phone", "phone-small"]
)
def test_only_the_card_that_won_is_marked(
    site: Server, browser: Browser, shots: Path, viewport: ViewportSize
) -> None:
    table = Table(browser, shots, viewport)
    page = table.page
    fake_room(page, SETTLED, [])
    page.goto(site.url + "/room/" + "f" * 32 + "#token=t")
    page.wait_for_selector("#settlement:not([hidden])")
    marked = page.locator("#settle-groups .card.winning")
    assert marked.count() == 1  # not the three of the 坎
    group = page.locator("#settle-groups .sgroup").nth(3)
    assert group.locator(".card.winning").count() == 1
    assert group.locator(".card.winning").get_attribute("data-kind") == "d6"
    table.shot("settlement-winning-card")
    table.close()


def test_the_winning_group_holds_the_card_that_won_and_no_held_kan() -> None:
    """The server's ``winning_group``, over the wins of random hands of both cores: the group
    holds the winning card, and it is made at the win (not laid on the table before), and no
    坎 unless nothing else holds the card."""
    rng = random.Random(24)
    wins = 0
    for i in range(1200):
        game = Game(seed=i, core="python" if i % 2 else "auto")
        while not game.is_over:
            game.apply(rng.choice(game.legal_actions()))
        result = game.result
        assert result is not None
        index = winning_group(game)
        assert reveal_of(game)["winning_group"] == index
        if result.hu is None or result.win is None:
            assert index is None
            continue
        wins += 1
        assert index is not None and result.winner is not None
        groups = result.hu.groups
        assert result.win in groups[index].cards
        texts = [str(g) for g in groups]
        laid = Counter(str(g) for g in game.tables[result.winner])
        # Texts whose every group was on the winner's table before the win.
        old = {text for text in texts if texts.count(text) <= laid[text]}
        if texts[index] in old:  # a group of the table only when no new group holds the card
            assert all(str(g) in old for g in groups if result.win in g.cards)
        if groups[index].type is GroupType.KAN:
            others = [g for g in groups if result.win in g.cards and g.type is not GroupType.KAN]
            assert not others
    assert wins > 50  # about one hand in nine of random play is won
