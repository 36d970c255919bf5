"""What a player tripped on at the table (issue 24, point 9): a replay shows that hand's points,
not a running total, no live "已准备" and no bot ids; a reload keeps the hand as you arranged
it; a claim that another seat's higher claim took is said; the header and the centre name the
hand alike; the settlement says how 胡息 make 等."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, WebSocketRoute

from tests import clock
from tests.server.conftest import Server
from tests.server.test_web import (
    DESKTOP,
    FAKE_ROOM,
    PHONE,
    Table,
    fake_table,
    four_seat_state,
    local,
    new_room,
    wait_js,
)

pytestmark = pytest.mark.xdist_group("browser")


def finished(site: Server, bots: list[str | None], **fields: Any) -> str:
    room: str = site.post("/api/rooms", {"bots": bots, "timer": 0, **fields})["room"]
    clock.wait_until(lambda: site.get(f"/api/rooms/{room}/hands"), "no hand finished")
    return room


def test_a_replay_shows_the_hands_points_and_names_its_bots(
    site: Server, browser: Browser, shots: Path
) -> None:
    room = finished(site, ["greedy", "expert-v1@0.05s", "random"], seed=6)
    table = Table(browser, shots, DESKTOP)
    page = table.page
    page.goto(f"{site.url}/room/{room}/hand/0")
    page.wait_for_selector("#replay-bar:not([hidden])")
    options = page.inner_text("#replay-seat")
    assert "电脑·普通" in options and "电脑·高手（旧版）" in options and "电脑·随机" in options
    assert not re.search(r"greedy|expert|random", options)
    page.keyboard.press("End")
    page.wait_for_selector("#settlement:not([hidden])")
    head = page.inner_text("#settle-payments tr:first-child")
    assert "总分" not in head and len(page.locator("#settle-payments th").all()) == 2
    seats = page.inner_text("#seats") + page.inner_text("#me")
    assert "已准备" not in seats and "未准备" not in seats and "总分" not in seats
    assert not re.search(r"greedy|expert|random", seats)
    table.shot("replay-settlement")
    table.close()


def test_the_settlement_says_how_huxi_make_deng(
    site: Server, browser: Browser, shots: Path
) -> None:
    """A won hand's replay: the 等 figure says the rule it was counted by (R10.1: 15 胡息 are
    1 等, each 3 more one more)."""
    for seed in range(1, 40):  # seeded rooms of bots: the first whose hand is won
        room = finished(site, ["greedy", "greedy", "greedy"], seed=seed)
        if site.get(f"/api/rooms/{room}/hands")[0]["winner"] is not None:
            break
    table = Table(browser, shots, PHONE)
    page = table.page
    page.goto(f"{site.url}/room/{room}/hand/0")
    page.wait_for_selector("#replay-bar:not([hidden])")
    page.keyboard.press("End")
    page.wait_for_selector("#settlement:not([hidden]) #settle-figures .fig")
    assert "15胡息1等，每多3胡息加1等" in page.inner_text("#settle-figures")
    table.close()


def test_a_reload_keeps_the_hand_as_you_arranged_it(
    site: Server, browser: Browser, shots: Path
) -> None:
    table = Table(browser, shots, DESKTOP)
    page = table.page
    fake_table(page, four_seat_state(0))
    page.goto(site.url + "/room/" + "f" * 32 + "#token=t")
    page.wait_for_selector("#hand .card")
    nine, seven = (
        page.locator(f'#hand .card[data-kind="{k}"]').bounding_box() for k in ("x9", "x7")
    )
    assert nine and seven
    page.mouse.move(nine["x"] + 10, nine["y"] + 12)  # 九 dragged onto the column of 七
    page.mouse.down()
    page.mouse.move(nine["x"] + 30, nine["y"] + 40, steps=4)
    page.mouse.move(seven["x"] + 10, seven["y"] + 30, steps=6)
    page.mouse.up()

    def columns(p: Page) -> list[list[str]]:
        order: list[list[str]] = p.evaluate(
            "[...document.querySelectorAll('#hand .column')]"
            ".map(c => [...c.querySelectorAll('.card')].map(x => x.dataset.kind))"
        )
        return order

    arranged = columns(page)
    assert any(set(c) == {"x7", "x9"} for c in arranged)
    page.reload()
    page.wait_for_selector("#hand .card")
    assert columns(page) == arranged
    table.close()


def test_a_claim_taken_by_another_seat_is_said(site: Server, browser: Browser, shots: Path) -> None:
    table = Table(browser, shots, PHONE)
    page = table.page
    offer = four_seat_state(0) | {
        "hand": "x1 x2 x4 x5 x7 x9 d2 d2 d2 d3 d3 d6 d10", "hand_sizes": [13, 15, 16, 0],
        "turn": 2, "offer": "x3", "offer_source": "discarded", "seq": 16, "deadline": None,
        "legal": ["chi x1x2x3", "pass"], "events": [{"event": "discard", "seat": 2, "card": "x3", "groups": []}],
    }  # fmt: skip
    taken = offer | {
        "legal": [], "offer": None, "turn": 1, "seq": 18,
        "tables": [["peng:x8x8x8", "chi:x4x5x6"], ["wei:?", "chi:d1d2d3", "peng:x3x3x3"], ["pao:x10x10x10x10"], []],
        "table_huxi": [[1, 0], [None, 6, 1], [6], []],
        "events": [*offer["events"], {"event": "peng", "seat": 1, "card": "x3", "groups": ["peng:x3x3x3"]}],
    }  # fmt: skip

    def fake(ws: WebSocketRoute) -> None:
        def answer(message: str | bytes) -> None:
            if '"act"' in str(message):  # seat 1's 碰 outranks the 吃 (R8)
                ws.send(json.dumps(taken))

        ws.on_message(answer)
        ws.send(json.dumps(offer))

    page.route_web_socket(re.compile(r"/ws/"), fake)
    page.route("**/api/rooms/*/hands", lambda r: r.fulfill(json=[]))
    page.route(re.compile(r"/api/rooms/f{32}$"), lambda r: r.fulfill(json=FAKE_ROOM))
    page.goto(site.url + "/room/" + "f" * 32 + "#token=t")
    page.click('#prompt button[data-action="chi x1x2x3"]')
    wait_js(page, "document.getElementById('toast').textContent.includes('没成')")
    said = page.inner_text("#toast")
    assert "吃" in said and "碰" in said and "下家" in said
    table.shot("claim-lost")
    table.close()


def test_the_header_and_the_centre_name_the_hand_alike(
    site: Server, browser: Browser, shots: Path
) -> None:
    room = new_room(site, [None, "greedy", "greedy"], 6) | {}
    created = site.post(
        "/api/rooms", {"bots": [None, "greedy", "greedy"], "timer": 0, "seed": 7, "hands": 4}
    )
    table = Table(browser, shots, DESKTOP)
    page = table.page
    page.goto(site.url + local(created["seats"][0]["url"]))
    page.wait_for_selector("#hand .card")
    assert "第1/4局" in page.inner_text("#where")
    assert page.inner_text("#hand-no") == "第1/4局"
    page.goto(site.url + local(room["seats"][0]["url"]))  # an open match: the hand's number
    page.wait_for_selector("#hand .card")
    assert page.inner_text("#hand-no") == "第1局" and "第1局" in page.inner_text("#where")
    table.close()
