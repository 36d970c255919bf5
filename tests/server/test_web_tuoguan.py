"""托管 in a real headless Chromium (issue 24, point 1; D116): forgiving, as the players' apps
are. It ends at a touch of a card or a button and at 准备; a timeout says at once what it
played, with the way back beside it; a quick game against computers has no timer unless the
lobby asks for one. The fixtures and helpers are ``test_web.py``'s."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, WebSocket

from tests.server.conftest import Server
from tests.server.test_web import (
    DESKTOP,
    PHONE,
    WIN_SEED,
    Table,
    local,
    new_room,
    tap,
    timed_room,
    wait_js,
)

pytestmark = pytest.mark.xdist_group("browser")

DECIDING = "#prompt:not([hidden]) .claims button, #hand.discarding .card"
"""The page asks you to decide: a claim's buttons, or your hand to discard from."""
ASKED_WITH_TIMER = (
    "!document.getElementById('timebar').hidden && !document.querySelector('#me .badge.auto')"
    " && !!document.querySelector('" + DECIDING + "')"
)
"""Your decision, yours to make (not on 托管), with its timer running."""


@pytest.fixture
def paced(tmp_path: Path) -> Iterator[Server]:
    """A server whose frames are paced as a real table's (its own: timers run in it)."""
    found = Server(tmp_path / "db.sqlite", bot_delay=0.4)
    found.start()
    yield found
    found.stop()


class Wire:
    """The messages a page sends and the states it is sent, as JSON."""

    def __init__(self, page: Page) -> None:
        self.sent: list[Any] = []
        self.states: list[Any] = []
        page.on("websocket", self._watch)

    def _watch(self, ws: WebSocket) -> None:
        ws.on("framesent", lambda payload: self.sent.append(json.loads(payload)))
        ws.on("framereceived", self._received)

    def _received(self, payload: str | bytes) -> None:
        message = json.loads(payload)
        if message.get("type") == "state":
            self.states.append(message)

    def autos(self) -> list[Any]:
        return [m for m in self.sent if m["type"] == "auto"]


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_timed_out_claim_says_what_was_played_and_offers_control_back(
    paced: Server, browser: Browser, shots: Path, viewport: ViewportSize
) -> None:
    table = Table(browser, shots, viewport)
    page = table.page
    wire = Wire(page)
    timed_room(paced, page, WIN_SEED, timer=5)
    page.wait_for_selector("#prompt:not([hidden]) .claim-peng")  # a 碰, and its timer
    assert page.is_visible("#timebar")
    card = page.get_attribute("#offer-slot .card", "data-kind")
    table.shot("claim-timer")
    page.wait_for_selector("#auto-bar:not([hidden])")  # nobody answered
    # Told at once, on the question as it was put: before the table moved on.
    told = next(s for s in wire.states if s["auto"][0])
    assert told["offer"] == card and told["timed_out"][0] == {"n": 1, "action": "pass"}
    # The table says the time ran out and what was played, beside the way back; the
    # question is gone, buttons and bar alike.
    notice = page.inner_text("#auto-bar")
    assert "时间到" in notice and "选择过" in notice, notice
    assert page.is_visible("#auto-off") and page.inner_text("#auto-off") == "取消托管"
    assert page.is_hidden("#prompt") and page.is_hidden("#timebar")
    assert "要不要" not in page.inner_text("#status")
    table.shot("timed-out")
    page.click("#auto-off")
    page.wait_for_selector("#auto-bar", state="hidden")
    assert page.is_hidden("#me .badge.auto")
    # 托管 asked for later says only that: the timeout was over when control came back.
    page.click("#auto-on")
    page.wait_for_selector("#auto-bar:not([hidden])")
    assert "时间到" not in page.inner_text("#auto-bar") and "托管中" in page.inner_text("#auto-bar")
    table.close()


def test_a_touch_of_a_card_takes_back_control(paced: Server, browser: Browser, shots: Path) -> None:
    table = Table(browser, shots, DESKTOP)
    page = table.page
    wire = Wire(page)
    timed_room(paced, page, WIN_SEED, timer=5)
    page.wait_for_selector("#auto-bar:not([hidden])")  # the first 碰 timed out
    card = page.locator("#hand .card:not(.locked)").first
    tap(card)
    tap(card)  # a second touch before the server answers asks nothing more
    page.wait_for_selector("#auto-bar", state="hidden")
    # Back at the controls: the next decision is yours, with its timer.
    wait_js(page, ASKED_WITH_TIMER)
    table.shot("taken-back")
    tap(page.locator("#hand .card:not(.locked)").first)  # not on 托管: nothing to ask
    assert wire.autos() == [{"type": "auto", "on": False}]
    table.close()


def test_saying_ready_ends_tuoguan_for_the_next_hand(
    site: Server, browser: Browser, shots: Path
) -> None:
    table = Table(browser, shots, PHONE)
    page = table.page
    wire = Wire(page)
    room = new_room(site, [None, "greedy", "greedy"], WIN_SEED)
    page.goto(site.url + local(room["seats"][0]["url"]))
    page.wait_for_selector("#auto-on:not([hidden])")
    page.click("#auto-on")  # the computer plays the whole hand
    page.wait_for_selector("#settlement:not([hidden])")
    assert page.is_visible("#me .badge.auto")
    page.click("#ready")
    wait_js(page, "document.getElementById('where').textContent.includes('第2局')")
    # 准备 took back control (the server decided it: the page asked nothing more).
    assert page.is_hidden("#auto-bar") and page.is_hidden("#me .badge.auto")
    page.wait_for_selector(DECIDING + ", #settlement:not([hidden])")  # it waits for you
    assert page.is_hidden("#auto-bar")
    assert wire.autos() == [{"type": "auto", "on": True}]
    table.shot("ready-takes-back")
    table.close()


def created_timer(page: Page, button: str) -> int:
    """Press ``button`` of the lobby; the timer the room was asked for."""
    with page.expect_request(re.compile(r"/api/rooms$")) as request:
        page.click(button)
    body = request.value.post_data_json
    assert body is not None
    page.wait_for_selector("#hand .card")
    timer: int = body["timer"]
    return timer


def test_the_quick_game_against_computers_has_no_timer_unless_asked(
    site: Server, browser: Browser, shots: Path
) -> None:
    table = Table(browser, shots, PHONE)
    page = table.page
    page.goto(site.url + "/")
    assert created_timer(page, "#vs-bots") == 0
    room = re.search(r"/room/([\w-]+)", page.url)
    assert room and site.get(f"/api/rooms/{room.group(1)}")["timer"] == 0
    page.wait_for_selector(DECIDING + ", #settlement:not([hidden])")
    if page.is_hidden("#settlement"):  # a bot may win before you decide: rare, no timer
        assert page.is_hidden("#timebar")
    table.shot("quick-no-timer")
    page.goto(site.url + "/")
    assert not page.is_checked("#bots-timer")
    page.check("#bots-timer")  # the lobby's option: a timer (the room settings' seconds)
    assert created_timer(page, "#vs-bots") == 30
    page.wait_for_selector("#timebar:not([hidden]), #settlement:not([hidden])")
    table.close()
