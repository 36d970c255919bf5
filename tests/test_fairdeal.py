"""Fair deals: the commitment scheme of docs/security.md and ``paohuzi verify``."""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from paohuzi.cards import full_deck
from paohuzi.fairdeal import SCHEME, commitment, verify
from paohuzi.game import Game
from paohuzi.record import record_of

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
