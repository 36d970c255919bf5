"""The course in the browser (issue 27 point 1): every shipped lesson walked to its end by
clicking only — the hand's cards, the claim buttons, 下一步 — on a desktop and on a phone, with
no console error; a wrong move is explained, the step's cards are lit, progress is kept.

Which move a step teaches is read from the lesson the server sends (its verdicts), as a
teacher's answer key: the page is clicked as a learner would, never driven by script.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize

from tests.server.conftest import Server
from tests.server.test_web import DESKTOP, PHONE, Table, tap, wait_js

pytestmark = pytest.mark.xdist_group("browser")

SHOWN = {"chi-bi": (2,), "forced": (0,), "winning": (1,), "four-seats": (1,)}
"""Steps (from 0) of the lessons whose screenshots are kept: the 吃 with its 比, the 碰, the
win and its count, the four-seat table."""


def click_move(page: Page, actions: set[str]) -> None:
    """Make one of ``actions`` (as the state's ``legal`` names them) with the table's own
    controls: a card of the hand tapped twice, or a claim button (the 吃 chooser opened)."""
    discards = sorted(a.split(" ")[1] for a in actions if a.startswith("discard "))
    if discards:
        card = page.locator(f'#hand.discarding .card.playable[data-kind="{discards[0]}"]').first
        tap(card)
        tap(card)
        return
    claims = page.locator("#prompt:not([hidden]) .claims button")
    claims.first.wait_for()
    shown = {b.get_attribute("data-action") or "" for b in claims.all()}
    direct = sorted(shown & actions)
    if direct:
        page.locator(f'#prompt .claims button[data-action="{direct[0]}"]').click()
        return
    assert "chi-open" in shown, f"none of {sorted(actions)} is offered ({sorted(shown)})"
    page.locator('#prompt .claims button[data-action="chi-open"]').click()
    options = page.locator("#prompt .chi-option")
    options.first.wait_for()
    found = sorted({b.get_attribute("data-action") or "" for b in options.all()} & actions)
    assert found, f"none of {sorted(actions)} is among the 吃 choices"
    page.locator(f'#prompt .chi-option[data-action="{found[0]}"]').click()


def walk(table: Table, site: Server, lesson: dict[str, Any], shoot: tuple[int, ...]) -> None:
    """One lesson from its first step to its end, by clicking."""
    page = table.page
    page.goto(f"{site.url}/learn/{lesson['id']}")
    page.wait_for_selector("#lesson-bar:not([hidden])")
    steps = lesson["steps"]
    # The table names the seats from the learner, as the texts do (no seat numbers).
    names = [h.inner_text() for h in page.locator("#table .seat[data-seat] > header h3").all()]
    assert "你" in names and "上家" in names, names
    assert not page.locator("#table .seat .badge.seat-no").count()
    explained = False
    for i, step in enumerate(steps):
        wait_js(
            page,
            f"document.getElementById('lesson-step').textContent === '第{i + 1}/{len(steps)}步'",
        )
        assert page.inner_text("#lesson-text") == step["text"]["zh"]
        for kind in step["highlight"]:  # every lit kind is in sight, lit
            assert page.locator(f'#table .card.lit[data-kind="{kind}"]').count(), (i, kind)
        lit = {c.get_attribute("data-kind") for c in page.locator("#table .card.lit").all()}
        assert lit == set(step["highlight"]), (i, lit)
        nxt = page.locator("#lesson-next")
        if step["move"]:
            assert nxt.is_disabled()
            answers = step["answers"]
            wrong = sorted(a for a, v in answers.items() if not v["right"])
            if wrong and not explained:  # one wrong move a lesson: explained, nothing changes
                before = page.inner_text("#hand")
                click_move(page, {wrong[0]})
                page.wait_for_selector("#lesson-say.wrong")
                assert page.inner_text("#lesson-say") == answers[wrong[0]]["text"]["zh"]
                assert page.inner_text("#hand") == before and nxt.is_disabled()
                explained = True
            if i in shoot:
                table.shot(f"lesson-{lesson['id']}-{i + 1}")
            click_move(page, {a for a, v in answers.items() if v["right"]})
            page.wait_for_selector("#lesson-say.right")
            if step["done"]["over"]:  # the win: its settlement opens, read and closed
                page.wait_for_selector("#settlement:not([hidden])")
                if i in shoot:
                    table.shot(f"lesson-{lesson['id']}-{i + 1}-settlement")
                page.click("#settle-close")
        elif i in shoot:
            table.shot(f"lesson-{lesson['id']}-{i + 1}")
        assert nxt.is_enabled()
        nxt.click()
    page.wait_for_selector("#lesson-done:not([hidden])")
    assert "这一课学完了" in page.inner_text("#lesson-done")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_every_lesson_is_walked_to_its_end_by_clicking(
    site: Server, browser: Browser, shots: Path, viewport: ViewportSize
) -> None:
    course = site.get("/api/lessons")["lessons"]
    assert len(course) >= 7
    table = Table(browser, shots, viewport)
    page = table.page
    page.goto(site.url + "/")
    page.click("#learn-entry")  # the lobby's way in
    page.wait_for_selector(".lesson-item")
    assert page.inner_text("#learn-progress") == f"已学完0/{len(course)}课"
    table.shot("lesson-list")
    for lesson in course:
        walk(table, site, site.get(f"/api/lessons/{lesson['id']}"), SHOWN.get(lesson["id"], ()))
    page.click("#lesson-done a.button:not(.primary)")  # 课程列表
    page.wait_for_selector(".lesson-item")
    assert page.inner_text("#learn-progress") == f"已学完{len(course)}/{len(course)}课"
    assert page.locator(".lesson-item.done").count() == len(course)
    table.shot("lesson-list-done")
    table.close()


def test_a_lesson_in_english_keeps_its_place_and_the_language_toggles(
    site: Server, browser: Browser, shots: Path
) -> None:
    lesson = site.get("/api/lessons/chi-bi")
    table = Table(browser, shots, DESKTOP, locale="en-GB")
    page = table.page
    page.goto(f"{site.url}/learn/chi-bi")
    page.wait_for_selector("#lesson-bar:not([hidden])")
    assert page.inner_text("#lesson-text") == lesson["steps"][0]["text"]["en"]
    assert page.inner_text("#lesson-step") == "Step 1 of 3"
    click_move(page, {a for a, v in lesson["steps"][0]["answers"].items() if v["right"]})
    page.wait_for_selector("#lesson-say.right")
    page.click("#lang")
    assert page.inner_text("#lesson-text") == lesson["steps"][0]["text"]["zh"]
    assert (
        page.inner_text("#lesson-say") == lesson["steps"][0]["answers"]["chi x1x2x3"]["text"]["zh"]
    )
    page.click("#lesson-next")
    wait_js(page, "document.getElementById('lesson-step').textContent === '第2/3步'")
    page.reload()  # the place is kept: the lesson opens again at the step reached
    page.wait_for_selector("#lesson-bar:not([hidden])")
    assert page.inner_text("#lesson-step") == "第2/3步"
    assert page.inner_text("#lesson-text") == lesson["steps"][1]["text"]["zh"]
    page.goto(f"{site.url}/learn")
    page.wait_for_selector(".lesson-item")
    assert "学到第2/3步" in page.inner_text('.lesson-item[data-lesson="chi-bi"]')
    page.goto(f"{site.url}/learn/no-such-lesson")
    page.wait_for_selector("#learn-page:not([hidden])")
    assert "没有这一课" in page.inner_text("#learn-error")
    table.errors = [e for e in table.errors if "404" not in e]  # the refused read, said on the page
    table.close()


def test_progress_goes_with_the_player_to_another_browser(
    site: Server, browser: Browser, shots: Path
) -> None:
    """A step reached in one browser is seen in another made the same player by a transfer
    code; what that browser kept before is merged into the player's, and the first browser
    sees it too (D153)."""
    lesson = site.get("/api/lessons/chi-bi")
    first = Table(browser, shots, DESKTOP)
    page = first.page
    page.goto(f"{site.url}/learn/chi-bi")
    page.wait_for_selector("#lesson-bar:not([hidden])")
    click_move(page, {a for a, v in lesson["steps"][0]["answers"].items() if v["right"]})
    page.wait_for_selector("#lesson-say.right")
    with page.expect_response(
        lambda r: r.url.endswith("/api/me/progress") and r.request.method == "POST"
    ) as sent:
        page.click("#lesson-next")
    assert sent.value.ok
    code = page.evaluate("fetch('/api/me/transfer', {method: 'POST'}).then(r => r.json())")["code"]

    second = Table(browser, shots, DESKTOP)
    other = second.page
    # A player of its own, and a lesson kept in this browser. The claim waits for the page to
    # have read its progress: the answer of its first GET /api/me, which made the player, sets
    # a cookie and could otherwise come after the claim's and undo it.
    with other.expect_response(
        lambda r: r.url.endswith("/api/me/progress") and r.request.method == "GET"
    ):
        other.goto(f"{site.url}/learn")
    other.wait_for_selector(".lesson-item")
    assert "学到第2/3步" not in other.inner_text('.lesson-item[data-lesson="chi-bi"]')
    other.evaluate(
        "localStorage.setItem('paohuzi.lessons', JSON.stringify({groups: {step: 1, done: false}}))"
    )
    claimed = other.evaluate(
        "code => fetch('/api/me/claim', {method: 'POST', headers: {'Content-Type':"
        " 'application/json'}, body: JSON.stringify({code})}).then(r => r.status)",
        code,
    )
    assert claimed == 200  # this browser is now the first's player (the hall's transfer code)
    other.reload()
    other.wait_for_selector(".lesson-item")
    wait_js(
        other,
        "document.querySelector('.lesson-item[data-lesson=\"chi-bi\"]')"
        ".textContent.includes('学到第2/3步')",
    )
    assert "学到第2/" in other.inner_text('.lesson-item[data-lesson="groups"]')
    page.goto(f"{site.url}/learn")  # the first browser: the second's lesson merged in
    page.wait_for_selector(".lesson-item")
    wait_js(
        page,
        "document.querySelector('.lesson-item[data-lesson=\"groups\"]')"
        ".textContent.includes('学到第2/')",
    )
    assert "学到第2/3步" in page.inner_text('.lesson-item[data-lesson="chi-bi"]')
    second.close()
    first.close()


def test_without_a_player_progress_stays_in_this_browser(
    site: Server, browser: Browser, shots: Path
) -> None:
    """When /api/me gives no player (the database down, the new-player budget spent) the
    course works as before D153: the place is kept in localStorage, nothing is asked of the
    progress routes."""
    lesson = site.get("/api/lessons/chi-bi")
    table = Table(browser, shots, DESKTOP)
    page = table.page
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/api/me/progress" in r.url else None)
    page.route("**/api/me", lambda route: route.fulfill(status=503, body="{}"))
    page.goto(f"{site.url}/learn/chi-bi")
    page.wait_for_selector("#lesson-bar:not([hidden])")  # shown after the player was asked
    click_move(page, {a for a, v in lesson["steps"][0]["answers"].items() if v["right"]})
    page.wait_for_selector("#lesson-say.right")
    page.click("#lesson-next")
    wait_js(page, "document.getElementById('lesson-step').textContent === '第2/3步'")
    page.reload()
    page.wait_for_selector("#lesson-bar:not([hidden])")
    assert page.inner_text("#lesson-step") == "第2/3步"
    kept = page.evaluate("JSON.parse(localStorage.getItem('paohuzi.lessons'))")
    assert kept == {"chi-bi": {"step": 1, "done": False}}
    assert asked == []
    table.errors = [e for e in table.errors if "503" not in e]  # the refused /api/me
    table.close()
