"""Fonts for any name and a page that is not downloaded again (issue 24, points 3 and 10; D113,
D114), in a real headless Chromium on a machine with no system CJK font, with the fixtures and
helpers of ``test_web.py``.

The interface font is Noto Sans CJK SC in ``unicode-range`` slices (``static/fonts.css``, made
by ``scripts/make_font.py``): the page's own text in the first, then GB2312 and the most
frequent characters of Chinese text. The files are sent gzipped where that pays, with an ETag,
and the fonts, whose names hold their content's hash, are kept for a year.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import re
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, Response

from tests import clock
from tests.server.conftest import Server
from tests.server.test_web import DESKTOP, PHONE, Table, wait_js

pytestmark = pytest.mark.xdist_group("browser")

STATIC = Path(__file__).parents[2] / "src" / "paohuzi" / "server" / "static"
NAME_CHARACTERS = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈"
    "小阿伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉兰萍红鹏辉建国志文斌宇浩凯婷雪梅琳晨欣怡佳俊龙"
)
"""100 characters of common surnames and given names: 86 of them are not in the page's own
text (before issue 24 the interface font held only that, and showed these as nothing)."""
NAMES = [NAME_CHARACTERS[i : i + 12] for i in range(0, len(NAME_CHARACTERS), 12)]
"""Nicknames of at most 12 characters (a player's limit, issue 25) that hold them all."""
OUTSIDE = "龘"
"""A character in no slice (not in GB2312, nor among the most frequent of Chinese text)."""

COVERING = """text => {
  const faces = [...document.fonts].filter(f => f.family.replace(/"/g, "") === "ZiUI");
  const ranges = f => f.unicodeRange.split(",").map(r => {
    const [a, b] = r.trim().slice(2).split("-");
    return [parseInt(a, 16), parseInt(b || a, 16)];
  });
  return [...text].map(ch => {
    const p = ch.codePointAt(0);
    return faces.filter(f => ranges(f).some(([a, b]) => a <= p && p <= b)).map(f => f.status);
  });
}"""
"""For each character, the status of each face of the interface font whose range holds it."""

DRAWN = """([selector, text, without]) => {
  // The font stack of the page's own element, and the same stack without the page's font.
  let stack = getComputedStyle(document.querySelector(selector)).fontFamily;
  if (without) stack = stack.split(",").filter(f => !f.includes("ZiUI")).join(",");
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 48;
  const ctx = canvas.getContext("2d");
  ctx.font = "40px " + stack;
  return [...text].map(ch => {
    const span = document.createElement("span");
    span.style.font = "40px " + stack;
    span.textContent = ch;
    document.body.appendChild(span);
    const width = span.getBoundingClientRect().width;
    span.remove();
    ctx.clearRect(0, 0, 48, 48);
    ctx.fillText(ch, 2, 40);
    const data = ctx.getImageData(0, 0, 48, 48).data;
    let hash = 0, ink = 0;
    for (let i = 3; i < data.length; i += 4) { hash = (hash * 31 + data[i]) | 0; ink += data[i] > 0; }
    return [width, ink, hash];
  });
}"""
"""For each character: its laid-out width, how many pixels it inks and a hash of them, in the
stack of the page's element at ``selector``, or in that stack without the page's font."""


def drawn(page: Page, selector: str, text: str, *, without: bool = False) -> list[Any]:
    found: list[Any] = page.evaluate(DRAWN, [selector, text, without])
    return found


def fonts_ready(page: Page) -> None:
    page.evaluate("document.fonts.ready.then(() => true)")


# ---------------------------------------------------------------------------- names


def test_names_in_common_characters_are_drawn_in_the_interface_font(
    site: Server, browser: Browser, shots: Path
) -> None:
    """100 common name characters, typed as nicknames in the lobby and shown in the waiting
    room's seat list and name box and on the table's seat panel, each in a loaded slice of the
    interface font, as a glyph of its own: a full-width glyph where the stack without the font
    has the narrow box of a missing character, and no two alike."""
    assert len(set(NAME_CHARACTERS)) == 100 and all(len(n) <= 12 for n in NAMES)
    table = Table(browser, shots, DESKTOP)
    page = table.page
    prints: dict[str, int] = {}
    for number, name in enumerate(NAMES):
        page.goto(site.url + "/")
        page.wait_for_selector("#lobby:not([hidden])")
        page.fill("#nickname", name)
        page.click("#with-friends")
        page.wait_for_selector("#waiting:not([hidden])")
        wait_js(page, f"document.getElementById('waiting-seats').textContent.includes({name!r})")
        assert page.input_value("#my-name") == name
        where = "#waiting-seats"
        if number == len(NAMES) - 1:  # the last one sits down at the table
            table.shot("names-waiting")
            page.click("#start-now")
            page.wait_for_selector("#hand .card")
            wait_js(page, f"document.getElementById('me').textContent.includes({name!r})")
            where = "#me .seat"
        fonts_ready(page)
        # The page's own text made each slice load: nothing has drawn these characters yet.
        covering = page.evaluate(COVERING, name)
        assert covering == [["loaded"]] * len(name), dict(zip(name, covering, strict=True))
        ours, fallback = drawn(page, where, name), drawn(page, where, name, without=True)
        for char, (width, ink, pixels), (width_without, _, pixels_without) in zip(
            name, ours, fallback, strict=True
        ):
            assert ink > 0, f"{char} is drawn as nothing"
            assert width != width_without and pixels != pixels_without, f"{char} is not ours"
            prints[char] = pixels
    assert len(set(prints.values())) == 100, "some characters are drawn alike (a missing glyph)"
    table.shot("names-table")
    table.close()


def test_a_character_in_no_slice_is_drawn_by_a_system_font(
    site: Server, browser: Browser, shots: Path
) -> None:
    """A character outside every slice loads no slice and is drawn as the stack without the
    interface font draws it (here, with no CJK font, its box; elsewhere a system font's
    glyph), never as nothing."""
    table = Table(browser, shots, PHONE)
    page = table.page
    page.goto(site.url + "/")
    page.wait_for_selector("#lobby:not([hidden])")
    page.fill("#nickname", f"小{OUTSIDE}")
    fonts_ready(page)
    assert page.evaluate(COVERING, OUTSIDE) == [[]]
    ours, fallback = (
        drawn(page, "#nickname", OUTSIDE),
        drawn(page, "#nickname", OUTSIDE, without=True),
    )
    assert ours == fallback and ours[0][1] > 0, (ours, fallback)
    table.shot("outside-every-slice")
    table.close()


# ---------------------------------------------------------------------------- transfer


def transferred(responses: list[Response]) -> dict[str, int]:
    """Bytes over the wire (headers and encoded body) of each response of the page's own files
    (the API's answers left out); nothing for a file the cache gave."""
    sizes: dict[str, int] = {}
    for response in responses:
        path = re.sub(r"^https?://[^/]+", "", response.url).split("#")[0]
        if path.startswith("/api/"):
            continue
        size = response.request.sizes()
        sizes[path] = sizes.get(path, 0) + max(
            0, size["responseHeadersSize"] + size["responseBodySize"]
        )
    return sizes


def test_first_and_repeat_visit_weights(site: Server, browser: Browser, shots: Path) -> None:
    """A new player opens the lobby, types a name, opens a table for friends and starts it
    with bots: under
    300 KB over the wire (HTML, scripts, styles, fonts, with the slices the name needs); the
    same table reloaded: under 30 KB (the fonts from the cache, the rest a 304 each)."""
    table = Table(browser, shots, DESKTOP)
    page = table.page
    seen: list[Response] = []
    page.on("response", lambda response: seen.append(response))
    page.goto(site.url + "/")
    page.wait_for_selector("#lobby:not([hidden])")
    page.fill("#nickname", "小王阿明")
    page.fill("#timer", "0")
    page.click("#with-friends")
    page.click("#start-now")  # the friend's seat to a bot
    page.wait_for_selector("#hand .card")
    wait_js(page, "document.getElementById('me').textContent.includes('小王阿明')")
    fonts_ready(page)
    first = transferred(seen)
    seen.clear()
    page.reload()
    page.wait_for_selector("#hand .card")
    wait_js(page, "document.getElementById('me').textContent.includes('小王阿明')")
    fonts_ready(page)
    again = transferred(seen)
    print(f"first visit {sum(first.values()):,} bytes: {first}")
    print(f"repeat visit {sum(again.values()):,} bytes: {again}")
    assert sum(first.values()) < 300 * 1024
    assert sum(again.values()) < 30 * 1024
    assert any("/fonts/zi-ui-" in p for p in first) and any("/fonts/zi-card" in p for p in first)
    table.close()


def lowered(headers: Any) -> dict[str, str]:
    return {name.lower(): value for name, value in headers}


def get(site: Server, path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(site.url + path, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=clock.PATIENCE) as response:
            return response.status, lowered(response.headers.items()), response.read()
    except urllib.error.HTTPError as answer:  # a 304 is not an error, but urllib raises it
        return answer.code, lowered(answer.headers.items()), answer.read()


def test_static_files_are_compressed_and_cached(site: Server) -> None:
    """The page, its modules and styles gzipped when the browser takes gzip, with an ETag and
    ``no-cache`` (kept, asked about at each use: a 304 without a body); a font, whose name holds
    its content's hash, kept a year and never compressed again; the security headers on all."""
    for path in ("/", "/room/abc", "/static/app.js", "/static/style.css", "/static/i18n.js"):
        status, plain, body = get(site, path)
        assert status == 200 and "content-encoding" not in plain and len(body) > 1000
        status, headers, squeezed = get(site, path, **{"Accept-Encoding": "gzip, deflate, br"})
        assert status == 200 and headers["content-encoding"] == "gzip", (path, headers)
        assert gzip.decompress(squeezed) == body and len(squeezed) < len(body) / 2
        assert headers["vary"] == "Accept-Encoding" and headers["cache-control"] == "no-cache"
        assert headers["etag"] != plain["etag"]  # two representations, two validators
        status, again, nothing = get(
            site, path, **{"Accept-Encoding": "gzip", "If-None-Match": headers["etag"]}
        )
        assert status == 304 and nothing == b"" and again["etag"] == headers["etag"]
        assert "content-security-policy" in again
        # A changed file (another ETag) is sent whole; gzip refused is not sent gzipped.
        assert get(site, path, **{"If-None-Match": '"0000"'})[0] == 200
        refused = get(site, path, **{"Accept-Encoding": "gzip;q=0, identity"})
        assert "content-encoding" not in refused[1] and refused[2] == body
    html = (STATIC / "index.html").read_text("utf-8")
    font = re.findall(r'<link rel="preload" href="([^"]+)"', html)[0]
    status, headers, body = get(site, font, **{"Accept-Encoding": "gzip"})
    assert status == 200 and "content-encoding" not in headers
    assert headers["content-type"] == "font/woff2"
    assert headers["cache-control"] == "public, max-age=31536000, immutable"
    assert hashlib.sha256(body).hexdigest().startswith(font.rsplit(".", 2)[1])
    assert get(site, font, **{"If-None-Match": headers["etag"]})[0] == 304
    assert headers["x-content-type-options"] == "nosniff"
    assert get(site, "/static/fonts/zi-ui-00.woff2")[0] == 404
    assert get(site, "/static/..%2Findex.html")[0] == 404


# ---------------------------------------------------------------------------- the files


def ranges(text: str) -> set[int]:
    points: set[int] = set()
    for part in text.split(","):
        first, _, last = part.strip()[2:].partition("-")
        points |= set(range(int(first, 16), int(last or first, 16) + 1))
    return points


def test_the_slices_are_what_their_rules_say() -> None:
    """fonts.css names every font file once, each by its content's hash; each slice's
    ``unicode-range`` is characters it holds, no character is in two slices, the page's
    own text is in slice 00 (which the page preloads, with the card font), and GB2312 whole
    is in the slices (the common characters, D113)."""
    fonttools = pytest.importorskip("fontTools.ttLib")
    css = (STATIC / "fonts.css").read_text("utf-8")
    faces = re.findall(r'url\("/static/fonts/([^"]+)"\)[^}]*?(?:unicode-range: ([^;]+);)? \}', css)
    files = sorted(p.name for p in (STATIC / "fonts").iterdir())
    assert sorted(name for name, _ in faces) == files
    seen: set[int] = set()
    for name, points in faces:
        data = (STATIC / "fonts" / name).read_bytes()
        assert hashlib.sha256(data).hexdigest().startswith(name.rsplit(".", 2)[1]), name
        if name.startswith("zi-card"):
            assert points == ""
            continue
        # (a file may map a few more code points to a glyph it holds: another form of it)
        held = ranges(points)
        assert held <= set(fonttools.TTFont(str(STATIC / "fonts" / name)).getBestCmap()), name
        assert not held & seen, name
        seen |= held
    html = (STATIC / "index.html").read_text("utf-8")
    preloads = re.findall(r'<link rel="preload" href="/static/fonts/([^"]+)"', html)
    assert sorted(preloads) == sorted(n for n, _ in faces if n.startswith(("zi-card", "zi-ui-00")))
    text = "".join(
        p.read_text("utf-8") for p in STATIC.rglob("*") if p.suffix in (".js", ".html", ".css")
    )
    first = ranges(next(points for name, points in faces if name.startswith("zi-ui-00")))
    assert {ord(c) for c in text if ord(c) > 126} <= first
    gb2312 = set()
    for row in range(0xA1, 0xF8):
        for cell in range(0xA1, 0xFF):
            with contextlib.suppress(UnicodeDecodeError):
                gb2312.add(ord(bytes((row, cell)).decode("gb2312")))
    assert len(gb2312) == 7445 and gb2312 <= seen, [chr(p) for p in gb2312 - seen]
    assert ord(OUTSIDE) not in seen
