#!/usr/bin/env python3
"""A complete paohuzi bot in a dozen lines: it speaks the bot protocol (docs/protocol.md) on
standard input and output and answers every question with a random legal action.

    paohuzi play --bots "cmd:python examples/bots/random_bot.py",greedy
"""

import json
import random
import sys

rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else None)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "ask":
        print(json.dumps({"action": rng.choice(message["legal"])}), flush=True)
