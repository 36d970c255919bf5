"""Provably fair deals: a commitment to the deck shown at the deal, opened by the record.

At the deal every seat is sent ``commitment(deck, salt)``, a SHA-256 digest of the deck and
a secret random salt; nobody can learn the deck from it, and the server cannot change the
deck afterwards without the digest changing. When the hand is over its record carries the
salt (``"deal": {"scheme", "commitment", "salt"}`` beside the F4 fields), so anyone can
recompute the digest from the record's deck and compare it with the one seen at the deal.

The digest is taken over the UTF-8 bytes of ``SCHEME + "\\n" + salt + "\\n" + deck``, where
``deck`` is the F1 text of the 80 cards in dealing order (``x1``…``d10``, one space between, as
F4 writes it; a record's deck is read and written out again that way before checking) and
``salt`` is the lowercase hex salt (64 digits: 256 random bits).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from paohuzi.cards import Kind, NotationError, format_cards, parse_cards

SCHEME = "paohuzi-deal/1"
SALT_HEX_DIGITS = 64


def commitment(deck: Sequence[Kind], salt: str) -> str:
    """The hex SHA-256 commitment to ``deck`` under ``salt``."""
    text = format_cards(deck, sort=False)
    return hashlib.sha256(f"{SCHEME}\n{salt}\n{text}".encode()).hexdigest()


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking a record's deal: ``ok``, and in words why not."""

    ok: bool
    message: str


def verify(record: Any, seen: str | None = None) -> Verdict:
    """Check that a record's ``deal`` opens to its deck, and, given ``seen`` (the commitment a
    seat was shown at the deal), that it is the same commitment."""
    if not isinstance(record, dict):
        return Verdict(False, "a record is a JSON object")
    deal = record.get("deal")
    if not isinstance(deal, dict):
        return Verdict(False, "the record has no 'deal' field: its deal was not committed to")
    if deal.get("scheme") != SCHEME:
        return Verdict(False, f"unknown deal scheme {deal.get('scheme')!r} (known: {SCHEME})")
    salt, promised, deck = deal.get("salt"), deal.get("commitment"), record.get("deck")
    if not isinstance(deck, str):
        return Verdict(False, "the record has no 'deck' string")
    if not isinstance(promised, str):
        return Verdict(False, "the deal has no 'commitment' string")
    if not isinstance(salt, str):
        return Verdict(False, "the deal has no 'salt': the hand is not over yet")
    if seen is not None and seen.strip().lower() != promised.lower():
        return Verdict(False, "the commitment shown at the deal is not the record's")
    try:
        cards = parse_cards(deck)
    except NotationError as error:
        return Verdict(False, f"deck: {error}")
    if commitment(cards, salt) != promised.lower():
        return Verdict(False, "the deck does not match the commitment: the deal was changed")
    return Verdict(True, "deal verified: the deck is the one committed to at the deal")
