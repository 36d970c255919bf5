"""Which SQL statements one test run sent to PostgreSQL that another did not (D160).

Run the two selections of tests with ``PAOHUZI_TEST_PG_LOG`` naming a folder each (every
throwaway cluster of tests/pgcluster.py then logs its statements there), then compare::

    PAOHUZI_NATIVE=0 PAOHUZI_TEST_STORE=postgres PAOHUZI_TEST_PG_LOG=/tmp/rest \\
        .venv/bin/python -m pytest -n auto --dist loadgroup -m "not browser" tests/server
    PAOHUZI_NATIVE=0 PAOHUZI_TEST_STORE=postgres PAOHUZI_TEST_PG_LOG=/tmp/browser \\
        .venv/bin/python -m pytest -n auto --dist loadgroup -m browser tests/server
    python scripts/pg_statements.py /tmp/rest /tmp/browser

It prints every statement of the second run missing from the first, with how often the second
ran it. Statements are compared as they were sent, but for the tests' schema names (the store's
values are parameters, ``$n``, already).
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

START = re.compile(r"LOG:\s+(?:statement|execute [^:]*):\s(.*)")
"""A logged statement's first line (simple or extended protocol)."""


def template(sql: str) -> str:
    """The statement with the tests' schema names blanked (tests/pgcluster.py's db_url): the
    store sends its values as parameters (``$1``), so literals left in a statement are the
    code's own and tell statements apart."""
    sql = re.sub(r"\s+", " ", sql).strip()
    return re.sub(r"\bt[0-9a-f]{20}\b", "SCHEMA", sql)


def statements(folder: Path) -> Counter[str]:
    """Every statement the logs in ``folder`` show, by template."""
    found: Counter[str] = Counter()
    for log in sorted(folder.iterdir()):
        current: str | None = None
        for line in log.read_text(errors="replace").splitlines():
            if match := START.search(line):
                if current is not None:
                    found[template(current)] += 1
                current = match.group(1)
            elif current is not None and line[:1] in ("\t", " "):
                current += " " + line.strip()  # a statement's further lines
            else:
                if current is not None:
                    found[template(current)] += 1
                current = None
        if current is not None:
            found[template(current)] += 1
    return found


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not all(Path(a).is_dir() for a in argv):
        print("usage: python scripts/pg_statements.py FIRST_LOGS SECOND_LOGS", file=sys.stderr)
        return 2
    first, second = (statements(Path(a)) for a in argv)
    for folder, found in zip(argv, (first, second), strict=True):
        if not found:  # no log, or one this script cannot read: nothing would be compared
            print(f"no statement in the logs of {folder}", file=sys.stderr)
            return 1
    missing = sorted(s for s in second if s not in first)
    print(f"{len(first)} statements in {argv[0]}, {len(second)} in {argv[1]}")
    print(f"{len(missing)} of the second's not in the first:")
    for sql in missing:
        print(f"{second[sql]:6}  {sql}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
