"""Bots for tests/test_research.py, named ``tests.policy_bots:…`` as a user's would be."""

from __future__ import annotations

from paohuzi.env.policy import PolicyBot, first_legal


def first_legal_bot(seed: int | None = None) -> PolicyBot:
    """A policy on the encoded planes, made a bot by the adapter."""
    return PolicyBot(first_legal, name="first-legal")


def not_a_bot(seed: int | None = None) -> int:
    return 3
