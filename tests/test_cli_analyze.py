"""``paohuzi analyze`` against FORMATS F6."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import jsonschema
import pytest

from paohuzi.cli import main
from paohuzi.engine.cards import parse_cards, parse_kind
from tests.reference import ref_best_win

MINGTANG = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"name": {"type": "string"}, "fan": {"type": "integer", "minimum": 1}},
        "required": ["name", "fan"],
        "additionalProperties": False,
    },
}
GROUP = {
    "type": "string",
    "pattern": r"^(chi|peng|wei|chouwei|pao|ti|run|jiao|kan|pair):([xd](10|[1-9]))+$",
}
HU = {
    "type": "object",
    "properties": {
        "hu": {"const": True},
        "groups": {"type": "array", "items": GROUP, "minItems": 7, "maxItems": 7},
        "huxi": {"type": "integer"},
        "deng": {"type": "integer", "minimum": 1},
        "mingtang": MINGTANG,
        "fan": {"type": "integer", "minimum": 1},
        "score": {"type": "integer", "minimum": 1},
    },
    "required": ["hu", "groups", "huxi", "deng", "mingtang", "fan", "score"],
    "additionalProperties": False,
}
NO_HU = {
    "type": "object",
    "properties": {"hu": {"const": False}},
    "required": ["hu"],
    "additionalProperties": False,
}
WAITS = {
    "type": "object",
    "properties": {
        "waits": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "win": {"type": "string", "pattern": r"^[xd](10|[1-9])$"},
                    "huxi": {"type": "integer"},
                    "score": {"type": "integer"},
                },
                "required": ["win", "huxi", "score"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["waits"],
    "additionalProperties": False,
}
ERROR = {
    "type": "object",
    "properties": {"error": {"type": "string", "minLength": 1}},
    "required": ["error"],
    "additionalProperties": False,
}

HAND = "d1 d1 d1 d2 d7 d10 x1 x2 x3 x5 x5 x5 d4 d5 d6 x7 x8 x9 d8 d9"


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def analyze_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> Any:
    code, out, err = run(["analyze", "--json", *args], capsys)
    assert code == 0 and err == ""
    return json.loads(out)


def test_f6_hu(capsys: pytest.CaptureFixture[str]) -> None:
    data = analyze_json(["--hand", HAND, "--win", "d10"], capsys)
    jsonschema.validate(data, HU)
    assert (data["huxi"], data["deng"], data["fan"], data["score"]) == (18, 2, 1, 2)
    assert data["mingtang"] == []
    assert sorted(data["groups"]) == sorted(
        [
            "kan:d1d1d1",
            "run:d2d7d10",
            "run:x1x2x3",
            "kan:x5x5x5",
            "run:d4d5d6",
            "run:x7x8x9",
            "run:d8d9d10",
        ]
    )


def test_f6_hu_self_drawn_with_table_and_mingtang(capsys: pytest.CaptureFixture[str]) -> None:
    # 对对胡: ti x9 (9), kans d1 (6) x5 (3) x3 (3), peng d4 (3), wei d6 (6), pair x8.
    data = analyze_json(
        [
            "--hand",
            "d1 d1 d1 x5 x5 x5 x3 x3 x3 x8",
            "--table",
            "ti:x9 peng:d4 wei:d6",
            "--win",
            "x8",
            "--self-drawn",
        ],
        capsys,
    )
    jsonschema.validate(data, HU)
    assert data["huxi"] == 30 and data["deng"] == 6 + 1
    assert data["mingtang"] == [{"name": "乌胡", "fan": 5}, {"name": "对对胡", "fan": 4}]
    assert data["fan"] == 9 and data["score"] == 63
    assert data["groups"][:3] == ["ti:x9x9x9x9", "peng:d4d4d4", "wei:d6d6d6"]


SHORT = "x1 x2 x3 x4 x5 x6 x7 x8 x9 x10 x10 d10 d1 d2 d3 d4 d5 d6 d7 d8"
"""Seven groups with d9 (x1x2x3 3, d1d2d3 6, four sequences and a 绞 0): 9 hu-xi, short of 15."""


def test_f6_no_hu(capsys: pytest.CaptureFixture[str]) -> None:
    # R9.1.1: HAND's kans d1 and x5 and its runs x1x2x3, x7x8x9, d2d7d10, d4d5d6 leave d8 d9,
    # which only d7 or d10 completes: x4 makes no seven groups. The reference agrees.
    hand = parse_cards(HAND)
    assert ref_best_win(hand, [], parse_kind("x4"), False, min_huxi=0) is None
    data = analyze_json(["--hand", HAND, "--win", "x4"], capsys)
    jsonschema.validate(data, NO_HU)
    assert data == {"hu": False}
    # R9.1.2: seven groups of under 15 hu-xi are no 胡 either.
    short = parse_cards(SHORT)
    assert ref_best_win(short, [], parse_kind("d9"), False, min_huxi=0) is not None
    assert ref_best_win(short, [], parse_kind("d9"), False) is None
    assert analyze_json(["--hand", SHORT, "--win", "d9"], capsys) == {"hu": False}
    # The same hands, where the rules say they win, are answered yes: the no is an answer.
    won = ref_best_win(hand, [], parse_kind("d10"), False)
    assert won is not None
    data = analyze_json(["--hand", HAND, "--win", "d10"], capsys)
    assert data["hu"] is True and (data["huxi"], data["score"]) == (won.huxi, won.points)


def test_f6_waits(capsys: pytest.CaptureFixture[str]) -> None:
    data = analyze_json(["--hand", HAND], capsys)
    jsonschema.validate(data, WAITS)
    assert data == {
        "waits": [{"win": "d7", "huxi": 18, "score": 2}, {"win": "d10", "huxi": 18, "score": 2}]
    }


def test_f6_glyph_input(capsys: pytest.CaptureFixture[str]) -> None:
    data = analyze_json(
        ["--hand", "壹壹壹贰柒拾一二三五五五肆伍陆七八九捌玖", "--win", "拾"], capsys
    )
    assert data["hu"] is True and data["huxi"] == 18


@pytest.mark.parametrize(
    "args, message",
    [
        (["--hand", "x11 " + HAND[3:]], "unknown card 'x11'"),
        (["--hand", HAND + " x5 x5"], "more than four x5"),
        (["--hand", HAND, "--win", "x5 x5"], "expected one card"),
        (["--hand", HAND[:-3]], "hold 19 cards"),
        (["--hand", HAND, "--table", "peng:x4"], "hold 23 cards"),
        (["--hand", HAND, "--table", "zhao:x4"], "unknown group type"),
        (["--hand", HAND, "--win", "q"], "unknown card 'q'"),
        (["--hand", "x4 x4 x4 x4" + HAND[11:]], "ti:x4"),
        (["--hand", HAND, "--table", "run:x1x2x3"], "hand group"),
        ([], "--hand is required"),
        (["--hand", HAND, "--bogus"], "unrecognized arguments"),
    ],
)
def test_f6_bad_input_exits_2_with_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if args and args[-1] == "--bogus":
        with pytest.raises(SystemExit) as stop:
            main(["analyze", "--json", *args])
        assert stop.value.code == 2
        out, err = capsys.readouterr()
    else:
        code, out, err = run(["analyze", "--json", *args], capsys)
        assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and message in err


def test_f6_batch(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [
        {"hand": HAND, "win": "d10"},
        {"hand": HAND},
        {"hand": HAND, "win": "x4", "self_drawn": False},
        {"hand": "x1"},
        "not json",
        {"hand": HAND, "win": "d10", "self_drawn": True, "table": ""},
        [1, 2],
        {"hand": HAND, "wn": "d10"},
    ]
    text = "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n\n"
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO(text))
    code, out, err = run(["analyze", "--batch"], capsys)
    assert code == 0 and err == ""
    answers = [json.loads(line) for line in out.splitlines()]
    assert len(answers) == len(lines)
    schemas = [HU, WAITS, NO_HU, ERROR, ERROR, HU, ERROR, ERROR]
    for answer, schema in zip(answers, schemas, strict=True):
        jsonschema.validate(answer, schema)
    assert answers[0]["score"] == 2 and answers[5]["score"] == 3
    assert "hold 1 card;" in answers[3]["error"]
    assert "unknown field 'wn'" in answers[7]["error"]


def test_cli_entry_point_runs_as_a_process() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "paohuzi", "analyze", "--hand", HAND, "--win", "d10"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0
    assert "底数 (score) 2" in done.stdout and "run:d8d9d10" in done.stdout


def test_f6_batch_goes_on_past_lines_no_json_reader_agrees_on(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # F6: a bad line gets {"error": …} and the batch goes on, whatever makes it bad — nesting
    # deep enough to exhaust Python's recursion, an integer of 5,000 digits, NaN, a field
    # given twice, bytes that are not UTF-8 — and a byte-order mark is skipped
    good = json.dumps({"hand": HAND, "win": "d10"}).encode()
    bad = [
        b"[" * 100_000,
        b'{"hand": "x1", "x": 1' + b"0" * 5000 + b"}",
        b'{"hand": NaN}',
        b'{"hand": "x1", "hand": "x2"}',
        b'{"hand": "x1 \xff"}',
    ]
    text = b"\n".join([b"\xef\xbb\xbf" + good, *(line for b in bad for line in (b, good))]) + b"\n"
    monkeypatch.setattr("sys.stdin", __import__("io").TextIOWrapper(__import__("io").BytesIO(text)))
    code, out, err = run(["analyze", "--batch"], capsys)
    assert code == 0 and err == ""
    answers = [json.loads(line) for line in out.splitlines()]
    assert len(answers) == 1 + 2 * len(bad)
    assert all(a.get("hu") is True and a["score"] == 2 for a in answers[::2])
    errors = [a["error"] for a in answers[1::2]]
    assert [e.startswith("bad JSON") for e in errors] == [True, True, True, True, False]
    assert "unknown card" in errors[-1]
