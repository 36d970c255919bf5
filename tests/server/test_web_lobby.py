"""The way in and the way back (issue 24, points 7 and 8): two friends invited from the lobby
in one press, each asked a nickname before sitting down, the table met by those names; a
leave button and a title that lead to the lobby, whose "my rooms" leads back to the table."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser

from tests.server.conftest import Server
from tests.server.test_web import DESKTOP, PHONE, SMALL_PHONE, Table, wait_js

pytestmark = pytest.mark.xdist_group("browser")


def test_two_friends_are_asked_their_names_and_the_host_finds_the_room_again(
    site: Server, browser: Browser, shots: Path
) -> None:
    host, one, two = (Table(browser, shots, v) for v in (DESKTOP, PHONE, SMALL_PHONE))
    page = host.page
    page.goto(site.url + "/")
    page.fill("#nickname", "老张")
    page.select_option("#friends", "2")  # two friends, no computer: one press
    page.click("#with-friends")
    page.wait_for_selector("#waiting:not([hidden]) #invite-list .invite-item")
    invites = [a.get_attribute("href") or "" for a in page.locator("#invite-list a.invite").all()]
    assert len(invites) == 2 and all("#token=" in link for link in invites)
    assert page.is_visible("#leave")  # a way back from the waiting room too
    # Each friend opens the link with no nickname known: asked one, before sitting down.
    for table, link, name in ((one, invites[0], "小王"), (two, invites[1], "阿明")):
        table.page.goto(link)
        table.page.wait_for_selector("#name-ask:not([hidden])")
        assert table.page.is_hidden("#waiting") and table.page.is_hidden("#table")
        if name == "小王":
            table.shot("invite-name")
        table.page.fill("#ask-name", name)
        table.page.click("#ask-sit")
    for p in (page, one.page, two.page):
        p.wait_for_selector("#hand .card")
    # Everyone is met by name from the first state of the hand on.
    names = page.inner_text("#seats")
    assert "小王" in names and "阿明" in names and "玩家" not in names
    assert "老张" in one.page.inner_text("#seats")
    # The title and the leave button lead to the lobby; the lobby leads back to the table.
    assert page.get_attribute("#home", "href") == "/"
    page.click("#leave")
    page.wait_for_selector("#lobby:not([hidden]) #my-rooms:not([hidden])")
    rooms = page.locator("#my-rooms-list li")
    assert rooms.count() == 1
    assert "你坐1号位" in rooms.first.inner_text() and "小王" in rooms.first.inner_text()
    host.shot("my-rooms")
    rooms.first.locator("a").click()
    page.wait_for_selector("#hand .card")
    wait_js(page, "document.querySelector('#seats').textContent.includes('阿明')")
    assert page.is_hidden("#name-ask")  # the host was never asked: the lobby knew the name
    for table in (host, one, two):
        table.close()


def test_a_friend_may_sit_down_without_a_name(site: Server, browser: Browser, shots: Path) -> None:
    host, friend = Table(browser, shots, DESKTOP), Table(browser, shots, PHONE, locale="en-US")
    host.page.goto(site.url + "/")
    host.page.click("#with-friends")  # one friend and a computer, as before
    host.page.wait_for_selector("#invite-list a.invite")  # the host, who left the name empty
    assert host.page.is_hidden("#name-ask")  # in the lobby, is not asked again
    assert host.page.locator("#invite-list a.invite").count() == 1
    link = host.page.get_attribute("#invite-list a.invite", "href") or ""
    friend.page.goto(link)
    friend.page.wait_for_selector("#name-ask:not([hidden])")
    assert friend.page.inner_text("#ask-skip") == "Sit without a name"
    friend.page.click("#ask-skip")
    for table in (host, friend):
        table.page.wait_for_selector("#hand .card")
    assert "玩家" in host.page.inner_text("#seats")
    for table in (host, friend):
        table.close()
