"""The server's routes, one router for each concern (D81): :mod:`.rooms` (create a room, its
public facts, the lobby's bots), :mod:`.seats` (a seat's invite, renewed), :mod:`.history`
(finished hands, records, replays, reviews, the analysis board), :mod:`.health` (liveness,
readiness, metrics, the quarantine), :mod:`.pages` (the web table's pages and files),
:mod:`.play` (the WebSocket of a seat or a spectator), :mod:`.players` (a person's own player,
mutes and blocks), :mod:`.hall` (quick play, the open tables), :mod:`.standings` (players'
profiles and the leaderboards), :mod:`.lessons` (the course, issue 27) and :mod:`.puzzles`
(the puzzles, issue 27). What they share, each application's limits, caches and helpers, is
its :class:`~.common.Server`."""

from paohuzi.server.routes import (
    hall,
    health,
    history,
    lessons,
    pages,
    play,
    players,
    puzzles,
    rooms,
    seats,
    standings,
)

ROUTERS = (
    pages.router,
    health.router,
    rooms.router,
    seats.router,
    history.router,
    play.router,
    players.router,
    hall.router,
    standings.router,
    lessons.router,
    puzzles.router,
)
"""Every router of the application, in the order they are included."""
