"""fastbg: a backgammon simulation engine with a Cython core.

The package is layered; each layer imports only the ones below it (checked by
import-linter, ``pyproject.toml``): ``cli`` > ``rollouts`` > ``cube`` | ``nn`` > ``game``
> ``formats`` > ``engine`` > ``_core`` (compiled) > ``reference`` (pure Python).

Public API
----------
``Position``
    A validated board with GNU Backgammon Position ID and XGID conversions.
``legal_plays(position, dice, engine="cython")``
    Every legal play for a roll, with notation.
``rollout(position, games, seed=None, workers=None, policy="nn", engine="cython", dice=None)``
    Monte Carlo rollout -> RolloutResult.
``cubeful_rollout(position, games, *, seed=None, state=None, ...)``
    Rollout with the cube in play, money or match -> CubefulRolloutResult.
``get_engine(name)``
    The functions of the "cython" or "python" engine.
``MatchState, parse_game(text)``
    Cube, score and rules beside the board; read "start", Position IDs, GNU Backgammon
    PositionID:MatchID pairs and XGIDs.
``money_cube_decision(probabilities, ...), cubeful_equity, gammon_values, take_point, cash_point``
    Money cube decisions by Janowski's formulas -> MoneyCubeDecision.
``load_met(name_or_path), MatchEquityTable``
    Match equity tables (Kazaross-XG2 by default) and the arithmetic on them.
``match_cube_decision(probabilities, match_length, score, ...)``
    Match-play cube decisions in MWC and EMG -> MatchCubeDecision.
``nn.evaluate(position, engine="cython")``
    The shipped network's (or, in a pure bear-off, the bear-off database's)
    probabilities and cubeless equity -> dict (module :mod:`fastbg.nn`).
"""
__version__ = "0.1.0"

from . import nn
from .cube import (CUBE_OWNERS, DEFAULT_MET, SHIPPED_METS, MatchCubeDecision, MatchEquityTable,
                   MoneyCubeDecision, cash_point, cube_action, cubeful_equity,
                   default_cube_efficiency, gammon_values, load_met, match_cube_decision,
                   money_cube_decision, probability_covariance, take_point)
from .engine import ENGINES, get_engine
from .formats import decode_position_id, decode_xgid, encode_position_id, encode_xgid, parse_dice
from .game import PROBABILITY_KEYS, MatchState, Play, Position, legal_plays, parse_game
from .rollouts import POLICIES, CubefulRolloutResult, RolloutResult, cubeful_rollout, rollout

__all__ = [
    "ENGINES", "POLICIES", "PROBABILITY_KEYS", "Play", "Position", "RolloutResult",
    "decode_position_id", "decode_xgid", "encode_position_id", "encode_xgid",
    "get_engine", "legal_plays", "parse_dice", "rollout",
    "CubefulRolloutResult", "cubeful_rollout",
    "CUBE_OWNERS", "MoneyCubeDecision", "cash_point", "cube_action", "cubeful_equity",
    "default_cube_efficiency", "gammon_values", "money_cube_decision",
    "probability_covariance", "take_point",
    "DEFAULT_MET", "SHIPPED_METS", "MatchEquityTable", "load_met",
    "MatchCubeDecision", "match_cube_decision", "MatchState", "parse_game", "nn",
]
