"""Issue 15: the operator chooses which bots the lobby offers (``paohuzi serve --offer-bots``);
a client picks one by name and can never name a program or a module itself."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from paohuzi.cli import main
from paohuzi.server.botrunner import searches
from paohuzi.server.config import Config, parse_offered
from tests.server.conftest import free_port
from tests.server.harness import app_client, receive, seated

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = f"cmd:{sys.executable} {ROOT / 'examples' / 'bots' / 'random_bot.py'} 3"
OFFER = f"greedy,mine=tests.policy_bots:first_legal_bot,prog={PROGRAM}"


def test_by_default_the_lobby_offers_the_built_in_bots_only(tmp_path: Path) -> None:
    with app_client(tmp_path / "db") as client:
        offered = client.get("/api/bots").json()["bots"]
        assert offered[0] == "greedy" and {"expert", "random"} <= set(offered)
        for name in ("cmd:/bin/sh", "tests.policy_bots:first_legal_bot", "os:system"):
            response = client.post("/api/rooms", json={"bots": [None, name, "greedy"], "timer": 0})
            assert 400 <= response.status_code < 500, name
        ok = client.post("/api/rooms", json={"bots": [None, "expert@5", "random"], "timer": 0})
        assert ok.status_code == 200


@pytest.mark.xdist_group("workers")
def test_offered_module_and_program_bots_play_by_name_in_worker_processes(tmp_path: Path) -> None:
    offered = parse_offered(OFFER)
    assert [name for name, _ in offered] == ["greedy", "mine", "prog"]
    assert searches(Config(offered_bots=offered).bot_spec("mine"))
    assert searches(Config(offered_bots=offered).bot_spec("prog"))
    assert not searches("greedy")
    assert searches("learned@8") and searches("learned@1000")  # samples whatever the time
    assert not searches("learned")  # its search stops 4 ms after the question (D156)
    assert not searches("learned@0") and not searches("learned@000")  # the network alone
    for checkpoint in ("learned:x.npz", "learned@0:x.npz", "learned@8:x.npz"):
        assert searches(checkpoint)  # an operator's checkpoint: a worker, whatever it asks (D186)
    assert searches("learned@search:x.npz")
    with app_client(tmp_path / "db", offered_bots=offered) as client:
        assert client.get("/api/bots").json() == {"bots": ["greedy", "mine", "prog"]}
        for name in ("random", PROGRAM, "tests.policy_bots:first_legal_bot"):
            response = client.post("/api/rooms", json={"bots": [None, name, "greedy"], "timer": 0})
            assert 400 <= response.status_code < 500, name
        response = client.post("/api/rooms", json={"bots": [None, "mine", "prog"], "timer": 0})
        assert response.status_code == 200, response.text
        data = response.json()
        with seated(client, data, 0) as ws:
            # A program bot is started for each decision: slow on a busy machine.
            state = receive(ws, 60)
            while not state["over"]:
                if state["legal"]:
                    ws.send_json({"type": "act", "action": state["legal"][-1], "seq": state["seq"]})
                state = receive(ws, 60)
        assert state["over"] and sum(state["result"]["payments"]) == 0
        runner = client.app.state.rooms.runner  # type: ignore[attr-defined]
        assert runner._pool is not None  # the offered bots ran in the worker processes


def test_bad_offers_are_refused() -> None:
    for bad in (
        "",
        "a b=greedy",
        "x" * 40 + "=greedy",
        "mine=no_such_module:make",
        "a=cmd:",
        "greedy,greedy",
        "nobot",
    ):
        with pytest.raises(ValueError):
            parse_offered(bad)
    assert main(["serve", "--port", str(free_port()), "--offer-bots", "m=nope:x"]) == 2
