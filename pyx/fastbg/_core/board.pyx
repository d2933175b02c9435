# cython: language_level=3
"""Board primitives: validation, side swap, pip counts, race test, outcome.

The ``def`` functions mirror :mod:`fastbg.reference.board` (same names, same
results); they take and return ``int8`` arrays of shape ``(2, 25)``.
"""
import numpy as np
cimport numpy as cnp
from libc.stdint cimport int64_t
from libc.string cimport memcpy

from fastbg._core._types cimport board_t, BAR, NSLOTS, NCHECKERS, NPOINTS

cnp.import_array()


_SIDES = ("side on roll", "opponent")


cdef int load_board(object board, board_t* out) except -1:
    """Validate a ``(2, 25)`` board (any integer array-like) and copy it into ``out``.

    Same checks and messages as :func:`fastbg.reference.board.validate_board`.

    Raises
    ------
    ValueError
        If the shape is not ``(2, 25)``, the values are not integers (``bool`` is
        refused), a count is negative, a side has more than 15 checkers on the
        board and bar, or a point is held by both sides.
    """
    cdef cnp.ndarray fast
    cdef const signed char* q
    cdef int k, t0 = 0, t1 = 0, neg = 0
    if type(board) is np.ndarray:
        # Fast path for the engine's own boards (C-contiguous int8): check the
        # bytes in place; anything odd falls through to the general path, which
        # raises the right message.
        fast = <cnp.ndarray>board
        if (cnp.PyArray_NDIM(fast) == 2 and cnp.PyArray_DIM(fast, 0) == 2
                and cnp.PyArray_DIM(fast, 1) == NSLOTS
                and cnp.PyArray_TYPE(fast) == cnp.NPY_INT8
                and cnp.PyArray_IS_C_CONTIGUOUS(fast)):
            q = <const signed char*>cnp.PyArray_DATA(fast)
            for k in range(NSLOTS):
                neg |= (q[k] < 0) | (q[NSLOTS + k] < 0)
                t0 += q[k]
                t1 += q[NSLOTS + k]
            if not neg and t0 <= NCHECKERS and t1 <= NCHECKERS:
                memcpy(out.p, q, 2 * NSLOTS)
                return _check_overlap(out)
    arr = np.asarray(board)
    if arr.shape != (2, NSLOTS):
        raise ValueError(f"a board has shape (2, 25), got {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise ValueError(f"checker counts must be integers, got dtype {arr.dtype}")
    cdef cnp.ndarray[cnp.int64_t, ndim=2, mode="c"] c = np.ascontiguousarray(arr, dtype=np.int64)
    cdef int side, i
    cdef int64_t v, total
    for side in range(2):
        total = 0
        for i in range(NSLOTS):
            v = c[side, i]
            if v < 0:
                where = "bar" if i == BAR else f"point {i + 1}"
                raise ValueError(f"negative checker count on the {_SIDES[side]}'s {where}")
            total += v
        if total > NCHECKERS:
            raise ValueError(f"the {_SIDES[side]} has {total} checkers; at most 15")
        for i in range(NSLOTS):
            out.p[side][i] = <unsigned char>c[side, i]
    return _check_overlap(out)


cdef int _check_overlap(const board_t* b) except -1:
    """No point held by both sides (the last check of load_board)."""
    cdef int i
    for i in range(NPOINTS):
        if b.p[0][i] and b.p[1][NPOINTS - 1 - i]:
            raise ValueError(
                f"point {i + 1} of the side on roll (the opponent's point {24 - i}) "
                "is held by both sides"
            )
    return 0


cdef int check_start_c(const board_t* b) except -1:
    if row_sum(b.p[0]) == 0 or row_sum(b.p[1]) == 0:
        raise ValueError("the game is already over: a side has no checker left")
    if no_side_can_move_c(b):
        raise ValueError(
            "neither side can ever move: both have checkers on the bar against a closed board"
        )
    return 0


cdef object board_to_array(const board_t* b):
    """A new ``int8`` array of shape ``(2, 25)`` holding ``b``."""
    cdef cnp.ndarray out = np.empty((2, NSLOTS), dtype=np.int8)
    memcpy(cnp.PyArray_DATA(out), b.p, 50)
    return out


def swap(board):
    """Exchange the rows: the opponent becomes the side on roll.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)

    Returns
    -------
    numpy.ndarray of int8, shape (2, 25)
        A new array; ``board`` is not modified.
    """
    cdef board_t b, s
    load_board(board, &b)
    swap_into(&b, &s)
    return board_to_array(&s)


def pip_counts(board):
    """Pip counts ``(player on roll, opponent)``; a checker on the bar counts 25.

    Returns
    -------
    tuple of (int, int)
    """
    cdef board_t b
    load_board(board, &b)
    return pip_count_row(b.p[0]), pip_count_row(b.p[1])


def checkers_off(board):
    """Checkers borne off ``(player on roll, opponent)``: ``15 - row sum``.

    Returns
    -------
    tuple of (int, int)
    """
    cdef board_t b
    load_board(board, &b)
    return NCHECKERS - row_sum(b.p[0]), NCHECKERS - row_sum(b.p[1])


def is_race(board):
    """True if no contact is left: ``my_back + opp_back < 25``.

    ``*_back`` is a side's highest occupied point from its own view (bar = 25,
    0 when it has no checker left).
    """
    cdef board_t b
    load_board(board, &b)
    return bool(is_race_c(&b))


def outcome(board):
    """Classify the game after the side in row 0 has played.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        The position after the play, in the mover's frame (rows not swapped).

    Returns
    -------
    int
        0 if the mover still has a checker on the board or bar (the game goes
        on); otherwise the points won: 1 single game if the loser has borne off a
        checker, else 3 (backgammon) if the loser has a checker on its bar or in
        the winner's home board (its indices 18..23), else 2 (gammon).
    """
    cdef board_t b
    load_board(board, &b)
    if row_sum(b.p[0]) != 0:
        return 0
    return 1 + loser_class(b.p[1])


def validate_board(board):
    """Check a board and return it as a fresh ``int8`` array of shape ``(2, 25)``.

    Raises
    ------
    ValueError
        If the shape is not ``(2, 25)``, the values are not integers, a count is
        negative, a side has more than 15 checkers, or a point is held by both sides.
    """
    cdef board_t b
    load_board(board, &b)
    return board_to_array(&b)


def back_point(row):
    """Highest occupied point of one side (25 for the bar, 0 if it has none).

    Parameters
    ----------
    row : array_like of int, shape (25,)
        One row of a board.
    """
    r = np.asarray(row)
    if r.shape != (NSLOTS,):
        raise ValueError(f"a row has shape (25,), got {r.shape}")
    cdef int i
    for i in range(BAR, -1, -1):
        if r[i] > 0:
            return i + 1
    return 0


def no_side_can_move(board):
    """True when neither side can ever move: both have checkers on the bar against a
    closed home board (six points of two or more), so a game from here never ends.

    Returns
    -------
    bool
    """
    cdef board_t b
    load_board(board, &b)
    return bool(no_side_can_move_c(&b))


def check_start(board):
    """Refuse a board no game can be played from: the one check of every game loop.

    Raises
    ------
    ValueError
        If the board is not valid, the game is over (a side has no checker left) or
        neither side can ever move (:func:`no_side_can_move`).
    """
    cdef board_t b
    load_board(board, &b)
    check_start_c(&b)
