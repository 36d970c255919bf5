"""What rules a room plays: a preset's name, or a rule-set object from the lobby.

The lobby sends ``rules`` as a preset name (``"hunan"``) or as an object naming the preset and
any options changed from it (``{"preset": "hunan", "players": 4, "min_huxi": 10}``), the shape
of ``RuleSet.to_json``. Every record carries the whole rule set (F4 ``ruleset``, D25), so any
options replay exactly. The room stores a preset as its name and anything else as the whole
rule set's JSON.
"""

from __future__ import annotations

import json
from typing import Any

from paohuzi.engine.rules import PRESETS, RuleSet


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
    try:
        rules = RuleSet.from_json(spec)
    except ValueError as error:  # a RuleSetError, naming the field
        raise ValueError(f"rules: {error}"[:300]) from error
    if rules == PRESETS.get(rules.name):
        return rules.name, rules
    return json.dumps(rules.to_json(), sort_keys=True), rules
