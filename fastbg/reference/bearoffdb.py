"""One-sided bear-off database: the pure-Python reference (mirror of ``fastbg._core.bearoffdb``).

The idea is GNU Backgammon's one-sided bear-off database (GNU Backgammon manual,
"bearoff databases"; ``makebearoff(6)``): for every way one side can have its
remaining checkers on its points 1..6, store the probability distribution of the
number of rolls it needs to bear them all off, and, for the positions with all 15
checkers still on the board, the distribution of the number of rolls until its
first checker is off (what decides a gammon). A race between two such sides is
then evaluated by treating the two sides' roll counts as independent. Nothing of
GNU Backgammon's code is used; the formulas below are derived here.

Positions and their index
-------------------------
A side is a tuple ``c`` of 6 counts, ``c[i]`` checkers on its point ``i + 1``,
``sum(c) <= 15`` (the rest are off): ``C(21, 6) = 54,264`` positions
(:data:`N_POSITIONS`), of which ``C(20, 5) = 15,504`` have all 15 checkers on the
board (:data:`N_FIRST_POSITIONS`). The index (:func:`position_index`) is the
position's rank in the **lexicographic order** of the count tuples
``(c[0], c[1], ..., c[5])``: 0 is the empty side, ``(0, 0, 0, 0, 0, k)`` is ``k``,
54,263 is fifteen checkers on the ace point. With ``N(m, t) = C(t + m, m)``, the
number of ``m``-tuples with sum at most ``t``, and ``r_i = 15 - (c[0] + ... +
c[i-1])``::

    index(c) = sum_{i=0}^{5} sum_{v=0}^{c[i]-1} N(5 - i, r_i - v)

The lexicographic order of count tuples is also the engine's canonical order of
the plays (lexicographic over the 50 bytes of a board whose other bytes are
equal), so "the canonically first play" is "the play of smallest index".

Plays
-----
:func:`bearoff_plays` lists a side's distinct plays of a roll with the engine's
rules (DESIGN section 3) specialised to a side with every checker home and no
opponent in its way: every order of the dice (four times the same die for a
double) is played one checker move at a time; a die ``d`` moves a checker from
point ``p > d`` to ``p - d``, bears one off from point ``d``, and bears one off
from the highest occupied point when it is below ``d``; a sequence stops early
only when the side has no checker left. Sequences using the most dice are kept;
for two different dice of which only one can be used, the larger. The results
are de-duplicated and sorted (canonical order). The tests check them against
:func:`fastbg.reference.movegen.legal_plays` and the compiled generator.

Distributions (the dynamic program)
-----------------------------------
The 21 distinct rolls are taken in the fixed order ``d1 = 1..6``, ``d2 = 1..d1``
with weight ``w = 1.0`` for a double and ``2.0`` otherwise. For each roll the side
plays to **minimise the expected number of rolls** still needed: the play ``q``
of smallest ``mean_off(q)``, ties to the smallest index. With ``best_r`` that
play (or the position itself if the roll has no legal play, which cannot happen
with every checker home, but is handled), ``P = off(position)``::

    P[0] = 1.0 if the side has no checker left, else 0.0
    P[k + 1] = (((0.0 + w_1 * off(best_1)[k]) + w_2 * off(best_2)[k]) + ...) / 36.0
    mean_off = (36.0 + (((0.0 + w_1 * mean_off(best_1)) + ...))) / (36.0 - w_stay)

summed over the rolls in the fixed order (rolls without a play are left out of
the mean's sum; ``w_stay`` is their total weight). ``K_OFF`` entries are kept; the
construction checks that the mass a ``K_OFF``-th entry would receive is exactly
zero, so no probability is lost (the largest number of rolls any position can
need is ``K_OFF - 1``). A roll without a legal play would leave the position as it
is and give the distribution an unbounded tail, which that check refuses
(``RuntimeError``); it cannot happen here: with every checker home any die can be
played while a checker is left, so ``w_stay`` is 0.0.

For a side with all 15 checkers on the board, ``first`` is the same recursion for
the number of rolls until the first checker is off, each roll played to minimise
the expected rolls to that event: a play that bears a checker off ends it (value
0, distribution ``[1, 0, ...]``; among several, the smallest index), otherwise
the 15-checker play of smallest ``mean_first``, ties to the smallest index.
``K_FIRST`` entries are kept, with the same check.

Every value is a Python float computed with the same IEEE double operations, in
the same order, as the compiled engine's C code (built with
``-ffp-contract=off``), so the two engines' arrays are bitwise identical. This
engine computes entries lazily, with memoisation: only the positions reachable
from those asked about.

Race evaluation
---------------
See :func:`bearoff_probabilities`.
"""
from __future__ import annotations

from math import comb

import numpy as np

from ..spec.board import check_counts
from .board import validate_board
from .movegen import validate_dice

__all__ = [
    "TWO_SIDED_MAX",
    "two_sided_key",
    "two_sided_win",
    "N_POINTS",
    "N_POSITIONS",
    "N_FIRST_POSITIONS",
    "K_OFF",
    "K_FIRST",
    "position_index",
    "position_counts",
    "bearoff_plays",
    "onesided",
    "is_bearoff",
    "bearoff_probabilities",
]

#: Points of a side's home board covered by the database (its points 1..6).
N_POINTS = 6
#: Positions of one side: 0..15 checkers on 6 points, ``C(21, 6)``.
N_POSITIONS = comb(21, 6)
#: Positions with all 15 checkers on the board, ``C(20, 5)``.
N_FIRST_POSITIONS = comb(20, 5)
#: Entries of a bear-off distribution: ``off[k]`` for ``k = 0 .. K_OFF - 1`` rolls. The
#: largest number of rolls any position can need is ``K_OFF - 1`` (15 checkers on the
#: 6-point); the construction checks that no mass would fall beyond.
K_OFF = 31
#: Entries of a first-checker-off distribution (15-checker positions): ``first[k]`` for
#: ``k = 0 .. K_FIRST - 1``. The largest number of rolls is ``K_FIRST - 1`` (15 on the
#: 5-point, playing each small roll for the best average, can need 10).
K_FIRST = 11

# The 21 distinct rolls in the fixed order and their weights (of 36).
_ROLLS = tuple((d1, d2, 1.0 if d1 == d2 else 2.0) for d1 in range(1, 7) for d2 in range(1, d1 + 1))

# _RANK[i][r][c] = sum_{v < c} N(5 - i, r - v): the index's term of point i holding c
# checkers when r checkers are still to be placed on points i..5.
_RANK = tuple(
    tuple(
        tuple(sum(comb(r - v + 5 - i, 5 - i) for v in range(c)) for c in range(r + 1))
        for r in range(16)
    )
    for i in range(6)
)

_EMPTY = (0,) * 6

# Memo tables: counts -> (distribution tuple, mean); (counts, d1, d2) -> plays;
# (counts, die) -> single moves.
_OFF: dict = {_EMPTY: ((1.0,) + (0.0,) * (K_OFF - 1), 0.0)}
_FIRST: dict = {}
_PLAYS: dict = {}
_MOVES: dict = {}


def _index(c: tuple) -> int:
    r, idx = 15, 0
    for i in range(6):
        idx += _RANK[i][r][c[i]]
        r -= c[i]
    return idx


def position_index(counts) -> int:
    """Index of one side's position in the database (lexicographic rank, see module doc).

    Parameters
    ----------
    counts : sequence of 6 int
        Checkers on the side's points 1..6 (each side counted from its own side),
        total 0..15.

    Returns
    -------
    int
        In ``0 .. N_POSITIONS - 1``.

    Raises
    ------
    ValueError
        If ``counts`` is not 6 non-negative ints with a total of at most 15.
    """
    return _index(check_counts(counts))


def position_counts(index) -> tuple:
    """The 6 counts of the position with a given index (inverse of :func:`position_index`).

    Parameters
    ----------
    index : int
        In ``0 .. N_POSITIONS - 1``.

    Returns
    -------
    tuple of 6 int

    Raises
    ------
    ValueError
        If ``index`` is not an int in range.
    """
    if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
        raise ValueError(f"index must be an int, got {index!r}")
    idx = int(index)
    if not 0 <= idx < N_POSITIONS:
        raise ValueError(f"index must be in 0..{N_POSITIONS - 1}, got {idx}")
    r, out = 15, []
    for i in range(6):
        row = _RANK[i][r]
        c = 0
        while c < r and row[c + 1] <= idx:
            c += 1
        idx -= row[c]
        out.append(c)
        r -= c
    return tuple(out)


# ----------------------------------------------------------------------- plays
def _moves(c: tuple, d: int) -> tuple:
    """Positions after one legal checker move of die ``d`` (every checker home), memoised."""
    key = (c, d)
    got = _MOVES.get(key)
    if got is not None:
        return got
    high = max((i for i in range(6) if c[i]), default=-1)
    out = []
    for s in range(6):
        if not c[s]:
            continue
        if s >= d:  # from point s + 1 to point s + 1 - d
            new = list(c)
            new[s] -= 1
            new[s - d] += 1
            out.append(tuple(new))
        elif s == d - 1 or s == high:  # exact die, or a larger die from the highest point
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
        got = _PLAYS[key] = _sequences(c, d1, d2, _moves)
    return got


def _sequences(c: tuple, d1: int, d2: int, moves) -> tuple:
    """The distinct plays of dice ``d1 >= d2`` from ``c`` (sorted), with ``moves(c, d)``
    the positions after one legal checker move of die ``d``: every dice order played a
    move at a time, the most dice kept, the larger die when only one can be played.
    (:mod:`fastbg.reference.racedb` uses it with a race's single moves.)"""
    orders = [(d1,) * 4] if d1 == d2 else [(d1, d2), (d2, d1)]
    finals = []  # (position, dice used, first die)
    for order in orders:
        frontier = {c}
        for k, die in enumerate(order):
            nxt = set()
            for cur in frontier:
                after = moves(cur, die)
                if not after:
                    finals.append((cur, k, order[0]))
                nxt.update(after)
            frontier = nxt
        finals.extend((cur, len(order), order[0]) for cur in frontier)
    most = max(f[1] for f in finals)
    if most == 0:
        got = ()
    else:
        kept = [f for f in finals if f[1] == most]
        if d1 != d2 and most == 1 and any(f[2] == max(d1, d2) for f in kept):
            kept = [f for f in kept if f[2] == max(d1, d2)]
        got = tuple(sorted({f[0] for f in kept}))
    return got


def bearoff_plays(counts, d1, d2) -> np.ndarray:
    """A side's distinct plays of a roll in a bear-off (see the module doc).

    Parameters
    ----------
    counts : sequence of 6 int
        The side's checkers on its points 1..6 (total 0..15).
    d1, d2 : int
        The dice, each in 1..6, in either order.

    Returns
    -------
    numpy.ndarray of int8, shape (n, 6)
        The resulting positions in canonical order (increasing index); ``n == 0``
        when no die can be played (only for a side with no checker left).

    Raises
    ------
    ValueError
        For bad counts or dice.
    """
    c = check_counts(counts)
    d1, d2 = validate_dice(d1, d2)
    a, b = max(d1, d2), min(d1, d2)
    return np.array(_plays(c, a, b), dtype=np.int8).reshape(-1, 6)


# ------------------------------------------------------------ the lazy program
def _distribution(bests: list, self_dist: list, k_len: int) -> None:
    """Fill ``self_dist[1:]`` from the chosen plays' distributions (see module doc).

    ``bests`` holds ``(w, dist)`` per roll in the fixed order; ``dist is None``
    stands for the position itself (a roll without a play).
    """
    for k in range(k_len):
        acc = 0.0
        for w, dist in bests:
            acc = acc + w * (self_dist[k] if dist is None else dist[k])
        if k + 1 < k_len:
            self_dist[k + 1] = acc / 36.0
        elif acc != 0.0:
            raise RuntimeError(
                f"bear-off distribution needs more than {k_len} entries: raise the constant"
            )


def _solve(c: tuple, child, k_len: int, plays=None) -> tuple:
    """(distribution tuple, mean) of a side, each roll played to the child of least mean.

    ``child(q)`` gives the (distribution, mean) of the side after a play ``q``; plays
    (``plays(c, d1, d2)``, default this database's :func:`_plays`) are tried in
    canonical order, so ties keep the first.
    """
    plays = _plays if plays is None else plays
    bests = []
    acc_mean, stays = 0.0, 0.0
    for d1, d2, w in _ROLLS:
        best = None
        for q in plays(c, d1, d2):
            v = child(q)
            if best is None or v[1] < best[1]:
                best = v
        if best is None:
            bests.append((w, None))
            stays = stays + w
        else:
            bests.append((w, best[0]))
            acc_mean = acc_mean + w * best[1]
    if stays == 36.0:
        raise RuntimeError(f"position {c} can never move")
    dist = [0.0] * k_len
    _distribution(bests, dist, k_len)
    return tuple(dist), (36.0 + acc_mean) / (36.0 - stays)


def _off(c: tuple) -> tuple:
    """(off distribution tuple, mean_off) of a side, memoised."""
    got = _OFF.get(c)
    if got is None:
        got = _OFF[c] = _solve(c, _off, K_OFF)
    return got


_FIRST_DONE = ((1.0,) + (0.0,) * (K_FIRST - 1), 0.0)


def _first_child(q: tuple) -> tuple:
    return _FIRST_DONE if sum(q) < 15 else _first(q)


def _first(c: tuple) -> tuple:
    """(first-off distribution tuple, mean_first) of a 15-checker side, memoised."""
    got = _FIRST.get(c)
    if got is None:
        got = _FIRST[c] = _solve(c, _first_child, K_FIRST)
    return got


def onesided(counts) -> dict:
    """The database entry of one side's position.

    Parameters
    ----------
    counts : sequence of 6 int
        The side's checkers on its points 1..6 (its own numbering), total 0..15.

    Returns
    -------
    dict
        ``index`` : int
            :func:`position_index` of the position.
        ``off`` : numpy.ndarray of float64, shape (K_OFF,)
            ``off[k]`` = probability that the side needs exactly ``k`` rolls (its own
            turns, this one included) to bear off all its checkers, playing every roll
            to minimise the expected number of rolls. Sums to 1 (rounding aside).
        ``mean_off`` : float
            The expected number of rolls (the minimum), in rolls.
        ``first`` : numpy.ndarray of float64, shape (K_FIRST,), or None
            For a side with all 15 checkers on the board: ``first[k]`` = probability
            that its first checker is off after exactly ``k`` rolls, playing to
            minimise the expected rolls to that. ``None`` for fewer than 15 (a
            checker is off already: the side cannot be gammoned).
        ``mean_first`` : float or None
            Expected rolls to the first checker off, or ``None``.

    Raises
    ------
    ValueError
        If ``counts`` is not 6 non-negative ints with a total of at most 15.

    Notes
    -----
    Source: GNU Backgammon's one-sided bear-off database (its manual) for the idea;
    the recursion is the module doc's. This engine computes the entry and the
    entries it depends on lazily, memoised for the process.
    """
    c = check_counts(counts)
    dist, mean = _off(c)
    out = {"index": _index(c), "off": np.array(dist, dtype=np.float64), "mean_off": mean,
           "first": None, "mean_first": None}
    if sum(c) == 15:
        fd, fm = _first(c)
        out["first"] = np.array(fd, dtype=np.float64)
        out["mean_first"] = fm
    return out


# ------------------------------------------------------------------ the race
_SIDES = ("side on roll", "opponent")


def _bearoff_sides(board) -> tuple:
    """The two sides' home boards of a valid bear-off, or ValueError naming the problem."""
    b = validate_board(board)
    for side in range(2):
        row = b[side]
        if row[24]:
            raise ValueError(f"not a bear-off: the {_SIDES[side]} has a checker on the bar")
        outside = np.flatnonzero(row[6:24])
        if outside.size:
            raise ValueError(
                f"not a bear-off: the {_SIDES[side]} has a checker on its point "
                f"{int(outside[0]) + 7} (outside its home board)"
            )
        if not row.any():
            raise ValueError(
                f"the game is over: the {_SIDES[side]} has borne off all its checkers"
            )
    return tuple(int(v) for v in b[0, :6]), tuple(int(v) for v in b[1, :6])


def is_bearoff(board) -> bool:
    """Whether a position is a bear-off the database evaluates.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        Engine convention (row 0 on roll); validated.

    Returns
    -------
    bool
        True iff both sides have at least one checker left and every checker of
        both sides is on its points 1..6 (indices 0..5): none on the bar or outside.

    Raises
    ------
    ValueError
        If the board is not valid (see :func:`fastbg.reference.board.validate_board`).
    """
    b = validate_board(board)
    return bool(not b[:, 6:].any() and b[0].any() and b[1].any())


def _tails(dist) -> list:
    """``t[k] = dist[k] + dist[k+1] + ...``, summed from the top down."""
    t = [0.0] * len(dist)
    acc = 0.0
    for k in range(len(dist) - 1, -1, -1):
        acc = acc + dist[k]
        t[k] = acc
    return t


def _win_sum(p, q) -> float:
    """``sum_k p[k] * TQ[k]`` (``TQ`` the tails of ``q``, :func:`_tails`), k ascending from
    0.0: the chance that the side on roll, needing ``k`` rolls with probability ``p[k]``,
    needs no more rolls than its opponent (``q``). Not clipped."""
    tq = _tails(q)
    win = 0.0
    for k in range(len(p)):
        win = win + p[k] * tq[k]
    return win


def bearoff_probabilities(board) -> np.ndarray:
    """Race probabilities of a bear-off from the one-sided database.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        Engine convention; every checker of both sides on its points 1..6 and both
        sides with at least one checker left (:func:`is_bearoff`). The side in row 0
        is about to roll.

    Returns
    -------
    numpy.ndarray of float64, shape (5,)
        ``(win, win_gammon, win_backgammon, lose_gammon, lose_backgammon)`` for the
        side on roll (DESIGN section 5), probabilities in [0, 1].

    Raises
    ------
    ValueError
        If the board is invalid or not such a bear-off (the message names the
        problem: a checker on the bar or outside the home board, or a side with no
        checker left).

    Notes
    -----
    Idea from GNU Backgammon's one-sided bear-off database (its manual); the
    formulas are derived as follows. Let ``P`` and ``Q`` be the ``off``
    distributions of the side on roll and of the opponent, and ``F``, ``G`` their
    ``first`` distributions. The two sides' roll counts are taken as independent
    (each side plays for its own fastest bear-off, as in the database; the exact
    game would let a side adapt its plays to the other's position). The side on
    roll bears off its last checker on its ``k``-th roll, before the opponent's
    ``k``-th roll, so it wins iff ``k <= l`` for the opponent's ``l``:

    - ``win = sum_{k=0}^{K_OFF-1} P[k] * TQ[k]`` with ``TQ[k] = sum_{l >= k} Q[l]``;
    - ``win_gammon`` (opponent with 15 checkers, else 0): when the side on roll
      finishes on its ``k``-th roll the opponent has rolled ``k - 1`` times, so it
      is gammoned iff its first checker needs at least ``k`` rolls:
      ``sum_{k=0}^{K_FIRST-1} P[k] * TG[k]``, ``TG[k] = sum_{j >= k} G[j]``
      (``TG[k] = 0`` for ``k >= K_FIRST``);
    - ``lose_gammon`` (side on roll with 15 checkers, else 0): when the opponent
      finishes on its ``l``-th roll the side on roll has rolled ``l`` times, so it
      is gammoned iff its first checker needs more than ``l`` rolls:
      ``sum_{l=0}^{K_FIRST-2} Q[l] * TF[l + 1]``;
    - backgammons are 0: no checker is on a bar or in the winner's home board.

    Each tail ``T[k]`` is accumulated from the highest ``k`` down
    (``acc = acc + dist[k]``); each sum runs over increasing ``k`` from 0.0 with
    ``acc = acc + a * b``, the same operations as the compiled engine.

    The winning chance is exact (up to rounding) when each side's fastest play on
    average is also, at every roll, the play most likely to be off within ``n``
    rolls for every ``n`` (stochastic dominance): it is then the best play whatever
    the opponent's distribution, so perfect two-sided play makes the same choices
    and the roll counts are independent. That holds for every side of one or two
    checkers (the tests check it, and agree with :mod:`fastbg.cube.bearoff`'s exact
    solver within 3.3e-16); with three checkers a side the largest difference is
    1.4e-3. Rounding is then clipped: ``win`` to [0, 1], ``win_gammon`` to at most
    ``win`` and ``lose_gammon`` to at most ``1 - win``.
    """
    me, opp = _bearoff_sides(board)
    p = _off(me)[0]
    q = _off(opp)[0]
    win = _win_sum(p, q)
    win_gammon = 0.0
    if sum(opp) == 15:
        tg = _tails(_first(opp)[0])
        for k in range(K_FIRST):
            win_gammon = win_gammon + p[k] * tg[k]
    lose_gammon = 0.0
    if sum(me) == 15:
        tf = _tails(_first(me)[0])
        for l in range(K_FIRST - 1):
            lose_gammon = lose_gammon + q[l] * tf[l + 1]
    # rounding can leave the sums a few ulps outside [0, 1] or a gammon above its win
    win = min(max(win, 0.0), 1.0)
    win_gammon = min(win_gammon, win)
    lose_gammon = min(lose_gammon, 1.0 - win)
    return np.array([win, win_gammon, 0.0, lose_gammon, 0.0], dtype=np.float64)


# ------------------------------------------------------------- two-sided (win only)
#: Most checkers a side may have in the two-sided database.
TWO_SIDED_MAX = 6

_WIN2: dict = {}


def _win2(a: tuple, b: tuple) -> float:
    """Cubeless winning chance of side ``a`` on roll against ``b`` (both non-empty), each
    side maximising its own: the recursion and float order of the core's two-sided
    database (``fastbg._core.bearoffdb._build2``), memoised."""
    got = _WIN2.get((a, b))
    if got is not None:
        return got
    acc = 0.0
    for d1, d2, w in _ROLLS:
        best = None
        for q in _plays(a, d1, d2):
            v = 1.0 if q == _EMPTY else 1.0 - _win2(b, q)
            if best is None or v > best:
                best = v
        acc = acc + w * best
    got = acc / 36.0
    _WIN2[(a, b)] = got
    return got


def two_sided_key(board) -> tuple | None:
    """The two home boards of a position in the two-sided database, else ``None``.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        Engine convention; validated.

    Returns
    -------
    (tuple of 6 int, tuple of 6 int) or None
        ``None`` unless :func:`is_bearoff` and each side has at most
        :data:`TWO_SIDED_MAX` checkers left.
    """
    if not is_bearoff(board):
        return None
    b = np.asarray(board)
    a, o = tuple(int(v) for v in b[0, :6]), tuple(int(v) for v in b[1, :6])
    return (a, o) if sum(a) <= TWO_SIDED_MAX and sum(o) <= TWO_SIDED_MAX else None


def two_sided_win(board) -> float:
    """Exact cubeless winning chance of the side on roll of a two-sided database position.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        A bear-off with 1 to :data:`TWO_SIDED_MAX` checkers a side.

    Returns
    -------
    float
        Bit for bit the core's ``two_sided(...)["win"]``; each side plays to maximise its
        own winning chance (not to minimise its rolls, as the one-sided database does).

    Raises
    ------
    ValueError
        If the position is not in the two-sided database.
    """
    key = two_sided_key(board)
    if key is None:
        raise ValueError("not in the two-sided bear-off database: a bear-off with 1 to "
                         f"{TWO_SIDED_MAX} checkers a side is needed")
    return _win2(*key)
