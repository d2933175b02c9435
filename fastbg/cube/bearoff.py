"""Exact money values of small two-sided bear-offs, with perfect checker and cube play.

In a bear-off every checker of both sides is in its home board, so the sides never meet
and a side's legal plays depend on its own checkers only. When each side has borne off
at least one checker no gammon is possible, and a position's value is a function of the
two sides' home boards alone. This module solves such positions exactly by backward
induction (a dynamic program memoised by position key):

- the cubeless winning chance of the player on roll, each side choosing at every roll the
  play that maximises its own winning chance;
- the cubeful money equity with the cube centred, owned by the player on roll or owned by
  the opponent, each side choosing its plays and its cube actions (double before rolling,
  take or pass) to maximise its own cubeful equity, with unlimited redoubles.

Cubeful equities are normalised per unit of the current cube: a position's value with a
cube of 2**k is 2**k times its value with a cube of 1, so three numbers per position
(one per cube owner) describe every cube level, and the recursion over positions is
finite. Every roll bears off a checker or lowers the mover's pip count, so the values of
a position depend only on positions of smaller total pip count; the recursion reaches
them first.

The legal plays are those of the pure-Python reference engine
(:func:`fastbg.reference.movegen.legal_plays`), so the optimisation over checker plays
considers exactly the engine's distinct legal plays of each roll.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations_with_replacement

import numpy as np

from ..engine import get_engine
from ..game.position import Position
from .money import cube_action

__all__ = ["BearoffSolver", "BearoffValue", "solve", "bearoff_board", "home_boards",
           "side_key"]

#: The 21 distinct rolls and how many of the 36 ordered rolls each stands for.
ROLLS = tuple((d1, d2, 1 if d1 == d2 else 2) for d1 in range(1, 7) for d2 in range(1, d1 + 1))

# A side ("home board"): a tuple of 6 checker counts on its points 1..6. No checkers = off.
_EMPTY = (0,) * 6

# Legal plays of one side, shared by all solvers: (side, d1, d2) -> tuple of sides.
_PLAYS: dict = {}


def bearoff_board(mine, theirs) -> np.ndarray:
    """Board of a bear-off from the two home boards.

    Parameters
    ----------
    mine, theirs : sequence of 6 int, or dict
        Checkers of the player on roll and of the opponent on their points 1..6, each
        side counted from its own side: a sequence of six counts or ``{point: count}``.

    Returns
    -------
    numpy.ndarray of int8, shape (2, 25)
        Row 0 the player on roll (DESIGN section 2).

    Raises
    ------
    ValueError
        If a count is negative, a point is outside 1..6, or a side has more than 15.
    """
    b = np.zeros((2, 25), dtype=np.int8)
    for row, side in ((0, mine), (1, theirs)):
        items = side.items() if isinstance(side, dict) else enumerate(side, start=1)
        for point, n in items:
            if not 1 <= int(point) <= 6:
                raise ValueError(f"a bear-off has checkers on points 1..6 only, got {point}")
            if n < 0:
                raise ValueError(f"negative checker count {n} on point {point}")
            b[row, int(point) - 1] = n
    return Position(b).board.copy()


def side_key(row) -> tuple:
    """A side's home board as a tuple of 6 counts (its row's indices 0..5)."""
    return tuple(int(v) for v in row[:6])


def home_boards(max_checkers: int, min_checkers: int = 1) -> list[tuple]:
    """Every home board with ``min_checkers`` to ``max_checkers`` checkers.

    Returns
    -------
    list of tuple of 6 int
        Sorted by number of checkers, then pip count, then counts.
    """
    out = set()
    for n in range(min_checkers, max_checkers + 1):
        for points in combinations_with_replacement(range(6), n):
            side = [0] * 6
            for p in points:
                side[p] += 1
            out.add(tuple(side))
    return sorted(out, key=lambda s: (sum(s), _pips(s), s))


def _pips(side) -> int:
    return sum((i + 1) * n for i, n in enumerate(side))


def _side_plays(side: tuple, d1: int, d2: int) -> tuple:
    """The distinct home boards one side can reach with a roll (reference engine)."""
    key = (side, d1, d2)
    got = _PLAYS.get(key)
    if got is not None:
        return got
    board = np.zeros((2, 25), dtype=np.int8)
    board[0, :6] = side
    # A lone opposing checker on its own ace point (our 24-point): it never meets ours,
    # and our plays do not depend on where the opponent's checkers are in its home board.
    board[1, 0] = 1
    plays = get_engine("python").legal_plays(board, d1, d2)
    got = tuple(side_key(p[0]) for p in plays) if len(plays) else (side,)
    _PLAYS[key] = got
    return got


@dataclass(frozen=True)
class BearoffValue:
    """Exact values of a bear-off for the player on roll, before its cube decision.

    All equities are money equities in points per unit of the current cube, with
    perfect checker and cube play by both sides (unlimited redoubles, no Jacoby, no
    beavers); floats, or :class:`fractions.Fraction` from an exact solver.

    Attributes
    ----------
    win : float or Fraction
        Cubeless winning chance (each side maximising its own winning chance).
    centred, owned, opponent : float or Fraction
        Cubeful equity with the cube centred, owned by the player on roll, owned by the
        opponent; each in [-1, 1].
    nd_centred, nd_owned : float or Fraction
        Value of not doubling now (rolling with the cube centred / owned).
    dt : float or Fraction
        Value of Double/take: twice the value of rolling with the opponent owning the cube.
    """

    win: float
    centred: float
    owned: float
    opponent: float
    nd_centred: float
    nd_owned: float
    dt: float

    @property
    def cubeless_equity(self):
        """``2 win - 1`` (no gammons are possible)."""
        return 2 * self.win - 1

    def equity(self, cube_owner: str = "centred"):
        """Cubeful equity with the cube at ``cube_owner`` ("centred", "player" or
        "opponent")."""
        try:
            return {"centred": self.centred, "player": self.owned,
                    "opponent": self.opponent}[cube_owner]
        except KeyError:
            raise ValueError(f"unknown cube owner {cube_owner!r}") from None

    def cube_decision(self, cube_owner: str = "centred") -> tuple:
        """The exact cube decision of the player on roll.

        Parameters
        ----------
        cube_owner : {"centred", "player"}

        Returns
        -------
        (nd, dt, dp, action)
            No double, Double/take and Double/pass values per unit of the current cube
            (``dp = 1``) and :func:`fastbg.cube.cube_action` of them.

        Raises
        ------
        ValueError
            For another owner (the player on roll cannot double the opponent's cube).
        """
        if cube_owner == "centred":
            nd = self.nd_centred
        elif cube_owner == "player":
            nd = self.nd_owned
        else:
            raise ValueError(
                f"no cube decision for cube owner {cube_owner!r}: choose centred or player"
            )
        dp = type(self.dt)(1)
        return nd, self.dt, dp, cube_action(nd, self.dt, dp, redouble=cube_owner == "player")


class BearoffSolver:
    """Exact solver of small two-sided bear-offs, with a cache by position.

    Parameters
    ----------
    exact : bool
        Compute with :class:`fractions.Fraction` (exact rationals) instead of floats.

    Notes
    -----
    The cost grows with the number of positions reachable from the one asked about:
    under a second for every position with up to 3 checkers a side, about 40 s for
    5 checkers a side on the 6-point (pure Python). Values
    are cached, so solving many positions with one solver shares the work.

    Recursion, with ``R_s(a, b)`` the value of rolling (no double) in position ``a``
    (player on roll) against ``b`` with cube state ``s``, and ``E_s`` the value before
    the cube decision, per unit cube::

        R_s(a, b) = sum over rolls of P(roll) * max over plays a' of
                    (1 if a' is empty else -E_flip(s)(b, a'))
        E_opponent = R_opponent
        E_centred  = max(R_centred, min(2 R_opponent, 1))
        E_owned    = max(R_owned,   min(2 R_opponent, 1))

    where ``flip`` swaps "owned" and "opponent" (the side on roll changes) and keeps
    "centred". The cubeless winning chance is the same recursion on ``P(win)``.
    """

    def __init__(self, exact: bool = False):
        self.exact = bool(exact)
        self._one = Fraction(1) if self.exact else 1.0
        self._win_memo: dict = {}
        self._cube_memo: dict = {}

    # -------------------------------------------------------------- public API
    def solve(self, position) -> BearoffValue:
        """Exact values of a bear-off (see :class:`BearoffValue`).

        Parameters
        ----------
        position : Position, str or array_like
            A bear-off with the player on roll about to roll: anything
            :meth:`Position.parse` accepts (see :func:`bearoff_board`).

        Raises
        ------
        ValueError
            If the position is not a bear-off (a checker outside the home board or on
            the bar), the game is over, or a side has not borne off any checker (a
            gammon would then be possible, which this solver does not handle).
        """
        a, b = self.key(position)
        return self.value(a, b)

    def value(self, a: tuple, b: tuple) -> BearoffValue:
        """:meth:`solve` for two home boards (tuples of 6 counts, 1..14 checkers)."""
        rc, ro, rx, ec, eo, ex = self._cube(a, b)
        return BearoffValue(win=self._win(a, b), centred=ec, owned=eo, opponent=ex,
                            nd_centred=rc, nd_owned=ro, dt=2 * rx)

    def win_probability(self, position):
        """Cubeless winning chance of the player on roll (see :meth:`solve`)."""
        return self._win(*self.key(position))

    @staticmethod
    def key(position) -> tuple[tuple, tuple]:
        """The two home boards of a bear-off, checked (see :meth:`solve`)."""
        b = Position.parse(position).board
        if b[:, 6:].any():
            raise ValueError(
                "not a bear-off: every checker of both sides must be in its home board "
                "(points 1-6), none on the bar or outside"
            )
        on = b.sum(axis=1)
        if (on == 0).any():
            raise ValueError("the game is over: a side has borne off all its checkers")
        if (on == 15).any():
            raise ValueError(
                "each side must have borne off at least one checker: with 15 checkers on "
                "the board a gammon is possible, which this solver does not handle"
            )
        return side_key(b[0]), side_key(b[1])

    # ---------------------------------------------------------------- recursion
    def _win(self, a: tuple, b: tuple):
        got = self._win_memo.get((a, b))
        if got is not None:
            return got
        one, total = self._one, 0
        for d1, d2, n in ROLLS:
            best = None
            for a2 in _side_plays(a, d1, d2):
                v = one if a2 == _EMPTY else one - self._win(b, a2)
                if best is None or v > best:
                    best = v
            total += n * best
        res = Fraction(total, 36) if self.exact else total / 36.0
        self._win_memo[(a, b)] = res
        return res

    def _cube(self, a: tuple, b: tuple) -> tuple:
        """(R_centred, R_owned, R_opponent, E_centred, E_owned, E_opponent) of (a, b)."""
        got = self._cube_memo.get((a, b))
        if got is not None:
            return got
        one = self._one
        sc = so = sx = 0
        for d1, d2, n in ROLLS:
            bc = bo = bx = None
            for a2 in _side_plays(a, d1, d2):
                if a2 == _EMPTY:
                    vc = vo = vx = one
                else:
                    e = self._cube(b, a2)
                    # The opponent is on roll: our centred cube is its centred cube, our
                    # cube is its opponent's cube and vice versa.
                    vc, vo, vx = -e[3], -e[5], -e[4]
                if bc is None or vc > bc:
                    bc = vc
                if bo is None or vo > bo:
                    bo = vo
                if bx is None or vx > bx:
                    bx = vx
            sc += n * bc
            so += n * bo
            sx += n * bx
        if self.exact:
            rc, ro, rx = Fraction(sc, 36), Fraction(so, 36), Fraction(sx, 36)
        else:
            rc, ro, rx = sc / 36.0, so / 36.0, sx / 36.0
        double = min(2 * rx, one)  # the opponent takes or passes, whichever is better for it
        res = (rc, ro, rx, max(rc, double), max(ro, double), rx)
        self._cube_memo[(a, b)] = res
        return res


_SOLVERS = {False: BearoffSolver(exact=False), True: BearoffSolver(exact=True)}


def solve(position, *, exact: bool = False) -> BearoffValue:
    """Exact values of a small bear-off, from a module-wide cached solver.

    Parameters
    ----------
    position : Position, str or array_like
        A bear-off (see :meth:`BearoffSolver.solve`).
    exact : bool
        Exact rationals (:class:`fractions.Fraction`) instead of floats.

    Returns
    -------
    BearoffValue

    Raises
    ------
    ValueError
        See :meth:`BearoffSolver.solve`.

    Examples
    --------
    One checker each on the ace point: the player on roll always wins.

    >>> solve(bearoff_board([1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0])).win
    1.0
    """
    return _SOLVERS[bool(exact)].solve(position)
