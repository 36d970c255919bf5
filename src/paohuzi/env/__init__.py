"""Reinforcement-learning environments (needs the ``env`` extra: PettingZoo, Gymnasium,
NumPy). ``from paohuzi.env import env, raw_env`` as in PettingZoo's classic environments.

Importing it registers the Gymnasium environments ``paohuzi/SingleSeat-v0`` and
``paohuzi/SelfPlay-v0`` (``gymnasium.make("paohuzi/SingleSeat-v0", opponents=…)``). As
registered they take every action of their action space, an illegal one ending the hand with
the penalty (``illegal="penalty"``, D132): Gymnasium's API, and its ``check_env``, step any
element of the space; ``illegal="raise"`` is the classes' default and may be asked for."""

import gymnasium

from paohuzi.engine.action_ids import NUM_ACTIONS, action_to_id, id_to_action
from paohuzi.env.aec import env, raw_env
from paohuzi.env.encoding import PLANES, action_mask, encode, encode_history
from paohuzi.env.policy import PolicyBot
from paohuzi.env.single import SelfPlayEnv, SingleSeatEnv

ENV_IDS = ("paohuzi/SingleSeat-v0", "paohuzi/SelfPlay-v0")
for _id, _entry in zip(ENV_IDS, ("SingleSeatEnv", "SelfPlayEnv"), strict=True):
    if _id not in gymnasium.registry:
        gymnasium.register(
            _id, entry_point=f"paohuzi.env.single:{_entry}", kwargs={"illegal": "penalty"}
        )

__all__ = [
    "ENV_IDS",
    "NUM_ACTIONS",
    "PLANES",
    "PolicyBot",
    "SelfPlayEnv",
    "SingleSeatEnv",
    "action_mask",
    "action_to_id",
    "encode",
    "encode_history",
    "env",
    "id_to_action",
    "raw_env",
]
