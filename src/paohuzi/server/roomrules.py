"""What rules a room plays: a preset's name, or a rule-set object from the lobby.

The lobby sends ``rules`` as a preset name (``"hunan"``) or as an object naming the preset and
any options changed from it (``{"preset": "hunan", "players": 4, "min_huxi": 10}``), the shape
of ``RuleSet.to_json``. Records name only the preset (F4), so this server plays presets as they
are: an option that changes a preset, or a four-seat table, is refused with the reason until
records carry a full rule set (issue 11). The room stores the rules as the text it was given.
"""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any

from paohuzi.game import PLAYERS
from paohuzi.rules import PRESETS, RuleSet


def room_rules(spec: Any) -> tuple[str, RuleSet]:
    """The rules a room was asked for, as stored text and rule set; raises ValueError saying
    what is wrong."""
    if isinstance(spec, str) and spec.startswith("{"):
        try:
            spec = json.loads(spec)
        except ValueError:
            raise ValueError("rules: not a preset name nor a JSON object") from None
    if isinstance(spec, str):
        if spec not in PRESETS:
            raise ValueError(f"unknown rules {spec!r} (known: {', '.join(sorted(PRESETS))})")
        return spec, PRESETS[spec]
    if not isinstance(spec, dict):
        raise ValueError("rules: a preset name or an object")
    preset = spec.get("preset", "hunan")
    if not isinstance(preset, str) or preset not in PRESETS:
        raise ValueError(f"unknown rules {preset!r} (known: {', '.join(sorted(PRESETS))})")
    base = PRESETS[preset]
    known = {f.name for f in fields(RuleSet)} - {"name"}
    for key, value in spec.items():
        if key == "preset":
            continue
        if key == "players":
            if value != PLAYERS:
                raise ValueError(f"rules: this server seats {PLAYERS} players a table")
            continue
        if key not in known:
            raise ValueError(f"rules: unknown option {str(key)[:32]!r}")
        if value != getattr(base, key):
            raise ValueError(f"rules: {key} differs from {preset}: house rules are not played yet")
    return preset, base
