#!/usr/bin/env python3
"""A protocol bot written with the package (docs/protocol.md): each ``ask`` becomes the seat's
``Observation`` again, under the rule set its hand's ``start`` carried, and the built-in greedy
bot chooses. A template for a bot whose policy reads observations or the encoded planes.

    paohuzi tournament --bots "cmd:.venv/bin/python examples/bots/greedy_bot.py",greedy,random

(the Python that has the package installed: ``.venv/bin/python`` after the README's install,
or ``python`` with the venv activated).
"""

import json
import sys

from paohuzi.bots import GreedyBot
from paohuzi.bots.protocol import observation_from_json
from paohuzi.engine.rules import RuleSet

bot = GreedyBot()
rules = None
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        rules = RuleSet.from_json(message["rules"])
    elif message["type"] == "ask":
        action = bot.act(observation_from_json(message, rules))
        print(json.dumps({"action": str(action), "id": message["id"]}), flush=True)
