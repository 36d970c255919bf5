"""The web table's files as they are served (D114): each read once at start and compressed
once, sent with an ETag (a 304 without the body when the browser's copy is current) and with a
caching policy given by its name: a file whose name holds its content's hash (the fonts) is
kept for a year, any other (the page, its modules, its styles) is asked about at each use."""

from __future__ import annotations

import gzip
import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable

from fastapi import Request
from fastapi.responses import Response

STATIC = resources.files("paohuzi.server") / "static"
TYPES = {
    "html": "text/html",
    "js": "text/javascript",
    "css": "text/css",
    "woff2": "font/woff2",
    "svg": "image/svg+xml",
    "txt": "text/plain",
}
PACKED = frozenset({"woff2"})
"""Formats compressed already (WOFF2 is Brotli inside): gzip would only cost time."""
REVALIDATE = "no-cache"
"""A file whose URL stays when its content changes: the browser keeps it, and asks at each use
whether it is still current (If-None-Match), which a 304 without a body answers."""
FOREVER = "public, max-age=31536000, immutable"
"""A file whose name holds its content's hash: another content would be another URL."""
HASHED = re.compile(r"\.([0-9a-f]{10})\.[0-9a-z]+$")
"""``name.HASH.ext``: the first 10 hex digits of the content's SHA-256 (scripts/make_font.py)."""


@dataclass(frozen=True)
class Asset:
    """One file as served: its bytes, gzipped when that makes them smaller, its type, its
    validator and whether it never changes under its URL."""

    body: bytes
    gzipped: bytes | None
    media_type: str
    digest: str
    immutable: bool

    @classmethod
    def of(cls, name: str, body: bytes) -> Asset:
        kind = name.rsplit(".", 1)[-1]
        digest = hashlib.sha256(body).hexdigest()
        gzipped = None if kind in PACKED else gzip.compress(body, 9, mtime=0)
        named = HASHED.search(name)
        return cls(
            body=body,
            gzipped=gzipped if gzipped is not None and len(gzipped) < len(body) else None,
            media_type=TYPES[kind],
            digest=digest[:20],
            # A name whose hash is not its content's (edited by hand) is asked about as any.
            immutable=named is not None and digest.startswith(named.group(1)),
        )

    def response(self, request: Request) -> Response:
        """The file for ``request``: gzipped if it takes gzip, or a 304 if it has it."""
        zipped = self.gzipped is not None and takes_gzip(request.headers.get("accept-encoding"))
        # Each encoding is its own representation, with its own strong validator (RFC 9110).
        etag = f'"{self.digest}-gz"' if zipped else f'"{self.digest}"'
        headers = {"ETag": etag, "Cache-Control": FOREVER if self.immutable else REVALIDATE}
        if self.gzipped is not None:
            headers["Vary"] = "Accept-Encoding"
        if names(request.headers.get("if-none-match"), etag):
            return Response(status_code=304, headers=headers)
        if zipped:
            headers["Content-Encoding"] = "gzip"
        body = self.gzipped if zipped and self.gzipped is not None else self.body
        return Response(body, media_type=self.media_type, headers=headers)


def takes_gzip(accept_encoding: str | None) -> bool:
    """Whether an ``Accept-Encoding`` takes gzip: named, or ``*``, with a weight above 0."""
    weights: dict[str, float] = {}
    for item in (accept_encoding or "").split(","):
        coding, *parameters = (part.strip().lower() for part in item.split(";"))
        weight = 1.0
        for parameter in parameters:
            key, _, value = parameter.partition("=")
            if key.strip() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        weights[coding] = weight
    return weights.get("gzip", weights.get("*", 0.0)) > 0


def names(if_none_match: str | None, etag: str) -> bool:
    """Whether an ``If-None-Match`` names ``etag`` (the weak comparison it calls for) or is
    ``*``."""
    tags = {tag.strip().removeprefix("W/") for tag in (if_none_match or "").split(",")}
    return "*" in tags or etag in tags


def files(folder: Traversable = STATIC, prefix: str = "") -> Iterator[tuple[str, bytes]]:
    """Every file of ``folder`` and its folders a type is known for, by its path in it."""
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.is_dir():
            yield from files(entry, f"{prefix}{entry.name}/")
        elif entry.name.rsplit(".", 1)[-1] in TYPES:
            yield prefix + entry.name, entry.read_bytes()
