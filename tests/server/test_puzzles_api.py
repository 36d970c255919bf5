"""The puzzles' routes (issue 27 point 2, D151): read-only, ids and moves checked strictly,
every request on a budget per address; a puzzle's view is its seat's observation only (no
deck, no other hand, no solution) and the solution comes only with an answer."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from paohuzi.engine.cards import format_cards
from paohuzi.puzzles import THEMES, by_id, by_theme, daily, shipped, themes
from tests.server.harness import app_client
from tests.server.test_lessons_api import _ranges

SOLUTION_KEYS = (
    "best",
    "accept",
    "second",
    "margin",
    "margin_se",
    "samples",
    "estimates",
    "greedy",
    "explanation",
)


def test_themes_lists_and_the_daily_puzzle_are_served(tmp_path: Path) -> None:
    with app_client(tmp_path / "c.db") as client:
        found = client.get("/api/puzzles/themes").json()["themes"]
        assert [x["theme"] for x in found] == list(THEMES)
        assert sum(x["count"] for x in found) == len(shipped())
        for theme in THEMES:
            listing = client.get("/api/puzzles", params={"theme": theme}).json()
            assert listing["puzzles"] == [p.id for p in by_theme(theme)]
        today = client.get("/api/puzzles/daily")
        assert today.status_code == 200 and today.headers["cache-control"] == "no-store"
        assert today.json()["id"] == daily(datetime.datetime.now(datetime.UTC).date()).id
        assert client.get("/puzzles").status_code == 200
        assert client.get("/puzzles/27-0-3").status_code == 200


def _hidden_text(puzzle_id: str) -> list[str]:
    """What the seat may not see of a puzzle: each other seat's hand, as the view writes a hand."""
    puzzle = by_id(puzzle_id)
    assert puzzle is not None
    game = puzzle.game()
    hidden = []
    for seat in range(game.rules.players):
        if seat != puzzle.seat and any(game.hands[seat]):
            hidden.append(
                format_cards(
                    k for k in range(len(game.hands[seat])) for _ in range(game.hands[seat][k])
                )
            )
    return hidden


@pytest.mark.parametrize("puzzle", [p.id for p in shipped()[::45]])
def test_a_view_is_the_seats_own_and_holds_no_solution(tmp_path: Path, puzzle: str) -> None:
    found = by_id(puzzle)
    assert found is not None
    with app_client(tmp_path / "c.db") as client:
        response = client.get(f"/api/puzzles/{puzzle}")
    assert response.status_code == 200
    data = response.json()
    text = response.text
    assert set(data) == {"id", "theme", "seat", "rules", "players", "view"}
    assert data["view"]["seat"] == found.seat
    assert data["view"]["legal"] and found.best in data["view"]["legal"]
    assert data["view"]["hand"] == found.view_json()["view"]["hand"]
    for key in ("deck", "hands", "record", "actions", *SOLUTION_KEYS):
        assert f'"{key}"' not in text, key
    public = found.view_json()["view"]  # the seat's observation, as bots are sent it
    assert {k: data["view"][k] for k in public} == public
    assert found.to_json()["record"]["deck"] not in text
    for hand in _hidden_text(puzzle):
        assert f'"{hand}"' not in text  # another seat's hand is nowhere as a whole


def test_an_answer_gets_the_verdict_and_the_solution(tmp_path: Path) -> None:
    puzzle = shipped()[0]
    with app_client(tmp_path / "c.db") as client:
        legal = client.get(f"/api/puzzles/{puzzle.id}").json()["view"]["legal"]
        wrong = next(m for m in legal if m not in puzzle.solutions)
        verdicts = {
            m: client.post(f"/api/puzzles/{puzzle.id}/answer", json={"move": m}).json()
            for m in (puzzle.best, wrong)
        }
    assert verdicts[puzzle.best]["right"] is True and verdicts[wrong]["right"] is False
    for verdict in verdicts.values():
        assert {k: verdict[k] for k in SOLUTION_KEYS} == puzzle.solution_json()


@pytest.mark.parametrize(
    "bad",
    ["0-0-0", "27-0-3x", "27_0_3", "27-0", "..%2F27-0-3", "1" * 25, "%00", "27-0-3%0A", "-1-0-3"],
)
def test_a_puzzle_id_is_checked_strictly(tmp_path: Path, bad: str) -> None:
    with app_client(tmp_path / "c.db") as client:
        for response in (
            client.get(f"/api/puzzles/{bad}"),
            client.post(f"/api/puzzles/{bad}/answer", json={"move": "pass"}),
        ):
            assert response.status_code in (404, 405, 422), (bad, response.status_code)


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"move": ""},
        {"move": "x" * 33},
        {"move": 3},
        {"move": "pass", "extra": 1},
        {"move": "discard x99"},
        [],
        "pass",
    ],
)
def test_an_answer_is_checked_strictly(tmp_path: Path, body: object) -> None:
    puzzle = shipped()[0]
    with app_client(tmp_path / "c.db") as client:
        response = client.post(f"/api/puzzles/{puzzle.id}/answer", json=body)
    assert response.status_code == 422
    assert "best" not in response.text and "explanation" not in response.text


@pytest.mark.parametrize("theme", ["", "nope", "DISCARD", "x" * 13, "dis card"])
def test_a_theme_is_checked_strictly(tmp_path: Path, theme: str) -> None:
    with app_client(tmp_path / "c.db") as client:
        assert client.get("/api/puzzles", params={"theme": theme}).status_code in (404, 422)
        assert client.get("/api/puzzles").status_code == 422


def test_puzzle_requests_spend_a_budget_per_address(tmp_path: Path) -> None:
    puzzle = shipped()[0]
    with app_client(tmp_path / "c.db", puzzle_reads_per_minute=3) as client:
        codes = [
            client.get("/api/puzzles/themes").status_code,
            client.get(f"/api/puzzles/{puzzle.id}").status_code,
            client.post(f"/api/puzzles/{puzzle.id}/answer", json={"move": puzzle.best}).status_code,
        ]
        refused = [
            client.get("/api/puzzles/daily"),
            client.post(f"/api/puzzles/{puzzle.id}/answer", json={"move": puzzle.best}),
        ]
    assert codes == [200] * 3
    assert all(r.status_code == 429 and "wait" in r.json()["detail"] for r in refused)
    assert "best" not in refused[1].text


def test_every_character_of_the_puzzles_is_in_the_shipped_fonts() -> None:
    """The explanations and theme names come from the server, not the page: each of their
    characters must still be in a slice of the interface font."""
    covered = _ranges()
    text = "".join(p.explanation.zh + p.explanation.en for p in shipped())
    text += "".join(x["zh"] + x["en"] for x in themes())
    missing = sorted({c for c in text if ord(c) > 126 and ord(c) not in covered})
    assert missing == [], "".join(missing)
