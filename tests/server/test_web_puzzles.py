"""Puzzles in the browser (issue 27 point 2): the daily puzzle opened from the lobby and
answered by clicking the table's own controls, its solution read (verdict, explanation,
numbers), on a desktop and on a phone, with no console error; the list by theme, a wrong
answer and the next puzzle.

Which move is right is read from the shipped puzzles (:mod:`paohuzi.puzzles`) as an answer
key: the page is clicked as a player would, and it never holds the solution before the answer.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, ViewportSize

from paohuzi.puzzles import Puzzle, by_id, by_theme
from tests.server.conftest import Server
from tests.server.test_web import DESKTOP, PHONE, Table, wait_js
from tests.server.test_web_lessons import click_move

pytestmark = pytest.mark.xdist_group("browser")


def _puzzle(puzzle_id: str) -> Puzzle:
    found = by_id(puzzle_id)
    assert found is not None
    return found


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_daily_puzzle_is_answered_from_the_lobby(
    site: Server, browser: Browser, shots: Path, viewport: ViewportSize
) -> None:
    puzzle = _puzzle(site.get("/api/puzzles/daily")["id"])
    legal = set(site.get(f"/api/puzzles/{puzzle.id}")["view"]["legal"])
    table = Table(browser, shots, viewport)
    page = table.page
    page.goto(site.url + "/")
    page.wait_for_selector("#daily-link")
    name = "desktop" if viewport == DESKTOP else "phone"
    table.shot(f"web-puzzle-{name}-lobby")
    page.click("#daily-link")  # the lobby's way in
    page.wait_for_selector("#lesson-bar:not([hidden])")
    assert page.inner_text("#lesson-title") == "每日一题"
    assert page.inner_text("#lesson-say") == "只有一次机会，想好再点。"
    assert page.locator("#puzzle-solution").is_hidden()
    table.shot(f"web-puzzle-{name}-ask")
    click_move(page, set(puzzle.solutions) & legal)
    page.wait_for_selector("#lesson-say.right")
    assert page.inner_text("#lesson-say") == "对了！这就是最好的一步。"
    solution = page.locator("#puzzle-solution")
    solution.wait_for()
    text = solution.inner_text()
    assert (
        f"{puzzle.samples}" in text
        and f"{puzzle.margin:.2f}" in text
        and f"{puzzle.margin_se:.2f}" in text
    )
    assert page.locator(".pz-numbers tr").count() == len(puzzle.estimates)
    assert page.locator(".pz-numbers tr.best.mine").count() == 1
    assert page.locator(".pz-why").inner_text().startswith("最好的一步是")
    assert page.locator("#prompt .claims button, #hand .card.playable").count() == 0  # one try
    table.shot(f"web-puzzle-{name}")
    page.click("#lang")  # the solution is said again in English
    wait_js(page, "document.querySelector('.pz-why').textContent.startsWith('The best move is')")
    assert page.inner_text("#lesson-say") == "Right! That is the best move."
    table.shot(f"web-puzzle-{name}-en")
    last = page.locator(".pz-margin")  # the solution's last line is in sight, not under the table
    last.scroll_into_view_if_needed()
    box, centre = last.bounding_box(), page.locator("#centre").bounding_box()
    assert box and centre
    assert box["y"] + box["height"] <= centre["y"] or box["y"] >= centre["y"] + centre["height"]
    table.close()


def test_the_list_by_theme_a_wrong_answer_and_the_next_puzzle(
    site: Server, browser: Browser, shots: Path
) -> None:
    first, second = (_puzzle(p.id) for p in by_theme("discard")[:2])
    table = Table(browser, shots, DESKTOP)
    page = table.page
    page.goto(site.url + "/")
    page.click("#puzzles-link")
    page.wait_for_selector("#puzzle-list li")
    page.click('#puzzle-themes a[href="/puzzles?theme=discard"]')
    wait_js(page, "document.querySelector('#puzzle-themes a.on')?.href.endsWith('theme=discard')")
    assert page.locator("#puzzle-list li").count() == len(by_theme("discard"))
    table.shot("web-puzzle-list")
    page.click(f'#puzzle-list a[href="/puzzles/{first.id}"]')
    page.wait_for_selector("#lesson-bar:not([hidden])")
    assert page.inner_text("#lesson-title") == "第1题"
    legal = set(site.get(f"/api/puzzles/{first.id}")["view"]["legal"])
    wrong = sorted(legal - set(first.solutions))
    click_move(page, {wrong[0]})
    page.wait_for_selector("#lesson-say.wrong")
    assert "不是最好的一步" in page.inner_text("#lesson-say")
    assert page.locator(".pz-numbers tr.mine:not(.best)").count() == 1
    assert page.locator("#table .card.lit").count() >= 1  # the best card lit
    table.shot("web-puzzle-wrong")
    page.click("#lesson-next")  # 下一题
    wait_js(page, "document.getElementById('lesson-title').textContent === '第2题'")
    assert page.url.endswith(f"/puzzles/{second.id}")
    page.goto(site.url + "/puzzles?theme=discard")
    page.wait_for_selector("#puzzle-list li.wrong")
    assert (
        page.inner_text("#puzzles-progress")
        == f"这个主题答过1/{len(by_theme('discard'))}题，答对0题"
    )
    page.goto(site.url + "/puzzles/0-0-0")
    page.wait_for_selector("#puzzles-page:not([hidden])")
    assert "没有这道题" in page.inner_text("#puzzles-error")
    table.errors = [e for e in table.errors if "404" not in e]  # the refused read, said on the page
    table.close()


def test_an_answer_goes_with_the_player_to_another_browser(
    site: Server, browser: Browser, shots: Path
) -> None:
    """A puzzle answered in one browser is marked in another made the same player by a
    transfer code (D153)."""
    puzzle = _puzzle(by_theme("peng")[0].id)
    legal = set(site.get(f"/api/puzzles/{puzzle.id}")["view"]["legal"])
    first = Table(browser, shots, DESKTOP)
    page = first.page
    page.goto(f"{site.url}/puzzles/{puzzle.id}")
    page.wait_for_selector("#lesson-bar:not([hidden])")
    with page.expect_response(
        lambda r: r.url.endswith("/api/me/progress") and r.request.method == "POST"
    ) as sent:
        click_move(page, set(puzzle.solutions) & legal)
        page.wait_for_selector("#lesson-say.right")
    assert sent.value.ok
    code = page.evaluate("fetch('/api/me/transfer', {method: 'POST'}).then(r => r.json())")["code"]

    second = Table(browser, shots, DESKTOP)
    other = second.page
    # The page's player is made by its first GET /api/me, whose answer sets a cookie: the
    # claim waits for the page to have read its progress, or that answer could come after the
    # claim's and undo it (the hall's claim form waits for it too).
    with other.expect_response(
        lambda r: r.url.endswith("/api/me/progress") and r.request.method == "GET"
    ):
        other.goto(f"{site.url}/puzzles?theme={puzzle.theme}")
    other.wait_for_selector("#puzzle-list li")
    assert other.locator("#puzzle-list li.right").count() == 0
    claimed = other.evaluate(
        "code => fetch('/api/me/claim', {method: 'POST', headers: {'Content-Type':"
        " 'application/json'}, body: JSON.stringify({code})}).then(r => r.status)",
        code,
    )
    assert claimed == 200
    other.reload()
    other.wait_for_selector("#puzzle-list li.right")
    assert other.locator("#puzzle-list li.right").count() == 1
    assert other.locator(f'#puzzle-list li.right a[href="/puzzles/{puzzle.id}"]').count() == 1
    second.close()
    first.close()
