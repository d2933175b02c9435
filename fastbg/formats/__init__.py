"""Text formats: leaves that encode and decode plain values.

GNU Backgammon's Position ID (:mod:`~fastbg.formats.positionid`) and the raw bit fields
of its Match ID (:mod:`~fastbg.formats.matchid`), eXtreme Gammon's XGID
(:mod:`~fastbg.formats.xgid`), dice (:mod:`~fastbg.formats.dice`), move notation
(:mod:`~fastbg.formats.notation`) and the syntax of match files, Jellyfish ``.mat``
(:mod:`~fastbg.formats.matfile`) and GNU Backgammon ``.sgf`` (:mod:`~fastbg.formats.sgf`),
whose errors are :class:`~fastbg.formats.matchrecord.MatchFileError`. Nothing here imports a domain object: the codecs take
and give board arrays, tuples and small dataclasses of their own, and raise
``ValueError`` naming the problem. :mod:`fastbg.game` puts a cube and a score on them.
"""
from .dice import check_dice, parse_dice
from .matchid import pack_match_id, unpack_match_id
from .matchrecord import MatchFileError
from .notation import format_play, point_name
from .positionid import decode_position_id, encode_position_id
from .xgid import XGID, decode_xgid, encode_xgid

__all__ = [
    "check_dice", "parse_dice", "pack_match_id", "unpack_match_id", "format_play",
    "point_name", "decode_position_id", "encode_position_id", "XGID", "decode_xgid",
    "encode_xgid", "MatchFileError",
]
