"""A run's deals as JSON lines: written as each deal finishes, read back to resume (D124).

The first line says what was run (``{"run": ...}``: the command, bots, seed, rules, players);
each further line is one finished deal (``{"deal": n, "hands": [...]}``), flushed when written.
A resumed run must be the same run; a last line cut off by a kill is dropped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Any

from paohuzi.engine.record import loads
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


def deal_of_json(data: Any, bots: Any = None, players: Any = None) -> list[HandOutcome]:
    """A logged deal; ValueError naming what is wrong with it. ``bots`` (the run's) and
    ``players`` (seats a table), when given, are what its seatings must hold."""
    if not isinstance(data, dict) or set(data) != {"deal", "hands"}:
        raise ValueError("not a deal")
    n, hands = data["deal"], data["hands"]
    if type(n) is not int or n < 0:
        raise ValueError(f"deal {n!r} is not a deal number")
    if not isinstance(hands, list) or not hands:
        raise ValueError(f"deal {n} has no hands")
    found = []
    for h in hands:
        if not isinstance(h, dict):
            raise ValueError(f"deal {n}: a hand is not an object")
        seating, payments = h.get("seating"), h.get("payments")
        winner, out, errors = h.get("winner"), h.get("sitting_out"), h.get("errors")
        if not (
            isinstance(seating, list)
            and all(isinstance(b, str) for b in seating)
            and (players is None or len(seating) == players)
            and (bots is None or all(b in bots for b in seating))
        ):
            raise ValueError(f"deal {n}: a seating that is not the run's bots")
        seats = range(len(seating))
        if not (
            isinstance(payments, list)
            and len(payments) == len(seating)
            and all(type(p) is int for p in payments)
            and sum(payments) == 0
            and (winner is None or (type(winner) is int and winner in seats))
            and (out is None or (type(out) is int and out in seats))
        ):
            raise ValueError(f"deal {n}: payments, winner or sitting out that no hand ends with")
        if not isinstance(errors, list) or not all(
            isinstance(e, list)
            and len(e) == 3
            and isinstance(e[0], str)
            and type(e[1]) is int
            and isinstance(e[2], str)
            for e in errors
        ):
            raise ValueError(f"deal {n}: bot errors that are not [bot, seat, error]")
        found.append(
            HandOutcome(
                n,
                tuple(seating),
                tuple(payments),
                winner,
                None,
                out,
                tuple(BotError(bot, n, seat, error) for bot, seat, error in errors),
            )
        )
    return found


class RunLog:
    """The JSONL file of one run: ``open`` it fresh (``resume=False``: it must not hold deals
    already) or to resume; :attr:`done` are the deals it holds; :meth:`write` adds one.

    A run writes its deals in order, 0, 1, 2 …: a log whose deal lines are not exactly that
    (a line edited, repeated, renumbered, or not a deal) is refused, naming the line, rather
    than counted twice or cut there (which would drop every deal after it); only its last
    line may be cut short — by a kill, mid-write — and is then played again."""

    def __init__(self, path: Path, header: dict[str, Any], resume: bool):
        self.done: list[list[HandOutcome]] = []
        if path.exists() and not path.is_file():
            raise ValueError(f"{path} is not a file")
        raw = path.read_bytes() if path.exists() else b""
        # Only whole lines: the last one, cut off by a kill, has no newline.
        lines = raw.split(b"\n")[:-1]
        if lines and not resume:
            raise ValueError(f"{path} already holds a run: --resume {path} to go on with it")
        good = 0
        if lines:
            try:
                found = loads(lines[0].decode("utf-8")).get("run")
            except (UnicodeDecodeError, ValueError, AttributeError):
                raise ValueError(f"{path} is not a run's deals") from None
            if found != header:
                raise ValueError(f"{path} holds another run: {json.dumps(found)}")
            good = len(lines[0]) + 1
            for number, line in enumerate(lines[1:], 2):
                try:
                    deal = deal_of_json(
                        loads(line.decode("utf-8")), header.get("bots"), header.get("players")
                    )
                    if deal[0].deal != len(self.done):
                        raise ValueError(f"deal {deal[0].deal} where deal {len(self.done)} goes")
                except (UnicodeDecodeError, ValueError) as error:
                    if number == len(lines):  # the last line: cut off by a kill
                        break
                    raise ValueError(
                        f"{path}, line {number}: not this run's next deal ({error}); "
                        "remove it and the lines after it to play them again"
                    ) from None
                self.done.append(deal)
                good += len(line) + 1
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
