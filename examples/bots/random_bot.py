#!/usr/bin/env python3
"""A complete paohuzi bot in a dozen lines: it speaks the bot protocol (docs/protocol.md) on
standard input and output and answers every question with a random legal action. Given a
seed, each hand's choices follow from it and the hand's own seed (sent in ``start``), so a
tournament gives the same figures however its hands are spread over processes.

    paohuzi play --bots "cmd:python examples/bots/random_bot.py",greedy
"""

import json
import random
import sys

base = sys.argv[1] if len(sys.argv) > 1 else None
rng = random.Random()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start" and base is not None:
        rng = random.Random(f"{base}:{message.get('seed')}")
    elif message["type"] == "ask":
        answer = {"action": rng.choice(message["legal"]), "id": message["id"]}
        print(json.dumps(answer), flush=True)
