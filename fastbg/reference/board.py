"""Boards: validation, side swap, pip counts, the race test and game-over classification.

Pure-Python mirror of ``fastbg._core.board``. The board convention is the engine
contract's (see :mod:`fastbg.reference`): an ``int8`` array of shape ``(2, 25)``,
row 0 the side to move, row 1 its opponent, each counted from its own side (index
``i`` is the side's point ``i + 1``, index 24 its bar). A side's point ``p`` is the
other side's point ``25 - p``, so row 0's index ``i`` faces row 1's index
``23 - i``. Validation, the start and the outcome classes are the engine spec's
(:mod:`fastbg.spec.board`), which the compiled core reads too.
"""
from __future__ import annotations

import numpy as np

from ..spec.board import OUTCOME_CLASSES, START_BOARD, validate_board, validate_boards  # noqa: F401

__all__ = [
    "validate_board",
    "swap",
    "pip_counts",
    "back_point",
    "is_race",
    "checkers_off",
    "outcome",
    "no_side_can_move",
    "check_start",
]


def swap(board) -> np.ndarray:
    """Exchange the rows: the opponent becomes the side to move.

    Parameters
    ----------
    board : numpy.ndarray, shape (2, 25)

    Returns
    -------
    numpy.ndarray of int8, shape (2, 25)
        A new array ``[board[1], board[0]]``.
    """
    b = np.asarray(board)
    return np.ascontiguousarray(b[::-1]).astype(np.int8, copy=True)


def pip_counts(board) -> tuple[int, int]:
    """Pip counts of both sides.

    Parameters
    ----------
    board : numpy.ndarray, shape (2, 25)

    Returns
    -------
    (int, int)
        Pips of row 0 and of row 1: the sum over checkers of the point they stand
        on, from their own side; a checker on the bar counts 25, one off counts 0.
    """
    b = np.asarray(board, dtype=np.int64)
    weights = np.arange(1, 26, dtype=np.int64)
    return int(b[0] @ weights), int(b[1] @ weights)


def back_point(row) -> int:
    """Highest occupied point of one side (25 for the bar, 0 if it has none).

    Parameters
    ----------
    row : array_like of int, shape (25,)
        One row of a board.

    Returns
    -------
    int
    """
    for i in range(24, -1, -1):
        if row[i] > 0:
            return i + 1
    return 0


def is_race(board) -> bool:
    """True if no contact remains: the sides' checkers have passed each other.

    Parameters
    ----------
    board : numpy.ndarray, shape (2, 25)

    Returns
    -------
    bool
        ``back_point(row 0) + back_point(row 1) < 25`` (engine contract), where
        a side's back point is its highest occupied point and the bar is 25.
    """
    b = np.asarray(board)
    return back_point(b[0]) + back_point(b[1]) < 25


def checkers_off(board) -> tuple[int, int]:
    """Checkers borne off by each side.

    Parameters
    ----------
    board : numpy.ndarray, shape (2, 25)

    Returns
    -------
    (int, int)
        ``15 - row sum`` for row 0 and row 1.
    """
    b = np.asarray(board, dtype=np.int64)
    return 15 - int(b[0].sum()), 15 - int(b[1].sum())


def _closed_home(row) -> bool:
    return bool((np.asarray(row)[:6] >= 2).all())


def no_side_can_move(board) -> bool:
    """True when neither side can ever move: both have checkers on the bar against a
    closed home board (six points of two or more).

    Parameters
    ----------
    board : numpy.ndarray, shape (2, 25)

    Returns
    -------
    bool
        A side on the bar must enter before anything else moves (DESIGN section 3.3), and
        no entry point is open to either side; every roll passes, so a game from here
        never ends. No play leads to such a board (the side that entered last hit, so its
        opponent's home board is not closed): only a position given as a start can be
        like this.
    """
    b = np.asarray(board)
    return bool(b[0, 24] and b[1, 24] and _closed_home(b[0]) and _closed_home(b[1]))


def check_start(board) -> None:
    """Refuse a board no game can be played from: the one check of every game loop and
    of every rollout (both engines, cubeless and cubeful, cube decisions, tables and
    plays rollouts), so that none of them plays a game that cannot end.

    Parameters
    ----------
    board : numpy.ndarray, shape (2, 25)
        A valid board (:func:`validate_board`), row 0 about to roll.

    Raises
    ------
    ValueError
        If the game is over (a side has no checker left) or neither side can ever move
        (:func:`no_side_can_move`).
    """
    b = np.asarray(board)
    if not b[0].any() or not b[1].any():
        raise ValueError("the game is already over: a side has no checker left")
    if no_side_can_move(b):
        raise ValueError(
            "neither side can ever move: both have checkers on the bar against a closed board"
        )


def outcome(board) -> int:
    """Classify the game after the side in row 0 has played.

    Parameters
    ----------
    board : numpy.ndarray, shape (2, 25)
        The position after the play, in the mover's frame (rows not swapped).

    Returns
    -------
    int
        0 if the mover still has a checker on the board or bar (the game goes
        on); otherwise the points won (DESIGN section 3.7): 1 single game if the
        loser has borne off a checker, else 3 (backgammon) if the loser has a
        checker on its bar or in the winner's home board (its own points 19..24,
        indices 18..23), else 2 (gammon).
    """
    b = np.asarray(board, dtype=np.int64)
    if b[0].sum() > 0:
        return 0
    loser = b[1]
    if loser.sum() < 15:
        return 1
    if loser[18:25].sum() > 0:
        return 3
    return 2
