"""Reinforcement-learning environments (needs the ``env`` extra: PettingZoo, Gymnasium,
NumPy). ``from paohuzi.env import env, raw_env`` as in PettingZoo's classic environments."""

from paohuzi.action_ids import NUM_ACTIONS, action_to_id, id_to_action
from paohuzi.env.aec import env, raw_env
from paohuzi.env.encoding import PLANES, action_mask, encode
from paohuzi.env.single import SingleSeatEnv

__all__ = [
    "NUM_ACTIONS",
    "PLANES",
    "SingleSeatEnv",
    "action_mask",
    "action_to_id",
    "encode",
    "env",
    "id_to_action",
    "raw_env",
]
