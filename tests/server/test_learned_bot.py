"""The learned bot at the server (issue 15 item 4): a room may seat it, it plays a hand over
the websocket, and the web lobby offers it with a Chinese and an English label."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from paohuzi.server.app import create_app
from tests.server.harness import seated

STATIC = Path(__file__).parent.parent.parent / "src" / "paohuzi" / "server" / "static"


@pytest.fixture
def client(tmp_path: Path) -> Any:
    with TestClient(
        create_app(str(tmp_path / "db.sqlite"), bot_delay=0, dev_seeded_deals=True)
    ) as c:
        yield c


def test_a_hand_against_two_learned_bots(client: TestClient) -> None:
    response = client.post(
        "/api/rooms", json={"bots": [None, "learned", "learned"], "timer": 0, "seed": 3}
    )
    assert response.status_code == 200, response.text
    data = response.json()
    with seated(client, data, 0) as ws:
        state = ws.receive_json()
        assert [s.get("bot") for s in state["seats"]][1:] == ["learned", "learned"]
        while not state["over"]:
            if state["legal"]:
                action = state["legal"][-1]
                ws.send_text(json.dumps({"type": "act", "action": action, "seq": state["seq"]}))
            state = ws.receive_json()
            assert state["type"] == "state"


def test_the_lobby_offers_learned_with_labels_in_both_languages() -> None:
    state = (STATIC / "state.js").read_text(encoding="utf-8")  # the page's one state object
    levels = re.search(r"\bbotLevels: \[(.*?)\],", state)
    assert levels is not None and '"learned"' in levels.group(1)
    i18n = (STATIC / "i18n.js").read_text(encoding="utf-8")
    assert len(re.findall(r'\blvl_learned: "', i18n)) == 2
    assert len(re.findall(r'\bbot_learned: "', i18n)) == 2
    assert 'lvl_learned: "电脑·AI' in i18n and 'lvl_learned: "Bot · learned' in i18n
