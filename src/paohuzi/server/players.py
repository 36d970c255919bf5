"""Players (issue 25): a person known from one room to the next, without a form.

A player is made at the first visit: a public id and a secret, given to the browser as one
HttpOnly, SameSite=Strict cookie, ``paohuzi_player=<id>.<secret>``. The database keeps only a
hash of each secret (SHA-256: the secrets are 256 random bits, so no slow hash is needed), and
a cookie is checked by comparing hashes with :func:`hmac.compare_digest`. A cookie that does
not check (forged, unknown, another player's id with a wrong secret) is no player: the visit
gets a new one, never someone else's. Another device joins the same player with a one-time
transfer code (kept hashed, ten minutes), which gives that device a key of its own
(``player_keys``), so the first device stays signed in.

The functions taking a :class:`~paohuzi.server.store.Store` run in the database's hall
threads (:meth:`~paohuzi.server.database.Database.call`), never in the event loop.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import unicodedata
from dataclasses import dataclass
from typing import Any

from paohuzi.server.store import Store, StoreError

COOKIE = "paohuzi_player"
NAME_LENGTH = 12
"""Longest player name, in characters."""
AVATARS = 12
"""Avatars shipped (``static/avatars/0.svg`` … ``11.svg``); a player's is an index."""
TRANSFER_TTL = 600.0
"""Seconds a transfer code may be used."""
TRANSFER_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""Transfer codes' characters: no 0/O, 1/I, so a code read aloud or copied by hand works."""
TRANSFER_LENGTH = 12
"""Characters of a transfer code: 60 bits, tried at most a few times a minute an address."""
KEYS = 8
"""Devices a player may have besides the first; a new one past that replaces the oldest."""
SEEN_EVERY = 60.0
"""A player's ``seen`` is written at most this often."""
LEAVE_DELAY = 20.0
"""Seconds the queue holds back a player for each hand they left (:func:`leave_delay`)."""
LEAVE_DELAY_MOST = 600.0
MUTE, BLOCK = "mute", "block"


@dataclass(frozen=True)
class Player:
    id: str
    name: str
    avatar: int
    leaves: int = 0

    def public(self) -> dict[str, Any]:
        """What anyone may know of the player."""
        return {"id": self.id, "name": self.name, "avatar": self.avatar}


def hashed(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "replace")).hexdigest()


def read_cookie(value: str | None) -> tuple[str, str] | None:
    """The (player id, secret) a cookie's value names; None for anything else."""
    if not value or len(value) > 128 or not value.isascii():
        return None
    player, dot, secret = value.partition(".")
    if not dot or not 8 <= len(player) <= 32 or not 16 <= len(secret) <= 64:
        return None
    return player, secret


def check_name(value: Any) -> str:
    """A player's name as stored and shown (as text, never markup): NFC, spaces trimmed and
    collapsed, 1–:data:`NAME_LENGTH` characters; a control, format, private-use, unassigned
    or separator character other than the space (NUL, a newline, direction marks) is
    refused, not dropped; so is a name of nothing but spaces and combining marks. Raises
    ValueError saying what is wrong."""
    if not isinstance(value, str):
        raise ValueError("a name is a string")
    text = unicodedata.normalize("NFC", value)
    for ch in text:
        if ch != " " and unicodedata.category(ch)[0] in "CZ":
            raise ValueError(f"a name may not hold the character U+{ord(ch):04X}")
    name = " ".join(text.split())
    if not any(unicodedata.category(ch)[0] in "LNPS" for ch in name):
        raise ValueError("a name needs at least one visible character")
    if len(name) > NAME_LENGTH:
        raise ValueError(f"a name has at most {NAME_LENGTH} characters")
    return name


def leave_delay(leaves: int) -> float:
    """Seconds a player who left ``leaves`` hands waits in the queue before being matched."""
    return min(LEAVE_DELAY_MOST, LEAVE_DELAY * max(0, leaves))


def new_code() -> str:
    return "".join(secrets.choice(TRANSFER_ALPHABET) for _ in range(TRANSFER_LENGTH))


def clean_code(value: str) -> str:
    """A transfer code as typed: case and separators do not matter."""
    return "".join(ch for ch in value.upper() if ch.isalnum())


# ---------------------------------------------------------------------- store (hall threads)


def create(store: Store, now: float) -> tuple[Player, str]:
    """A new player with a default name; the player and their secret (shown once)."""
    player, secret = secrets.token_hex(8), secrets.token_urlsafe(32)
    found = Player(player, f"玩家{secrets.randbelow(10_000):04d}", secrets.randbelow(AVATARS))
    with store._transaction():
        store._execute(
            "INSERT INTO players (id, secret, name, avatar, created, seen, leaves)"
            " VALUES (?, ?, ?, ?, ?, ?, 0)",
            (found.id, hashed(secret), found.name, found.avatar, now, now),
        )
    return found, secret


def find(store: Store, player: str, secret: str, now: float) -> Player | None:
    """The player a cookie names, if its secret is one of theirs (compared in constant time)."""
    with store._transaction():
        row = store._execute(
            "SELECT name, avatar, leaves, seen, secret FROM players WHERE id = ?", (player,)
        ).fetchone()
        if row is None:
            return None
        name, avatar, leaves, seen, first = row
        keys = [first] + [
            k for (k,) in store._execute("SELECT hash FROM player_keys WHERE player = ?", (player,))
        ]
        given = hashed(secret).encode()
        if not any(hmac.compare_digest(given, str(k).encode()) for k in keys):
            return None
        if now - seen > SEEN_EVERY:
            store._execute("UPDATE players SET seen = ? WHERE id = ?", (now, player))
    return Player(player, str(name), int(avatar), int(leaves))


def profile(store: Store, player: str) -> Player | None:
    """A player's public profile (no secret is read)."""
    with store._transaction():
        row = store._execute(
            "SELECT name, avatar, leaves FROM players WHERE id = ?", (player,)
        ).fetchone()
    return None if row is None else Player(player, str(row[0]), int(row[1]), int(row[2]))


def update(store: Store, player: str, name: str | None, avatar: int | None) -> Player | None:
    with store._transaction():
        if name is not None:
            store._execute("UPDATE players SET name = ? WHERE id = ?", (name, player))
        if avatar is not None:
            store._execute("UPDATE players SET avatar = ? WHERE id = ?", (avatar, player))
    return profile(store, player)


def start_transfer(store: Store, player: str, code: str, now: float) -> None:
    """Keep the hash of ``player``'s new transfer code (an earlier one is void from now on)."""
    with store._transaction():
        store._execute(
            "UPDATE players SET transfer = ?, transfer_until = ? WHERE id = ?",
            (hashed(code), now + TRANSFER_TTL, player),
        )


def claim_transfer(store: Store, code: str, now: float) -> tuple[Player, str] | None:
    """Use a transfer code once: a new key of its player for this device (the player and
    the key's secret), or None when no code in time matches."""
    secret = secrets.token_urlsafe(32)
    with store._transaction():
        row = store._execute(
            "SELECT id FROM players WHERE transfer = ? AND transfer_until > ?",
            (hashed(code), now),
        ).fetchone()
        if row is None:
            return None
        player = str(row[0])
        taken = store._execute(
            "UPDATE players SET transfer = NULL, transfer_until = NULL"
            " WHERE id = ? AND transfer = ?",
            (player, hashed(code)),
        )
        if taken.rowcount != 1:  # used by another request meanwhile
            return None
        store._execute(
            "INSERT INTO player_keys (hash, player, created) VALUES (?, ?, ?)",
            (hashed(secret), player, now),
        )
        old = store._execute(
            "SELECT hash FROM player_keys WHERE player = ? ORDER BY created DESC",
            (player,),
        ).fetchall()
        for (key,) in old[KEYS:]:
            store._execute("DELETE FROM player_keys WHERE hash = ?", (key,))
    found = profile(store, player)
    if found is None:
        raise StoreError("the player vanished")
    return found, secret


def add_leave(store: Store, player: str) -> None:
    with store._transaction():
        store._execute("UPDATE players SET leaves = leaves + 1 WHERE id = ?", (player,))


def set_block(store: Store, player: str, other: str, kind: str | None) -> bool:
    """``player`` mutes or blocks ``other`` (None: neither any more); False when ``other``
    is no player."""
    with store._transaction():
        if store._execute("SELECT 1 FROM players WHERE id = ?", (other,)).fetchone() is None:
            return False
        store._execute("DELETE FROM blocks WHERE player = ? AND other = ?", (player, other))
        if kind is not None:
            store._execute(
                "INSERT INTO blocks (player, other, kind) VALUES (?, ?, ?)", (player, other, kind)
            )
    return True


def blocks_of(store: Store, player: str) -> dict[str, list[str]]:
    """Whom ``player`` mutes and blocks, and who blocks them (never seated together)."""
    with store._transaction():
        mine = store._execute(
            "SELECT other, kind FROM blocks WHERE player = ? ORDER BY other", (player,)
        ).fetchall()
        theirs = store._execute(
            "SELECT player FROM blocks WHERE other = ? AND kind = ? ORDER BY player",
            (player, BLOCK),
        ).fetchall()
    return {
        "mute": [str(o) for o, k in mine if k == MUTE],
        "block": [str(o) for o, k in mine if k == BLOCK],
        "blocked_by": [str(p) for (p,) in theirs],
    }
