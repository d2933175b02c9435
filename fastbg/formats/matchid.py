"""GNU Backgammon's Match ID: the raw bit fields of the text (pure Python, a leaf codec).

GNU Backgammon Match ID
    12 characters of base64 for a 9-byte key, bit ``k`` of the key being bit
    ``k % 8`` of byte ``k // 8``. Fields, each least significant bit first, by
    bit offset (source: GNU Backgammon manual, "A technical description of the
    Match ID"): 0-3 log2 of the cube; 4-5 cube owner (0 or 1 = that player,
    3 = centred); 6 the player on roll ("dice owner"); 7 Crawford game; 8-10 game
    state (0 no game started, 1 playing, 2 over, 3 resigned, 4 dropped); 11 the
    player to act ("turn"; the opponent while a double or resignation is
    pending); 12 double offered; 13-14 resignation offered (1 single, 2 gammon,
    3 backgammon); 15-17 and 18-20 the dice (0 = not rolled); 21-35 match length
    (0 = money); 36-50 player 0's score; 51-65 player 1's. Bit 66, absent from the
    manual, is set by GNU Backgammon 1.x unless the Jacoby rule is in use: in money
    play with its Jacoby option off, and in every match (checked with gnubg 1.07:
    ``new match 7`` gives ``MAHrAAAAAAAE``); fastbg writes it as gnubg does and reads it
    in money play only. Both programs write the larger die first. The manual's example ``QYkqASAAIAAA``: 9-point match,
    player 0 2 points and owning a 2-cube, player 1 4 points and on roll with 5-2.

This module packs and unpacks the fields as plain integers and checks what the bits
alone can show (field ranges, a cube owner of 2, a finished game, a die of 7 or a
single die, a Crawford flag in money play). :func:`fastbg.game.decode_match_id` and
:func:`fastbg.game.encode_match_id` turn them into a :class:`fastbg.game.MatchState`
and check the state itself.
"""
from __future__ import annotations

import base64

from .positionid import _b64_bytes

__all__ = ["MATCH_ID_FIELDS", "GAME_STATES", "MAX_CUBE_LOG2", "MAX_15_BITS",
           "pack_match_id", "unpack_match_id"]

MAX_CUBE_LOG2 = 15  # 4 bits in the Match ID: up to a 32768-cube
MAX_15_BITS = (1 << 15) - 1
GAME_STATES = {0: "no game started", 1: "playing", 2: "game over", 3: "resigned",
                4: "dropped cube"}
#: (offset, width) of each Match ID field; GNU Backgammon manual, "A technical
#: description of the Match ID", plus bit 66 (Jacoby not in use) of GNU Backgammon 1.x.
MATCH_ID_FIELDS = {
    "cube_log2": (0, 4), "owner": (4, 2), "player": (6, 1), "crawford": (7, 1),
    "game_state": (8, 3), "turn": (11, 1), "double_offered": (12, 1), "resign": (13, 2),
    "die1": (15, 3), "die2": (18, 3), "match_length": (21, 15), "score0": (36, 15),
    "score1": (51, 15), "no_jacoby": (66, 1),
}


def pack_match_id(fields: dict) -> str:
    """The 12-character Match ID of its raw fields.

    Parameters
    ----------
    fields : dict of str to int
        A value for every name of :data:`MATCH_ID_FIELDS` (unsigned, within its width).

    Returns
    -------
    str
        12 base64 characters of the 9-byte key.

    Raises
    ------
    ValueError
        If a field is missing or does not fit its width.
    """
    key = 0
    for name, (offset, width) in MATCH_ID_FIELDS.items():
        if name not in fields:
            raise ValueError(f"Match ID field {name!r} is missing")
        value = fields[name]
        if not 0 <= value < 1 << width:
            raise ValueError(f"Match ID field {name!r} is {value}, outside 0..{(1 << width) - 1}")
        key |= value << offset
    return base64.b64encode(key.to_bytes(9, "little")).decode("ascii")


def unpack_match_id(mid: str) -> dict:
    """The raw fields of a Match ID, checked as far as the bits alone allow.

    Parameters
    ----------
    mid : str
        12 base64 characters (surrounding white space is ignored).

    Returns
    -------
    dict of str to int
        Every name of :data:`MATCH_ID_FIELDS`; bits 67-71 are ignored, as GNU Backgammon
        does.

    Raises
    ------
    ValueError
        Naming the problem: wrong length or alphabet; cube owner field 2; a finished
        game; a die of 7 or only one die; a Crawford flag in money play.
    """
    key = int.from_bytes(_b64_bytes(mid, "Match ID", 12), "little")
    f = {name: (key >> offset) & ((1 << width) - 1)
         for name, (offset, width) in MATCH_ID_FIELDS.items()}

    def bad(why):
        return ValueError(f"bad Match ID {mid!r}: {why}")

    if f["owner"] == 2:
        raise bad("cube owner field is 2; 0 or 1 (a player) or 3 (centred) expected")
    if f["game_state"] not in (0, 1):
        name = GAME_STATES.get(f["game_state"], "not a game state")
        raise bad(f"game state {f['game_state']} ({name}): only a game not started or "
                  "in play has a player on roll")
    d1, d2 = f["die1"], f["die2"]
    if d1 > 6 or d2 > 6:
        raise bad(f"a die of {max(d1, d2)}; dice are 1..6 (0 = not rolled)")
    if (d1 == 0) != (d2 == 0):
        raise bad(f"only one die is set ({d1}, {d2})")
    if f["match_length"] == 0 and f["crawford"]:
        raise bad("the Crawford flag is set in money play")
    return f
