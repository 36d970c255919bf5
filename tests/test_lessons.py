"""Lessons (issue 27): the format, the engine's check of every shipped lesson, the walk."""

from __future__ import annotations

import copy
import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paohuzi.cli import main
from paohuzi.engine.actions import parse_action
from paohuzi.engine.game import CoreName
from paohuzi.lessons import (
    DEFAULT_WRONG,
    LessonError,
    Walk,
    check_lesson,
    load_lesson,
    numbers_in,
    parse_lesson,
    shipped,
)

LESSONS = sorted(
    entry.name
    for entry in resources.files("paohuzi.lessons").iterdir()
    if entry.name.endswith(".json")
)


def raw(name: str = "03-chi-bi.json") -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        resources.files("paohuzi.lessons").joinpath(name).read_text(encoding="utf-8")
    )
    return data


def problem(data: dict[str, Any]) -> str:
    with pytest.raises(LessonError) as caught:
        check_lesson(parse_lesson(data))
    return str(caught.value)


@pytest.mark.parametrize("core", ["auto", "python"])
@pytest.mark.parametrize("name", LESSONS)
def test_every_shipped_lesson_passes_the_engine_check(name: str, core: CoreName) -> None:
    check_lesson(parse_lesson(raw(name), name), core=core)


def test_the_course_is_in_order_with_distinct_ids() -> None:
    course = shipped()
    assert len(course) == len(LESSONS) >= 1
    assert len({lesson.id for lesson in course}) == len(course)
    assert [lesson.order for lesson in course] == sorted(lesson.order for lesson in course)


def test_a_stated_number_the_engine_does_not_compute_is_refused() -> None:
    data = raw()
    data["steps"][2]["numbers"][1]["value"] = 7
    assert problem(data) == "step 3: huxi is stated as 7 but the engine says 6"


def test_a_number_the_text_does_not_state_is_refused() -> None:
    data = raw()
    data["steps"][0]["text"]["en"] = data["steps"][0]["text"]["en"].replace("3", "three")
    assert "texts do not both say it" in problem(data)


def test_group_huxi_follows_r3() -> None:
    data = raw()
    data["steps"][0]["numbers"] = [{"quantity": "group_huxi", "group": "chi:x1x2x3", "value": 6}]
    assert problem(data) == "step 1: group_huxi of chi:x1x2x3 is stated as 6 but the engine says 3"


def test_an_illegal_taught_move_is_refused() -> None:
    data = raw()
    data["steps"][0]["move"] = "0 peng"
    assert problem(data).startswith("step 1: the taught move '0 peng' is illegal")


def test_a_taught_move_out_of_turn_is_refused_with_what_may_be_scripted() -> None:
    data = raw()
    data["steps"][0]["before"] = []
    data["steps"][0]["highlight"] = "x1 x2"
    assert problem(data) == (
        "step 1: the learner is not to act (seat 2 is): script the moves before it; seat 2 may:"
        " 2 discard d10, 2 discard d4, 2 discard d5, 2 discard d6, 2 discard d7, 2 discard d8"
        " and 8 more"
    )


def test_an_illegal_scripted_move_is_refused_with_what_may_be_scripted() -> None:
    data = raw()
    data["steps"][1]["after"][1] = "1 discard x9"
    assert problem(data) == (
        "step 2: scripted move '1 discard x9': seat 1 has no x9 in hand; seat 1 may: 1 discard d1,"
        " 1 discard d10, 1 discard d5, 1 discard d6, 1 discard d7, 1 discard d8 and 8 more"
    )


def test_an_accepted_move_must_leave_the_same_hand() -> None:
    data = raw()
    data["steps"][2]["accept"] = ["0 chi x2x2d2"]
    assert "leaves another hand or table" in problem(data)


def test_a_highlighted_card_must_be_in_sight() -> None:
    data = raw()
    data["steps"][0]["highlight"] = "d10"
    assert problem(data) == "step 1: highlighted d10 is nowhere the learner can see it"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format="x"), "format must be 'paohuzi-lesson/1'"),
        (lambda d: d.update(colour=1), "a lesson has an unknown field 'colour'"),
        (lambda d: d["title"].pop("zh"), "title needs the field 'zh'"),
        (lambda d: d["steps"][0].update(move="0 chi x1x2"), "step 1: move '0 chi x1x2'"),
        (
            lambda d: d["deck"]["hands"].update({"0": "x1 x2"}),
            "the learner's hand must list all 20",
        ),
        (lambda d: d.update(rules="nowhere"), "rules: unknown preset 'nowhere'"),
        (lambda d: d["steps"][0]["numbers"][0].update(quantity="fan"), "quantity must be one of"),
        (lambda d: d["steps"][0].update(explain=5), "step 1: explain must be a JSON object"),
    ],
)
def test_a_malformed_lesson_is_one_line(change: Any, message: str) -> None:
    data = copy.deepcopy(raw())
    change(data)
    with pytest.raises(LessonError) as caught:
        parse_lesson(data)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_load_lesson_names_a_file_that_is_not_json(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text("{", encoding="utf-8")
    with pytest.raises(LessonError, match="not JSON"):
        load_lesson(path)


def test_a_walk_explains_wrong_moves_and_takes_the_taught_or_an_accepted_one() -> None:
    lesson = parse_lesson(raw())
    walk = Walk(lesson)
    first = lesson.steps[0]
    answer = walk.answer(parse_action("pass"))
    assert not answer.right and answer.text == first.wrong
    assert walk.answer(parse_action("chi x1x2x3")).right
    walk.next()
    assert walk.answer(parse_action("discard x5")).text == lesson.steps[1].wrong
    assert walk.answer(parse_action("discard d1")).right
    walk.next()
    third = lesson.steps[2]
    assert walk.answer(parse_action("chi x2x2d2")).text == third.explain["0 chi x2x2d2"]
    assert walk.answer(parse_action("chi x2d2d2 x2x7x10")).right
    walk.next()
    assert walk.finished and walk.step is None
    assert walk.game.huxi(0) == 6


def test_a_walk_resumes_at_a_step() -> None:
    lesson = parse_lesson(raw())
    resumed = Walk(lesson, start=2)
    walked = Walk(lesson)
    for _ in range(2):
        step = walked.step
        assert step is not None and step.move is not None
        walked.answer(parse_action(step.move.split(" ", 1)[1]))
        walked.next()
    assert resumed.game.position() == walked.game.position()


def test_the_default_wrong_text_has_both_languages() -> None:
    assert DEFAULT_WRONG.zh and DEFAULT_WRONG.en


def test_lesson_check_passes_the_shipped_lessons(capsys: pytest.CaptureFixture[str]) -> None:
    paths = [str(resources.files("paohuzi.lessons").joinpath(name)) for name in LESSONS]
    assert main(["lesson", "check", *paths]) == 0
    assert capsys.readouterr().out.count(": ok (") == len(LESSONS)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "not JSON: Expecting property name enclosed in double quotes (line 1, column 2)"),
        ("[]", "a lesson must be a JSON object"),
        (None, "step 3: huxi is stated as 7 but the engine says 6"),
    ],
)
def test_lesson_check_says_what_is_wrong_in_one_line_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str | None, message: str
) -> None:
    if text is None:
        data = raw()
        data["steps"][2]["numbers"][1]["value"] = 7
        text = json.dumps(data, ensure_ascii=False)
    path = tmp_path / "lesson.json"
    path.write_text(text, encoding="utf-8")
    assert main(["lesson", "check", str(path)]) == 2
    assert capsys.readouterr().err == f"paohuzi lesson check: {path}: {message}\n"


def test_a_mingtang_fan_is_the_rule_sets() -> None:
    data = raw("08-winning.json")
    numbers = data["steps"][2]["numbers"]
    red = next(n for n in numbers if n.get("name") == "红乌")
    red["count"] = 12
    assert problem(data) == "step 3: mingtang_fan of 红乌 is stated as 4 but the engine says 0"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 100_000, "not JSON: nested too deeply"),
        ('{"order": ' + "9" * 5000 + "}", "not JSON: a number of thousands of digits"),
        ('{"order": NaN}', "not JSON: NaN is not a JSON number"),
    ],
)
def test_lesson_check_and_learn_refuse_json_python_would_choke_on_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    path = tmp_path / "lesson.json"
    path.write_text(text, encoding="utf-8")
    assert main(["lesson", "check", str(path)]) == 2
    assert capsys.readouterr().err == f"paohuzi lesson check: {path}: {message}\n"
    assert main(["learn", "--file", str(path)]) == 2
    assert capsys.readouterr().err == f"paohuzi learn: error: {path}: {message}\n"


def test_a_field_given_twice_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "twice.json"
    path.write_text('{"format": "paohuzi-lesson/1", "id": "a", "id": "b"}', encoding="utf-8")
    with pytest.raises(LessonError, match="not JSON: the name 'id' twice in one object"):
        load_lesson(path)


def test_every_text_of_the_course_is_given_in_both_languages() -> None:
    for lesson in shipped():
        texts = [lesson.title, lesson.summary]
        for step in lesson.steps:
            texts += [
                step.text,
                *(t for t in (step.wrong, step.right) if t),
                *step.explain.values(),
            ]
        for text in texts:
            assert any("\u4e00" <= c <= "\u9fff" for c in text.zh), (lesson.id, text)
            assert text.en.isascii() or any(c.isascii() and c.isalpha() for c in text.en)


def test_numbers_in_a_text_leave_out_cards_and_steps() -> None:
    text = "Right takes x3 and d10 for 2-7-10: (18 - 12) ÷ 3 = 2 等, you +6. they -3, step 2/5; 1.5"
    assert numbers_in(text) == {18, 12, 3, 2, 6, -3}


@pytest.mark.parametrize(
    ("field", "lang", "said", "named"),
    [
        ("text", "zh", "1号位打出一张三。", "'1号位'"),
        ("text", "zh", "庄家 2 号位打出一张三。", "'2 号位'"),
        ("text", "en", "Seat 1 discards a 三.", "'Seat 1'"),
        ("right", "en", "You beat seat 2's 吃.", "'seat 2'"),
        ("text", "en", "Seat no. 3 sits out.", "'Seat no. 3'"),
    ],
)
def test_a_text_naming_a_seat_by_its_number_is_refused(
    field: str, lang: str, said: str, named: str
) -> None:
    """The engine counts seats from 0, the web table from 1 and both name them from the
    player: a text says 下家 or Right, never "1号位" or "seat 1"."""
    data = copy.deepcopy(raw())
    data["steps"][1][field] = {"zh": "下家打出一张三。", "en": "Right discards a 三.", lang: said}
    with pytest.raises(LessonError) as caught:
        parse_lesson(data)
    assert str(caught.value) == (
        f"step 2: {field}.{lang} names a seat by its number ({named}): name it from the learner"
        " as the table does: 你, 下家, 上家, 对家 (you, Right, Left, Across)"
    )


def test_a_text_may_speak_of_a_four_seat_table() -> None:
    data = copy.deepcopy(raw())
    data["steps"][1]["text"]["en"] += " A four-seat table seats 4 players."
    parse_lesson(data)


def test_a_number_only_a_card_name_holds_is_not_stated() -> None:
    data = raw()
    data["steps"][0]["text"]["en"] = data["steps"][0]["text"]["en"].replace(" 3 ", " three ")
    assert "x3" in data["steps"][0]["text"]["en"]
    assert "texts do not both say it" in problem(data)


def test_an_explanation_may_only_repeat_the_steps_numbers() -> None:
    data = raw()
    data["steps"][2]["explain"]["0 pass"]["en"] += " You would keep 9 hu-xi."
    assert problem(data) == "step 3: an explanation says 9, which the step's numbers do not state"


def test_learn_refuses_an_unknown_lesson_and_a_bad_file_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["learn", "no-such-lesson"]) == 2
    ids = ", ".join(lesson.id for lesson in shipped())
    assert ids.startswith("cards, ") and len(shipped()) > 5
    assert capsys.readouterr().err == (
        f"paohuzi learn: error: 没有这一课 'no-such-lesson'（有 {ids}）/ "
        f"no lesson 'no-such-lesson' (there are {ids})\n"
    )
    path = tmp_path / "bad.json"
    path.write_text("[]", encoding="utf-8")
    assert main(["learn", "--file", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"paohuzi learn: error: {path}: a lesson must be a JSON object\n"
    )


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 100)
    | st.text(max_size=12)
    | st.sampled_from(["0 pass", "1 peng", "x1 x2", "d10", "chi:x1x2x3", "huxi", "done"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)


def _places(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [at] if at else []
    if isinstance(value, dict):
        for key, inner in value.items():
            found += _places(inner, (*at, key))
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            found += _places(inner, (*at, i))
    return found


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(LESSONS), data=st.data(), value=JSON_VALUES)
def test_a_lesson_with_any_field_changed_passes_or_fails_in_one_line(
    name: str, data: st.DataObject, value: Any
) -> None:
    lesson = raw(name)
    place = data.draw(st.sampled_from(_places(lesson)))
    inner = lesson
    for key in place[:-1]:
        inner = inner[key]
    inner[place[-1]] = value
    try:
        check_lesson(parse_lesson(lesson))
    except LessonError as error:
        assert "\n" not in str(error) and str(error)


@pytest.mark.parametrize(
    ("place", "value"),
    [
        ((0, "move"), "0 peng"),  # illegal
        ((0, "move"), "1 pass"),  # not the learner's
        ((2, "numbers", 1, "value"), 7),  # the engine says 6
    ],
)
def test_learn_refuses_a_file_lesson_check_refuses_with_the_same_message(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    place: tuple[Any, ...],
    value: Any,
) -> None:
    monkeypatch.setenv("PAOHUZI_PROGRESS", str(tmp_path / "progress.json"))
    data = raw()
    inner = data["steps"]
    for key in place[:-1]:
        inner = inner[key]
    inner[place[-1]] = value
    path = tmp_path / "lesson.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    assert main(["lesson", "check", str(path)]) == 2
    checked = capsys.readouterr().err
    assert checked.startswith(f"paohuzi lesson check: {path}: step ")
    assert main(["learn", "--file", str(path)]) == 2
    message = checked.removeprefix("paohuzi lesson check: ")
    assert capsys.readouterr() == ("", f"paohuzi learn: error: {message}")
    assert not (tmp_path / "progress.json").exists()
