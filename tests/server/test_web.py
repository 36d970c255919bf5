"""The web table in a real headless Chromium driven by Playwright (issues 5 and 12), on a
machine with no system CJK font: every glyph comes from the fonts the package ships.

Each test saves screenshots of the states it reaches, desktop (1280×800) and phone (390×844),
to ``$PAOHUZI_SCREENSHOTS`` when it names a folder (to look at them); without it, as in CI where
nobody does, :meth:`Table.shot` takes none (half a second each, D160).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    Locator,
    Page,
    Route,
    ViewportSize,
    WebSocketRoute,
)

from tests import clock
from tests.server.conftest import Server

DESKTOP: ViewportSize = {"width": 1280, "height": 800}
PHONE: ViewportSize = {"width": 390, "height": 844}
SMALL_PHONE: ViewportSize = {"width": 360, "height": 640}
WIN_SEED = 6
"""A seeded room where seat 0, playing as :func:`step` clicks, wins (乌胡, 5 番)."""
HAIDI_SEED = 38
"""A seeded room where seat 0 wins on its own draw of the last wall card (自摸, 海底胡)."""

FAKE_ROOM = {"room": "f" * 32, "waiting": False}
"""``GET /api/rooms/{id}`` of the fake rooms the tests serve through a routed WebSocket."""

pytestmark = pytest.mark.xdist_group("browser")
"""One Chromium at a time (``--dist loadgroup``): the other workers keep a core for the
timing-sensitive tests (startup, the terminal client)."""


class Table:
    """A page of the web table that records console errors and takes screenshots."""

    def __init__(
        self,
        browser: Browser,
        shots: Path,
        viewport: ViewportSize,
        locale: str = "zh-CN",
        *,
        motion: bool = False,
    ) -> None:
        # motion: the page as most players have it, cards flying; else as conftest.MOTION says.
        extra: dict[str, Any] = {"reduced_motion": "no-preference"} if motion else {}
        self.context: BrowserContext = browser.new_context(
            viewport=viewport, locale=locale, **extra
        )
        self.page: Page = self.context.new_page()
        self.errors: list[str] = []
        self.shots = shots
        self.size = (
            "desktop"
            if viewport["width"] >= 700
            else "phone"
            if viewport["height"] >= 700
            else "phone-small"
        )
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def shot(self, name: str, *, full: bool = False) -> None:
        if not os.environ.get("PAOHUZI_SCREENSHOTS"):
            return  # nobody will look (CI)
        self.page.wait_for_timeout(450)  # let the cards land
        self.page.screenshot(path=str(self.shots / f"{self.size}-{name}.png"), full_page=full)

    def close(self) -> None:
        self.context.close()
        # no script error, no Content-Security-Policy violation, nothing failed to load
        assert self.errors == []


def wait_js(page: Page, expression: str, timeout: float = clock.PATIENCE) -> None:
    """Wait until ``expression`` is true in the page. Playwright's ``wait_for_function``
    evaluates its predicate with ``eval``, which the page's Content-Security-Policy forbids
    (as it should); ``evaluate`` goes through the debugger and is allowed."""
    deadline = clock.deadline(timeout)
    while not page.evaluate(expression):
        assert not clock.expired(deadline), f"timed out waiting for {expression}"
        page.wait_for_timeout(50)


TABLE_MARK = (
    "document.querySelectorAll('.card').length + '/' + "
    "document.getElementById('wall-count').textContent + '/' + "
    "document.getElementById('prompt').textContent"
)
"""What changes in the page at nearly every move: a progress mark (:class:`clock.Progress`)."""
GOING = "document.getElementById('settlement').hidden"
"""Whether the hand in the page goes on."""


def new_room(
    server: Server, bots: list[str | None], seed: int, timer: int = 0, *, wait: bool = False
) -> Any:
    return server.post("/api/rooms", {"bots": bots, "timer": timer, "seed": seed, "wait": wait})


def timed_room(server: Server, page: Page, seed: int, timer: int) -> Any:
    """A room of seat 0 (``page``'s, opened now) and two greedy bots, with a ``timer`` of a
    few seconds that starts when the page has come (the room waits for it to deal): a page
    slow to open on a loaded machine does not find its first question timed out already."""
    room = new_room(server, [None, "greedy", "greedy"], seed, timer, wait=True)
    # (a name known: the page of a room that waits would ask for one first)
    page.add_init_script("localStorage.setItem('paohuzi.name', '计时')")
    page.goto(server.url + local(room["seats"][0]["url"]))
    return room


def local(url: str) -> str:
    return re.sub(r"^https?://[^/]+", "", url)


def tap(card: Locator, force: bool = False, timeout: float | None = None) -> None:
    """Tap a card of the hand where it shows: its top (the cards of a column overlap)."""
    card.click(position={"x": 12, "y": 14}, force=force, timeout=timeout)


LOOK_AGAIN = 5000
"""Milliseconds :func:`step` tries a click on what the next state may take away: it gives up
soon and its caller looks at the table again (a retry, not a bound: nothing fails by it)."""


def attributes(found: Locator, name: str) -> list[str]:
    """Attribute ``name`` of every element ``found`` now, in one look ("" where it is missing).
    Not ``get_attribute`` element by element: an element the next state takes away between the
    count and the look would be waited for (the page's default timeout, a minute: CI saw a
    hand of 5 s take 66)."""
    values: list[str] = found.evaluate_all(
        "(els, name) => els.map(e => e.getAttribute(name) || '')", name
    )
    return values


def step(page: Page, before_discard: Callable[[], None] | None = None) -> str | None:
    """Make this seat's decision by clicking, if it has one: 胡, else 碰, else the first 吃,
    else 过; a discard is the card of the first legal discard (F1 order), tapped twice."""
    claims = page.locator("#prompt:not([hidden]) .claims button")
    if claims.count():
        actions = attributes(claims, "data-action")
        for want in ("hu", "peng"):
            if want in actions:
                claims.nth(actions.index(want)).click(timeout=LOOK_AGAIN)
                return want
        chis = [a for a in actions if a.startswith("chi")]
        if "chi-open" in actions:
            claims.nth(actions.index("chi-open")).click(timeout=LOOK_AGAIN)
            options = page.locator("#prompt .chi-option")
            options.first.wait_for(timeout=LOOK_AGAIN)
            choices = sorted(attributes(options, "data-action"))
            page.locator(f'#prompt .chi-option[data-action="{choices[0]}"]').click(
                timeout=LOOK_AGAIN
            )
            return "chi"
        if chis:
            claims.nth(actions.index(chis[0])).click(timeout=LOOK_AGAIN)
            return "chi"
        claims.nth(actions.index("pass")).click(timeout=LOOK_AGAIN)
        return "pass"
    playable = page.locator("#hand.discarding .card.playable")
    if playable.count():
        kinds = sorted(set(attributes(playable, "data-kind")))
        tap(page.locator(f'#hand .card.playable[data-kind="{kinds[0]}"]').first, timeout=LOOK_AGAIN)
        if before_discard is not None:
            before_discard()
        tap(page.locator("#hand .card.selected"), timeout=LOOK_AGAIN)
        return "discard"
    return None


def play_until_settled(pages: list[Page], seen: set[str] | None = None) -> None:
    progress = clock.Progress()  # a stall is no move for the patience, not a slow hand
    while True:
        progress.check([p.evaluate(TABLE_MARK) for p in pages], "no settlement window")
        if all(p.is_visible("#settlement") for p in pages):
            return
        for page in pages:
            try:
                done = step(page)
            except Exception:  # the state moved under the click: look again
                done = None
            if done and seen is not None:
                seen.add(done)
        pages[0].wait_for_timeout(40)


# ---------------------------------------------------------------------------- fonts


GLYPH_PIXELS = """([family, text]) => {
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 48;
  const ctx = canvas.getContext("2d");
  return [...text].map(ch => {
    ctx.clearRect(0, 0, 48, 48);
    ctx.font = "40px " + family;
    ctx.fillText(ch, 2, 40);
    const data = ctx.getImageData(0, 0, 48, 48).data;
    let hash = 0;
    for (let i = 3; i < data.length; i += 4) hash = (hash * 31 + data[i]) | 0;
    return [ctx.measureText(ch).width, hash];
  });
}"""


def test_the_shipped_fonts_load_and_draw_every_card(
    site: Server, browser: Browser, shots: Path
) -> None:
    table = Table(browser, shots, DESKTOP)
    page = table.page
    page.goto(site.url + "/")
    page.wait_for_selector("#lobby:not([hidden])")
    page.evaluate("document.fonts.ready")
    loaded = page.evaluate(
        "[...document.fonts].filter(f => f.status === 'loaded').map(f => f.family.replace(/\"/g, ''))"
    )
    assert {"ZiCard", "ZiUI"} <= set(loaded)
    cards = "一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾"
    ours = page.evaluate(GLYPH_PIXELS, ["ZiCard", cards])
    fallback = page.evaluate(GLYPH_PIXELS, ["NoSuchFont, serif", cards])
    # Without a CJK font every character is the same box; with ours each card is drawn.
    assert len({pixels for _, pixels in fallback}) <= 2
    assert len({pixels for _, pixels in ours}) == 20
    assert all(o != f for o, f in zip(ours, fallback, strict=True))
    interface = page.evaluate(GLYPH_PIXELS, ["ZiUI", "准备托管结算庄胡息等番名堂自摸荒庄臭牌"])
    assert len({pixels for _, pixels in interface}) >= 17  # 庄 and 胡 twice, 牌 once more
    table.shot("lobby")
    table.close()


def test_the_font_holds_every_character_of_the_page() -> None:
    """A string added to the page needs ``python scripts/make_font.py`` (the font is a subset):
    the page's own text is in the interface font's first slice, which the page preloads."""
    fonttools = pytest.importorskip("fontTools.ttLib")
    static = Path(__file__).parents[2] / "src" / "paohuzi" / "server" / "static"
    text = "".join(
        p.read_text("utf-8") for p in static.rglob("*") if p.suffix in (".js", ".html", ".css")
    )
    (first,) = (static / "fonts").glob("zi-ui-00.*.woff2")
    ui = fonttools.TTFont(str(first)).getBestCmap()
    missing = sorted({c for c in text if ord(c) > 126 and ord(c) not in ui})
    assert missing == [], f"run scripts/make_font.py: {''.join(missing)}"
    (card_font,) = (static / "fonts").glob("zi-card.*.woff2")
    card = fonttools.TTFont(str(card_font)).getBestCmap()
    faces = re.search(r'FACE_GLYPHS = "([^"]+)"', (static / "cards.js").read_text("utf-8"))
    assert faces is not None
    assert all(ord(c) in card for c in faces.group(1))
    assert (static / "OFL.txt").read_text("utf-8").count("SIL OPEN FONT LICENSE Version 1.1") == 1


# ---------------------------------------------------------------------------- a whole hand


def test_a_whole_hand_by_clicking_cards_and_prompt_buttons(
    site: Server, browser: Browser, shots: Path
) -> None:
    table = Table(browser, shots, DESKTOP, motion=True)  # cards fly as they are played
    page = table.page
    room = new_room(site, [None, "greedy", "greedy"], WIN_SEED)
    page.goto(site.url + local(room["seats"][0]["url"]))
    page.wait_for_selector("#hand .card")
    page.evaluate("document.fonts.ready")
    assert page.locator("#seats .seat").count() == 2 and page.locator("#me .seat").count() == 1
    assert "下家" in page.inner_text(".seat.pos-right h3")
    assert "上家" in page.inner_text(".seat.pos-left h3")
    assert all(c.get_attribute("aria-label") for c in page.locator("#hand .card").all())
    # Red cards are red (二七十, 贰柒拾) and black ones are not.
    colours = page.evaluate(
        "[...document.querySelectorAll('#hand .card')].map(c => [c.dataset.kind, getComputedStyle(c).color])"
    )
    for kind, colour in colours:
        assert (colour == "rgb(196, 16, 28)") == (kind[1:] in ("2", "7", "10")), (kind, colour)
    table.shot("table")
    seen: set[str] = set()
    shot_prompt = shot_discard = False
    progress = clock.Progress()  # the hand goes on, step after step, however slowly
    while not page.is_visible("#settlement"):
        progress.check(page.evaluate(TABLE_MARK), "the hand stopped")
        if not shot_prompt and page.locator("#prompt .claim-chi-open").count():
            page.click("#prompt .claim-chi-open")  # a 吃 with several ways: each one shown
            page.wait_for_selector("#prompt .chi-option")
            table.shot("claim-prompt")
            shot_prompt = True
        try:  # the first discard is shot between its two taps
            done = step(page, None if shot_discard else lambda: table.shot("discard-selected"))
        except Exception:
            done = None
        if done == "discard" and not shot_discard:  # the card flies to the centre
            page.wait_for_selector(
                "#flying .flyer", state="attached", timeout=clock.PATIENCE * 1000
            )
        shot_discard = shot_discard or done == "discard"
        if page.is_visible("#banner"):
            seen.add("banner")
        if done:
            seen.add(done)
        page.wait_for_timeout(40)
    page.wait_for_selector("#settlement:not([hidden])")
    assert {"discard", "hu", "banner"} <= seen and seen & {"chi", "peng"}
    unnamed = page.evaluate(
        "[...document.querySelectorAll('button')].filter(b => b.offsetParent &&"
        " !(b.getAttribute('aria-label') || b.textContent.trim())).length"
    )
    assert unnamed == 0  # every visible button has a name for screen readers
    settlement = page.locator("#settlement")
    assert page.inner_text("#settle-title") == "你胡了！"
    groups = settlement.locator(".sgroup")
    assert groups.count() == 7  # seven groups (R6.1), each with its 胡息 (R10.6)
    assert all(g.locator(".ghuxi").inner_text().isdigit() for g in groups.all())
    figures = page.inner_text("#settle-figures")
    for term in ("胡息", "等", "名堂", "乌胡 5番", "番", "底数"):
        assert term in figures
    payments = settlement.locator("#settle-payments tr")
    assert payments.count() == 4  # a header and three seats: this hand and the match
    assert "+30" in page.inner_text("#settle-payments")
    others = settlement.locator("#settle-others .other")
    assert others.count() == 2
    for other in others.all():
        assert "当前胡息" in other.inner_text()
        assert other.locator(".card").count() > 0  # the hand, revealed
    assert "剩下的底牌" in page.inner_text("#settle-wall-title")
    assert settlement.locator("#settle-wall .card").count() == 7
    wait_js(page, "document.getElementById('settle-deal').dataset.ok === 'true'")
    assert "牌局已验证" in page.inner_text("#settle-deal")
    table.shot("settlement")
    # Closing the window does not strand you: the table keeps the way to the next hand.
    page.click("#settle-close")
    assert page.is_visible("#end-bar #ready-bar") and page.is_visible("#show-settlement")
    table.shot("hand-over")
    page.click("#ready-bar")
    wait_js(page, "document.getElementById('where').textContent.includes('第2局')")
    page.wait_for_selector("#hand .card")
    page.wait_for_selector("#history a.replay-link")  # listed during the next hand
    href = page.get_attribute("#history a.replay-link", "href")
    assert href == f"/room/{room['room']}/hand/0"
    page.goto(site.url + href)
    page.wait_for_selector("#replay-bar:not([hidden])")
    page.click("#replay-next")
    assert "第1/" in page.inner_text("#replay-step")
    table.close()


def test_the_settlement_of_a_self_drawn_win_on_the_last_card(
    site: Server, browser: Browser, shots: Path
) -> None:
    table = Table(browser, shots, PHONE)
    page = table.page
    room = new_room(site, [None, "greedy", "greedy"], HAIDI_SEED)
    page.goto(site.url + local(room["seats"][0]["url"]))
    page.wait_for_selector("#hand .card")
    table.shot("table")
    play_until_settled([page])
    badges = page.inner_text("#settle-badges")
    assert "自摸" in badges and "海底胡" in badges
    figures = page.inner_text("#settle-figures")
    assert "含自摸 +1等" in figures and "海底 +1番" in figures and "平胡 1番" in figures
    assert page.inner_text("#settle-wall-title") == "底牌已摸完"
    table.shot("settlement")
    table.close()


def test_a_history_list_that_failed_or_lags_is_asked_for_again(
    site: Server, browser: Browser, shots: Path
) -> None:
    # The list of finished hands is asked for when the hand is over. A busy server may refuse
    # it (429, 503) or answer it without the hand just finished: the table asks again, while
    # it stays on that hand (nothing else would make it ask: the players may not press ready).
    table = Table(browser, shots, PHONE)
    page = table.page
    faked: list[int] = []

    def lagging(route: Route) -> None:
        faked.append(1)
        if len(faked) % 2:
            route.fulfill(status=503, json={"detail": "the database is slow"})
        else:
            route.fulfill(json=[])

    page.route("**/api/rooms/*/hands", lagging)
    room = new_room(site, [None, "greedy", "greedy"], HAIDI_SEED)
    page.goto(site.url + local(room["seats"][0]["url"]))
    page.wait_for_selector("#hand .card")
    play_until_settled([page])
    asked = len(faked)
    page.unroute("**/api/rooms/*/hands")
    page.wait_for_selector("#history a.replay-link")  # the hand is still the one just over
    assert page.is_visible("#settlement")
    assert asked >= 2  # the hand's start and its end, at least, were answered by the fake
    assert page.get_attribute("#history a.replay-link", "href") == f"/room/{room['room']}/hand/0"
    refused = [e for e in table.errors if "status of 503" in e]
    assert refused and len(refused) <= len(faked)  # the browser's own line for each, no more
    table.errors = [e for e in table.errors if e not in refused]
    table.close()


def test_a_long_room_lists_its_newest_hands(site: Server, browser: Browser, shots: Path) -> None:
    # A room past its 100th hand lists the hundred before the one being played, not the first
    # hundred: the hand a player wants to see again is one just played.
    table = Table(browser, shots, DESKTOP)
    page = table.page
    asked: list[str] = []

    def history(route: Route) -> None:
        asked.append(route.request.url)
        after = int(parse_qs(urlsplit(route.request.url).query).get("after", ["-1"])[0])
        hands = [{"n": n, "dealer": n % 3, "winner": None, "huxi": None, "score": None,
                  "payments": [0, 0, 0, 0]} for n in range(after + 1, min(after + 101, 149))]  # fmt: skip
        route.fulfill(json=hands)

    page.route_web_socket(
        re.compile(r"/ws/"), lambda ws: ws.send(json.dumps(four_seat_state(0) | {"hand_no": 150}))
    )
    page.route(re.compile(r"/api/rooms/f{32}/hands"), history)
    page.route(re.compile(r"/api/rooms/f{32}$"), lambda r: r.fulfill(json=FAKE_ROOM))
    page.goto(site.url + "/room/" + "f" * 32 + "?token=t")
    page.wait_for_selector("#history a.replay-link")
    assert [urlsplit(url).query for url in asked] == ["after=48"]  # hands 49 to 148
    links = page.locator("#history a.replay-link")
    assert links.count() == 100
    assert links.first.inner_text() == "回放第50局" and links.last.inner_text() == "回放第149局"
    assert links.last.get_attribute("href") == "/room/" + "f" * 32 + "/hand/148"
    table.close()


def test_a_person_plays_a_whole_hand_on_a_phone_from_the_lobby(
    site: Server, browser: Browser, shots: Path
) -> None:
    table = Table(browser, shots, PHONE)
    page = table.page
    page.goto(site.url + "/")
    table.shot("lobby")
    page.click("#vs-bots")
    page.wait_for_selector("#hand .card")
    play_until_settled([page])
    title = page.inner_text("#settle-title")
    assert "胡了" in title or "荒庄" in title
    table.close()


# ---------------------------------------------------------------------------- the ready step


def test_the_next_hand_waits_until_everyone_is_ready(
    site: Server, browser: Browser, shots: Path
) -> None:
    host = Table(browser, shots, DESKTOP)
    guest = Table(browser, shots, PHONE)
    first, second = host.page, guest.page
    first.goto(site.url + "/")
    first.click("#with-friends")
    first.wait_for_selector("#invite-list a.invite")  # the waiting room: nothing dealt yet
    link = first.get_attribute("#invite-list a.invite", "href")
    assert link and "token=" in link
    host.shot("invites")
    second.goto(link)
    # A friend with no nickname yet is asked one before sitting down (issue 24).
    second.fill("#ask-name", "小王")
    second.click("#ask-sit")
    first.wait_for_selector("#hand .card")
    second.wait_for_selector("#hand .card")
    assert "小王" in first.inner_text(".seat.pos-right") and "玩家" in second.inner_text(
        ".seat.pos-left"
    )
    play_until_settled([first, second])
    amounts = [p.inner_text("#settle-payments") for p in (first, second)]
    assert amounts[0].split("\n")[1:] != [] and len(amounts[1].split("\n")) == len(
        amounts[0].split("\n")
    )
    first.click("#ready")
    wait_js(first, "document.getElementById('ready').disabled")
    assert "等待" in first.inner_text("#settle-ready-note")
    wait_js(second, "document.querySelector('.seat.pos-left .badge.ready') !== null")
    host.shot("ready-waiting")
    guest.shot("ready-other")
    assert "第1局" in first.inner_text("#where")  # nothing is dealt until the guest is ready
    second.click("#ready")
    for page in (first, second):
        wait_js(page, "document.getElementById('where').textContent.includes('第2局')")
        page.wait_for_selector("#settlement", state="hidden")
    host.close()
    guest.close()


# ---------------------------------------------------------------------------- 托管


def test_a_timeout_plays_for_you_and_offers_tuoguan(
    tmp_path: Path, browser: Browser, shots: Path
) -> None:
    server = Server(tmp_path / "db.sqlite", bot_delay=0.4)  # paced, as a real table
    server.start()
    table = Table(browser, shots, DESKTOP)
    page = table.page
    try:
        timed_room(server, page, WIN_SEED, timer=5)
        page.wait_for_selector("#timebar:not([hidden])")
        table.shot("timer")
        page.wait_for_selector("#auto-bar:not([hidden])")  # nobody answered
        assert "时间到" in page.inner_text("#auto-bar")  # said beside the way back (D116)
        assert "托管" in page.inner_text("#me .badge.auto")
        table.shot("tuoguan")
        page.click("#auto-off")
        page.wait_for_selector("#auto-bar", state="hidden")
        # Back at the controls: the next decision is yours again, with its timer.
        page.wait_for_selector("#timebar:not([hidden]), #settlement:not([hidden])")
        assert page.is_hidden("#me .badge.auto")
        table.close()
    finally:
        server.stop()


# ---------------------------------------------------------------------------- language


def test_the_language_follows_the_browser_and_the_toggle(
    site: Server, browser: Browser, shots: Path
) -> None:
    table = Table(browser, shots, DESKTOP, locale="en-US")
    page = table.page
    page.goto(site.url + "/")
    assert page.inner_text("#vs-bots") == "Play against two bots"
    page.click("#lang")
    assert page.inner_text("#vs-bots") == "和两个电脑对战"
    page.click("#mute")
    page.reload()
    assert page.inner_text("#vs-bots") == "和两个电脑对战"  # remembered
    assert (
        page.inner_text("#mute") == "静音" and page.get_attribute("#mute", "aria-pressed") == "true"
    )
    page.click("#mute")
    page.click("#lang")
    room = new_room(site, [None, "greedy", "greedy"], WIN_SEED)
    page.goto(site.url + local(room["seats"][0]["url"]))
    page.wait_for_selector("#hand .card")
    assert page.inner_text(".seat.pos-right h3") == "Right"  # English only (issue 24)
    assert page.evaluate("document.documentElement.lang") == "en"
    table.shot("english")
    page.click("#lang")
    assert page.inner_text(".seat.pos-right h3").startswith("下家")
    table.close()


# ---------------------------------------------------------------------------- trouble


def test_each_problem_says_what_happened_and_what_to_do(
    site: Server, browser: Browser, shots: Path
) -> None:
    table = Table(browser, shots, PHONE)
    page = table.page
    page.goto(site.url + "/room/" + "0" * 32)
    page.wait_for_selector("#problem:not([hidden])")
    assert page.inner_text("#problem-title") == "找不到这个房间"
    assert page.get_attribute("#problem-actions a", "href") == "/"
    table.shot("no-room")
    room = new_room(site, [None, "greedy", "greedy"], WIN_SEED)
    page.goto(site.url + f"/room/{room['room']}?token=forged")
    page.wait_for_selector("#problem:not([hidden])")
    assert page.inner_text("#problem-title") == "这个邀请链接不能用了"
    assert page.get_attribute("#problem-actions a", "href") == f"/room/{room['room']}"
    table.shot("bad-invite")
    page.click("#problem-actions a")  # watch instead
    page.wait_for_selector(".seat.turn, .seat.showing")
    assert "观战" in page.inner_text("#where") and page.is_hidden("#mine")
    for code, title in ((4429, "房间里的人太多了"), (4410, "房间已经关闭")):

        def refuse(ws: WebSocketRoute, code: int = code) -> None:
            ws.close(code=code)

        page.route_web_socket(re.compile(r"/ws/"), refuse)
        page.reload()
        page.wait_for_selector("#problem:not([hidden])")
        assert page.inner_text("#problem-title") == title
        page.unroute_all()
    # The lobby shows each refusal by its field.
    page.goto(site.url + "/")
    page.check("#bots-timer")  # against bots the timer is asked for (else none, D116)
    page.fill("#timer", "3")
    page.click("#vs-bots")
    assert "5 到 300" in page.inner_text("#timer-error")
    page.route("**/api/rooms", lambda r: r.fulfill(status=429, json={"detail": "too many rooms"}))
    page.fill("#timer", "30")
    page.click("#vs-bots")
    wait_js(page, "document.getElementById('form-error').textContent.length > 0")
    assert "一分钟" in page.inner_text("#form-error")
    page.unroute_all()
    page.route("**/api/rooms", lambda r: r.fulfill(status=400, json={"detail": "unknown bot 'x'"}))
    page.click("#vs-bots")
    wait_js(page, "document.getElementById('level-error').textContent.length > 0")
    table.shot("lobby-error")
    page.unroute_all()
    # The browser logs the two refusals we made the server send; nothing else may fail.
    table.errors = [e for e in table.errors if "responded with a status of 4" not in e]
    table.close()


def test_a_lost_connection_says_so_and_comes_back(
    tmp_path: Path, browser: Browser, shots: Path
) -> None:
    server = Server(tmp_path / "db.sqlite")
    server.start()
    table = Table(browser, shots, DESKTOP)
    page = table.page
    try:
        room = new_room(server, [None, "greedy", "greedy"], WIN_SEED)
        page.goto(server.url + local(room["seats"][0]["url"]))
        page.wait_for_selector("#hand .card")
        table.errors.clear()
        server.stop()
        page.wait_for_selector("#conn:not([hidden])")
        wait_js(page, "document.getElementById('conn').textContent.includes('服务器正在重启')")
        table.shot("restarting")
        server.start()
        page.wait_for_selector("#conn", state="hidden")
        page.wait_for_selector("#hand .card")
        # The browser logs each refused reconnection as an error; nothing else may fail.
        table.errors = [
            e for e in table.errors if "WebSocket" not in e and "Failed to load" not in e
        ]
        table.close()
    finally:
        server.stop()


# ---------------------------------------------------------------------------- four seats


def four_seat_state(you: int) -> dict[str, Any]:
    """A state of a four-player table (R12): the seat opposite the dealer sits out."""
    return {
        "type": "state", "room": "f" * 32, "you": you, "seat": you, "dealer": 1, "liang": "d7",
        "hand": "x1 x2 x3 x5 x5 x7 x9 d2 d2 d2 d4 d5 d6 d10",
        "hand_sizes": [14, 15, 17, 0], "wall": 11, "turn": 0, "offer": None, "offer_source": None,
        "tables": [["peng:x8x8x8", "chi:x4x5x6"], ["wei:?", "chi:d1d2d3"], ["pao:x10x10x10x10"], []],
        "table_huxi": [[1, 0], [None, 6], [6], []],
        "discards": ["d9 x6", "x3", "d8 d1 x4", ""], "chou": "", "seq": 14, "hand_no": 3,
        "legal": ["discard x1", "discard x2", "discard x3", "discard x5", "discard x7", "discard x9",
                  "discard d4", "discard d5", "discard d6", "discard d10"],
        "events": [], "seats": [{"name": "player", "bot": None}, {"name": "greedy", "bot": "greedy"},
                                {"name": "player", "bot": None}, {"name": "expert", "bot": "expert"}],
        "totals": [12, -4, 0, -8], "over": False, "result": None, "commitment": "ab" * 32,
        "deadline": 18.0, "timer": 30, "auto": [False, False, True, False],
        "timed_out": [None, None, {"n": 1, "action": "discard x3"}, None],
        "ready": [False, True, False, True], "reveal": None,
    }  # fmt: skip


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_four_seats_sit_round_you(
    site: Server, browser: Browser, shots: Path, viewport: ViewportSize
) -> None:
    table = Table(browser, shots, viewport)
    page = table.page
    sent: list[str] = []

    def fake(ws: WebSocketRoute) -> None:
        def answer(message: str | bytes) -> None:
            sent.append(str(message))
            if "discard" in str(message):  # then 对家 discards 三, which you may 吃 four ways
                claim = four_seat_state(0) | {
                    "hand": "x1 x2 x4 x5 x7 x9 d2 d2 d2 d3 d3 d6 d10",
                    "hand_sizes": [13, 15, 16, 0], "discards": ["d9 x6 x9", "x3", "d8 d1 x4", ""],
                    "turn": 2, "offer": "x3", "offer_source": "discarded", "seq": 16,
                    "legal": ["chi x1x2x3", "chi x2x3x4", "chi x3d3d3", "chi x3x4x5", "pass"],
                }  # fmt: skip
                ws.send(json.dumps(claim))

        ws.on_message(answer)
        ws.send(json.dumps(four_seat_state(0)))

    page.route_web_socket(re.compile(r"/ws/"), fake)
    page.route("**/api/rooms/*/hands", lambda r: r.fulfill(json=[]))  # the fake room's history
    page.route(re.compile(r"/api/rooms/f{32}$"), lambda r: r.fulfill(json=FAKE_ROOM))
    page.goto(site.url + "/room/" + "f" * 32 + "?token=t")
    page.wait_for_selector("#hand .card")
    box = {p: page.locator(f".seat.pos-{p}").bounding_box() for p in ("left", "top", "right")}
    assert all(box.values())
    assert box["left"]["x"] < box["top"]["x"] < box["right"]["x"]  # type: ignore[index]
    assert page.inner_text(".seat.pos-top h3").startswith("对家")
    assert "本局轮空" in page.inner_text(".seat.pos-left")  # dealer 1 + 2 = seat 3
    assert "托管" in page.inner_text(".seat.pos-top")
    assert page.locator(".seat.pos-right .g-wei .card.back").count() == 3
    table.shot("four-seats")
    tap(page.locator('#hand .card[data-kind="x9"]'))
    tap(page.locator("#hand .card.selected"))
    page.wait_for_selector("#prompt .claim-chi-open")

    def acts() -> list[Any]:
        return [json.loads(m) for m in sent if '"act"' in m]

    assert acts() == [{"type": "act", "action": "discard x9", "seq": 14}]
    page.keyboard.press("c")  # 吃: each way to take it, as cards to choose from
    assert page.locator("#prompt .chi-option").count() == 4
    assert page.locator("#prompt .chi-option").nth(2).locator(".card").count() == 3
    table.shot("chi-options")
    page.keyboard.press("2")
    wait_js(page, "document.querySelector('#prompt').hidden")
    assert acts()[-1] == {"type": "act", "action": "chi x2x3x4", "seq": 16}
    table.close()


# ---------------------------------------------------------------------------- keyboard, motion, weight


def test_keyboard_only_play_and_reduced_motion(site: Server, browser: Browser, shots: Path) -> None:
    context = browser.new_context(viewport=DESKTOP, locale="zh-CN", reduced_motion="reduce")
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    room = new_room(site, [None, "greedy", "greedy"], WIN_SEED)
    page.goto(site.url + local(room["seats"][0]["url"]))
    page.wait_for_selector("#hand .card")
    decided = 0
    progress = clock.Progress()  # a stall is no move for the patience, not a slow hand
    while decided < 4 and page.evaluate(GOING):
        progress.check((decided, page.evaluate(TABLE_MARK)), "the hand stopped")
        if page.is_visible("#prompt .claims"):
            page.keyboard.press("g")  # 过
            decided += 1
        elif page.locator("#hand.discarding").count():
            for _ in range(40):  # Tab to the hand, then arrows to a card that may go
                if page.evaluate("document.activeElement.matches('#hand .card')"):
                    break
                page.keyboard.press("Tab")
            for _ in range(25):
                if page.evaluate("document.activeElement.classList.contains('playable')"):
                    break
                page.keyboard.press("ArrowRight")
            page.keyboard.press("Enter")
            page.keyboard.press("Enter")
            decided += 1
        page.wait_for_timeout(60)
    assert decided >= 3
    assert (
        page.evaluate("document.getAnimations().filter(a => a.playState === 'running').length") == 0
    )
    assert errors == []
    context.close()


def test_page_weight_and_first_render(site: Server, browser: Browser) -> None:
    """HTML + scripts + styles + fonts under 400 KB, and the table drawn in the shipped fonts.
    How soon it is drawn is a figure of speed: benchmarks/page.py prints it (issue 21)."""
    page = browser.new_page(viewport=DESKTOP)
    room = new_room(site, [None, "greedy", "greedy"], WIN_SEED)
    page.goto(site.url + local(room["seats"][0]["url"]))
    page.wait_for_selector("#hand .card")
    page.evaluate("document.fonts.ready")
    families = page.evaluate(
        "[...document.fonts].filter(f => f.status === 'loaded').map(f => f.family)"
    )
    weight = page.evaluate(
        "performance.getEntriesByType('resource').concat(performance.getEntriesByType('navigation'))"
        ".filter(e => !e.name.includes('/api/')).reduce((n, e) => n + e.encodedBodySize, 0)"
    )
    print(f"page weight {weight / 1024:.1f} KB, fonts loaded {families}")
    assert weight < 400 * 1024
    assert any("ZiCard" in f for f in families), f"the cards' font did not load: {families}"
    page.close()


def fake_table(page: Page, state: dict[str, Any], hint: dict[str, Any] | None = None) -> list[Any]:
    """Serve the page a table from a fake server; returns the messages the page sends."""
    sent: list[Any] = []

    def fake(ws: WebSocketRoute) -> None:
        def answer(message: str | bytes) -> None:
            sent.append(json.loads(message))
            if sent[-1]["type"] == "hint" and hint is not None:
                ws.send(json.dumps(hint))

        ws.on_message(answer)
        ws.send(json.dumps(state))

    page.route_web_socket(re.compile(r"/ws/"), fake)
    page.route("**/api/rooms/*/hands", lambda r: r.fulfill(json=[]))  # the fake room's history
    page.route(re.compile(r"/api/rooms/f{32}$"), lambda r: r.fulfill(json=FAKE_ROOM))
    return sent


def test_cards_drag_between_columns_and_up_to_discard(
    site: Server, browser: Browser, shots: Path
) -> None:
    table = Table(browser, shots, DESKTOP)
    page = table.page
    hint = {"type": "hint", "huxi": 9, "waits": [
        {"win": "x6", "huxi": 18, "score": 2, "left": 3}, {"win": "d3", "huxi": 21, "score": 3, "left": 1}]}  # fmt: skip
    sent = fake_table(page, four_seat_state(0), hint)
    page.goto(site.url + "/room/" + "f" * 32 + "?token=t")
    page.wait_for_selector("#hand .card")
    # 听牌: which cards win, how many of each you have not seen, the 胡息 and points.
    page.wait_for_selector("#ting .wait")
    ting = page.inner_text("#ting")
    assert "听牌" in ting and "剩3张" in ting and "剩1张" in ting

    def acts() -> list[Any]:
        return [m for m in sent if m["type"] == "act"]

    # A 坎 is locked: tapping it discards nothing.
    for _ in range(2):  # aria-disabled: Playwright would wait for it to be enabled
        tap(page.locator('#hand .card.locked[data-kind="d2"]').first, force=True)
    assert "坎" in page.inner_text("#toast") and acts() == []
    # Drag 九 onto the column of 七: the hand is yours to arrange.
    columns = page.locator("#hand .column").count()
    nine, seven = (
        page.locator(f'#hand .card[data-kind="{k}"]').bounding_box() for k in ("x9", "x7")
    )
    assert nine and seven
    page.mouse.move(nine["x"] + 10, nine["y"] + 12)
    page.mouse.down()
    page.mouse.move(nine["x"] + 30, nine["y"] + 40, steps=4)
    page.mouse.move(seven["x"] + 10, seven["y"] + 30, steps=6)
    page.mouse.up()
    column = page.locator('#hand .column:has(.card[data-kind="x7"])')
    assert column.locator('.card[data-kind="x9"]').count() == 1
    assert page.locator("#hand .column").count() == columns - 1
    assert acts() == []
    # Drag 九 up, out of the hand: it is discarded.
    nine = page.locator('#hand .card[data-kind="x9"]').bounding_box()
    assert nine
    page.mouse.move(nine["x"] + 10, nine["y"] + 12)
    page.mouse.down()
    page.mouse.move(nine["x"] + 10, nine["y"] - 60, steps=4)
    page.mouse.move(nine["x"] + 10, nine["y"] - 160, steps=4)
    table.shot("drag-up")
    page.mouse.up()
    wait_js(page, "document.getElementById('prompt').hidden")
    for _ in range(50):
        if acts():
            break
        page.wait_for_timeout(20)
    assert acts() == [{"type": "act", "action": "discard x9", "seq": 14}]
    table.close()


def _luminance(rgb: tuple[int, int, int]) -> float:
    def channel(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    la, lb = (_luminance(tuple(int(x[i : i + 2], 16) for i in (1, 3, 5))) for x in (a, b))  # type: ignore[arg-type]
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def test_colours_read_well() -> None:
    """WCAG AA (4.5:1) for the page's text: cards, the felt, the settlement (style.css)."""
    css = (Path(__file__).parents[2] / "src/paohuzi/server/static/style.css").read_text("utf-8")
    var = dict(re.findall(r"--([\w-]+): (#[0-9a-f]{6});", css))
    pairs = [
        (var["black"], var["card"]), (var["red"], var["card"]), (var["ink"], var["felt"]),
        (var["muted"], var["felt"]), (var["gold"], var["felt"]), (var["ink"], var["felt-light"]),
        ("#9c1018", "#fbf6e6"), ("#4a4a4a", "#f1e8cc"), ("#1b7f3a", "#fbf6e6"), ("#b00020", "#fbf6e6"),
    ]  # fmt: skip
    for text, ground in pairs:
        assert contrast(text, ground) >= 4.5, (text, ground, contrast(text, ground))


def test_a_real_four_seat_room_plays_to_the_settlement(
    site: Server, browser: Browser, shots: Path
) -> None:
    """Issue 11: the four-seat table (R12) through the real server, by clicks only."""
    table = Table(browser, shots, DESKTOP)
    page = table.page
    room = site.post(
        "/api/rooms",
        {
            "bots": [None, "greedy", "greedy", "greedy"],
            "timer": 0,
            "seed": 3,
            "rules": {"preset": "hunan", "players": 4},
        },
    )
    page.goto(site.url + local(room["seats"][0]["url"]))
    page.wait_for_selector("#seats .seat")
    assert page.locator("#seats .seat").count() == 3 and page.locator("#me .seat").count() == 1
    table.shot("four-seats-real")
    play_until_settled([page])
    table.shot("four-seats-settlement")
    table.close()
