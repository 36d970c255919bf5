"""How the web table's files are served (D114): gzip when asked and when it pays, one ETag
for each encoding, a year's caching only for a name that holds its content's hash."""

from __future__ import annotations

import gzip
import hashlib

import pytest
from starlette.requests import Request

from paohuzi.server.assets import FOREVER, REVALIDATE, Asset, files, names, takes_gzip

TEXT = b"export const x = 1;\n" * 200


def request(**headers: str) -> Request:
    raw = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    return Request({"type": "http", "method": "GET", "path": "/", "headers": raw})


@pytest.mark.parametrize(
    ("header", "takes"),
    [
        ("gzip, deflate, br, zstd", True),
        ("br;q=1.0, gzip;q=0.8, *;q=0.1", True),
        ("*", True),
        ("GZIP", True),
        ("gzip;q=0", False),
        ("gzip;q=0.000, *", False),
        ("*;q=0", False),
        ("identity", False),
        ("br", False),
        ("", False),
        ("gzip;q=nonsense", False),
        (";;,,=", False),
    ],
)
def test_which_accept_encoding_takes_gzip(header: str, takes: bool) -> None:
    assert takes_gzip(header) is takes


def test_if_none_match_names_an_etag_weakly_or_by_star() -> None:
    assert names('"a", "b"', '"b"') and names('W/"b"', '"b"') and names("*", '"b"')
    assert not names('"a"', '"b"') and not names(None, '"b"') and not names("", '"b"')
    assert not names('"b-gz"', '"b"')


def test_a_text_file_is_gzipped_once_and_answered_by_its_etag() -> None:
    asset = Asset.of("app.js", TEXT)
    assert asset.gzipped is not None and gzip.decompress(asset.gzipped) == TEXT
    plain = asset.response(request())
    zipped = asset.response(request(**{"Accept-Encoding": "gzip"}))
    assert plain.body == TEXT and "content-encoding" not in plain.headers
    assert zipped.body == asset.gzipped and zipped.headers["content-encoding"] == "gzip"
    assert plain.headers["etag"] != zipped.headers["etag"]
    for answer in (plain, zipped):
        assert answer.headers["cache-control"] == REVALIDATE == "no-cache"
        assert answer.headers["vary"] == "Accept-Encoding"
        assert answer.headers["content-type"] == "text/javascript; charset=utf-8"
    again = asset.response(
        request(**{"Accept-Encoding": "gzip", "If-None-Match": zipped.headers["etag"]})
    )
    assert again.status_code == 304 and again.body == b""
    assert again.headers["etag"] == zipped.headers["etag"] and "content-length" not in again.headers
    # The plain copy's ETag does not validate the gzipped one.
    other = asset.response(
        request(**{"Accept-Encoding": "gzip", "If-None-Match": plain.headers["etag"]})
    )
    assert other.status_code == 200


def test_only_a_name_that_holds_its_hash_is_kept_a_year() -> None:
    font = b"wOF2" + bytes(range(256)) * 4
    digest = hashlib.sha256(font).hexdigest()[:10]
    kept = Asset.of(f"fonts/zi-ui-03.{digest}.woff2", font)
    assert kept.immutable and kept.gzipped is None  # WOFF2 is compressed already
    answer = kept.response(request(**{"Accept-Encoding": "gzip"}))
    assert answer.headers["cache-control"] == FOREVER
    assert answer.headers["content-type"] == "font/woff2"  # no charset on a binary file
    assert "content-encoding" not in answer.headers and "vary" not in answer.headers
    assert not Asset.of("fonts/zi-ui-03.0123456789.woff2", font).immutable
    assert not Asset.of("zi-card.woff2", font).immutable


def test_a_file_gzip_would_not_shrink_is_sent_as_it_is() -> None:
    tiny = Asset.of("a.txt", b"x")
    assert tiny.gzipped is None
    assert "content-encoding" not in tiny.response(request(**{"Accept-Encoding": "gzip"})).headers


def test_every_file_of_the_static_folders_is_found() -> None:
    found = dict(files())
    assert "index.html" in found and "app.js" in found and "fonts.css" in found
    assert any(path.startswith("fonts/zi-ui-00.") for path in found)
    assert all(not path.startswith("/") and ".." not in path for path in found)


def test_the_page_names_each_element_once() -> None:
    """An id is the one element the modules and the style sheet mean by it: the leaderboard's
    table once took the table's `#board` (the phone's scrolling board) and pushed the hand off
    the screen on every phone."""
    from collections import Counter
    from html.parser import HTMLParser
    from importlib.resources import files as package_files

    ids: Counter[str] = Counter()

    class Ids(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            ids.update(value for name, value in attrs if name == "id" and value)

    page = package_files("paohuzi.server").joinpath("static/index.html").read_text("utf-8")
    Ids().feed(page)
    assert len(ids) > 50  # the page was read
    assert [name for name, n in ids.items() if n > 1] == []
