"""Known players at the table (issue 25, points 4 and 6): each seat panel of a player shows
their rating in the room's rule family, and another player's panel offers 屏蔽发言 (their
sayings hidden from you alone) and 拉黑 (sent to the server, shown on the panel), as their
profile does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests.server.conftest import Server
from tests.server.test_web import PHONE, Table, wait_js
from tests.server.test_web_hall import LAPTOP, enter_hall, quick

pytestmark = pytest.mark.xdist_group("browser")


def seat_three(server: Server, browser: Browser, shots: Path) -> tuple[list[Table], list[str]]:
    """Three strangers seated at one quick table: their pages and player ids."""
    tables = [Table(browser, shots, v) for v in (LAPTOP, PHONE, LAPTOP)]
    ids = [
        enter_hall(t.page, server.url, n)
        for t, n in zip(tables, ("Ann", "阿博", "小陈"), strict=True)
    ]
    for table in tables[:2]:  # the third is seated at once: its page goes to the table
        quick(table.page)
        table.page.wait_for_selector("#quick-wait:not([hidden])")
    quick(tables[2].page)
    for table in tables:
        table.page.wait_for_selector("#hand .card")
    return tables, ids


def panel(player: str) -> str:
    return f".seat[data-player='{player}']"


def me_of(page: Page) -> Any:
    return page.evaluate("fetch('/api/me').then(r => r.json())")


def test_seat_panels_show_each_players_rating(
    server: Server, browser: Browser, shots: Path
) -> None:
    tables, ids = seat_three(server, browser, shots)
    for table in tables:
        for player in ids:
            # New players: the first rating of D120, provisional.
            wait_js(
                table.page,
                f"document.querySelector(\"{panel(player)} .rating\")?.textContent === '1500?'",
            )
    tables[0].shot("manners-ratings")
    tables[1].shot("manners-ratings")
    for table in tables:
        table.close()


def test_mute_hides_a_players_sayings_for_you_alone_and_block_is_kept(
    server: Server, browser: Browser, shots: Path
) -> None:
    (ann, bo, chen), (ann_id, bo_id, chen_id) = seat_three(server, browser, shots)
    # Every bubble shown on Ann's page, whose seat it was on.
    ann.page.evaluate(
        """() => { window.bubbles = [];
        new MutationObserver(changes => { for (const c of changes) for (const n of c.addedNodes)
          if (n.classList?.contains('bubble')) window.bubbles.push(n.closest('.seat').dataset.player);
        }).observe(document.getElementById('table'), {childList: true, subtree: true}); }"""
    )
    ann.page.click(f"{panel(bo_id)} button.manners-open")
    ann.page.click(f"{panel(bo_id)} button.manner-mute")
    ann.page.wait_for_selector(f"{panel(bo_id)} .badge.muted")
    assert me_of(ann.page)["blocks"]["mute"] == [bo_id]
    ann.shot("manners-muted")
    bo.page.click("#say-open")
    bo.page.click("#say-menu button[data-say='hello']")
    chen.page.wait_for_selector(f"{panel(bo_id)} .bubble")
    # Chen, who saw Bo's saying, says one: Ann is shown Chen's, so Bo's came before it.
    chen.page.click("#say-open")
    chen.page.click("#say-menu button[data-say='thanks']")
    wait_js(ann.page, f"window.bubbles.includes('{chen_id}')")
    # (a bubble is put back on its seat's panel each time the panels are drawn again)
    assert set(ann.page.evaluate("window.bubbles")) == {chen_id}
    # Unmuted, Bo is heard again.
    ann.page.click(f"{panel(bo_id)} button.manners-open")
    ann.page.click(f"{panel(bo_id)} button.manner-mute")
    wait_js(ann.page, f'!document.querySelector("{panel(bo_id)} .badge.muted")')
    assert me_of(ann.page)["blocks"]["mute"] == []
    # A block is sent and shown.
    ann.page.click(f"{panel(chen_id)} button.manners-open")
    ann.shot("manners-menu")
    ann.page.click(f"{panel(chen_id)} button.manner-block")
    ann.page.wait_for_selector(f"{panel(chen_id)} .badge.blocked")
    assert me_of(ann.page)["blocks"]["block"] == [chen_id]
    assert me_of(chen.page)["blocks"]["blocked_by"] == [ann_id]
    # On a profile too: Bo's page mutes Ann.
    bo.page.goto(f"{server.url}/player/{ann_id}")
    bo.page.click("#profile-manners button.manner-mute")
    bo.page.wait_for_selector("#profile-manners button.manner-mute[aria-pressed='true']")
    assert me_of(bo.page)["blocks"]["mute"] == [ann_id]
    bo.shot("manners-profile")
    for table in (ann, bo, chen):
        table.close()


def test_a_saying_stays_through_a_redraw_and_goes_when_its_player_is_muted(
    server: Server, browser: Browser, shots: Path
) -> None:
    """A saying shows for 3.5 s whatever redraws the seat panels meanwhile (every state
    does), unless the redraw is its player being muted (D123, D173). Ann's page's clock is
    held still, so that the 3.5 s cannot pass while the test looks, however slow the machine."""
    (ann, bo, chen), (_, bo_id, chen_id) = seat_three(server, browser, shots)
    page = ann.page
    page.clock.install()
    page.clock.pause_at(page.evaluate("Date.now()") + 1000)
    bo.page.click("#say-open")
    bo.page.click("#say-menu button[data-say='hello']")
    page.wait_for_selector(f"{panel(bo_id)} .bubble")
    # Ann opens Chen's menu and mutes him: the panels are drawn anew, Bo's saying stays.
    page.click(f"{panel(chen_id)} button.manners-open")
    page.wait_for_selector(f"{panel(chen_id)} .manners")
    assert page.locator(f"{panel(bo_id)} .bubble").count() == 1
    page.click(f"{panel(chen_id)} button.manner-mute")
    page.wait_for_selector(f"{panel(chen_id)} .badge.muted")
    assert page.locator(f"{panel(bo_id)} .bubble").count() == 1
    # Ann mutes Bo: his saying goes with the redraw.
    page.click(f"{panel(bo_id)} button.manners-open")
    page.click(f"{panel(bo_id)} button.manner-mute")
    page.wait_for_selector(f"{panel(bo_id)} .badge.muted")
    assert page.locator(f"{panel(bo_id)} .bubble").count() == 0
    page.clock.resume()
    for table in (ann, bo, chen):
        table.close()
