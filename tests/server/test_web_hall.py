"""The hall in the browser (issue 25): three strangers press 快速开始 and play a hand at one
table, a fourth finds it in the lobby's list and watches, a lone player is given computers,
and the profile and the leaderboard show what was played. Screenshots desktop and phone."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from playwright.sync_api import APIResponse, Browser, Page, Route, ViewportSize
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from paohuzi.server.store import open_store
from tests import clock
from tests.pgcluster import db_url
from tests.server.conftest import Server
from tests.server.test_web import PHONE, Table, play_until_settled, wait_js

pytestmark = pytest.mark.xdist_group("browser")

LAPTOP: ViewportSize = {"width": 1366, "height": 768}
ME_KNOWN = (
    "/^\\/player\\/[0-9a-f]+$/.test(document.getElementById('my-profile').getAttribute('href'))"
)
"""The page knows its visitor's player: its profile link names them (before: /player/me)."""


def enter_hall(page: Page, url: str, name: str) -> str:
    """Open the lobby as a new player, named ``name``; their player id."""
    page.goto(url + "/")
    wait_js(page, ME_KNOWN)
    page.fill("#nickname", name)
    page.click("#save-me")
    wait_js(page, "document.getElementById('save-me').textContent === '已保存'")
    return (page.get_attribute("#my-profile", "href") or "").rsplit("/", 1)[1]


def quick(page: Page, seats: str = "3", fill: str = "120") -> None:
    page.select_option("#quick-rules", "hunan")
    page.select_option("#quick-seats", seats)
    page.select_option("#quick-fill", fill)
    page.click("#quick-start")


def test_three_strangers_play_a_fourth_watches_a_lone_player_gets_computers(
    server: Server, browser: Browser, shots: Path
) -> None:
    ann, bo, chen, dee, lone = (
        Table(browser, shots, v) for v in (LAPTOP, PHONE, LAPTOP, PHONE, LAPTOP)
    )
    players, pages = [], [ann.page, bo.page, chen.page]
    for table, name in ((ann, "Ann"), (bo, "阿博"), (chen, "小陈")):
        players.append(enter_hall(table.page, server.url, name))
    assert len(set(players)) == 3
    ann.page.click("#avatar-open")
    ann.page.click("#avatar-picker button[data-avatar='5']")
    wait_js(ann.page, "document.getElementById('my-avatar').src.endsWith('/5.svg')")
    ann.shot("hall-lobby")
    bo.shot("hall-lobby")
    # The first to press waits: the panel says what for, and computers are 120 s away.
    quick(ann.page)
    ann.page.wait_for_selector("#quick-wait:not([hidden])")
    assert ann.page.is_hidden("#quick-form")
    assert "湖南跑胡子 · 三人" in ann.page.inner_text("#quick-what")
    assert "电脑" in ann.page.inner_text("#quick-fill-note")
    ann.shot("hall-waiting")
    # Cancel leaves the queue; pressing again joins it anew.
    ann.page.click("#quick-cancel")
    ann.page.wait_for_selector("#quick-form:not([hidden])")
    quick(ann.page)
    ann.page.wait_for_selector("#quick-wait:not([hidden])")
    quick(bo.page)
    bo.page.wait_for_selector("#quick-wait:not([hidden])")
    bo.shot("hall-waiting")
    quick(chen.page)
    for page in pages:
        page.wait_for_selector("#hand .card")
    rooms = {page.url.split("/room/")[1].split("#")[0] for page in pages}
    assert len(rooms) == 1, "the three were seated at one table"
    room = rooms.pop()
    # Each seat panel carries its player's avatar; Ann's is the one she picked.
    wait_js(bo.page, "document.querySelectorAll('.seat img.avatar').length === 3")
    # (the others' are drawn at random, 5 too at times: her own panel is looked at)
    mine = f".seat[data-player='{players[0]}'] img.avatar[src$='/5.svg']"
    wait_js(bo.page, f'document.querySelectorAll("{mine}").length === 1')
    bo.shot("hall-table")
    # A fourth finds the table among those in play, with the three names, and watches.
    dee.page.goto(server.url + "/")
    dee.page.wait_for_selector(f"#playing-tables .hall-table[data-room='{room}'] a.watch")
    listed = dee.page.inner_text(f"#playing-tables .hall-table[data-room='{room}']")
    assert all(name in listed for name in ("Ann", "阿博", "小陈"))
    dee.shot("hall-tables")
    dee.page.click(f"#playing-tables .hall-table[data-room='{room}'] a.watch")
    dee.page.wait_for_selector("#table:not([hidden]) .seat")
    assert dee.page.locator("#hand .card").count() == 0  # a spectator holds no hand
    play_until_settled(pages)
    dee.page.wait_for_selector("#history a.replay-link")
    # A lone player: nobody else waits, so computers come after the shortest wait.
    enter_hall(lone.page, server.url, "Lone")
    quick(lone.page, fill="10")
    lone.page.wait_for_selector("#quick-wait:not([hidden])")
    lone.page.wait_for_selector("#hand .card")
    info = server.get("/api/rooms/" + lone.page.url.split("/room/")[1].split("#")[0])
    assert [bool(s["bot"]) for s in info["seats"]].count(True) == 2
    # Ann's profile: the hand she played, with its replay, and a provisional rating; with
    # two points of rating history (seeded: a quick match is 4 hands), its plot.
    store = open_store(db_url(server.db))
    # (kept for her apart from the hand's own write, and tried again if the database stalls)
    clock.wait_until(lambda: (store.profile(players[0], 1, 0) or {}).get("recent"), "kept")
    with store._transaction():
        for no, at, mu in ((1, 1_700_000_000, 25.0), (2, 1_700_000_600, 26.5)):
            store._execute(
                "INSERT INTO rating_history (player, family, at, mu, sigma, room, match_no)"
                " VALUES (?, 'hunan', ?, ?, 8.0, ?, ?)",
                (players[0], at, mu, room, no),
            )
    store.close()
    ann.page.goto(server.url + "/")
    ann.page.click("#my-profile")
    ann.page.wait_for_selector("#recent-hands a.replay-link")
    assert "Ann" in ann.page.inner_text("#profile-title")
    assert ann.page.get_attribute("#recent-hands a.replay-link", "href") == (
        f"/room/{room}/hand/0?seat={players_seat(server, room, players[0])}"
    )
    family = ann.page.inner_text(".family-card[data-family='hunan']")
    assert "?" in family and ann.page.inner_text(".family-card .stats dd") == "1"
    assert ann.page.locator(".family-card svg.plot circle").count() == 2
    ann.shot("hall-profile", full=True)
    bo.page.goto(server.url + f"/player/{players[0]}")
    bo.page.wait_for_selector("#recent-hands a.replay-link")
    bo.shot("hall-profile", full=True)
    # The leaderboard hides provisional players; one past their hands (seeded) is listed.
    bo.page.goto(server.url + "/leaderboard?family=hunan")
    wait_js(bo.page, "document.getElementById('board-note').textContent.includes('30')")
    assert bo.page.locator("#leaderboard-table tbody tr").count() == 0
    store = open_store(db_url(server.db))
    with store._transaction():
        store._execute("UPDATE ratings SET hands = 40, matches = 5 WHERE player = ?", (players[1],))
    store.close()
    bo.page.reload()
    bo.page.wait_for_selector("#leaderboard-table tbody tr")
    assert "阿博" in bo.page.inner_text("#leaderboard-table tbody tr")
    bo.shot("hall-leaderboard")
    for table in (ann, bo, chen, dee, lone):
        table.close()


def hold_the_first_look(page: Page, url: str) -> list[Route]:
    """Open the lobby with its first GET /api/me held on its way (not answered until the
    test continues it, if ever); that request."""
    held: list[Route] = []

    def hold_the_first(route: Route) -> None:
        if held:
            route.continue_()
        else:
            held.append(route)

    page.route("**/api/me", hold_the_first)
    page.goto(url + "/")
    moment = clock.deadline()
    while not held:  # the page's first look at its player, on its way
        assert not clock.expired(moment), "the page asked for its player"
        page.wait_for_timeout(50)
    return held


def test_my_profile_opens_before_the_page_knows_my_player(
    server: Server, browser: Browser, shots: Path
) -> None:
    """The hall's "my record" link, pressed while the page's first GET /api/me is still on
    its way (a loaded server), opens the visitor's profile (it once led back to the lobby)."""
    table = Table(browser, shots, LAPTOP)
    page = table.page
    hold_the_first_look(page, server.url)  # and never answered: the page leaves it
    assert page.get_attribute("#my-profile", "href") == "/player/me"
    page.click("#my-profile")
    page.wait_for_selector("#profile-page:not([hidden])")
    wait_js(page, "/^\\/player\\/[0-9a-f]+$/.test(location.pathname)")
    player = page.evaluate("location.pathname").rsplit("/", 1)[1]
    wait_js(page, "document.getElementById('profile-title').textContent.endsWith('的战绩')")
    assert page.inner_text("#recent-hands") == "还没有打完的牌局"
    assert server.get(f"/api/players/{player}")["player"]["id"] == player
    table.close()


def test_my_profile_says_why_when_the_server_does_not_say_who_i_am(
    server: Server, browser: Browser, shots: Path
) -> None:
    """/player/me with GET /api/me refused (a busy server): the reason, not "no such
    player"."""
    table = Table(browser, shots, LAPTOP)
    page = table.page
    page.route("**/api/me", lambda route: route.fulfill(status=429, json={"detail": "busy"}))
    page.goto(server.url + "/player/me")
    wait_js(page, "document.getElementById('profile-error').textContent.length > 0")
    assert page.inner_text("#profile-error") == "太频繁了，请过一会儿再试"
    assert page.inner_text("#profile-title") == ""
    table.errors = [e for e in table.errors if "429" not in e]  # the refusal, as the test made
    table.close()


def test_a_name_saved_before_the_page_knows_its_player_is_kept(
    server: Server, browser: Browser, shots: Path
) -> None:
    """A name typed and saved while the page's first GET /api/me (which makes the player and
    its cookie) is on its way waits for it (it was refused: no player yet)."""
    table = Table(browser, shots, LAPTOP)
    page = table.page
    (held,) = hold_the_first_look(page, server.url)
    page.fill("#nickname", "早起的人")
    page.click("#save-me")
    held.continue_()
    wait_js(page, "document.getElementById('save-me').textContent === '已保存'")
    wait_js(page, ME_KNOWN)
    player = (page.get_attribute("#my-profile", "href") or "").rsplit("/", 1)[1]
    assert page.inner_text("#name-error") == ""
    assert server.get(f"/api/players/{player}")["player"]["name"] == "早起的人"
    table.close()


def players_seat(server: Server, room: str, player: str) -> int:
    seats = server.get(f"/api/rooms/{room}")["seats"]
    return next(n for n, s in enumerate(seats) if s["player"] == player)


def test_the_hall_reads_english(server: Server, browser: Browser, shots: Path) -> None:
    from tests.server.test_web_english import chinese

    table = Table(browser, shots, PHONE, locale="en-US")
    page = table.page
    page.goto(server.url + "/")
    wait_js(page, ME_KNOWN)
    page.click("#avatar-open")
    quick(page)
    page.wait_for_selector("#quick-wait:not([hidden])")
    assert chinese(page) == []
    page.click("#quick-cancel")
    page.goto(server.url + "/leaderboard")
    wait_js(page, "document.getElementById('board-note').textContent.length > 0")
    assert chinese(page) == []
    table.close()


def test_a_claim_is_not_undone_by_the_pages_first_look_at_its_player(
    server: Server, browser: Browser, shots: Path
) -> None:
    """A code claimed while the page's first GET /api/me (which makes a player and sets its
    cookie) is still on its way: the claim waits for it, so its cookie does not come last."""
    first, second = Table(browser, shots, LAPTOP), Table(browser, shots, LAPTOP)
    ann = enter_hall(first.page, server.url, "Ann")
    code = first.page.evaluate("fetch('/api/me/transfer', {method: 'POST'}).then(r => r.json())")
    held: list[tuple[Route, APIResponse]] = []

    def hold_first_look(route: Route) -> None:
        if route.request.method == "GET" and not held:
            # The server answers at once (a new player, its cookie); the page has the answer
            # only below, after the claim had its chance to go.
            held.append((route, route.fetch()))
        else:
            route.continue_()

    page = second.page
    page.route("**/api/me", hold_first_look)
    page.goto(server.url + "/")
    page.click("#devices summary")
    page.click("#claim-open")
    page.fill("#claim-code", code["code"])
    page.click("#claim-go")
    # A page that sent the claim at once has it answered before the first look; one that
    # waits for the first look sends nothing here (the wait runs out).
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_event(
            "requestfinished", lambda r: r.url.endswith("/api/me/claim"), timeout=2000
        )
    assert len(held) == 1
    route, answer = held[0]
    route.fulfill(response=answer)
    wait_js(page, f"document.getElementById('my-profile').getAttribute('href') === '/player/{ann}'")
    assert page.evaluate("fetch('/api/me').then(r => r.json())")["id"] == ann
    page.reload()
    wait_js(page, f"document.getElementById('my-profile').getAttribute('href') === '/player/{ann}'")
    first.close()
    second.close()


def test_another_device_becomes_the_same_player_by_a_transfer_code(
    server: Server, browser: Browser, shots: Path
) -> None:
    first, second = Table(browser, shots, LAPTOP), Table(browser, shots, PHONE)
    ann = enter_hall(first.page, server.url, "Ann")
    first.page.click("#devices summary")
    first.page.click("#transfer-start")
    first.page.wait_for_selector("#transfer-code:not([hidden])")
    code = first.page.inner_text("#transfer-code b")
    assert "10" in first.page.inner_text("#transfer-code")  # minutes it can be used
    first.shot("hall-transfer")
    other = enter_hall(second.page, server.url, "Bo")
    assert other != ann
    second.page.click("#devices summary")
    second.page.click("#claim-open")
    second.page.fill("#claim-code", code.lower())  # typed loosely: case does not matter
    second.shot("hall-claim")
    second.page.click("#claim-go")
    wait_js(
        second.page,
        f"document.getElementById('my-profile').getAttribute('href') === '/player/{ann}'",
    )
    assert second.page.input_value("#nickname") == "Ann"
    assert second.page.evaluate("fetch('/api/me').then(r => r.json())")["id"] == ann
    # The code is used up: a third try is refused, said in the page's words.
    second.page.click("#claim-open")
    second.page.fill("#claim-code", code)
    second.page.click("#claim-go")
    wait_js(second.page, "document.getElementById('claim-error').textContent.length > 0")
    # The browser's own line on the refused request is no page error.
    second.errors = [e for e in second.errors if "404" not in e]
    assert second.page.evaluate("fetch('/api/me').then(r => r.json())")["id"] == ann
    first.close()
    second.close()


def test_quick_play_offers_the_saved_house_rules(
    server: Server, browser: Browser, shots: Path
) -> None:
    table = Table(browser, shots, LAPTOP)
    page = table.page
    enter_hall(page, server.url, "Ann")
    assert page.locator("#quick-rules option[value='house']").count() == 0
    # A new game made with house rules keeps them for quick play.
    page.select_option("#preset", "hunan")
    page.select_option("#min-huxi", "15")
    page.click("#create")
    page.wait_for_url("**/room/**")
    page.goto(server.url + "/")
    page.wait_for_selector("#quick-rules option[value='house']", state="attached")
    page.select_option("#quick-rules", "house")
    page.select_option("#quick-fill", "120")
    # The POST that joins the queue, not the page's GET of its status (sent on load and by
    # its poll: a slow page can send one while the button is clicked; a CI run caught it).
    with page.expect_request(lambda r: r.method == "POST" and r.url.endswith("/api/quick")) as sent:
        page.click("#quick-start")
    body = sent.value.post_data_json
    assert body is not None and body["rules"] == {"preset": "hunan", "min_huxi": 15}
    page.wait_for_selector("#quick-wait:not([hidden])")  # the server took them
    assert page.inner_text("#quick-what").startswith("湖南跑胡子")
    page.click("#quick-cancel")
    table.close()
