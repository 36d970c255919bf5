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

The second scheme, ``paohuzi-deal/2`` (issue 22, the server's since), also commits to the deal's
*terms*: the hand's number in its room, its dealer and its whole rule set, as the canonical
JSON text :func:`deal_terms` makes, which the record carries verbatim (``deal.terms``). The
digest is then over ``SCHEME + "\n" + salt + "\n" + terms + "\n" + deck``, and :func:`verify`
also checks that the record's ``hand``, ``dealer`` and ``ruleset`` are the terms', naming any
that is not: a record cannot be passed off as another hand's, nor scored under other rules.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from paohuzi.engine.cards import Kind, NotationError, format_cards, parse_cards
from paohuzi.engine.record import loads

SCHEME = "paohuzi-deal/1"
"""The deck alone."""
SCHEME_TERMS = "paohuzi-deal/2"
"""The deck and the deal's terms (hand number, dealer, rule set)."""
SALT_HEX_DIGITS = 64


def commitment(deck: Sequence[Kind], salt: str, terms: str | None = None) -> str:
    """The hex SHA-256 commitment to ``deck`` under ``salt``: of the first scheme, or with the
    deal's ``terms`` (:func:`deal_terms`) of the second."""
    text = format_cards(deck, sort=False)
    if terms is None:
        return hashlib.sha256(f"{SCHEME}\n{salt}\n{text}".encode()).hexdigest()
    return hashlib.sha256(f"{SCHEME_TERMS}\n{salt}\n{terms}\n{text}".encode()).hexdigest()


def deal_terms(hand: int, dealer: int, ruleset: dict[str, Any]) -> str:
    """The terms of a deal as the second scheme commits to them: canonical JSON (sorted keys,
    no spaces, ASCII) of the hand's number in its room, its dealer and its rule set's JSON."""
    terms = {"hand": hand, "dealer": dealer, "ruleset": ruleset}
    return json.dumps(terms, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


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
    scheme = deal.get("scheme")
    if scheme not in (SCHEME, SCHEME_TERMS):
        known = f"{SCHEME}, {SCHEME_TERMS}"
        return Verdict(False, f"unknown deal scheme {scheme!r} (known: {known})")
    terms = deal.get("terms") if scheme == SCHEME_TERMS else None
    if scheme == SCHEME_TERMS:
        if not isinstance(terms, str):
            return Verdict(False, "the deal has no 'terms' string")
        differs = _terms_differ(record, terms)
        if differs:
            return Verdict(False, differs)
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
    try:
        opened = commitment(cards, salt, terms)
    except UnicodeEncodeError:  # a lone surrogate (\ud800) in the salt or the terms
        return Verdict(False, "the deal's salt or terms are not text")
    if opened != promised.lower():
        what = "the deck does" if terms is None else "the deck or the terms do"
        return Verdict(False, f"{what} not match the commitment: the deal was changed")
    if terms is None:
        return Verdict(True, "deal verified: the deck is the one committed to at the deal")
    return Verdict(
        True,
        "deal verified: the deck, hand number, dealer and rule set are the ones committed to "
        "at the deal",
    )


def _terms_differ(record: dict[str, Any], terms: str) -> str:
    """What of the record's hand number, dealer and rule set is not the deal's terms, in words;
    empty when they all are."""
    try:
        promised = loads(terms)
    except ValueError:  # also nesting that exhausts recursion, numbers of 5,000 digits
        return "the deal's terms are not JSON"
    if not isinstance(promised, dict):
        return "the deal's terms are not a JSON object"
    for name in ("hand", "dealer"):
        if record.get(name) != promised.get(name):
            return (
                f"{name}: the record says {record.get(name)!r}, the deal committed to "
                f"{promised.get(name)!r}"
            )
    ruleset, committed = record.get("ruleset"), promised.get("ruleset")
    if not isinstance(ruleset, dict) or not isinstance(committed, dict):
        return "ruleset: the record or the deal's terms has no rule set"
    for key in sorted(set(ruleset) | set(committed)):
        if ruleset.get(key) != committed.get(key):
            return (
                f"ruleset.{key}: the record says {ruleset.get(key)!r}, the deal committed to "
                f"{committed.get(key)!r}"
            )
    return ""
