"""Small-race one-sided database: the pure-Python reference (mirror of ``fastbg._core.racedb``).

The one-sided bear-off database (:mod:`fastbg.reference.bearoffdb`) covers a side with
every checker on its points 1..6. Races a little outside it (a checker or two still on
the 7-point or further) are rare, so the race net reads them badly (issue 11). This
database covers one side with **at most** :data:`RACE_MAX` checkers left anywhere on its
points 1..24 (none on the bar): ``C(24 + RACE_MAX, RACE_MAX)`` positions
(:data:`N_POSITIONS`). For each it stores the distribution of the number of rolls the
side needs to bear all its checkers off, each roll played to minimise the expected
number of rolls: the one-sided bear-off database's idea, extended to the whole board.

Positions and their index
-------------------------
A side is a tuple ``c`` of 24 counts, ``c[i]`` checkers on its point ``i + 1``,
``sum(c) <= RACE_MAX``. The index (:func:`position_index`) is the rank of ``c`` in the
lexicographic order of the count tuples, as in the bear-off database (with
``N(m, t) = C(t + m, m)``, ``r_i = RACE_MAX - (c[0] + ... + c[i-1])``)::

    index(c) = sum_{i=0}^{23} sum_{v=0}^{c[i]-1} N(23 - i, r_i - v)

so the smallest index is again the canonically first play, and for a side inside its
home board the order is the bear-off database's.

Plays
-----
In a race (no contact) no opponent checker is ever in the way, so a side's plays are
the engine's legal plays (DESIGN section 3) of that side alone: a die ``d`` moves a
checker from point ``p > d`` to ``p - d``; it bears a checker off only when every
checker of the side is on its points 1..6, from point ``d``, or from the highest
occupied point when that is below ``d``. The sequences, the most-dice and larger-die
rules and the de-duplication are :func:`fastbg.reference.bearoffdb._sequences`'s. With a
checker left, any roll can be played.

Distributions
-------------
The bear-off database's recursion, roll order, weights, tie rule (smallest mean, then
smallest index) and float order, through its own functions
(:func:`fastbg.reference.bearoffdb._solve`), with :data:`K_ROLLS` entries: a side needs
at most ``24 * RACE_MAX / 3`` rolls (every roll moves at least 3 pips or bears the last
checkers off), and the construction checks that no mass falls beyond.

Race evaluation
---------------
:func:`race_probabilities`: both sides' roll counts taken as independent, the side on
roll wins iff it needs no more rolls than its opponent, exactly
:func:`fastbg.reference.bearoffdb.bearoff_probabilities`'s ``win`` (same sum, same order);
no gammon is possible (each side has at least ``15 - RACE_MAX`` checkers off).

This engine computes entries lazily, memoised for the process (only the positions
reachable from those asked about): fine for a few checkers near home, slow for
:data:`RACE_MAX` checkers far back. The compiled engine builds the whole table at first
use; the numbers are bitwise equal.
"""
from __future__ import annotations

from math import comb

import numpy as np

from . import bearoffdb as _bo
from ..spec.board import check_counts
from .board import is_race, validate_board

__all__ = ["RACE_MAX", "N_POINTS", "N_POSITIONS", "K_ROLLS", "position_index", "race_plays",
           "onesided", "is_small_race", "race_probabilities"]

#: Most checkers a side may have left (on the board) in the database.
RACE_MAX = 4
#: Points of a side covered (its points 1..24).
N_POINTS = 24
#: Positions of one side: 0..RACE_MAX checkers on 24 points.
N_POSITIONS = comb(N_POINTS + RACE_MAX, RACE_MAX)
#: Entries of a distribution: ``off[k]`` for ``k = 0 .. K_ROLLS - 1`` rolls (at most
#: 24 * RACE_MAX / 3 rolls: every checker on the 24-point, rolling 2-1 every time).
K_ROLLS = N_POINTS * RACE_MAX // 3 + 1

# _RANK[i][r][c] = sum_{v < c} N(23 - i, r - v)
_RANK = tuple(
    tuple(
        tuple(sum(comb(r - v + 23 - i, 23 - i) for v in range(c)) for c in range(r + 1))
        for r in range(RACE_MAX + 1)
    )
    for i in range(N_POINTS)
)

_EMPTY = (0,) * N_POINTS
_OFF: dict = {_EMPTY: ((1.0,) + (0.0,) * (K_ROLLS - 1), 0.0)}
_PLAYS: dict = {}
_MOVES: dict = {}


def _index(c: tuple) -> int:
    r, idx = RACE_MAX, 0
    for i in range(N_POINTS):
        idx += _RANK[i][r][c[i]]
        r -= c[i]
    return idx


def _check_counts(counts):
    """Validate one side's 24 counts (the home-board database's checks, at most
    RACE_MAX checkers) and return them as a tuple of ints."""
    return check_counts(counts, N_POINTS, RACE_MAX,
                             f"the small-race database holds at most {RACE_MAX} checkers a side, got {{}}")


def position_index(counts) -> int:
    """Index of one side's position (lexicographic rank, see the module doc).

    Parameters
    ----------
    counts : sequence of 24 int
        Checkers on the side's points 1..24, total 0..RACE_MAX.

    Returns
    -------
    int
        In ``0 .. N_POSITIONS - 1``.

    Raises
    ------
    ValueError
        For bad counts.
    """
    return _index(_check_counts(counts))


def _moves(c: tuple, d: int) -> tuple:
    """Positions after one legal checker move of die ``d`` of a lone side, memoised."""
    key = (c, d)
    got = _MOVES.get(key)
    if got is not None:
        return got
    home = not any(c[6:])
    high = max((i for i in range(N_POINTS) if c[i]), default=-1)
    out = []
    for s in range(N_POINTS):
        if not c[s]:
            continue
        if s >= d:  # from point s + 1 to point s + 1 - d
            new = list(c)
            new[s] -= 1
            new[s - d] += 1
            out.append(tuple(new))
        elif home and (s == d - 1 or s == high):  # bear off: exact die, or from the highest
            new = list(c)
            new[s] -= 1
            out.append(tuple(new))
    got = tuple(out)
    _MOVES[key] = got
    return got


def _plays(c: tuple, d1: int, d2: int) -> tuple:
    key = (c, d1, d2)
    got = _PLAYS.get(key)
    if got is None:
        got = _PLAYS[key] = _bo._sequences(c, d1, d2, _moves)
    return got


def race_plays(counts, d1, d2) -> np.ndarray:
    """A lone side's distinct plays of a roll (see the module doc).

    Parameters
    ----------
    counts : sequence of 24 int
        The side's checkers on its points 1..24 (total 0..RACE_MAX).
    d1, d2 : int
        The dice, each in 1..6, in either order.

    Returns
    -------
    numpy.ndarray of int8, shape (n, 24)
        The resulting positions in canonical order (increasing index).

    Raises
    ------
    ValueError
        For bad counts or dice.
    """
    c = _check_counts(counts)
    d1, d2 = _bo.validate_dice(d1, d2)
    return np.array(_plays(c, max(d1, d2), min(d1, d2)), dtype=np.int8).reshape(-1, N_POINTS)


def _off(c: tuple) -> tuple:
    """(distribution tuple, mean) of a side, memoised."""
    got = _OFF.get(c)
    if got is None:
        got = _OFF[c] = _bo._solve(c, _off, K_ROLLS, _plays)
    return got


def onesided(counts) -> dict:
    """The database entry of one side's position.

    Parameters
    ----------
    counts : sequence of 24 int
        The side's checkers on its points 1..24 (its own numbering), total 0..RACE_MAX.

    Returns
    -------
    dict
        ``index`` (int, :func:`position_index`); ``off`` (float64, shape ``(K_ROLLS,)``:
        the probability of needing exactly ``k`` rolls to bear off, each roll played to
        minimise the expected rolls); ``mean_off`` (float, expected rolls).

    Raises
    ------
    ValueError
        For bad counts.
    """
    c = _check_counts(counts)
    dist, mean = _off(c)
    return {"index": _index(c), "off": np.array(dist, dtype=np.float64), "mean_off": mean}


def is_small_race(board) -> bool:
    """Whether the evaluator reads a position from this database.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        Engine convention; validated.

    Returns
    -------
    bool
        True iff it is a race (:func:`fastbg.reference.board.is_race`), not a bear-off
        of the home-board database (a checker outside a home board), and each side has
        1 to :data:`RACE_MAX` checkers left.

    Raises
    ------
    ValueError
        For an invalid board.
    """
    b = validate_board(board)
    n = b.sum(axis=1)
    return bool(1 <= n[0] <= RACE_MAX and 1 <= n[1] <= RACE_MAX and b[:, 6:].any()
                and is_race(b))


def race_probabilities(board) -> np.ndarray:
    """Race probabilities of a small race from the database.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        A position with :func:`is_small_race`; row 0 about to roll.

    Returns
    -------
    numpy.ndarray of float64, shape (5,)
        ``(win, 0, 0, 0, 0)``: ``win = sum_k P[k] * TQ[k]`` with ``P``, ``Q`` the two
        sides' distributions and ``TQ[k] = Q[k] + Q[k+1] + ...``
        (:func:`fastbg.reference.bearoffdb.bearoff_probabilities`'s sum and order),
        clipped to [0, 1]; no gammon is possible.

    Raises
    ------
    ValueError
        If the board is invalid or not a small race.
    """
    if not is_small_race(board):
        raise ValueError("not a small race: a race (no contact), not a home-board bear-off, "
                         f"with 1 to {RACE_MAX} checkers a side is needed")
    b = np.asarray(board)
    p = _off(tuple(int(v) for v in b[0, :24]))[0]
    q = _off(tuple(int(v) for v in b[1, :24]))[0]
    win = min(max(_bo._win_sum(p, q), 0.0), 1.0)
    return np.array([win, 0.0, 0.0, 0.0, 0.0], dtype=np.float64)
