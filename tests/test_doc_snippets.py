"""The Python examples of the README and docs/*.md run as written (a reader copies them):
each file's ```python blocks in order, in one namespace, as a reader goes down the page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
PAGES = sorted(
    page.relative_to(ROOT).as_posix()
    for page in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
    if BLOCK.search(page.read_text(encoding="utf-8"))
)


def test_the_pages_with_examples_are_found() -> None:
    assert {"README.md", "docs/env.md"} <= set(PAGES)


@pytest.mark.parametrize("page", PAGES)
def test_the_python_examples_run_as_written(
    page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # whatever an example writes, it writes here
    namespace: dict[str, object] = {"__name__": "__example__"}
    for i, block in enumerate(BLOCK.findall((ROOT / page).read_text(encoding="utf-8"))):
        exec(compile(block, f"{page} example {i + 1}", "exec"), namespace)
    capsys.readouterr()
