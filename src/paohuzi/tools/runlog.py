"""A run's deals as JSON lines: written as each deal finishes, read back to resume (D124).

The first line says what was run (``{"run": ...}``: the command, bots, seed, rules, players);
each further line is one finished deal (``{"deal": n, "hands": [...]}``), flushed when written.
A resumed run must be the same run; a last line cut off by a kill is dropped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Any

from paohuzi.tools.tournament import BotError, HandOutcome


def deal_to_json(deal: list[HandOutcome]) -> dict[str, Any]:
    return {
        "deal": deal[0].deal,
        "hands": [
            {
                "seating": list(h.seating),
                "payments": list(h.payments),
                "winner": h.winner,
                "sitting_out": h.sitting_out,
                "errors": [[e.bot, e.seat, e.error] for e in h.errors],
            }
            for h in deal
        ],
    }


def deal_of_json(data: dict[str, Any]) -> list[HandOutcome]:
    n = int(data["deal"])
    return [
        HandOutcome(
            n,
            tuple(h["seating"]),
            tuple(h["payments"]),
            h["winner"],
            None,
            h["sitting_out"],
            tuple(BotError(bot, n, seat, error) for bot, seat, error in h["errors"]),
        )
        for h in data["hands"]
    ]


class RunLog:
    """The JSONL file of one run: ``open`` it fresh (``resume=False``: it must not hold deals
    already) or to resume; :attr:`done` are the deals it holds; :meth:`write` adds one."""

    def __init__(self, path: Path, header: dict[str, Any], resume: bool):
        self.done: list[list[HandOutcome]] = []
        raw = path.read_bytes() if path.exists() else b""
        # Only whole lines: the last one, cut off by a kill, has no newline.
        lines = [line.decode("utf-8", "replace") for line in raw.split(b"\n")[:-1]]
        if lines and not resume:
            raise ValueError(f"{path} already holds a run: --resume {path} to go on with it")
        good = 0
        if lines:
            try:
                found = json.loads(lines[0]).get("run")
            except (json.JSONDecodeError, AttributeError):
                raise ValueError(f"{path} is not a run's deals") from None
            if found != header:
                raise ValueError(f"{path} holds another run: {json.dumps(found)}")
            good = len(lines[0].encode("utf-8")) + 1
            for line in lines[1:]:
                try:
                    self.done.append(deal_of_json(json.loads(line)))
                except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                    break  # cut off by a kill: the deal is played again
                good += len(line.encode("utf-8")) + 1
        self._file: IO[str] = path.open("r+" if lines else "w", encoding="utf-8")
        if lines:
            self._file.truncate(good)
            self._file.seek(good)
        else:
            self._write({"run": header})

    def _write(self, data: dict[str, Any]) -> None:
        self._file.write(json.dumps(data, ensure_ascii=False) + "\n")
        self._file.flush()

    def write(self, deal: list[HandOutcome]) -> None:
        self._write(deal_to_json(deal))

    def close(self) -> None:
        self._file.close()
