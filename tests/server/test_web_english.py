"""The English table (issue 24, point 9): in English the page reads English everywhere — the
lobby, a whole hand with its claims, events and settlement, and the replay of it — with
Chinese left only on the card faces (and in the game's name and the switch back to 中文)."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from tests import clock
from tests.server.conftest import Server
from tests.server.test_web import DESKTOP, TABLE_MARK, WIN_SEED, Table, local, new_room, step

pytestmark = pytest.mark.xdist_group("browser")

CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uf900-\ufaff\uff00-\uffef]")

READ = """() => {
  // What a player reads: every visible text, and every label a screen reader says, outside
  // the card faces, the game's name and the language switch.
  const found = [];
  const skip = el => el.closest('.card, #lang, h1 .zi');
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const node = walk.currentNode, el = node.parentElement;
    if (!el || !node.textContent.trim() || skip(el) || !el.checkVisibility()) continue;
    found.push(node.textContent.trim());
  }
  for (const el of document.querySelectorAll('[aria-label], [title]')) {
    if (skip(el) || !el.checkVisibility()) continue;
    for (const name of ['aria-label', 'title']) if (el.getAttribute(name)) found.push(el.getAttribute(name));
  }
  return found;
}"""


def chinese(page: Page) -> list[str]:
    """The texts of the page, as READ finds them, that hold Chinese."""
    return [text for text in page.evaluate(READ) if CJK.search(text)]


def test_the_english_table_reads_english(site: Server, browser: Browser, shots: Path) -> None:
    table = Table(browser, shots, DESKTOP, locale="en-US")
    page = table.page
    page.goto(site.url + "/")
    page.wait_for_selector("#lobby:not([hidden])")
    assert chinese(page) == []
    room = new_room(site, [None, "greedy", "greedy"], WIN_SEED)
    page.goto(site.url + local(room["seats"][0]["url"]))
    page.wait_for_selector("#hand .card")
    seen: dict[str, str] = {}
    progress = clock.Progress()
    while not page.is_visible("#settlement"):
        progress.check(page.evaluate(TABLE_MARK), "the hand stopped")
        for text in chinese(page):
            seen.setdefault(text, page.evaluate(TABLE_MARK))
        with contextlib.suppress(Exception):  # the state moved under the click: look again
            step(page)
        page.wait_for_timeout(40)
    page.wait_for_selector("#settlement:not([hidden]) #settle-figures .fig")
    assert seen == {}, seen
    assert chinese(page) == []  # the settlement: groups, figures, 等 explained, payments
    assert "deng" in page.inner_text("#settle-figures")
    table.shot("english-settlement")
    page.click("#settle-close")
    page.click("#log-box summary")  # the log of the hand's events
    page.wait_for_selector("#history a.replay-link")
    assert chinese(page) == []
    page.click("#lang")  # the list of hands follows the toggle both ways
    clock.wait_until(lambda: CJK.search(page.inner_text("#history")), "the list stayed English")
    page.click("#lang")
    clock.wait_until(lambda: not CJK.search(page.inner_text("#history")), "the list stayed Chinese")
    page.goto(site.url + f"/room/{room['room']}/hand/0")  # the replay of it
    page.wait_for_selector("#replay-bar:not([hidden])")
    assert chinese(page) == []
    table.close()
