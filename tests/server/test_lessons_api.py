"""The course's routes (issue 27 point 1, D145): the list and each lesson as the page walks it,
read-only, ids checked strictly, reads on a budget; a step's verdicts are the lesson's judge's
(:meth:`Walk.answer`), and what a step shows is what the learner's seat may see."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from paohuzi.engine.actions import parse_action
from paohuzi.engine.cards import parse_cards, to_counts
from paohuzi.lessons import Walk, shipped
from paohuzi.server.course import lesson_json
from tests.server.harness import app_client

STATIC = Path(__file__).parents[2] / "src" / "paohuzi" / "server" / "static"


def test_the_list_and_each_lesson_are_served(tmp_path: Path) -> None:
    lessons = shipped()
    with app_client(tmp_path / "c.db") as client:
        listing = client.get("/api/lessons")
        assert listing.status_code == 200
        found = listing.json()["lessons"]
        assert [x["id"] for x in found] == [x.id for x in lessons]
        assert all(x["title"]["zh"] and x["title"]["en"] and x["steps"] for x in found)
        for lesson in lessons:
            response = client.get(f"/api/lessons/{lesson.id}")
            assert response.status_code == 200
            data = response.json()
            assert len(data["steps"]) == len(lesson.steps) == found[lessons.index(lesson)]["steps"]
            assert data["seat"] == lesson.seat
        assert client.get("/learn").status_code == 200
        assert client.get("/learn/chi-bi").status_code == 200


@pytest.mark.parametrize(
    "bad",
    ["no-such-lesson", "CHI-BI", "chi_bi", "chi%20bi", "..%2Fetc", "x" * 61, "%00", "chi-bi%0A"],
)
def test_a_lesson_id_is_checked_strictly(tmp_path: Path, bad: str) -> None:
    with app_client(tmp_path / "c.db") as client:
        response = client.get(f"/api/lessons/{bad}")
        assert response.status_code in (404, 422), (bad, response.status_code)
        assert "\n" not in response.json()["detail"]


def test_reads_of_the_course_spend_a_budget_per_address(tmp_path: Path) -> None:
    with app_client(tmp_path / "c.db", lesson_reads_per_minute=3) as client:
        codes = [client.get("/api/lessons/chi-bi").status_code for _ in range(3)]
        refused = client.get("/api/lessons")
        assert codes == [200] * 3
        assert refused.status_code == 429 and "wait" in refused.json()["detail"]


def test_every_verdict_is_the_lessons_own_judges() -> None:
    """Each legal move of each step, answered on a walk of its own: right exactly where the
    served lesson says so, with the same text; the table after a right move is ``done``."""
    for lesson in shipped():
        served = lesson_json(lesson)
        for i, step in enumerate(served["steps"]):
            assert set(step["answers"]) == set(step["view"]["legal"])
            if not step["move"]:
                assert step["view"]["legal"] == [] and step["done"] is None
                continue
            assert any(v["right"] for v in step["answers"].values())
            for action, verdict in step["answers"].items():
                walk = Walk(lesson, start=i)
                answer = walk.answer(parse_action(action))
                assert answer.right == verdict["right"], (lesson.id, i, action)
                text = None if answer.text is None else {"zh": answer.text.zh, "en": answer.text.en}
                assert text == verdict["text"]
                if answer.right:
                    assert walk.game.hands[lesson.seat] == _counts(step["done"]["hand"])
                    assert step["done"]["legal"] == []


def _counts(hand: str) -> tuple[int, ...]:
    return tuple(to_counts(parse_cards(hand)))


def test_a_step_shows_only_what_the_learner_may_see() -> None:
    """No other seat's hand, and another seat's 偎 face down (R4): the view is the learner's
    observation, as a live seat's state is."""
    lesson = next(x for x in shipped() if x.id == "chi-bi")
    served = lesson_json(lesson)
    last = served["steps"][-1]["view"]
    assert set(last) >= {"hand", "tables", "legal", "events", "table_huxi"}
    assert "hands" not in last and "position" not in last
    other = last["tables"][1]
    assert any(g.endswith(":?") for g in other), other  # seat 1's 偎, as the text says
    assert last["table_huxi"][1][other.index(next(g for g in other if g.endswith(":?")))] is None
    assert all(e["card"] is None for e in last["events"] if e["event"] == "wei" and e["seat"] == 1)


def _ranges() -> set[int]:
    css = (STATIC / "fonts.css").read_text("utf-8")
    found: set[int] = set()
    for spec in re.findall(r"unicode-range: ([^;]+);", css):
        for part in spec.split(", "):
            low, _, high = part.removeprefix("U+").partition("-")
            found.update(range(int(low, 16), int(high or low, 16) + 1))
    return found


def _texts(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "".join(_texts(v) for v in value.values())
    if isinstance(value, list):
        return "".join(_texts(v) for v in value)
    return ""


def test_every_character_of_the_course_is_in_the_shipped_fonts() -> None:
    """The lessons' texts come from the server, not the page: each of their characters must
    still be in a slice of the interface font (the machine may have no CJK font)."""
    covered = _ranges()
    text = "".join(_texts(lesson_json(x)) for x in shipped())
    missing = sorted({c for c in text if ord(c) > 126 and ord(c) not in covered})
    assert missing == [], "".join(missing)


def test_requests_arriving_together_make_the_course_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold course asked for by many at once is made once, not once each (an attacker's
    burst at start-up would otherwise buy a whole course's worth of CPU a request)."""
    import threading
    import time

    from paohuzi.server import course as course_module
    from paohuzi.server.routes import lessons as lessons_routes

    made = []
    started = threading.Event()

    def slow_course() -> tuple[bytes, dict[str, bytes]]:
        made.append(1)
        started.set()
        time.sleep(0.3)  # widens the window the others arrive in; nothing waits on a clock
        return course_module.course()

    monkeypatch.setattr(lessons_routes, "course", slow_course)
    with app_client(tmp_path / "c.db") as client:
        codes: list[int] = []

        def read() -> None:
            codes.append(client.get("/api/lessons").status_code)

        threads = [threading.Thread(target=read) for _ in range(6)]
        threads[0].start()
        started.wait(30)
        for thread in threads[1:]:
            thread.start()
        for thread in threads:
            thread.join(60)
    assert codes == [200] * 6
    assert made == [1]
