"""``paohuzi replay`` (F5) and ``paohuzi simulate``."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import paohuzi
from paohuzi.cli import main
from paohuzi.cli.render import REASONS_ZH
from paohuzi.cli.render import reason as reason_in
from paohuzi.engine.record import Record, replay
from paohuzi.engine.rules import HUNAN

GOLDEN = Path(__file__).parent / "golden"
CARDS = r"^(([xd](10|[1-9]))( [xd](10|[1-9]))*)?$"
GROUP = r"^(chi|peng|wei|chouwei|pao|ti|run|jiao|kan|pair):([xd](10|[1-9]))+$"
SEAT_ACTION = r"^[012] (discard [xd](10|[1-9])|chi( ([xd](10|[1-9])){3})+|peng|hu|pass)$"
F5: dict[str, Any] = {
    "type": "object",
    "required": ["status", "error", "to_act", "legal", "position", "result"],
    "additionalProperties": False,
    "properties": {
        "status": {"enum": ["ongoing", "finished", "illegal"]},
        "error": {
            "oneOf": [
                {"type": "null"},
                {
                    "type": "object",
                    "required": ["index", "action", "message"],
                    "properties": {
                        "index": {"type": "integer", "minimum": 0},
                        "action": {"type": ["string", "null"]},
                        "message": {"type": "string", "minLength": 1},
                    },
                },
            ]
        },
        "to_act": {"enum": [0, 1, 2, None]},
        "legal": {"type": "array", "items": {"type": "string", "pattern": SEAT_ACTION}},
        "position": {
            "type": "object",
            "required": ["dealer", "wall", "hands", "tables", "discards", "chou"],
            "additionalProperties": False,
            "properties": {
                "dealer": {"enum": [0, 1, 2]},
                "wall": {"type": "integer", "minimum": 0, "maximum": 19},
                "hands": {
                    "type": "array",
                    "minItems": 3,
                    "maxItems": 3,
                    "items": {"type": "string", "pattern": CARDS},
                },
                "tables": {
                    "type": "array",
                    "minItems": 3,
                    "maxItems": 3,
                    "items": {"type": "array", "items": {"type": "string", "pattern": GROUP}},
                },
                "discards": {
                    "type": "array",
                    "minItems": 3,
                    "maxItems": 3,
                    "items": {"type": "string", "pattern": CARDS},
                },
                "chou": {
                    "type": "array",
                    "minItems": 3,
                    "maxItems": 3,
                    "items": {"type": "string", "pattern": CARDS},
                },
            },
        },
        "result": {
            "oneOf": [
                {"type": "null"},
                {
                    "type": "object",
                    "additionalProperties": False,
                    "required": [
                        "winner",
                        "winning_card",
                        "self_drawn",
                        "tianhu",
                        "haidi",
                        "groups",
                        "huxi",
                        "deng",
                        "mingtang",
                        "fan",
                        "score",
                        "payments",
                        "other_huxi",
                    ],
                    "properties": {
                        "winner": {"enum": [0, 1, 2, None]},
                        "winning_card": {
                            "type": ["string", "null"],
                            "pattern": r"^[xd](10|[1-9])$",
                        },
                        "self_drawn": {"type": "boolean"},
                        "tianhu": {"type": "boolean"},
                        "haidi": {"type": "boolean"},
                        "groups": {"type": "array", "items": {"type": "string", "pattern": GROUP}},
                        "huxi": {"type": "integer"},
                        "deng": {"type": "integer"},
                        "mingtang": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "required": ["name", "fan"],
                                "properties": {
                                    "name": {"type": "string"},
                                    "fan": {"type": "integer"},
                                },
                            },
                        },
                        "fan": {"type": "integer"},
                        "score": {"type": "integer"},
                        "payments": {
                            "type": "array",
                            "items": {"type": "integer"},
                            "minItems": 3,
                            "maxItems": 3,
                        },
                        "other_huxi": {
                            "type": "object",
                            "patternProperties": {"^[012]$": {"type": "integer"}},
                            "additionalProperties": False,
                        },
                    },
                },
            ]
        },
    },
}


def f5_schema(seats: int) -> dict[str, Any]:
    """F5 for a table of ``seats``: FORMATS gives three; a four-seat table (R12) has four of
    each per-seat entry and seat numbers up to 3 (decision D30)."""
    schema = copy.deepcopy(F5)
    props = schema["properties"]
    seat = f"[0-{seats - 1}]"
    props["to_act"]["enum"] = [*range(seats), None]
    props["legal"]["items"]["pattern"] = SEAT_ACTION.replace("[012]", seat)
    position = props["position"]["properties"]
    position["dealer"]["enum"] = list(range(seats))
    for key in ("hands", "tables", "discards", "chou"):
        position[key]["minItems"] = position[key]["maxItems"] = seats
    result = props["result"]["oneOf"][1]["properties"]
    result["winner"]["enum"] = [*range(seats), None]
    result["payments"]["minItems"] = result["payments"]["maxItems"] = seats
    result["other_huxi"]["patternProperties"] = {f"^{seat}$": {"type": "integer"}}
    return schema


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, data: Any, name: str = "game.phz.json") -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def golden(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((GOLDEN / f"{name}.phz.json").read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("name", sorted(p.name.split(".")[0] for p in GOLDEN.glob("*.phz.json")))
def test_f5_finished_records(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["replay", write(tmp_path, golden(name)), "--json"], capsys)
    assert code == 0 and err == ""
    data = json.loads(out)
    jsonschema.validate(data, f5_schema(Record.from_json(golden(name)).rule_set.players))
    assert data["status"] == "finished" and data["to_act"] is None and data["legal"] == []
    assert data["result"] == golden(name)["result"]
    assert sum(data["result"]["payments"]) == 0


def test_f5_a_record_that_stops_gives_the_position_to_continue(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = golden("bi")
    record["actions"] = record["actions"][:5]
    del record["result"]
    code, out, _ = run(["replay", write(tmp_path, record), "--json"], capsys)
    data = json.loads(out)
    jsonschema.validate(data, F5)
    assert code == 0 and data["status"] == "ongoing" and data["result"] is None
    game = replay(Record.from_json(record)).game
    assert data["to_act"] == game.to_act
    assert data["legal"] == sorted(data["legal"]) and data["legal"]
    assert all(line.startswith(f"{game.to_act} ") for line in data["legal"])
    position = data["position"]
    assert position["wall"] == game.wall
    cards = sum(len(h.split()) for h in position["hands"])
    cards += sum(len(g.split(":")[1]) // 2 for t in position["tables"] for g in t)
    assert cards > 40


def test_f5_illegal_action(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = golden("bi")
    legal_prefix = record["actions"][:3]
    record["actions"] = [*legal_prefix, "2 discard x11"]
    code, out, _ = run(["replay", write(tmp_path, record), "--json"], capsys)
    data = json.loads(out)
    jsonschema.validate(data, F5)
    assert code == 1 and data["status"] == "illegal" and data["to_act"] is None
    assert data["error"]["index"] == 3 and data["error"]["action"] == "2 discard x11"
    ongoing = dict(record, actions=legal_prefix)
    del ongoing["result"]
    _, before, _ = run(["replay", write(tmp_path, ongoing, "b.json"), "--json"], capsys)
    assert json.loads(before)["position"] == data["position"]


def test_f5_out_of_turn_and_impossible_actions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = golden("bi")
    first_seat = record["actions"][0][0]
    other = str((int(first_seat) + 1) % 3)
    for bad, reason in ((f"{other} pass", "turn"), (f"{first_seat} peng", "")):
        data = dict(record, actions=[bad])
        code, out, _ = run(["replay", write(tmp_path, data), "--json"], capsys)
        answer = json.loads(out)
        assert code == 1 and answer["error"]["index"] == 0
        assert reason in answer["error"]["message"]


def test_f5_result_that_does_not_match_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = golden("random-win-1")
    record["result"]["score"] += 1
    code, out, _ = run(["replay", write(tmp_path, record), "--json"], capsys)
    assert code == 1 and "score" in json.loads(out)["error"]["message"]


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda r: "{not json", "bad JSON"),
        (lambda r: dict(r, deck=" ".join(r["deck"].split()[:79])), "80 cards"),
        (lambda r: dict(r, deck=r["deck"].replace("x1", "x11", 1)), "unknown card"),
        (lambda r: dict(r, deck=r["deck"].replace("x1 ", "x2 ", 1)), "four"),
        (lambda r: dict(r, format="other"), "paohuzi-record/1"),
        (lambda r: dict(r, rules="sichuan"), "unknown rules"),
        (lambda r: dict(r, dealer=3), "dealer"),
        # not JSON, or JSON no reader agrees on: never a traceback (F5: bad JSON exits 2)
        (lambda r: "[" * 1000, "nested too deeply"),
        (lambda r: json.dumps(r).replace('"dealer": 0', '"dealer": 1' + "0" * 5000), "digits"),
        (lambda r: json.dumps(dict(r, extra=0)).replace('"extra": 0', '"extra": NaN'), "NaN"),
        (lambda r: json.dumps(r).replace('"dealer": 0', '"dealer": 0, "dealer": 1'), "twice"),
        (lambda r: {k: v for k, v in r.items() if k != "ruleset"} | {"rules": []}, "rules"),
        (lambda r: {k: v for k, v in r.items() if k != "ruleset"} | {"rules": {}}, "rules"),
    ],
)
def test_f5_unreadable_record_exits_2_with_one_line(
    mutate: Any, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["replay", write(tmp_path, mutate(golden("bi"))), "--json"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and message in err


def test_f4_a_result_is_checked_strictly_as_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # F4: a reader that replays the record checks its result; JSON's true is not 1, nor 16.0
    # 16 (D14: only the fields the record gives are compared)
    record = golden("random-win-1")
    result = record["result"]
    for field, wrong in [
        ("winner", bool(result["winner"]) if result["winner"] in (0, 1) else True),
        ("huxi", float(result["huxi"])),
        ("self_drawn", int(result["self_drawn"])),
        ("payments", [float(p) for p in result["payments"]]),
    ]:
        changed = copy.deepcopy(record)
        changed["result"][field] = wrong
        code, out, _ = run(["replay", write(tmp_path, changed), "--json"], capsys)
        answer = json.loads(out)
        assert code == 1 and answer["status"] == "illegal", field
        assert (
            answer["error"]["index"] == len(record["actions"])
            and field in answer["error"]["message"]
        )


def test_f4_a_result_may_list_its_groups_in_any_order_and_short(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # F2: input may shorten same-kind groups to one card; F5 does not order the groups
    record = golden("random-win-1")
    groups = record["result"]["groups"]
    short = [re.sub(r"^(peng|wei|chouwei|pao|ti|kan):([xd]\d+?)\2+$", r"\1:\2", g) for g in groups]
    assert short != groups  # the record has a same-kind group to shorten
    record["result"]["groups"] = short[::-1]
    code, out, _ = run(["replay", write(tmp_path, record), "--json"], capsys)
    assert code == 0 and json.loads(out)["status"] == "finished"
    record["result"]["groups"] = short[1:]  # one group short: a mismatch
    code, out, _ = run(["replay", write(tmp_path, record), "--json"], capsys)
    assert code == 1 and "groups" in json.loads(out)["error"]["message"]


def test_f4_a_record_that_stops_early_replays_to_its_position_whatever_its_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # F4: a record may stop before the hand ends; cut from a finished one, it keeps its
    # result (D167: `paohuzi verify` is what checks a record whole)
    record = golden("random-win-1")
    record["actions"] = record["actions"][:-2]
    code, out, _ = run(["replay", write(tmp_path, record), "--json"], capsys)
    answer = json.loads(out)
    assert code == 0 and answer["status"] == "ongoing" and answer["error"] is None
    assert answer["result"] is None and answer["legal"]


def test_f5_a_wrong_result_is_named_in_the_text_mode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = golden("random-win-1")
    record["result"]["score"] += 1
    code, out, _ = run(["replay", "--lang", "en", write(tmp_path, record)], capsys)
    assert code == 1
    assert out.rstrip().splitlines()[-1] == (
        f"the record's result differs from the replay's: score is {record['result']['score'] - 1}, "
        f"not {record['result']['score']}"
    )


def test_f1_f3_any_white_space_separates_and_a_byte_order_mark_is_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = golden("random-win-1")
    code, expected, _ = run(["replay", write(tmp_path, record), "--json"], capsys)
    assert code == 0
    spaced = dict(
        record,
        deck=record["deck"].replace(" ", "\u3000", 5).replace(" ", "\u00a0", 5),
        actions=[a.replace(" ", "\t", 1) for a in record["actions"]],
    )
    path = tmp_path / "spaced.phz.json"
    path.write_text("\ufeff" + json.dumps(spaced), encoding="utf-8")
    code, out, err = run(["replay", str(path), "--json"], capsys)
    assert (code, out, err) == (0, expected, "")


def test_an_unknown_card_is_quoted_short(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = golden("bi")
    record["deck"] = "q" * 100_000 + " " + record["deck"]
    code, _, err = run(["replay", write(tmp_path, record), "--json"], capsys)
    assert code == 2 and "unknown card 'qqqqqqqqqqqqqqqqqqqq…'" in err and len(err) < 200


def test_replay_missing_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["replay", "/nonexistent/x.phz.json"], capsys)
    assert code == 2 and "cannot read" in err
    code, _, err = run(["replay", ""], capsys)
    assert code == 2 and "no file named" in err and "directory" not in err


def test_replay_text_mode_prints_moves_and_settlement(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(["replay", "--lang", "en", write(tmp_path, golden("popaohu"))], capsys)
    assert code == 0
    assert "seat 0 discards x1" in out and "> seat 1: hu" in out
    assert "Seat 1 wins on d10" in out and "payments" in out and "current hu-xi" in out
    assert "号位" not in out and "规则" not in out
    # the settlement's figures in English, as the web table's (the events keep their glosses)
    settlement = out[out.index("Seat 1 wins on d10") :]
    assert "hu-xi" in settlement and "deng" in settlement and "points" in settlement
    assert not re.search(r"[\u4e00-\u9fff]", settlement), settlement


def test_a_rule_set_named_like_markup_replays_as_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A record's rule set names itself (any printable name): the terminal prints it as
    written, where rich would read ``[/bold]`` as a closing tag and stop with a traceback."""
    record = golden("popaohu")
    rules = HUNAN.to_json()
    rules["preset"] = record["rules"] = "[/bold]house"
    record["ruleset"] = rules
    code, out, err = run(["replay", "--lang", "en", write(tmp_path, record)], capsys)
    assert code == 0 and err == ""
    assert out.startswith("rules [/bold]house, dealer seat 0\n")
    # and so do its 名堂, in the settlement (this hand wins 红胡)
    record = golden("ti-from-draw")
    rules = HUNAN.to_json()
    rules["preset"] = record["rules"] = "house"
    for mingtang in rules["mingtang"]:
        mingtang["name"] = "[/red]" + mingtang["name"]
    record["ruleset"] = rules
    del record["result"]  # it names the 名堂 as the preset does
    code, out, err = run(["replay", "--lang", "en", write(tmp_path, record)], capsys)
    assert code == 0 and err == "" and "   [/red]红胡: 2 fan   " in out


def test_replay_text_mode_reads_in_chinese_and_in_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, golden("popaohu"))
    code, out, _ = run(["replay", "--lang", "zh", path], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "规则 hunan，0号位坐庄"
    assert "  0号位打出一x1" in lines and "> 1号位: hu" in lines  # the action stays in F3
    assert "1号位胡拾d10" in out and "输赢" in out and "没胡的各家现在的胡息" in out
    english = ("seat", "dealt", "discards", "wins", "payments", "current", "record")
    assert not [w for w in english if w in out]
    code, both, _ = run(["replay", path], capsys)  # the default: Chinese, then English
    assert code == 0
    assert "  0号位打出一x1 / seat 0 discards x1" in both.splitlines()
    assert "> 0号位 / seat 0: discard x1" in both.splitlines()
    record = golden("popaohu")
    record["actions"] = record["actions"][:3]  # stops before the hand ends
    code, part, _ = run(["replay", "--lang", "zh", write(tmp_path, record)], capsys)
    assert code == 0 and "（记录到这里为止，轮到" in part
    record["actions"] = [*record["actions"][:2], "0 discard [bold]x9"]  # not rich's markup
    code, bad, _ = run(["replay", "--lang", "zh", write(tmp_path, record)], capsys)
    assert code == 1 and "2号动作 '0 discard [bold]x9' 不合规则: 没有这种牌：'[bold]x9'" in bad
    assert "unknown" not in bad  # the engine's reason in Chinese too
    # Every reason the engine gives is said in Chinese: a seat out of turn, a card not held.
    record["actions"] = [*record["actions"][:2], "2 pass"]
    code, bad, _ = run(["replay", "--lang", "zh", write(tmp_path, record)], capsys)
    assert code == 1 and "不合规则: 还没轮到2号位（该" in bad and "turn" not in bad
    code, both, _ = run(["replay", write(tmp_path, record)], capsys)
    assert code == 1 and "还没轮到2号位" in both and "it is not seat 2's turn" in both


def test_every_reason_the_engine_refuses_with_is_said_in_chinese() -> None:
    """Each of the engine's reasons (its IllegalAction and NotationError messages, read from
    its source) matches one of the terminal's Chinese patterns, and that Chinese has no
    English word of the engine's left in it."""
    sources = [
        Path(paohuzi.__file__).parent / "engine" / name
        for name in ("python_core.py", "game.py", "actions.py", "cards.py")
    ]
    found = set()
    for source in sources:
        text = source.read_text(encoding="utf-8")
        for match in re.finditer(r'(?:IllegalAction|NotationError)\((f?)"([^"]+)"', text):
            found.add(match.group(2))
        for match in re.finditer(r'return f"(seat \{seat\}[^"]+|\{action\}[^"]+)"', text):
            found.add(match.group(1))
    examples = {
        "{seat}": "1",
        "{who}": "seat 2",
        "{name}": "x5",
        "{card}": "d10",
        "{action}": "peng",
        "{words[0]!r}": "'take'",
        "{text!r}": "'discard'",
        "{text[pos:end]!r}": "'x11'",
        "{word!r}": "'x1x2'",
        "{self._why_illegal(seat, action)}": "the hand is over",
    }
    assert len(found) >= 15, found
    for template in found:
        message = template
        for key, value in examples.items():
            message = message.replace(key, value)
        if "{" in message:
            continue  # a message made elsewhere (IllegalAction(self._why_illegal(...)))
        zh = reason_in("zh", message)
        assert any(p.fullmatch(message) for p, _ in REASONS_ZH), message
        assert not re.search(r"\b(seat|card|hand|may|cannot|turn|nobody)\b", zh), (message, zh)


def test_simulate_json_and_saved_records_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        ["simulate", "--games", "30", "--seed", "4", "--json", "--save", str(tmp_path)], capsys
    )
    assert code == 0
    figures = json.loads(out)
    assert figures["hands"] == 30 and abs(sum(figures["mean_score"])) < 1e-3
    assert figures["win_rate"] + figures["huangzhuang_rate"] == pytest.approx(1)
    files = sorted(tmp_path.glob("*.phz.json"))
    assert len(files) == 30
    for path in files:
        assert replay(Record.from_json(json.loads(path.read_text()))).status == "finished"
    code, again, _ = run(["simulate", "--games", "30", "--seed", "4", "--json"], capsys)
    assert {k: v for k, v in json.loads(again).items() if "second" not in k} == {
        k: v for k, v in figures.items() if "second" not in k
    }


def test_simulate_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["simulate", "--games", "0"], capsys)
    assert code == 2 and err.count("\n") == 1


def test_f4_a_record_without_its_format_field_is_still_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = golden("bi")
    del record["format"]
    code, out, _ = run(["replay", write(tmp_path, record), "--json"], capsys)
    assert code == 0 and json.loads(out)["status"] == "finished"


@pytest.mark.parametrize("field", ["dealer", "deck"])
def test_f4_a_missing_field_is_named(field: str, tmp_path: Path) -> None:
    record = {k: v for k, v in golden("bi").items() if k != field}
    code, err = replay_subprocess(write(tmp_path, record))
    assert code == 2 and err.count("\n") == 1 and f"has no '{field}' field" in err


def test_replay_of_an_empty_object_names_what_is_missing(tmp_path: Path) -> None:
    """Issue 17: ``{}`` said "dealer must be 0, 1 or 2, not None"."""
    code, err = replay_subprocess(write(tmp_path, {}))
    assert code == 2 and err.count("\n") == 1 and "None" not in err
    assert "has no " in err and "'dealer'" in err and "'deck'" in err


def replay_subprocess(path: str) -> tuple[int, str]:
    """``paohuzi replay PATH`` run as a user runs it: exit status and standard error."""
    done = subprocess.run(
        [sys.executable, "-m", "paohuzi", "replay", path],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout == ""
    return done.returncode, done.stderr
