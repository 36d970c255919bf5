"""Paired comparison of two bots that played the same duplicate deals in two tournaments.

Run ``paohuzi tournament --bots A,greedy,greedy --seed S --deals N --save DIR_A`` and the
same with B into DIR_B (same seed and deals, so the same cards), then:
``python benchmarks/paired.py DIR_A A,greedy,greedy DIR_B B,greedy,greedy``. The files of
``tournament --out FILE.jsonl`` serve as well as the directories (a deal a line, with every
hand's seating and payments).
It prints each bot's mean score per hand with its 95% CI (as the tournament does) and the
mean of the per-deal differences A − B with its 95% CI: the deals are shared, so the luck of
the cards cancels in the difference as well.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from paohuzi.tools.tournament import mean_ci, seatings


def per_deal(directory: Path, names: list[str], bot: str) -> dict[int, float]:
    """The bot's mean payment per hand of each deal saved in ``directory`` (or written to a
    tournament's ``--out`` file)."""
    paid: dict[int, list[int]] = {}
    if directory.is_file():
        for line in directory.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:  # a last line cut off by a killed run
                continue
            for hand in record.get("hands", ()):  # the first line describes the run
                seats = zip(hand["seating"], hand["payments"], strict=True)
                for seat, (name, payment) in enumerate(seats):
                    if name == bot and seat != hand.get("sitting_out"):
                        paid.setdefault(record["deal"], []).append(payment)
        return {deal: sum(p) / len(p) for deal, p in paid.items()}
    order = seatings(names)
    for path in sorted(directory.glob("deal-*.phz.json")):
        _, deal, n = path.name.split(".")[0].split("-")
        payments = json.loads(path.read_text(encoding="utf-8"))["result"]["payments"]
        for seat, name in enumerate(order[int(n)]):
            if name == bot:
                paid.setdefault(int(deal), []).append(payments[seat])
    return {deal: sum(p) / len(p) for deal, p in paid.items()}


def interval(values: list[float]) -> str:
    mean, (low, high) = mean_ci(values)
    return f"{mean:+.3f} [{low:+.3f}, {high:+.3f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir_a", type=Path)
    parser.add_argument("bots_a", help="the --bots of the first tournament; its first is A")
    parser.add_argument("dir_b", type=Path)
    parser.add_argument("bots_b", help="the --bots of the second tournament; its first is B")
    args = parser.parse_args()
    names_a, names_b = args.bots_a.split(","), args.bots_b.split(",")
    a = per_deal(args.dir_a, names_a, names_a[0])
    b = per_deal(args.dir_b, names_b, names_b[0])
    deals = sorted(a.keys() & b.keys())
    if not deals:
        raise SystemExit("no deal is in both runs")
    print(f"{len(deals)} deals in both")
    print(f"{names_a[0]:>16}: {interval([a[d] for d in deals])} points/hand")
    print(f"{names_b[0]:>16}: {interval([b[d] for d in deals])} points/hand")
    print(f"{'difference':>16}: {interval([a[d] - b[d] for d in deals])} points/hand (paired)")


if __name__ == "__main__":
    main()
