"""Rebuild the web table's fonts: subsets of Noto CJK (SIL Open Font License 1.1) holding
exactly the glyphs the page uses, as WOFF2, with the licence beside them.

    python scripts/make_font.py [--source DIR]

* ``zi-card.woff2``: Noto Serif CJK SC Bold, for card faces and the big claim buttons — the
  Chinese characters of ``FACE_GLYPHS`` in ``static/cards.js``;
* ``zi-ui.woff2``: Noto Sans CJK SC Regular, for everything else — every non-ASCII character
  of the static files (the message catalogue ``static/i18n.js`` included) and printable ASCII;
* ``OFL.txt``: the fonts' copyright lines and the licence text.

The source fonts come from Debian's ``fonts-noto-cjk``: from ``--source`` (a folder holding
``NotoSansCJK-Regular.ttc`` and ``NotoSerifCJK-Bold.ttc``), else from the installed package,
else the package is fetched with ``apt-get download`` and unpacked in a temporary folder (the
machine gets no system CJK font). Needs ``pip install fonttools brotli`` (the ``font`` extra).
Run it after adding a string with new characters to the page.
"""

from __future__ import annotations

import argparse
import gzip
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection, TTFont

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "src" / "paohuzi" / "server" / "static"
INSTALLED = Path("/usr/share/fonts/opentype/noto")
DOC = Path("usr/share/doc/fonts-noto-cjk/copyright")
FACES = {
    "zi-card.woff2": ("NotoSerifCJK-Bold.ttc", "Noto Serif CJK SC", "Paohuzi Zi Card"),
    "zi-ui.woff2": ("NotoSansCJK-Regular.ttc", "Noto Sans CJK SC", "Paohuzi Zi UI"),
}
EXTRA = "·—–…“”‘’「」（）：；，。、！？《》×÷√←→↑↓◀▶⚠%"
"""Punctuation the UI may show besides what the files hold literally."""


def page_text() -> str:
    """Every character of the static files (HTML, scripts, styles, the catalogue)."""
    return "".join(
        p.read_text(encoding="utf-8")
        for p in sorted(STATIC.iterdir())
        if p.suffix in (".html", ".js", ".css")
    )


def face_glyphs() -> str:
    source = (STATIC / "cards.js").read_text(encoding="utf-8")
    found = re.search(r'FACE_GLYPHS = "([^"]+)"', source)
    if found is None:
        raise SystemExit("make_font: no FACE_GLYPHS in static/cards.js")
    return found.group(1) + "跑胡子"


def source_folder(given: Path | None, work: Path) -> tuple[Path, Path | None]:
    """The folder of the .ttc files, and the package's copyright file if there is one."""
    if given is not None:
        return given, None
    if all((INSTALLED / FACES[f][0]).exists() for f in FACES):
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


def build(font: TTFont, text: str, family: str, out: Path) -> None:
    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = ["kern", "palt"]
    options.hinting = False
    options.desubroutinize = True
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=text)
    subsetter.subset(font)
    # OFL: a modified version may not carry the original's name as its primary name.
    names = font["name"]
    for record in list(names.names):
        if record.nameID in (1, 3, 4, 16, 17, 21, 22):
            names.removeNames(nameID=record.nameID)
    names.setName(family, 1, 3, 1, 0x409)
    names.setName(family, 4, 3, 1, 0x409)
    names.setName(family.replace(" ", "") + "-subset", 3, 3, 1, 0x409)
    names.setName(family.replace(" ", ""), 6, 3, 1, 0x409)
    font.flavor = "woff2"
    font.recalcTimestamp = False  # the same input makes the same file
    font.save(str(out))


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, help="folder with the Noto CJK .ttc files")
    args = parser.parse_args()
    ascii_text = "".join(chr(c) for c in range(32, 127))
    wanted = {
        "zi-card.woff2": face_glyphs() + ascii_text,
        "zi-ui.woff2": "".join(sorted({c for c in page_text() if ord(c) > 126}))
        + ascii_text
        + EXTRA,
    }
    with tempfile.TemporaryDirectory() as tmp:
        folder, copyright_file = source_folder(args.source, Path(tmp))
        notices = []
        for name, (collection, family, renamed) in FACES.items():
            font = pick(folder / collection, family)
            notice = font["name"].getDebugName(0) or ""
            notices.append(f"{renamed}: a subset of {family} {notice}")
            build(font, wanted[name], renamed, STATIC / name)
            size = (STATIC / name).stat().st_size
            print(f"{name}: {len(set(wanted[name]))} characters, {size:,} bytes")
        (STATIC / "OFL.txt").write_text(licence(copyright_file, notices), encoding="utf-8")


if __name__ == "__main__":
    main()
