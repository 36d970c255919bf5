"""For the operator and the supervisors: liveness, readiness, metrics, the quarantine."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from paohuzi.server.routes.common import server_of
from paohuzi.server.store import StoreError

router = APIRouter()


@router.get("/healthz")
async def health() -> dict[str, str]:
    """Liveness: the process answers (a supervisor restarts one that does not). It asks
    nothing of the database: a stalled database is not a reason to restart."""
    return {"status": "ok"}


@router.get("/readyz")
async def ready(request: Request) -> JSONResponse:
    """Readiness: the database answers within its deadline, no write has waited long, and
    in a hall this process's leases were renewed in time; a front proxy sends no new room
    here while it is not."""
    server = server_of(request)
    try:
        await server.rooms(request).db.ping()
    except StoreError as error:
        server.trouble.warn("store", f"not ready: {error}")
        return JSONResponse({"status": "unavailable"}, status_code=503)
    return JSONResponse({"status": "ready"})


@router.get("/api/metrics")
async def metrics(request: Request) -> dict[str, Any]:
    server = server_of(request)
    server.operator(request)
    rooms = server.rooms(request)
    return {
        "rooms": rooms.count(),
        "quarantined": rooms.quarantined,
        "connections": sum(len(r.listeners) for r in rooms.rooms.values()),
        "commits": rooms.db.commits,
        "writes": rooms.db.written,
        **rooms.metrics.summary(),
        **rooms.sends.summary("sent", "send_"),
    }


@router.get("/api/admin/quarantine")
async def quarantine(request: Request) -> list[dict[str, str]]:
    server = server_of(request)
    server.operator(request)
    rows: list[tuple[str, str]] = await server.read(request, "quarantined")
    return [{"room": room_id, "why": note} for room_id, note in rows]
