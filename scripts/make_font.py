"""Rebuild the web table's fonts: subsets of Noto CJK (SIL Open Font License 1.1) as WOFF2,
the interface's in ``unicode-range`` slices, with their ``@font-face`` rules and the licence.

    python scripts/make_font.py [--source DIR]

* ``fonts/zi-card.HASH.woff2``: Noto Serif CJK SC Bold, for card faces and the big claim
  buttons — the Chinese characters of ``FACE_GLYPHS`` in ``static/cards.js``, one small file;
* ``fonts/zi-ui-NN.HASH.woff2``: Noto Sans CJK SC Regular, for everything else, in slices
  (D113). Slice 00 holds the page's own text: every non-ASCII character of the static files
  (the message catalogue ``static/i18n.js`` included), printable ASCII and ``EXTRA``. The
  others hold, :data:`SLICE` characters each, GB2312 (its 6,763 hanzi and 682 symbols),
  Latin-1 and the most frequent characters of Chinese text (``scripts/font_order.txt``), the
  most frequent first;
* ``fonts.css``: an ``@font-face`` rule for each file, each slice with its ``unicode-range``
  (exactly its characters): a page loads only the slices of the characters it shows, and a
  character outside every slice goes to the next font of the stack (a system font);
* the ``<link rel="preload">`` of ``index.html`` for the card font and slice 00;
* ``OFL.txt``: the fonts' copyright lines and the licence text.

HASH is the file's content (SHA-256, 10 hex digits): a font's URL names one content, so the
server lets browsers keep it for a year without asking again (D114).

The source fonts come from Debian's ``fonts-noto-cjk``: from ``--source`` (a folder holding
``NotoSansCJK-Regular.ttc`` and ``NotoSerifCJK-Bold.ttc``), else from the installed package,
else the package is fetched with ``apt-get download`` and unpacked in a temporary folder (the
machine gets no system CJK font). Needs ``pip install fonttools brotli`` (the ``font`` extra).
Run it after adding a string with new characters to the page.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection, TTFont

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "src" / "paohuzi" / "server" / "static"
FONTS = STATIC / "fonts"
ORDER = Path(__file__).resolve().parent / "font_order.txt"
INSTALLED = Path("/usr/share/fonts/opentype/noto")
DOC = Path("usr/share/doc/fonts-noto-cjk/copyright")
CARD = ("NotoSerifCJK-Bold.ttc", "Noto Serif CJK SC", "Paohuzi Zi Card")
UI = ("NotoSansCJK-Regular.ttc", "Noto Sans CJK SC", "Paohuzi Zi UI")
EXTRA = "·—–…“”‘’「」（）：；，。、！？《》×÷√←→↑↓◀▶⚠%"
"""Punctuation the UI may show besides what the files hold literally."""
SLICE = 100
"""Characters in a slice after the first: about 19 KB of WOFF2 each. A name's characters
mostly fall in different slices, so a smaller slice is fewer bytes a name (D113)."""
GENERATED = "fonts.css"


def page_text() -> str:
    """Every character of the static files (HTML, scripts, styles, the catalogue), in every
    folder, but the rules this script writes."""
    return "".join(
        p.read_text(encoding="utf-8")
        for p in sorted(STATIC.rglob("*"))
        if p.suffix in (".html", ".js", ".css") and p.name != GENERATED
    )


def face_glyphs() -> str:
    source = (STATIC / "cards.js").read_text(encoding="utf-8")
    found = re.search(r'FACE_GLYPHS = "([^"]+)"', source)
    if found is None:
        raise SystemExit("make_font: no FACE_GLYPHS in static/cards.js")
    return found.group(1) + "跑胡子"


def gb2312() -> dict[int, int]:
    """Every character of GB2312 with its group: 0 its level 1 hanzi (the 3,755 common ones),
    1 its level 2 hanzi, 2 its symbols, Greek, Cyrillic, kana and full-width forms."""
    found = {}
    for row in range(0xA1, 0xF8):
        for cell in range(0xA1, 0xFF):
            try:
                char = bytes((row, cell)).decode("gb2312")
            except UnicodeDecodeError:
                continue
            found[ord(char)] = 0 if 0xB0 <= row <= 0xD7 else 1 if row >= 0xD8 else 2
    return found


def frequency() -> dict[int, int]:
    """Each character of ``font_order.txt`` with its tier (0 the most frequent)."""
    lines = [s for s in ORDER.read_text(encoding="utf-8").splitlines() if not s.startswith("#")]
    tiers: dict[int, int] = {}
    for tier, line in enumerate(lines):
        for char in line:
            tiers.setdefault(ord(char), tier)
    return tiers


def slices(own: set[int], cmap: set[int]) -> list[tuple[int, list[int]]]:
    """The UI font's slices, numbered: 0 the page's own characters, then the common ones, the
    most frequent first (frequency tier, then GB2312's level 1 before its level 2 and its
    symbols), ``SLICE`` a slice less those of slice 0; only characters the font has. The common
    slices are cut before the page's characters are taken out, so a string that brings a new
    character to the page changes two files, not every slice after it."""
    tiers, standard = frequency(), gb2312()
    latin = set(range(0xA1, 0x100)) - {0xAD}
    last = len(set(tiers.values()))

    def rank(point: int) -> tuple[int, int]:
        return (tiers.get(point, last + standard.get(point, 2)), point)

    common = sorted((set(tiers) | set(standard) | latin) & cmap, key=rank)
    first = own & cmap
    chunks = [set(common[i : i + SLICE]) - first for i in range(0, len(common), SLICE)]
    return [(0, sorted(first))] + [(n + 1, sorted(c)) for n, c in enumerate(chunks) if c]


def source_folder(given: Path | None, work: Path) -> tuple[Path, Path | None]:
    """The folder of the .ttc files, and the package's copyright file if there is one."""
    if given is not None:
        return given, None
    if all((INSTALLED / f).exists() for f in (CARD[0], UI[0])):
        return INSTALLED, Path("/") / DOC
    print(
        "make_font: fetching fonts-noto-cjk with apt-get download (not installed)", file=sys.stderr
    )
    subprocess.run(["apt-get", "download", "fonts-noto-cjk"], cwd=work, check=True)
    deb = next(work.glob("fonts-noto-cjk_*.deb"))
    subprocess.run(["dpkg-deb", "-x", str(deb), str(work / "root")], check=True)
    return work / "root" / INSTALLED.relative_to("/"), work / "root" / DOC


def pick(collection: Path, family: str) -> TTFont:
    for font in TTCollection(str(collection)).fonts:
        if font["name"].getDebugName(1) == family:
            return font
    raise SystemExit(f"make_font: {family!r} is not in {collection}")


def cut(font: TTFont, points: Iterable[int]) -> TTFont:
    """``font`` cut down to ``points`` (in place)."""
    options = subset.Options()
    options.layout_features = ["kern", "palt"]
    options.hinting = False
    options.desubroutinize = True
    options.notdef_outline = True  # were .notdef drawn, a box (empty, it was the blank of issue 24)
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=points)
    subsetter.subset(font)
    return font


def rename(font: TTFont, family: str) -> None:
    # OFL: a modified version may not carry the original's name as its primary name.
    names = font["name"]
    for record in list(names.names):
        if record.nameID in (1, 3, 4, 16, 17, 21, 22):
            names.removeNames(nameID=record.nameID)
    names.setName(family, 1, 3, 1, 0x409)
    names.setName(family, 4, 3, 1, 0x409)
    names.setName(family.replace(" ", "") + "-subset", 3, 3, 1, 0x409)
    names.setName(family.replace(" ", ""), 6, 3, 1, 0x409)


def saved(font: TTFont, flavor: str | None = "woff2") -> bytes:
    """``font``'s file, WOFF2 unless ``flavor`` is None."""
    font.flavor = flavor
    font.recalcTimestamp = False  # the same input makes the same file
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


def hashed(stem: str, data: bytes) -> str:
    """A file's name that names its content."""
    return f"{stem}.{hashlib.sha256(data).hexdigest()[:10]}.woff2"


def ranges(points: list[int]) -> str:
    """``unicode-range`` of sorted ``points``: runs of consecutive code points as ranges."""
    runs: list[list[int]] = []
    for point in points:
        if runs and point == runs[-1][1] + 1:
            runs[-1][1] = point
        else:
            runs.append([point, point])
    return ", ".join(f"U+{a:X}" if a == b else f"U+{a:X}-{b:X}" for a, b in runs)


def face(family: str, name: str, weight: str, display: str, points: list[int] | None) -> str:
    where = f" unicode-range: {ranges(points)};" if points is not None else ""
    return (
        f'@font-face {{ font-family: "{family}"; src: url("/static/fonts/{name}") format("woff2");'
        f" font-weight: {weight}; font-display: {display};{where} }}\n"
    )


def preload(html: str, kind: str, name: str) -> str:
    pattern = rf'(<link rel="preload" href=")/static/[^"]*{kind}[^"]*(")'
    changed, count = re.subn(pattern, rf"\g<1>/static/fonts/{name}\g<2>", html)
    if count != 1:
        raise SystemExit(f"make_font: index.html has {count} preload links of {kind}, not one")
    return changed


def licence(copyright_file: Path | None, notices: list[str]) -> str:
    text = ""
    if copyright_file is not None and copyright_file.exists():
        raw = copyright_file.read_bytes()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        body = raw.decode("utf-8").split("License: SIL-1.1\n", 2)[-1].split("\nLicense: ")[0]
        text = "\n".join("" if line.strip() == "." else line[1:] for line in body.splitlines())
    elif (STATIC / "OFL.txt").exists():  # --source without the package: keep the licence text
        kept = (STATIC / "OFL.txt").read_text(encoding="utf-8")
        text = kept[kept.find("-----") :]
    if "SIL OPEN FONT LICENSE Version 1.1" not in text:
        raise SystemExit("make_font: could not find the SIL Open Font License text")
    head = "\n".join(notices)
    return (
        f"{head}\n\nSubsets made by scripts/make_font.py for the paohuzi web table; renamed\n"
        "(Paohuzi Zi Card, Paohuzi Zi UI) as the licence asks of modified versions.\n"
        "Source: https://github.com/googlefonts/noto-cjk (Debian package fonts-noto-cjk).\n\n"
        f"{text.strip()}\n"
    )


def card_font(font: TTFont) -> tuple[str, bytes]:
    """The card font: the card faces' characters and ASCII, one file."""
    points = {ord(c) for c in face_glyphs()} | {*range(32, 127)}
    cut(font, points)
    rename(font, CARD[2])
    data = saved(font)
    return hashed("zi-card", data), data


def ui_font(font: TTFont, own: set[int]) -> list[tuple[str, bytes, list[int]]]:
    """The interface's font in slices: each file's name, content and characters."""
    parts = slices(own, set(font.getBestCmap()))
    cut(font, [p for _, part in parts for p in part])
    rename(font, UI[2])
    whole = saved(font, None)  # each slice is cut from this (far quicker than from the source)
    made = []
    for number, part in parts:
        data = saved(cut(TTFont(io.BytesIO(whole)), part))
        made.append((hashed(f"zi-ui-{number:02d}", data), data, part))
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, help="folder with the Noto CJK .ttc files")
    args = parser.parse_args()
    own = {ord(c) for c in page_text() + EXTRA if ord(c) > 126} | {*range(32, 127)}
    with tempfile.TemporaryDirectory() as tmp:
        folder, copyright_file = source_folder(args.source, Path(tmp))
        card, ui = pick(folder / CARD[0], CARD[1]), pick(folder / UI[0], UI[1])
        notices = [
            f"{renamed}: a subset of {family} {font['name'].getDebugName(0) or ''}"
            for font, (_, family, renamed) in ((card, CARD), (ui, UI))
        ]
        card_name, card_data = card_font(card)
        made = ui_font(ui, own)
        text = licence(copyright_file, notices)
    FONTS.mkdir(exist_ok=True)
    written = {card_name, *(name for name, _, _ in made)}
    for stale in FONTS.glob("zi-*.woff2"):
        if stale.name not in written:
            stale.unlink()
    (FONTS / card_name).write_bytes(card_data)
    for name, data, _ in made:
        (FONTS / name).write_bytes(data)
    (STATIC / "OFL.txt").write_text(text, encoding="utf-8")
    (STATIC / GENERATED).write_text(
        "/* Made by scripts/make_font.py (D113): do not edit. */\n"
        + face("ZiCard", card_name, "400 900", "block", None)
        + "".join(face("ZiUI", name, "100 900", "swap", part) for name, _, part in made),
        encoding="utf-8",
    )
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    html = preload(preload(html, "zi-card", card_name), "zi-ui", made[0][0])
    (STATIC / "index.html").write_text(html, encoding="utf-8")
    sizes = [len(data) for _, data, _ in made]
    print(f"{card_name}: {len(card_data):,} bytes")
    print(
        f"zi-ui: {sum(len(p) for _, _, p in made):,} characters in {len(made)} slices, "
        f"{sum(sizes):,} bytes; slice 00 (the page's own text) {len(made[0][2])} characters, "
        f"{sizes[0]:,} bytes; the others {min(sizes[1:]):,}–{max(sizes[1:]):,} bytes"
    )


if __name__ == "__main__":
    main()
