"""The game: positions, the state beside the board, legal plays and outcome names.

:class:`~fastbg.game.position.Position` (a validated board with its IDs and measures),
:class:`~fastbg.game.matchstate.MatchState` (cube, score and rules) and its IDs
(:mod:`~fastbg.game.ids`), :func:`~fastbg.game.parse.parse_game` (any accepted text to
``(Position, MatchState, dice)``), :func:`~fastbg.game.plays.legal_plays` and the names of
outcomes and probabilities (:mod:`~fastbg.game.outcomes`).
"""
from .ids import MatchID, XGIDGame, encode_gnubg_id, encode_match_id, game_to_xgid
from .matchstate import (DEFAULT_MAX_CUBE, MatchState, decode_gnubg_id, decode_match_id,
                         xgid_to_game)
from .outcomes import CUBE_OWNERS, OUTCOME_CLASSES, OUTCOME_INDICATORS, PROBABILITY_KEYS
from .matchfile import (Action, Game, Match, MatchFileError, format_match, parse_match,
                        read_match, write_match)
from .parse import parse_game, position_and_roll
from .plays import Play, legal_plays
from .position import START_BOARD, Position, diagram

__all__ = [
    "MatchID", "XGIDGame", "encode_gnubg_id", "encode_match_id", "game_to_xgid",
    "DEFAULT_MAX_CUBE", "MatchState", "decode_gnubg_id", "decode_match_id", "xgid_to_game",
    "CUBE_OWNERS", "OUTCOME_CLASSES", "OUTCOME_INDICATORS", "PROBABILITY_KEYS",
    "parse_game", "position_and_roll", "Play", "legal_plays", "START_BOARD", "Position",
    "diagram", "Action", "Game", "Match", "MatchFileError", "format_match", "parse_match",
    "read_match", "write_match",
]
