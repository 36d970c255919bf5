"""What a finished hand and a finished match leave to the known players who played them: the
hands their profile lists and their ratings (issue 25, D121).

A room calls :func:`on_hand_over` once a hand's record is stored and :func:`on_match_over` once
the hand that ends a match is; both write through the room's :class:`Database` writer (as
``finish_hand``), after it and apart from it, so a rating never holds up nor fails a hand. Both
are idempotent (a hand is kept once per player, a match rated once), so a room restored after
a crash between the hand's write and these calls makes them again (:meth:`Rooms._restore`),
and a write the database did not take (a stall past its deadline, a failed commit) is tried
again later (:meth:`Room.keep_standing`): each says whether it must be. Neither is fenced by the
room's lease (:data:`~paohuzi.server.store.UNFENCED`): a process that lost the room meanwhile
still keeps the hands it finished.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from paohuzi.engine.game import Game
from paohuzi.server.database import READ_DEADLINE, Database
from paohuzi.server.store import PlayedHand, RatedMatch, StoreError

log = logging.getLogger("paohuzi.server")


def played_hands(players: Sequence[str | None], game: Game) -> list[PlayedHand]:
    """Each known player's facts of the finished hand ``game`` (by seat; None: no known
    player sits there)."""
    result = game.result
    if result is None:
        return []
    score = result.hu.score if result.hu is not None else None
    found = []
    for seat, player in enumerate(players):
        if player is None or seat == game.seating.sitting_out:
            continue
        won = result.winner == seat
        found.append(
            PlayedHand(
                player,
                seat,
                result.payments[seat],
                score.huxi if won and score is not None else 0,
                won,
                tuple(n for n, _ in score.mingtang) if won and score is not None else (),
            )
        )
    return found


async def on_hand_over(
    db: Database, room: str, n: int, family: str | None, players: Sequence[str | None], game: Game
) -> bool:
    """Keep hand ``n`` of ``room`` (finished and stored) in its known players' profiles;
    False when it must be tried again (the database did not take it)."""
    rows = played_hands(players, game)
    if family is None or not rows:
        return True
    try:
        await db.write("hand_played", room, n, family, rows, deadline=READ_DEADLINE)
    except StoreError as error:
        log.warning("room %s: could not keep hand %d for its players: %s", room, n, error)
        return False
    return True


async def on_match_over(
    db: Database,
    room: str,
    match_no: int,
    family: str | None,
    players: Sequence[str | None],
    bots: Sequence[str | None],
    totals: Sequence[int],
    hands: int,
) -> bool:
    """Rate match ``match_no`` of ``room`` (its last hand stored): each seat's known player
    (None: a bot, whose level is in ``bots``, or a person who is no known player) by the
    match's ``totals`` over its ``hands`` hands; False when it must be tried again."""
    if family is None or hands < 1 or not any(p is not None for p in players):
        return True
    match = RatedMatch(match_no, family, tuple(players), tuple(bots), tuple(totals), hands)
    try:
        await db.write("rate_match", room, match, deadline=READ_DEADLINE)
    except StoreError as error:
        log.warning("room %s: could not rate match %d: %s", room, match_no, error)
        return False
    return True
