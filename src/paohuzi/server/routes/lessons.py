"""The course (issue 27, D145): the list of lessons and each lesson as the page walks it, made
once a process from the shipped lesson files (:mod:`paohuzi.server.course`). Read-only, the
same for everyone, rate-limited per address."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, Request
from fastapi.responses import Response

from paohuzi.server.course import course
from paohuzi.server.routes.common import address_of, server_of

router = APIRouter()

LessonId = Annotated[str, Path(min_length=1, max_length=60, pattern=r"^[A-Za-z0-9-]+$")]
"""A lesson's id as the lesson format allows it (docs/lessons.md)."""
NO_LESSON = "没有这一课 · no such lesson"
TOO_MANY = "读得太频繁，请稍等一分钟 · too many reads of the course; wait a minute"
MAKING = 30.0
"""Seconds the course may take to be made, once a process (well under a second here)."""


async def _course(request: Request) -> tuple[bytes, dict[str, bytes]]:
    server = server_of(request)
    if not server.lesson_reads.allow(address_of(request)):
        raise HTTPException(429, TOO_MANY)
    if server.course is None:  # made in a thread once (the engine plays every lesson through)
        async with server.making:
            if server.course is None:
                server.course = await asyncio.wait_for(asyncio.to_thread(course), MAKING)
    return server.course


@router.get("/api/lessons")
async def lessons(request: Request) -> Response:
    """The course: each lesson's id, place, title, summary and number of steps, in order."""
    listing, _ = await _course(request)
    return Response(listing, media_type="application/json")


@router.get("/api/lessons/{lesson_id}")
async def lesson(request: Request, lesson_id: LessonId) -> Response:
    """One lesson, every step worked out (:func:`paohuzi.server.course.lesson_json`)."""
    _, each = await _course(request)
    found = each.get(lesson_id)
    if found is None:
        raise HTTPException(404, NO_LESSON)
    return Response(found, media_type="application/json")
