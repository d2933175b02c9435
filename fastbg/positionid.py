"""Position ID and XGID codecs (pure Python).

Boards follow the fastbg convention (DESIGN section 2): an ``int8`` array of shape
``(2, 25)``, row 0 the player on roll, row 1 the opponent, each from its own point of
view (index ``i`` = point ``i + 1``, index 24 = bar).

GNU Backgammon Position ID
    An 80-bit key, stored as 10 bytes (bit ``k`` of the key is bit ``k % 8`` of byte
    ``k // 8``) and written as 14 characters of standard base64 without padding. For
    each side in turn, and for each of its points 1..24 then its bar, the key holds
    as many 1-bits as the side has checkers there followed by one 0-bit; the rest of
    the key is zero. The side **not on roll** comes first, then the side on roll:
    the manual's prose says the opposite, but its examples and the program follow
    this order (source: GNU Backgammon manual, "A technical description of the
    Position ID", and the program's output for the starting position
    ``4HPwATDgc/ABMA``).

eXtreme Gammon XGID
    ``XGID=<board>:<cube>:<owner>:<turn>:<dice>:<score X>:<score O>:<crawford/jacoby>:
    <match length>:<max cube>``. The board is 26 characters: character 0 is the bar
    of the top player (lower case, "O"), characters 1..24 are points 1..24 counted
    from the bottom player's side (upper case, "X"), character 25 is the bottom
    player's bar; ``-`` is empty, ``A``..``O`` (``a``..``o``) are 1..15 checkers.
    ``turn`` is 1 when X (upper case) is on roll and -1 when O is. Source: eXtreme
    Gammon's documentation of the XGID and its published examples
    (``XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10`` is the start).
"""
from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

import numpy as np

from .reference.board import validate_board

__all__ = [
    "decode_position_id",
    "encode_position_id",
    "decode_xgid",
    "encode_xgid",
    "XGID",
    "validate_board",
]

_B64_RE = re.compile(r"^[A-Za-z0-9+/]{14}$")


def _key_bits(board: np.ndarray):
    for side in (1, 0):  # side not on roll first
        for i in range(25):
            for _ in range(int(board[side, i])):
                yield 1
            yield 0


def encode_position_id(board) -> str:
    """GNU Backgammon Position ID of a board.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        Row 0 the player on roll.

    Returns
    -------
    str
        14 characters of base64.

    Raises
    ------
    ValueError
        If the board is not valid (see :func:`validate_board`).
    """
    b = validate_board(board)
    key = bytearray(10)
    for k, bit in enumerate(_key_bits(b)):
        if bit:
            key[k >> 3] |= 1 << (k & 7)
    return base64.b64encode(bytes(key)).decode("ascii")[:14]


def decode_position_id(pid: str) -> np.ndarray:
    """Board of a GNU Backgammon Position ID.

    Parameters
    ----------
    pid : str
        14 base64 characters (surrounding white space is ignored).

    Returns
    -------
    numpy.ndarray of int8, shape (2, 25)
        Row 0 is the player on roll.

    Raises
    ------
    ValueError
        If the ID has the wrong length or alphabet, describes more than 15
        checkers for a side, more than 80 bits, or a point held by both sides.
    """
    if not isinstance(pid, str):
        raise ValueError(f"a Position ID is a string, got {type(pid).__name__}")
    s = pid.strip()
    if len(s) != 14:
        raise ValueError(f"bad Position ID {pid!r}: it has {len(s)} characters, not 14")
    if not _B64_RE.match(s):
        bad = next(c for c in s if not re.match(r"[A-Za-z0-9+/]", c))
        raise ValueError(f"bad Position ID {pid!r}: {bad!r} is not a base64 character")
    try:
        key = base64.b64decode(s + "==", validate=True)
    except (binascii.Error, ValueError) as exc:  # pragma: no cover - regex screens first
        raise ValueError(f"bad Position ID {pid!r}: {exc}") from None
    bits = [(key[k >> 3] >> (k & 7)) & 1 for k in range(80)]
    board = np.zeros((2, 25), dtype=np.int64)
    k = 0
    for side in (1, 0):
        for i in range(25):
            n = 0
            while k < 80 and bits[k]:
                n += 1
                k += 1
            if k >= 80:
                raise ValueError(f"bad Position ID {pid!r}: the key runs past 80 bits")
            k += 1  # the separating 0-bit
            board[side, i] = n
        total = int(board[side].sum())
        if total > 15:
            who = "player on roll" if side == 0 else "opponent"
            raise ValueError(f"bad Position ID {pid!r}: the {who} has {total} checkers")
    try:
        return validate_board(board)
    except ValueError as exc:
        raise ValueError(f"bad Position ID {pid!r}: {exc}") from None


# --------------------------------------------------------------------------- XGID


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


def decode_xgid(xgid: str) -> XGID:
    """Parse an XGID.

    Parameters
    ----------
    xgid : str
        With or without the ``XGID=`` prefix. The board part is required; the
        other fields are optional (defaults as in :class:`XGID`).

    Returns
    -------
    XGID
        ``board`` has the player on roll (by the ``turn`` field) in row 0.

    Raises
    ------
    ValueError
        If the board part is not 26 characters of ``-``, ``a``..``o``,
        ``A``..``O``, a numeric field is not an integer, ``turn`` is not 1 or
        -1, a side's bar holds the other side's checkers, or the board is not
        valid (more than 15 checkers a side).
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
    if len(parts) > 10:
        raise ValueError(f"bad XGID {xgid!r}: {len(parts)} fields, at most 10")
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
        try:
            values[name] = int(text)
        except ValueError:
            raise ValueError(f"bad XGID {xgid!r}: field {name} is {text!r}, not an integer") from None
    turn = values.get("turn", 1)
    if turn not in (1, -1):
        raise ValueError(f"bad XGID {xgid!r}: turn is {turn}, must be 1 or -1")
    board = np.stack([x_row, o_row]) if turn == 1 else np.stack([o_row, x_row])
    try:
        board = validate_board(board)
    except ValueError as exc:
        raise ValueError(f"bad XGID {xgid!r}: {exc}") from None
    return XGID(board=board, **values)
