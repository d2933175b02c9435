"""eXtreme Gammon's XGID: the raw fields of the text (pure Python, a leaf codec).

Boards follow the fastbg convention (DESIGN section 2): an ``int8`` array of shape
``(2, 25)``, row 0 the player on roll, row 1 the opponent, each from its own point of
view (index ``i`` = point ``i + 1``, index 24 = bar).

eXtreme Gammon XGID
    ``XGID=<board>:<cube>:<owner>:<turn>:<dice>:<score X>:<score O>:<crawford/jacoby>:
    <match length>:<max cube>``. The board is 26 characters: character 0 is the bar
    of the top player (lower case, "O"), characters 1..24 are points 1..24 counted
    from the bottom player's side (upper case, "X"), character 25 is the bottom
    player's bar; ``-`` is empty, ``A``..``O`` (``a``..``o``) are 1..15 checkers.
    ``turn`` is 1 when X (upper case) is on roll and -1 when O is. Source: eXtreme
    Gammon's documentation of the XGID and its published examples
    (``XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10`` is the start).
    :func:`decode_xgid` / :func:`encode_xgid` (this module) handle the raw fields;
    :func:`fastbg.game.xgid_to_game` / :func:`fastbg.game.game_to_xgid` convert them
    to and from a board, a :class:`~fastbg.game.MatchState` and the dice, validating
    every field:
    cube ``2 ** field``; cube position 1 / 0 / -1 = owned by X (bottom) / centred /
    owned by O (top); dice ``00`` to roll, two digits rolled, ``D`` doubled, ``B``
    beavered, ``R`` raccooned; the two scores are X's then O's; the 8th field is
    the Crawford flag (0/1) in match play and Jacoby (1) + beaver (2) in money
    play; match length 0 = money; max cube ``2 ** field``. An XGID has exactly these
    ten fields, as eXtreme Gammon writes it; one with more or fewer is refused. A
    centred cube above 1 (cube field 1 or more with cube position 0, a "centred
    2-cube") comes only from automatic doubles, which are a money-play option: it is
    read in money play (cube turned but nobody owns it; either side may double it,
    and the Jacoby rule still applies, as no double has been offered) and refused
    in match play, where a turned cube is always owned.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..spec.board import validate_board

__all__ = ["XGID", "decode_xgid", "encode_xgid"]


@dataclass(frozen=True)
class XGID:
    """The fields of an XGID.

    Attributes
    ----------
    board : numpy.ndarray of int8, shape (2, 25)
        Row 0 is the player on roll (after resolving ``turn``).
    cube_log2 : int
        Cube value is ``2 ** cube_log2``.
    cube_owner : int
        0 centred, 1 owned by the bottom player (X), -1 by the top player (O).
    turn : int
        1 if X (upper case) is on roll, -1 if O is.
    dice : str
        ``"00"`` when the player is to roll, two digits when rolled, or XG's
        ``"D"``, ``"B"``, ``"R"`` markers for a pending cube action.
    score_x, score_o : int
        Match scores of X and O.
    crawford_jacoby : int
        Crawford flag in a match, Jacoby/beaver bits in money play.
    match_length : int
        0 for money play.
    max_cube : int
        Maximum cube, as a power of two.
    """

    board: np.ndarray
    cube_log2: int = 0
    cube_owner: int = 0
    turn: int = 1
    dice: str = "00"
    score_x: int = 0
    score_o: int = 0
    crawford_jacoby: int = 0
    match_length: int = 0
    max_cube: int = 10


def _xg_char(n: int, upper: bool) -> str:
    if n == 0:
        return "-"
    return chr((ord("A") if upper else ord("a")) + n - 1)


def encode_xgid(board, **fields) -> str:
    """XGID of a board with the player on roll as X (upper case, ``turn = 1``).

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        Row 0 the player on roll.
    **fields
        Optional XGID fields other than the board (see :class:`XGID`); defaults
        are a centred 1-cube, money play, player to roll.

    Returns
    -------
    str
        ``"XGID=..."`` with ten colon-separated fields.

    Raises
    ------
    ValueError
        If the board is not valid.
    """
    b = validate_board(board)
    f = XGID(board=b, **fields)
    # X (row 0) on roll with turn=1; with turn=-1 O is on roll and is row 0.
    x_row, o_row = (b[0], b[1]) if f.turn == 1 else (b[1], b[0])
    chars = [_xg_char(int(o_row[24]), False)]
    for p in range(1, 25):  # X's point p; O's point 25 - p
        if x_row[p - 1]:
            chars.append(_xg_char(int(x_row[p - 1]), True))
        else:
            chars.append(_xg_char(int(o_row[24 - p]), False))
    chars.append(_xg_char(int(x_row[24]), True))
    return "XGID=" + ":".join(
        [
            "".join(chars),
            str(f.cube_log2),
            str(f.cube_owner),
            str(f.turn),
            f.dice,
            str(f.score_x),
            str(f.score_o),
            str(f.crawford_jacoby),
            str(f.match_length),
            str(f.max_cube),
        ]
    )


#: What the messages call each numeric XGID field; the fields that may be negative.
_XGID_FIELD_LABELS = {
    "cube_log2": "cube field", "cube_owner": "cube position", "turn": "turn",
    "score_x": "score of X", "score_o": "score of O", "crawford_jacoby": "8th field",
    "match_length": "match length", "max_cube": "max cube field",
}
_SIGNED_XGID_FIELDS = ("cube_owner", "turn")
#: Fields of an XGID after ``XGID=``, the board included, as eXtreme Gammon writes it.
_XGID_FIELDS = 10


def decode_xgid(xgid: str) -> XGID:
    """Parse an XGID.

    Parameters
    ----------
    xgid : str
        With or without the ``XGID=`` prefix: the ten colon-separated fields
        eXtreme Gammon writes (board, cube, cube position, turn, dice, score of
        X, score of O, Crawford/Jacoby, match length, max cube). The fields are
        read, not checked against each other: a cube field of 1 or more with
        cube position 0 (a centred cube above 1) is read as it stands;
        :func:`fastbg.game.xgid_to_game` decides whether the state is possible.

    Returns
    -------
    XGID
        ``board`` has the player on roll (by the ``turn`` field) in row 0.

    Raises
    ------
    ValueError
        If the board part is not 26 characters of ``-``, ``a``..``o``,
        ``A``..``O``; there are not exactly ten fields (the message gives the
        count); a numeric field is not ASCII digits (with an optional leading
        ``-`` for the cube position and ``turn``, the only fields that may be
        negative; no spaces or ``+``); ``turn`` is not 1 or -1; a side's bar
        holds the other side's checkers; or the board is not valid (more than
        15 checkers a side).
    """
    if not isinstance(xgid, str):
        raise ValueError(f"an XGID is a string, got {type(xgid).__name__}")
    s = xgid.strip()
    if s.upper().startswith("XGID="):
        s = s[5:]
    parts = s.split(":")
    pos = parts[0]
    if len(pos) != 26:
        raise ValueError(f"bad XGID {xgid!r}: the board part has {len(pos)} characters, not 26")
    if len(parts) != _XGID_FIELDS:
        raise ValueError(
            f"bad XGID {xgid!r}: it has {len(parts)} field{'s' if len(parts) != 1 else ''}, "
            f"expected {_XGID_FIELDS} (board:cube:cube position:turn:dice:score X:score O:"
            "Crawford/Jacoby:match length:max cube)")
    x_row = np.zeros(25, dtype=np.int64)
    o_row = np.zeros(25, dtype=np.int64)
    for idx, c in enumerate(pos):
        if c == "-":
            continue
        if "A" <= c <= "O":
            n, upper = ord(c) - ord("A") + 1, True
        elif "a" <= c <= "o":
            n, upper = ord(c) - ord("a") + 1, False
        else:
            raise ValueError(f"bad XGID {xgid!r}: {c!r} is not a checker count (- a..o A..O)")
        if idx == 0:
            if upper:
                raise ValueError(f"bad XGID {xgid!r}: X checkers on O's bar (character 1)")
            o_row[24] = n
        elif idx == 25:
            if not upper:
                raise ValueError(f"bad XGID {xgid!r}: O checkers on X's bar (character 26)")
            x_row[24] = n
        elif upper:
            x_row[idx - 1] = n
        else:
            o_row[24 - idx] = n
    names = ["cube_log2", "cube_owner", "turn", "dice", "score_x", "score_o",
             "crawford_jacoby", "match_length", "max_cube"]
    values: dict = {}
    for name, text in zip(names, parts[1:]):
        if name == "dice":
            if not re.fullmatch(r"00|[1-6]{2}|[DBR]", text):
                raise ValueError(
                    f"bad XGID {xgid!r}: dice field {text!r} is not 00 (to roll), two dice "
                    "1..6 or one of D, B, R"
                )
            values[name] = text
            continue
        signed = name in _SIGNED_XGID_FIELDS
        if not re.fullmatch(r"-?[0-9]+" if signed else r"[0-9]+", text):
            label = _XGID_FIELD_LABELS[name]
            if re.fullmatch(r"-[0-9]+", text):
                raise ValueError(f"bad XGID {xgid!r}: {label} is {text}, negative; it is 0 "
                                 "or more")
            raise ValueError(
                f"bad XGID {xgid!r}: {label} is {text!r}, not a whole number (ASCII digits"
                + (", with an optional leading '-')" if signed else ")"))
        values[name] = int(text)
    turn = values.get("turn", 1)
    if turn not in (1, -1):
        raise ValueError(f"bad XGID {xgid!r}: turn is {turn}, must be 1 or -1")
    board = np.stack([x_row, o_row]) if turn == 1 else np.stack([o_row, x_row])
    try:
        board = validate_board(board)
    except ValueError as exc:
        raise ValueError(f"bad XGID {xgid!r}: {exc}") from None
    return XGID(board=board, **values)
