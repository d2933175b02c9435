"""GNU Backgammon's Position ID: a board as 14 characters (pure Python, a leaf codec).

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
"""
from __future__ import annotations

import base64
import re

import numpy as np

from ..spec.board import validate_board

__all__ = ["decode_position_id", "encode_position_id", "validate_board"]

_B64_CHAR = re.compile(r"[A-Za-z0-9+/]")


def _b64_bytes(text, kind: str, length: int) -> bytes:
    """The bytes of a GNU Backgammon ID: ``length`` base64 characters, no padding.

    Raises
    ------
    ValueError
        Naming ``kind`` and the problem: not a string, wrong length, a character
        outside the base64 alphabet.
    """
    if not isinstance(text, str):
        raise ValueError(f"a {kind} is a string, got {type(text).__name__}")
    s = text.strip()
    if len(s) != length:
        raise ValueError(f"bad {kind} {text!r}: it has {len(s)} characters, not {length}")
    bad = next((c for c in s if not _B64_CHAR.fullmatch(c)), None)
    if bad is not None:
        raise ValueError(f"bad {kind} {text!r}: {bad!r} is not a base64 character")
    return base64.b64decode(s + "=" * (-len(s) % 4), validate=True)


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
        checkers for a side, more than 80 bits, or a point held by both sides; or
        if it is not canonical: the key bits after the last point, and the four
        padding bits of the 14th character (84 bits of base64 for an 80-bit key),
        must be zero, as GNU Backgammon writes them. The message names the
        canonical ID of the position (``4HPwATDgc/ABMB`` is refused, naming
        ``4HPwATDgc/ABMA``).
    """
    key = _b64_bytes(pid, "Position ID", 14)
    bits = [(key[k >> 3] >> (k & 7)) & 1 for k in range(80)]
    board = np.zeros((2, 25), dtype=np.int64)
    k = 0
    for side in (1, 0):
        who = "player on roll" if side == 0 else "opponent"
        for i in range(25):
            n = 0
            while k < 80 and bits[k]:
                n += 1
                k += 1
            board[side, i] = n
            if k >= 80:
                # too many checkers is what makes a key run out (15 a side fit in 80 bits),
                # so say that first: every 1-bit left was counted, the total is the key's
                total = int(board[side].sum())
                if total > 15:
                    raise ValueError(f"bad Position ID {pid!r}: the {who} has {total} "
                                     "checkers (more than 15)")
                raise ValueError(f"bad Position ID {pid!r}: the key runs past 80 bits")
            k += 1  # the separating 0-bit
        total = int(board[side].sum())
        if total > 15:
            raise ValueError(f"bad Position ID {pid!r}: the {who} has {total} checkers "
                             "(more than 15)")
    try:
        board = validate_board(board)
    except ValueError as exc:
        raise ValueError(f"bad Position ID {pid!r}: {exc}") from None
    canonical = encode_position_id(board)
    if canonical != pid.strip():
        # base64 decoding drops the 4 padding bits of the last character, so compare
        # the text: any bit set after the last point's separator or in the padding.
        where = ("key bits after the last point's separator" if any(bits[k:])
                 else "padding bits (the 4 bits of the 14th character after the 80-bit key)")
        empty = [who for side, who in ((0, "the player on roll"), (1, "the opponent"))
                 if board[side].sum() == 0]
        if empty:
            # no canonical ID worth suggesting: its position is a finished game
            raise ValueError(
                f"bad Position ID {pid!r}: not canonical, its {where} are not zero, and "
                f"its key gives {' and '.join(empty)} no checkers")
        raise ValueError(
            f"bad Position ID {pid!r}: not canonical, its {where} are not zero; the "
            f"canonical ID of this position is {canonical!r}")
    return board
