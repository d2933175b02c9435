"""fastbg: a backgammon simulation engine with a Cython core.

Public API
----------
Position
    A validated board with GNU Backgammon Position ID and XGID conversions.
legal_plays(position, dice, engine="cython")
    Every legal play for a roll, with notation.
rollout(position, games, seed=None, workers=None, policy="pubeval", engine="cython", dice=None)
    Monte Carlo rollout -> RolloutResult.
get_engine(name)
    The functions of the "cython" or "python" engine.
"""
__version__ = "0.1.0"

from .engine import ENGINES, get_engine
from .plays import Play, legal_plays, parse_dice
from .position import Position
from .positionid import decode_position_id, decode_xgid, encode_position_id, encode_xgid
from .rollout import POLICIES, PROBABILITY_KEYS, RolloutResult, rollout

__all__ = [
    "ENGINES", "POLICIES", "PROBABILITY_KEYS", "Play", "Position", "RolloutResult",
    "decode_position_id", "decode_xgid", "encode_position_id", "encode_xgid",
    "get_engine", "legal_plays", "parse_dice", "rollout",
]
