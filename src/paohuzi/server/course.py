"""The course of lessons (issue 27) as the web page walks it: every shipped lesson played
through once by :class:`paohuzi.lessons.Walk`, each step's table as the learner sees it and the
verdict on every move the learner could make there, worked out ahead (D145).

A lesson is the same for everyone and never changes while the server runs, so the page gets a
whole lesson in one read and walks it itself: it sends nothing back, and there is no state of
the client's for the server to trust. The verdicts are :meth:`Walk.judge`'s, the one judge the
terminal's ``paohuzi learn`` uses too. This module imports nothing of the web framework.
"""

from __future__ import annotations

import json
from typing import Any

from paohuzi.bots.protocol import event_json, observation_json
from paohuzi.engine.cards import KIND_NAMES
from paohuzi.engine.game import Game
from paohuzi.engine.groups import Group
from paohuzi.engine.observation import observe
from paohuzi.engine.record import result_json
from paohuzi.lessons import Lesson, Text, Walk, shipped
from paohuzi.server.rooms import reveal_of

JSON = dict[str, Any]


def text_json(text: Text | None) -> JSON | None:
    return None if text is None else {"zh": text.zh, "en": text.en}


def view(game: Game, seat: int, *, acting: bool) -> JSON:
    """The table as ``seat`` sees it, in the fields of a live seat's state frame (the README's
    serve section); ``acting`` False leaves its legal moves out (a step that asks for none)."""
    obs = observe(game, seat)
    found = observation_json(obs)
    huxi = game.rules.huxi
    found["table_huxi"] = [
        [huxi.group(g) if isinstance(g, Group) else None for g in table] for table in obs.tables
    ]
    found["events"] = [event_json(e) for e in obs.events]
    found["huxi_now"] = game.huxi(seat)  # the live table's 当前胡息 (its hint), table and hand
    if not acting or game.to_act != seat:
        found["legal"] = []
    found["over"] = game.is_over
    found["result"] = result_json(game.result)
    found["reveal"] = reveal_of(game) if game.is_over else None
    return found


def lesson_json(lesson: Lesson) -> JSON:
    """A lesson as the page walks it: per step its texts, the highlighted kinds, the table as
    the step shows it, and, for a step that teaches a move, the verdict on each legal move
    (``answers``, keyed as the state's ``legal`` names them) and the table after the taught
    move and the moves scripted after it (``done``)."""
    walk = Walk(lesson)
    seat = lesson.seat
    steps = []
    while (step := walk.step) is not None:
        shown = view(walk.game, seat, acting=step.move is not None)
        answers = {}
        done = None
        if step.move is not None:
            for action in walk.game.legal_actions():
                verdict = walk.judge(action)
                answers[str(action)] = {"right": verdict.right, "text": text_json(verdict.text)}
            taught = next(a for a in walk.game.legal_actions() if answers[str(a)]["right"])
            walk.answer(taught)
            done = view(walk.game, seat, acting=False)
        steps.append(
            {
                "text": text_json(step.text),
                "highlight": sorted({KIND_NAMES[k] for k in step.highlight}),
                "move": step.move is not None,
                "view": shown,
                "answers": answers,
                "done": done,
            }
        )
        walk.next()
    return {
        **entry(lesson),
        "seat": seat,
        "players": lesson.rules.players,
        "steps": steps,
    }


def entry(lesson: Lesson) -> JSON:
    """A lesson in the list of the course."""
    return {
        "id": lesson.id,
        "order": lesson.order,
        "title": text_json(lesson.title),
        "summary": text_json(lesson.summary),
        "steps": len(lesson.steps),
    }


def course() -> tuple[bytes, dict[str, bytes]]:
    """The list of the course and each lesson, as JSON text (the server makes it once: the
    shipped lessons do not change while it runs)."""
    lessons = shipped()
    listing = json.dumps({"lessons": [entry(x) for x in lessons]}, ensure_ascii=False).encode()
    each = {x.id: json.dumps(lesson_json(x), ensure_ascii=False).encode() for x in lessons}
    return listing, each
