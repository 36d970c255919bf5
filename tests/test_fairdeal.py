"""Fair deals: the commitment scheme of docs/security.md and ``paohuzi verify``."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from paohuzi.engine.cards import full_deck, parse_cards
from paohuzi.engine.fairdeal import SCHEME, SCHEME_TERMS, Verdict, commitment, deal_terms, verify
from paohuzi.engine.game import Game
from paohuzi.engine.record import record_of

SALT = "ab" * 32


def finished_record(seed: int = 5) -> dict[str, Any]:
    """A finished hand's record with its deal opened, as the server writes it."""
    game = Game(seed=seed)
    rng = random.Random(seed)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    data = record_of(game).to_json()
    data["deal"] = {"scheme": SCHEME, "commitment": commitment(game.deck, SALT), "salt": SALT}
    return data


def test_the_commitment_is_the_documented_digest() -> None:
    deck = full_deck()
    text = " ".join(f"{'x' if k < 10 else 'd'}{k % 10 + 1}" for k in deck)
    expected = hashlib.sha256(f"paohuzi-deal/1\n{SALT}\n{text}".encode()).hexdigest()
    assert commitment(deck, SALT) == expected
    assert commitment(deck, "cd" * 32) != expected


def test_a_record_opens_its_commitment_and_a_changed_deck_does_not() -> None:
    data = finished_record()
    assert verify(data).ok
    assert verify(data, data["deal"]["commitment"].upper()).ok
    assert not verify(data, "0" * 64).ok  # not what the table showed
    cards = data["deck"].split()
    cards[0], cards[-1] = cards[-1], cards[0]
    changed = dict(data, deck=" ".join(cards))
    assert cards[0] != cards[-1] and not verify(changed).ok
    assert not verify(dict(data, deal=dict(data["deal"], salt="cd" * 32))).ok
    assert not verify({k: v for k, v in data.items() if k != "deal"}).ok
    unopened = dict(data, deal={k: v for k, v in data["deal"].items() if k != "salt"})
    assert "not over" in verify(unopened).message


def run_verify(path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "paohuzi", "verify", str(path), *extra],
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_verify_command(tmp_path: Path) -> None:
    data = finished_record()
    good = tmp_path / "good.phz.json"
    good.write_text(json.dumps(data))
    done = run_verify(good)
    assert done.returncode == 0 and "deal verified" in done.stdout
    assert run_verify(good, "--commitment", data["deal"]["commitment"]).returncode == 0
    wrong = run_verify(good, "--commitment", "f" * 64)
    assert wrong.returncode == 1 and "not verified" in wrong.stdout
    bad = tmp_path / "bad.phz.json"
    bad.write_text(json.dumps(dict(data, actions=data["actions"][:3] + ["2 peng"])))
    assert run_verify(bad).returncode == 1
    broken = tmp_path / "broken.phz.json"
    broken.write_text("{")
    done = run_verify(broken)
    assert done.returncode == 2 and "Traceback" not in done.stderr


def server_record(seed: int = 5, hand: int = 3) -> dict[str, Any]:
    """A finished hand's record as the server writes it since issue 22: its hand number, and a
    paohuzi-deal/2 commitment to the deck and the terms (hand, dealer, rule set)."""
    data = finished_record(seed)
    data["hand"] = hand
    terms = deal_terms(hand, data["dealer"], data["ruleset"])
    deck = parse_cards(data["deck"])
    data["deal"] = {
        "scheme": SCHEME_TERMS,
        "commitment": commitment(deck, SALT, terms),
        "terms": terms,
        "salt": SALT,
    }
    return data


def test_the_second_scheme_commits_to_the_terms_as_documented() -> None:
    data = server_record()
    terms = data["deal"]["terms"]
    assert json.loads(terms) == {"hand": 3, "dealer": data["dealer"], "ruleset": data["ruleset"]}
    assert terms.isascii() and " " not in terms
    text = f"paohuzi-deal/2\n{SALT}\n{terms}\n{data['deck']}"
    assert data["deal"]["commitment"] == hashlib.sha256(text.encode()).hexdigest()
    assert verify(data).ok and "hand number" in verify(data).message


def _tampered(data: dict[str, Any], how: str) -> dict[str, Any]:
    """The record changed one way; a copy."""
    data = json.loads(json.dumps(data))
    actions, result = data["actions"], data["result"]
    if how == "last action dropped":
        data["actions"] = actions[:-1]
    elif how == "middle action dropped":
        del actions[len(actions) // 2]
    elif how == "payments changed":
        result["payments"] = [p * 2 for p in result["payments"]]
    elif how == "winner changed":
        result["winner"] = 1 if result["winner"] != 1 else 2
    elif how == "payments as floats":  # equal in Python, not the same JSON (D167)
        result["payments"] = [float(p) for p in result["payments"]]
    elif how == "hand number changed":
        data["hand"] += 1
    elif how == "rule set changed":
        data["ruleset"]["deng_step"] += 1
    elif how == "action after the end":
        actions.append(f"{data['dealer']} pass")
    elif how == "result dropped":
        del data["result"]
    return data


TAMPERINGS = {
    "last action dropped": "actions: the hand does not end with the record's last action",
    "middle action dropped": "action",
    "payments changed": "result.payments: the record says",
    "winner changed": "result.winner: the record says",
    "payments as floats": "result.payments: the record says [",
    "hand number changed": "hand: the record says 4, the deal committed to 3",
    "rule set changed": "ruleset.deng_step: the record says 4, the deal committed to 3",
    "action after the end": "comes after the end of the hand",
    "result dropped": "result: the record of a finished hand has no result",
}


def _won() -> dict[str, Any]:
    """A server record of a hand someone won (so its winner and payments say something)."""
    for seed in range(100):
        data = server_record(seed)
        if data["result"]["winner"] is not None:
            return data
    raise AssertionError("no win in 100 seeded hands")


def test_verify_names_what_was_tampered_with(tmp_path: Path) -> None:
    """Issue 22: a finished server record with its last action dropped passed (exit 0)."""
    data = _won()
    good = tmp_path / "good.phz.json"
    good.write_text(json.dumps(data))
    done = run_verify(good, "--commitment", data["deal"]["commitment"])
    assert done.returncode == 0 and "deal verified" in done.stdout, done.stdout
    for how, message in TAMPERINGS.items():
        path = tmp_path / f"{how.replace(' ', '-')}.phz.json"
        path.write_text(json.dumps(_tampered(data, how)))
        done = run_verify(path)
        assert done.returncode == 1, (how, done.stdout, done.stderr)
        assert done.stdout.startswith("not verified: ") and message in done.stdout, (
            how,
            done.stdout,
        )


def test_a_first_scheme_record_with_its_last_action_dropped_fails_too(tmp_path: Path) -> None:
    data = finished_record()
    path = tmp_path / "short.phz.json"
    path.write_text(json.dumps(dict(data, actions=data["actions"][:-1])))
    done = run_verify(path)
    assert done.returncode == 1 and "an action is missing" in done.stdout, done.stdout


def test_a_crafted_deal_is_not_verified_and_says_why() -> None:
    # verify reads records from anyone: terms nested deep enough to exhaust Python's
    # recursion, or a salt with a lone surrogate, were tracebacks
    data = _won()
    deep = dict(data, deal=dict(data["deal"], terms="[" * 100_000))
    assert verify(deep) == Verdict(False, "the deal's terms are not JSON")
    lone = dict(data, deal=dict(data["deal"], salt="\ud800"))
    assert verify(lone) == Verdict(False, "the deal's salt or terms are not text")
