"""Tables of friends, history, replay, review, the analysis board and the rules page in a real
headless Chromium (issue 13), with the fixtures and helpers of ``test_web.py``."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, WebSocketRoute

from paohuzi import native
from paohuzi.cli import main
from paohuzi.engine.observation import observe
from paohuzi.engine.record import Record, position_json
from paohuzi.tools.review import MISTAKE_SAMPLES
from tests import clock
from tests.server.conftest import Server
from tests.server.test_web import (
    DESKTOP,
    FAKE_ROOM,
    PHONE,
    Table,
    four_seat_state,
    local,
    play_until_settled,
    wait_js,
)

pytestmark = pytest.mark.xdist_group("browser")

CLIPBOARD = ["clipboard-read", "clipboard-write"]


def clipboard(page: Page) -> str:
    text: str = page.evaluate("navigator.clipboard.readText()")
    return text


# ---------------------------------------------------------------------------- friends


BUBBLES = """() => { window.bubbles = [];
  new MutationObserver(changes => { for (const c of changes) for (const n of c.addedNodes)
    if (n.classList?.contains('bubble')) window.bubbles.push(n.closest('.seat')?.dataset.seat
      + ':' + (n.querySelector('svg')?.getAttribute('class')?.split(' ').find(
        k => k.startsWith('face-')) || n.textContent));
  }).observe(document.getElementById('table'), {childList: true, subtree: true}); }"""
"""Record on the page, in ``window.bubbles``, each saying shown: "SEAT:TEXT" or "SEAT:face-…"."""


def test_two_friends_and_a_bot_wait_play_a_match_and_a_rematch(
    site: Server, browser: Browser, shots: Path
) -> None:
    host, friend, watcher = (Table(browser, shots, v) for v in (DESKTOP, PHONE, DESKTOP))
    for table in (host, friend):
        table.context.grant_permissions(CLIPBOARD, origin=site.url)
    first, second, third = host.page, friend.page, watcher.page
    first.goto(site.url + "/")
    first.fill("#nickname", "Ann")
    first.select_option("#match-hands", "1")
    first.fill("#timer", "0")
    assert first.input_value("#seat-1") == "friend" and first.input_value("#seat-2") == "greedy"
    host.shot("lobby-options", full=True)
    first.click("#create")
    first.wait_for_selector("#waiting:not([hidden]) #invite-list .invite-item")
    # One invite (seat 2), its QR code, and the watch link, each with a copy button.
    assert first.locator("#invite-list .invite-item").count() == 1
    assert first.locator("#invite-list svg.qr path").count() == 1
    invite = first.get_attribute("#invite-list a.invite", "href") or ""
    watch = first.get_attribute(".watch-link a.watch", "href") or ""
    assert "token=" in invite and "token=" not in watch
    first.click("#invite-list button.copy")
    assert clipboard(first) == invite
    first.click(".watch-link button.copy")
    assert clipboard(first) == watch
    wait_js(first, "document.querySelector('#waiting-seats li').textContent.includes('Ann')")
    assert "还没来" in first.inner_text("#waiting-seats") and first.is_visible("#start-now")
    host.shot("waiting-room")
    third.goto(watch)
    third.wait_for_selector("#waiting:not([hidden])")
    first.wait_for_timeout(600)
    assert first.is_visible("#waiting") and first.locator("#hand .card").count() == 0
    # The friend comes: the hand is dealt to everyone, the watcher included.
    second.goto(invite)
    second.fill("#ask-name", "阿明")  # asked before sitting down: no nickname yet
    second.click("#ask-sit")
    for page in (first, second):
        page.wait_for_selector("#hand .card")
    third.wait_for_selector("#table:not([hidden]) .seat")
    assert "Ann" in second.inner_text(".seat.pos-left") and "第1/1局" in first.inner_text("#where")
    friend.shot("table-with-names")
    # A quick phrase shows on the speaker's seat at every table (for 3.5 s: each page's
    # bubbles are recorded as they come, a slow page's look could come after).
    for page in (second, third):
        page.evaluate(BUBBLES)
    first.click("#say-open")
    first.click('#say-menu button[data-say="hello"]')
    for page in (second, third):
        wait_js(page, "window.bubbles.some(b => b.startsWith('0:大家好'))")
    first.click("#say-open")
    first.click('#say-menu button[data-say="flower"]')
    wait_js(second, "window.bubbles.includes('0:face-flower')")
    play_until_settled([first, second])
    for page in (first, second):
        page.wait_for_selector("#match-end:not([hidden])")
    assert first.locator("#standings li").count() == 3
    assert first.inner_text("#ready") == "再来一场"
    host.shot("match-end")
    # The finished hand is listed at once, and after a reload too.
    third.wait_for_selector("#history a.replay-link")
    third.reload()
    third.wait_for_selector("#history a.replay-link")
    assert third.get_attribute("#history a.replay-link", "href") == (local(watch) + "/hand/0")
    for page in (first, second):
        page.click("#ready")
    for page in (first, second):
        wait_js(page, "document.getElementById('where').textContent.includes('第2场 · 第1/1局')")
    room = local(watch).rsplit("/", 1)[1]
    info = site.get(f"/api/rooms/{room}")
    assert info["totals"] == [0, 0, 0] and info["match"]["no"] == 2
    assert info["seats"][0]["name"] == "Ann" and info["seats"][1]["name"] == "阿明"
    for table in (host, friend, watcher):
        table.close()


def test_four_seats_in_the_lobby_and_the_waiting_room_with_a_fake_server(
    site: Server, browser: Browser, shots: Path
) -> None:
    """The lobby asks for a four-seat table as a rule-set object; the waiting room shows four
    seats (a fake server: this one seats three)."""
    table = Table(browser, shots, PHONE)
    page = table.page
    asked: list[Any] = []
    room = "f" * 32
    seats = [
        {"seat": 0, "bot": None, "token": "t0", "url": f"{site.url}/room/{room}?token=t0"},
        {"seat": 1, "bot": None, "token": "t1", "url": f"{site.url}/room/{room}?token=t1"},
        {"seat": 2, "bot": None, "token": "t2", "url": f"{site.url}/room/{room}?token=t2"},
        {"seat": 3, "bot": "greedy"},
    ]

    def create(route: Any) -> None:
        asked.append(json.loads(route.request.post_data or "{}"))
        route.fulfill(
            json={
                "room": room,
                "seats": seats,
                "watch": f"{site.url}/room/{room}",
                "host": 0,
                "hands": 8,
            }
        )

    lobby = {
        "type": "lobby", "room": room, "you": 0, "host": 0, "rules": "hunan", "timer": 30,
        "seats": [{"name": "Ann", "bot": None, "joined": True}, {"name": "", "bot": None, "joined": False},
                  {"name": "Bo", "bot": None, "joined": True}, {"name": "", "bot": "greedy", "joined": True}],
        "match": {"length": 8, "played": 0, "no": 1, "over": False},
    }  # fmt: skip
    sockets: list[WebSocketRoute] = []

    def fake(ws: WebSocketRoute) -> None:
        sockets.append(ws)
        ws.on_message(lambda m: None)
        ws.send(json.dumps(lobby))

    page.route("**/api/rooms", create)
    page.route("**/api/rooms/*/hands", lambda r: r.fulfill(json=[]))
    page.route(re.compile(r"/api/rooms/f{32}$"), lambda r: r.fulfill(json=FAKE_ROOM))
    page.route_web_socket(re.compile(r"/ws/"), fake)
    page.goto(site.url + "/")
    page.check("input[name=players][value='4']")
    assert page.locator("#seat-choices select").count() == 3
    page.select_option("#seat-2", "friend")
    page.select_option("#match-hands", "8")
    page.click("#create")
    page.wait_for_selector("#waiting:not([hidden])")
    assert asked == [
        {
            "bots": [None, None, None, "greedy"],
            "timer": 30,
            "rules": {"preset": "hunan", "players": 4},
            "hands": 8,
            "wait": True,
        }
    ]
    assert page.locator("#waiting-seats li").count() == 4
    assert page.locator("#invite-list .invite-item").count() == 1  # seat 2 has come
    assert "8局" in page.inner_text("#waiting-rules")
    table.shot("waiting-four")
    sockets[0].send(json.dumps(four_seat_state(0)))
    page.wait_for_selector("#hand .card")
    assert page.locator("#seats .seat").count() == 3
    table.close()


# ---------------------------------------------------------------------------- replay


def finished_hand(server: Server, seed: int = 6) -> tuple[str, dict[str, Any]]:
    room = server.post("/api/rooms", {"bots": ["greedy"] * 3, "timer": 0, "seed": seed})["room"]
    deadline = clock.deadline()
    while not server.get(f"/api/rooms/{room}/hands"):
        assert not clock.expired(deadline)
        time.sleep(0.05)
    record: dict[str, Any] = server.get(f"/api/rooms/{room}/hands/0/record")
    return room, record


BOARD = """() => {
  const kinds = root => [...root.querySelectorAll('.card[data-kind]')].map(c => c.dataset.kind).sort();
  const seats = {};
  document.querySelectorAll('.seat[data-seat]').forEach(panel => {
    const seat = +panel.dataset.seat;
    const hand = panel.querySelector('.open-hand');
    seats[seat] = {
      hand: hand ? kinds(hand) : [...document.querySelectorAll('#hand .card')].map(c => c.dataset.kind).sort(),
      groups: [...panel.querySelectorAll('.groups .group')].map(g => kinds(g).join(' ')).sort(),
      discards: [...panel.querySelectorAll('.discards .card')].map(c => c.dataset.kind),
    };
  });
  const offer = document.querySelector('#offer-slot .card');
  return {seats, wall: document.getElementById('wall-count').textContent,
          offer: offer ? offer.dataset.kind : null, slider: +document.getElementById('replay-slider').value};
}"""


def engine_board(game: Any) -> dict[str, Any]:
    """What the board must show: the engine's position, every card by its F1 name."""
    position = position_json(game)
    public = observe(game, None, events=False)
    seats = {}
    for seat, hand in enumerate(position["hands"]):
        groups = [
            " ".join(sorted(re.findall(r"[xd](?:10|[1-9])", g))) for g in position["tables"][seat]
        ]
        seats[str(seat)] = {
            "hand": sorted(hand.split()),
            "groups": sorted(groups),
            "discards": position["discards"][seat].split(),
        }
    offer = None
    if not game.is_over and public.offer is not None:
        offer = ["x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10",
                 "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10"][public.offer]  # fmt: skip
    return {"seats": seats, "wall": f"墩 {position['wall']}", "offer": offer}


def test_every_step_of_the_replay_board_is_the_engines_position(
    site: Server, browser: Browser, shots: Path, tmp_path: Path
) -> None:
    room, record = finished_hand(site)
    table = Table(browser, shots, DESKTOP)
    page = table.page
    page.goto(f"{site.url}/room/{room}/hand/0")
    page.wait_for_selector("#replay-bar:not([hidden])")
    game = Record.from_json(record).new_game()
    steps = len(record["actions"])
    for i in range(steps + 1):
        if i:
            game.apply_text(record["actions"][i - 1])
            page.keyboard.press("ArrowRight")
        shown = page.evaluate(BOARD)
        assert shown["slider"] == i
        assert {k: shown[k] for k in ("seats", "wall", "offer")} == engine_board(game), i
    page.wait_for_selector("#settlement:not([hidden])")  # the last step: the settlement
    assert page.locator("#settle-payments tr").count() == 4
    table.shot("replay-settlement")
    page.click("#settle-close")
    page.keyboard.press("Home")
    assert page.evaluate(BOARD)["slider"] == 0
    page.keyboard.press("End")
    assert page.evaluate(BOARD)["slider"] == steps
    page.fill("#replay-slider", "5")
    assert "第5/" in page.inner_text("#replay-step")
    # Jump to the decisions of seat 1 (forced moves are not decisions).
    page.select_option("#replay-seat", "1")
    page.click("#replay-first")
    page.click("#decision-next")
    at = page.evaluate(BOARD)["slider"]
    game = Record.from_json(record).new_game()
    for text in record["actions"][:at]:
        game.apply_text(text)
    assert game.to_act == 1 and len(game.legal_actions()) > 1
    assert page.locator(".seat[data-seat='1']").locator("xpath=ancestor::*[@id='me']").count() == 1
    table.shot("replay")
    # A busy server's refusal of a review is said in the table's language, not the server's
    # English detail.
    page.route("**/review", lambda r: r.fulfill(status=429, json={"detail": "too many reviews"}))
    page.click("#review-start")
    wait_js(page, "document.querySelector('#review-progress span').textContent.includes('频繁')")
    assert "too many" not in page.inner_text("#review")
    assert not page.is_visible("#review-mistakes")  # no list of mistakes under a failure
    table.shot("review-busy")
    page.unroute_all()
    # Download the record, and open it from the disk in the same board.
    with page.expect_download() as download:
        page.click("#replay-download")
    saved = tmp_path / "hand.json"
    download.value.save_as(saved)
    assert json.loads(saved.read_text()) == record
    page.goto(site.url + "/replay")
    page.route("**/api/replay", lambda r: r.fulfill(status=429, json={"detail": "too many"}))
    page.set_input_files("#record-file", str(saved))
    wait_js(page, "document.getElementById('open-error').textContent.includes('频繁')")
    page.unroute_all()
    page.set_input_files("#record-file", [])
    page.set_input_files("#record-file", str(saved))
    page.wait_for_selector("#replay-bar:not([hidden])")
    page.keyboard.press("End")
    game = Record.from_json(record).new_game()
    for text in record["actions"]:
        game.apply_text(text)
    shown = page.evaluate(BOARD)
    assert {k: shown[k] for k in ("seats", "wall", "offer")} == engine_board(game)
    # The browser logs the two refusals we made the server send; nothing else may fail.
    table.errors = [e for e in table.errors if "responded with a status of 429" not in e]
    table.close()


def test_the_review_in_the_browser_is_what_paohuzi_review_prints(
    site: Server, browser: Browser, shots: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A hand of greedy bots where seat 0 makes a mistake the review calls at its fewest
    # samples (D115): the list, the verdict with its uncertainty, the board at that step.
    # The two cores deal the samples from streams of their own (D37), so each has its room.
    room, record = finished_hand(site, seed=31 if native.evaluators is not None else 36)
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(record))
    samples = str(MISTAKE_SAMPLES)
    assert main(["review", str(path), "--seat", "0", "--samples", samples, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    by_index = {d["index"]: d for d in printed["decisions"]}
    assert printed["mistakes"]
    for viewport in (DESKTOP, PHONE):
        table = Table(browser, shots, viewport)
        page = table.page
        page.goto(f"{site.url}/room/{room}/hand/0?samples={samples}")
        page.wait_for_selector("#replay-bar:not([hidden])")
        page.click("#review-start")
        page.wait_for_selector("#review-list li", timeout=3 * clock.PATIENCE * 1000)
        assert page.get_attribute("#review-progress", "aria-valuenow") == "100"
        listed = page.evaluate(
            "[...document.querySelectorAll('#review-list li.mistake')].map(li => ({...li.dataset}))"
        )
        assert [int(d["index"]) for d in listed] == printed["mistakes"]
        for found in listed:
            expected = by_index[int(found["index"])]
            assert (found["played"], found["best"]) == (expected["played"], expected["best"])
            assert float(found["loss"]) == expected["loss"]
        page.click("#review-list li.mistake button")
        worst = by_index[printed["mistakes"][0]]
        said = page.inner_text("#review-here")
        assert f"{worst['loss']:.2f} ± {worst['loss_se']:.2f}" in said, said
        assert page.evaluate(BOARD)["slider"] == worst["index"]
        # A decision that differs from the expert's by less than the noise is said so, and
        # not called a mistake.
        quiet = [d for d in printed["decisions"] if d["played"] != d["best"] and not d["mistake"]]
        if quiet:
            page.click("#replay-slider")
            page.evaluate(f"document.getElementById('replay-slider').value = {quiet[0]['index']}")
            page.dispatch_event("#replay-slider", "input")
            assert "不算失误" in page.inner_text("#review-here") or "不下结论" in page.inner_text(
                "#review-here"
            )
        table.shot("review")
        table.close()


# ---------------------------------------------------------------------------- analysis and rules


def test_the_analysis_board_and_the_rules_page(site: Server, browser: Browser, shots: Path) -> None:
    hand = "d1 d1 d1 d2 d7 d10 x1 x2 x3 x5 x5 x5 d4 d5 d6 d8 d9"
    expected = site.post("/api/analyze", {"hand": hand, "table": "chi:x7x8x9"})
    for viewport in (DESKTOP, PHONE):
        table = Table(browser, shots, viewport)
        page = table.page
        page.goto(site.url + "/analysis")
        page.wait_for_selector("#analysis-page .picker")
        page.click("#analysis-page button[data-type='chi']")
        for kind in ("x7", "x8", "x9"):
            page.click(f"#analysis-page .picker [data-pick='{kind}']")
        for kind in hand.split():
            page.click(f"#analysis-page .picker [data-pick='{kind}']")
        page.wait_for_selector(".an-wait")
        waits = page.evaluate("[...document.querySelectorAll('.an-wait')].map(w => w.dataset.win)")
        assert waits == [w["win"] for w in expected["waits"]]
        assert page.locator(".an-wait").first.locator(".group").count() == 7
        table.shot("analysis", full=True)
        page.select_option("#an-win", "d10")
        wait_js(page, "document.getElementById('an-answer').textContent.includes('能胡')")
        page.goto(site.url + "/rules")
        page.wait_for_selector("#rules-page .mingtang")
        assert page.locator("#rules-page .mingtang tr").count() == 8  # a header and seven 名堂
        assert page.locator("#rules-page .groups-table tr").count() == 11
        assert "乌胡" in page.inner_text("#rules-page") and "坎" in page.inner_text("#rules-page")
        table.shot("rules")
        page.click("#lang")
        assert "Scoring" in page.inner_text("#rules-page")
        page.click("#lang")
        table.close()


# ---------------------------------------------------------------------------- QR codes


def _rs_remainder(data: list[int], degree: int) -> list[int]:
    """Reed–Solomon check codewords over GF(256) (x⁸+x⁴+x³+x²+1), written apart from qr.js."""
    exp, log, x = [0] * 512, [0] * 256, 1
    for i in range(255):
        exp[i], log[x] = x, i
        x = (x << 1) ^ (0x11D if x & 0x80 else 0)
    for i in range(255, 512):
        exp[i] = exp[i - 255]
    generator = [1]
    for i in range(degree):
        generator = [
            (generator[j] if j < len(generator) else 0)
            ^ (
                exp[log[generator[j - 1]] + i]
                if 0 < j <= len(generator) and generator[j - 1]
                else 0
            )
            for j in range(len(generator) + 1)
        ]
    message = data + [0] * degree
    for i in range(len(data)):
        factor = message[i]
        if factor:
            for j, g in enumerate(generator):
                if g:
                    message[i + j] ^= exp[log[g] + log[factor]]
    return message[len(data) :]


MASKS = [
    lambda i, j: (i + j) % 2 == 0,
    lambda i, j: i % 2 == 0,
    lambda i, j: j % 3 == 0,
    lambda i, j: (i + j) % 3 == 0,
    lambda i, j: (i // 2 + j // 3) % 2 == 0,
    lambda i, j: (i * j) % 2 + (i * j) % 3 == 0,
    lambda i, j: ((i * j) % 2 + (i * j) % 3) % 2 == 0,
    lambda i, j: ((i + j) % 2 + (i * j) % 3) % 2 == 0,
]


def _function_modules(version: int) -> set[tuple[int, int]]:
    """(row, column) of every module that holds no data: finders with their separators and
    format bits, timing, alignment patterns, version information."""
    from segno import consts

    size = 4 * version + 17
    fixed = {(i, j) for i in range(9) for j in range(9)}
    fixed |= {(i, j) for i in range(9) for j in range(size - 8, size)}
    fixed |= {(i, j) for i in range(size - 8, size) for j in range(9)}
    fixed |= {(6, k) for k in range(size)} | {(k, 6) for k in range(size)}
    centres: tuple[int, ...] = consts.ALIGNMENT_POS[version - 2] if version > 1 else ()
    for r in centres:
        for c in centres:
            if (r, c) in ((6, 6), (6, centres[-1]), (centres[-1], 6)):
                continue
            fixed |= {(r + a, c + b) for a in range(-2, 3) for b in range(-2, 3)}
    if version >= 7:
        block = {(i, j) for i in range(6) for j in range(size - 11, size - 8)}
        fixed |= block | {(j, i) for i, j in block}
    return fixed


def test_the_invite_qr_codes_are_valid_symbols(site: Server, browser: Browser) -> None:
    """The page's QR encoder against the standard: the function patterns, format and version
    information of an independent encoder (segno) for the same version and mask, and data that
    reads back, in its error-correction blocks, with the right check codewords."""
    segno = pytest.importorskip("segno")
    from segno import consts

    texts = [
        "hi",
        "https://paohuzi.example/room/0123456789abcdef0123456789abcdef?token=AbCdEfGhIjKlMnOpQrStUv",
        "x" * 200,
        "汉字 ünïcode",
    ]
    page = browser.new_page()
    page.goto(site.url + "/")
    found = page.evaluate(
        """async texts => { const qr = await import('/static/qr.js');
        return texts.map(x => { const r = qr.encode(x);
          return {version: r.version, mask: r.mask, rows: r.modules.map(row => row.map(d => d ? 1 : 0))}; }); }""",
        texts,
    )
    page.close()
    for text, symbol in zip(texts, found, strict=True):
        version, mask, rows = symbol["version"], symbol["mask"], symbol["rows"]
        size = 4 * version + 17
        data = text.encode()
        reference = segno.make(
            text, error="m", mode="byte", version=version, mask=mask, boost_error=False
        )
        assert [list(r) for r in reference.matrix] and len(rows) == size
        fixed = _function_modules(version)
        for i, j in fixed:
            assert rows[i][j] == reference.matrix[i][j], (text, i, j)
        bits: list[int] = []
        right = size - 1
        while right >= 1:
            if right == 6:
                right = 5
            for vertical in range(size):
                for k in range(2):
                    j = right - k
                    i = size - 1 - vertical if ((right + 1) & 2) == 0 else vertical
                    if (i, j) not in fixed:
                        bits.append(rows[i][j] ^ int(MASKS[mask](i, j)))
            right -= 2
        words = [int("".join(map(str, bits[k : k + 8])), 2) for k in range(0, len(bits) - 7, 8)]
        blocks = [
            (total, count)
            for n, total, count in consts.ECC[version][consts.ERROR_LEVEL_M]  # type: ignore[index]
            for _ in range(n)
        ]
        data_words: list[list[int]] = [[] for _ in blocks]
        at = 0
        for k in range(max(c for _, c in blocks)):
            for b, (_, count) in enumerate(blocks):
                if k < count:
                    data_words[b].append(words[at])
                    at += 1
        checks: list[list[int]] = [[] for _ in blocks]
        for _ in range(blocks[0][0] - blocks[0][1]):
            for b in range(len(blocks)):
                checks[b].append(words[at])
                at += 1
        for block, check in zip(data_words, checks, strict=True):
            assert _rs_remainder(block, len(check)) == check, text
        stream = "".join(f"{w:08b}" for block in data_words for w in block)
        width = 8 if version < 10 else 16
        assert stream[:4] == "0100" and int(stream[4 : 4 + width], 2) == len(data)
        body = stream[4 + width : 4 + width + 8 * len(data)]
        assert bytes(int(body[k : k + 8], 2) for k in range(0, len(body), 8)) == data
        rest = stream[4 + width + 8 * len(data) :]
        assert set(rest[:4]) <= {"0"}
        pads = rest[(len(stream) - len(rest) + 4 + 7) // 8 * 8 - (len(stream) - len(rest)) :]
        assert all(
            pads[k : k + 8] == ("11101100" if (k // 8) % 2 == 0 else "00010001")
            for k in range(0, len(pads), 8)
        )


def test_a_seat_opened_elsewhere_is_told_and_can_be_taken_back(
    site: Server, browser: Browser, shots: Path
) -> None:
    """No secret in any request the page makes (issue 22): the invite's is in the fragment,
    the WebSocket's in its first message. A second page with the link takes the seat; the
    first says so, and takes it back with its button."""
    room = site.post("/api/rooms", {"bots": [None, "greedy", "greedy"], "timer": 0})
    link = room["seats"][0]["url"]
    assert "#token=" in link
    one, two = Table(browser, shots, DESKTOP), Table(browser, shots, DESKTOP)
    requests: list[str] = []
    for table in (one, two):
        table.page.on("request", lambda r: requests.append(r.url))
        table.page.on("websocket", lambda ws: requests.append(ws.url))
    one.page.goto(site.url + local(link))
    one.page.wait_for_selector("#table:not([hidden]) #hand .card")
    two.page.goto(site.url + local(link))
    two.page.wait_for_selector("#table:not([hidden]) #hand .card")
    one.page.wait_for_selector("#problem:not([hidden])")
    assert "这个座位在别处打开了" in one.page.inner_text("#problem")
    one.page.click("#problem-actions button")  # 在这里继续: take it back
    one.page.wait_for_selector("#table:not([hidden]) #hand .card")
    two.page.wait_for_selector("#problem:not([hidden])")
    assert "这个座位在别处打开了" in two.page.inner_text("#problem")
    # An older link's ?token= still opens the seat, and leaves the address bar at once.
    old = site.url + f"/room/{room['room']}?token={room['seats'][0]['token']}"
    two.page.goto(old)
    two.page.wait_for_selector("#table:not([hidden]) #hand .card")
    assert "?" not in two.page.url and "#token=" in two.page.url
    assert requests and not [u for u in requests if "token" in u and u != old]
    one.close()
    two.close()


def test_one_new_link_question_at_a_time_and_a_refused_one_says_why(
    site: Server, browser: Browser, shots: Path
) -> None:
    """The waiting room's "换新链接?" (D173): asking at another seat moves the one question
    there; a request the server refuses leaves it open with the reason and its 确定换 focused
    to try again; a redraw of the waiting room keeps both, and the next try makes the link."""
    host = Table(browser, shots, DESKTOP)
    page = host.page
    page.goto(site.url + "/")
    page.fill("#timer", "0")
    page.select_option("#seat-2", "friend")
    page.click("#create")
    page.wait_for_selector('#invite-list .renew[data-seat="2"] button.renew-ask')
    wait_js(page, "document.querySelector('#waiting-seats li').classList.contains('joined')")
    notes = page.locator("#invite-list .renew-note")
    page.click('#invite-list .renew[data-seat="1"] button.renew-ask')
    assert notes.count() == 1 and "2号位" in notes.inner_text()  # seats are said from 1
    assert page.evaluate("document.activeElement.matches('.renew[data-seat=\"1\"] .renew-no')")
    page.click('#invite-list .renew[data-seat="2"] button.renew-ask')  # the other seat's
    assert notes.count() == 1 and "3号位" in notes.inner_text()
    assert page.locator('#invite-list .renew[data-seat="1"] button.renew-ask').is_visible()
    old = page.get_attribute("#invite-list .invite-item:nth-child(2) a.invite", "href")
    page.route(
        "**/seats/2/link",
        lambda route: route.fulfill(status=503, json={"detail": "busy, try again"}),
    )
    page.click('#invite-list .renew[data-seat="2"] button.renew-yes')
    wait_js(page, "document.querySelector('#invite-list .renew-note').textContent.includes('没能')")
    assert "busy, try again" in notes.inner_text()
    yes = '#invite-list .renew[data-seat="2"] .renew-yes'
    assert page.is_enabled(yes) and page.evaluate(f"document.activeElement.matches('{yes}')")
    # A redraw (the host renames herself): the refusal and the focus stay.
    page.evaluate(f"document.querySelector('{yes}').focus()")
    page.evaluate("document.getElementById('my-name').value = '房主'")
    page.evaluate("document.getElementById('save-name').click()")
    wait_js(page, "document.querySelector('#waiting-seats li').textContent.includes('房主')")
    assert "busy, try again" in notes.inner_text()
    assert page.evaluate(f"document.activeElement.matches('{yes}')")
    host.shot("invite-renew-refused")
    page.unroute("**/seats/2/link")
    page.click(yes)
    wait_js(
        page,
        "document.querySelector('#invite-list .invite-item:nth-child(2) a.invite')"
        f".getAttribute('href') !== {old!r}",
    )
    assert notes.count() == 0  # answered: no question left open
    # The browser's own line for the refusal we made is the only error on the page.
    assert [e for e in host.errors if "status of 503" in e] == host.errors[:1]
    host.errors = host.errors[1:]
    host.close()


def test_the_host_gives_a_seat_a_new_link_and_the_old_one_is_refused(
    site: Server, browser: Browser, shots: Path
) -> None:
    """The waiting room's "换新链接" (issue 22 point 5, D71): asked once more (the old link
    stops working), then the list shows the new link, the page remembers it, the old link
    is refused with a message that says why, and the new one seats the friend."""
    host = Table(browser, shots, DESKTOP)
    host.context.grant_permissions(CLIPBOARD, origin=site.url)
    page = host.page
    page.goto(site.url + "/")
    page.select_option("#match-hands", "1")
    page.fill("#timer", "0")
    assert page.input_value("#seat-1") == "friend" and page.input_value("#seat-2") == "greedy"
    page.click("#create")
    page.wait_for_selector("#waiting:not([hidden]) #invite-list .invite-item button.renew-ask")
    # (the room says the host's seat twice, named then arrived: the second has come)
    wait_js(page, "document.querySelector('#waiting-seats li').classList.contains('joined')")
    old = page.get_attribute("#invite-list a.invite", "href") or ""
    room = re.sub(r"^.*/room/([\w-]+)#.*$", r"\1", old)
    assert "#token=" in old and room and room != old
    assert page.inner_text("#invite-list button.renew-ask") == "换新链接"
    host.shot("invite-renew")
    page.click("#invite-list button.renew-ask")
    assert "旧链接将失效" in page.inner_text("#invite-list .renew-note")
    host.shot("invite-renew-confirm")
    # The waiting room drawn again meanwhile (here the host's new name; a friend arriving at
    # another seat does the same): the question stays open.
    page.fill("#my-name", "房主")
    page.click("#save-name")
    wait_js(page, "document.querySelector('#waiting-seats li').textContent.includes('房主')")
    assert "旧链接将失效" in page.inner_text("#invite-list .renew-note")
    page.click("#invite-list button.renew-no")  # 取消: nothing changes
    assert page.get_attribute("#invite-list a.invite", "href") == old
    page.click("#invite-list button.renew-ask")
    page.click("#invite-list button.renew-yes")
    wait_js(
        page, f"document.querySelector('#invite-list a.invite').getAttribute('href') !== {old!r}"
    )
    new = page.get_attribute("#invite-list a.invite", "href") or ""
    assert "#token=" in new and new.split("#")[0] == old.split("#")[0]
    assert "旧链接已失效" in page.inner_text("#toast")
    kept = json.loads(page.evaluate(f"localStorage.getItem('paohuzi.invites.{room}')"))
    assert [s["url"] for s in kept["seats"] if s["seat"] == 1] == [new]
    page.click("#invite-list button.copy")
    assert clipboard(page) == new
    # The friend (an English browser) opens the old link: refused, and told why.
    friend = Table(browser, shots, PHONE, locale="en-US")
    friend.page.goto(site.url + local(old))
    friend.page.fill("#ask-name", "Bo")  # asked first: the link is tried when it sits down
    friend.page.click("#ask-sit")
    friend.page.wait_for_selector("#problem:not([hidden])")
    said = friend.page.inner_text("#problem")
    assert "This invite link no longer works" in said and "new link" in said
    friend.shot("invite-refused")
    friend.page.goto(site.url + local(new))
    for table in (host, friend):
        table.page.wait_for_selector("#table:not([hidden]) #hand .card")
    # The host's phone sees the same button.
    phone = Table(browser, shots, PHONE)
    phone.page.goto(site.url + "/")
    phone.page.fill("#timer", "0")
    phone.page.click("#create")
    phone.page.wait_for_selector("#invite-list button.renew-ask")
    phone.shot("invite-renew")
    phone.page.click("#invite-list button.renew-ask")
    phone.shot("invite-renew-confirm")
    for table in (host, friend, phone):
        table.close()
