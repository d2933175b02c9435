"""The board of the engine contract: the start, validation, outcome and result classes.

Both engines read this module (DESIGN section 2 and section 6): the pure-Python engine
(:mod:`fastbg.reference`) uses its functions, the compiled core (``fastbg._core``) its
constants and the bear-off databases' counts check (its own board check, in C, gives
:func:`validate_board`'s messages), and the Python layers above them validate boards with
it. It imports nothing of fastbg, so the engines' agreement is not agreement with each
other.

The board convention: an ``int8`` array of shape ``(2, 25)``, row 0 the side to move, row 1
its opponent, each counted from its own side (index ``i`` is the side's point ``i + 1``,
index 24 its bar). A side's point ``p`` is the other side's point ``25 - p``, so row 0's
index ``i`` faces row 1's index ``23 - i``.
"""
from __future__ import annotations

import numpy as np

__all__ = ["START_BOARD", "SIDES", "OUTCOME_CLASSES", "RESULT_CLASSES", "MAX_CUBE_LOG2",
           "N_CUBE_VALUES", "validate_board", "validate_boards", "check_counts"]

#: The standard start, from either side's point of view: 2 on the 24-point, 5 on the
#: 13-point, 3 on the 8-point and 5 on the 6-point.
START_BOARD = np.zeros((2, 25), dtype=np.int8)
for _row in START_BOARD:
    _row[[23, 12, 7, 5]] = [2, 5, 3, 5]
START_BOARD.setflags(write=False)

#: The sides in messages, in the field's words (a user who gave an XGID or an ID has no rows).
SIDES = ("side on roll", "opponent")


def validate_board(board) -> np.ndarray:
    """Check a board and return it as a fresh ``int8`` array.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        Row 0 the side to move, row 1 the opponent (engine convention).

    Returns
    -------
    numpy.ndarray of int8, shape (2, 25)
        A new array; the input is never modified.

    Raises
    ------
    ValueError
        If the shape is not ``(2, 25)``, the values are not integers, a count is
        negative, a side has more than 15 checkers on the board and bar, or a
        point is held by both sides.
    """
    arr = np.asarray(board)
    if arr.shape != (2, 25):
        raise ValueError(f"a board has shape (2, 25), got {arr.shape}")
    return validate_boards(arr[None], what=None)[0]


def validate_boards(boards, what: str | None = "board") -> np.ndarray:
    """Check a stack of boards at once, by :func:`validate_board`'s rules.

    The check of ``check_decision`` (:mod:`fastbg.spec.nets`), which both evaluators use.

    Parameters
    ----------
    boards : array_like of int, shape (n, 2, 25)
    what : str or None, default "board"
        How a message names the first bad board: ``"WHAT j: "`` before
        :func:`validate_board`'s words (None: those words alone).

    Returns
    -------
    numpy.ndarray of int8, shape (n, 2, 25)
        A new array; the input is never modified.

    Raises
    ------
    ValueError
        If the shape is not ``(n, 2, 25)``, the values are not integers, or a board breaks
        a rule of :func:`validate_board` (the first such board is named).
    """
    arr = np.asarray(boards)
    if arr.ndim != 3 or arr.shape[1:] != (2, 25):
        raise ValueError(f"boards have shape (n, 2, 25), got {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise ValueError(f"checker counts must be integers, got dtype {arr.dtype}")
    counts = arr.astype(np.int64)
    negative = counts < 0
    # a count above 15 is too many by itself (and the int64 sums of huge ones can wrap)
    over = (counts.sum(axis=2) > 15) | (counts > 15).any(axis=2)
    # Row 0's point i + 1 is row 1's point 24 - i (index 23 - i).
    both = (counts[:, 0, :24] > 0) & (counts[:, 1, 23::-1] > 0)
    bad = negative.any(axis=(1, 2)) | over.any(axis=1) | both.any(axis=1)
    for j in np.flatnonzero(bad)[:1]:
        head = "" if what is None else f"{what} {j}: "
        raise ValueError(head + _why_invalid(negative[j], over[j], counts[j], both[j]))
    return counts.astype(np.int8)


def _why_invalid(negative: np.ndarray, over: np.ndarray, counts: np.ndarray,
                 both: np.ndarray) -> str:
    """The first broken rule of one board (:func:`validate_boards`' arrays of it)."""
    for side in range(2):
        if negative[side].any():
            i = int(np.flatnonzero(negative[side])[0])
            where = "bar" if i == 24 else f"point {i + 1}"
            return f"negative checker count on the {SIDES[side]}'s {where}"
        if over[side]:
            total = sum(int(c) for c in counts[side])      # exact, whatever the counts
            return f"the {SIDES[side]} has {total} checkers; at most 15"
    i = int(np.flatnonzero(both)[0])
    return (f"point {i + 1} of the side on roll (the opponent's point {24 - i}) "
            "is held by both sides")


#: The six outcome classes of a game, from the view of the side it is scored for;
#: :func:`outcome` is 1, 2 or 3 points, class ``points - 1`` for the winner.
OUTCOME_CLASSES = (
    "win single",
    "win gammon",
    "win backgammon",
    "lose single",
    "lose gammon",
    "lose backgammon",
)


#: Result classes of a cubeful game, from the view of the starting player (row 0 of the
#: position): how the game ended. "pass": a double was refused; the doubler won the cube
#: value before the double.
RESULT_CLASSES = OUTCOME_CLASSES + ("win pass", "lose pass")
#: Largest cube of a cubeful game, log2 (cube values 1 .. 4096): the columns of its counts.
MAX_CUBE_LOG2 = 12
N_CUBE_VALUES = MAX_CUBE_LOG2 + 1


def check_counts(counts, n_points=6, most=15, too_many=None):
    """Validate one side's ``n_points`` counts (at most ``most`` checkers; ``too_many``: the
    message when there are more, formatted with the total) and return them as a tuple of
    ints. The small-race database checks its 24 counts with it too."""
    if isinstance(counts, (str, bytes)):
        raise ValueError(f"counts must be {n_points} checker counts, got {counts!r}")
    try:
        items = list(counts)
    except TypeError:
        raise ValueError(f"counts must be {n_points} checker counts, got {counts!r}") from None
    if len(items) != n_points:
        raise ValueError(f"counts must have {n_points} entries (points 1..{n_points}), "
                         f"got {len(items)}")
    out = []
    for point, n in enumerate(items, start=1):
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
            raise ValueError(f"the count on point {point} must be an int, got {n!r}")
        if n < 0:
            raise ValueError(f"negative checker count {int(n)} on point {point}")
        out.append(int(n))
    if sum(out) > most:
        raise ValueError((too_many or "a side has at most 15 checkers, got {}").format(sum(out)))
    return tuple(out)
