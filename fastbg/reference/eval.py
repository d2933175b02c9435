"""Move-choice policies: uniform random and Tesauro's pubeval in exact integers.

Pure-Python mirror of ``fastbg._core.eval``. A policy chooses one play among the
legal plays of :func:`fastbg.reference.movegen.legal_plays` (canonical order) and
returns its index.

pubeval (G. Tesauro, ``pubeval.c``, IBM Research, 1993) is a linear evaluation
``score = sum(W[i] * X[i])`` of the position after the play, with one weight
vector for races and one for contact positions. Here it is computed exactly in
integers (engine contract, :mod:`fastbg.reference`): the weights are the published
five-decimal figures times ``10**5`` (:mod:`fastbg.spec.pubeval`) and the
inputs are pubeval's times 30, so scores are exact ``int64`` values, both engines
compute the same numbers, and ties are exact.
"""
from __future__ import annotations

import numpy as np

from ..spec.pubeval import CONTACT_WEIGHTS, RACE_WEIGHTS, WIN_SCORE
from .board import is_race
from ..spec.dice import bounded
from .movegen import play_keys

__all__ = [
    "pubeval_inputs",
    "pubeval_score",
    "RandomPolicy",
    "PubevalPolicy",
]

def pubeval_inputs(board_after) -> list[int]:
    """pubeval's input vector times 30, as exact integers.

    Parameters
    ----------
    board_after : array_like of int, shape (2, 25)
        The position after the play, in the mover's frame (row 0 the mover).

    Returns
    -------
    list of int, length 122
        For the mover's point ``L`` in 1..24, block ``b = 24 - L`` and ``n`` the
        mover's checkers on ``L``, or minus the opponent's checkers there:
        ``X[5b] = 30`` if ``n == -1``, ``X[5b+1] = 30`` if ``n == 1``,
        ``X[5b+2] = 30`` if ``n >= 2``, ``X[5b+3] = 30`` if ``n == 3``,
        ``X[5b+4] = 15 (n - 3)`` if ``n >= 4``; ``X[120] = 15 *`` the opponent's
        checkers on the bar; ``X[121] = 2 *`` the mover's checkers off. The
        mover's bar is not an input. (pubeval.c's inputs are 1, ``(n - 3) / 2``,
        ``bar / 2`` and ``off / 15``.)
    """
    b = np.asarray(board_after)
    mover = [int(v) for v in b[0]]
    opp = [int(v) for v in b[1]]
    x = [0] * 122
    for point in range(1, 25):
        blk = 5 * (24 - point)
        # The mover's point L is the opponent's point 25 - L (index 24 - L).
        n = mover[point - 1] if mover[point - 1] > 0 else -opp[24 - point]
        if n == -1:
            x[blk] = 30
        elif n >= 1:
            if n == 1:
                x[blk + 1] = 30
            else:
                x[blk + 2] = 30
            if n == 3:
                x[blk + 3] = 30
            if n >= 4:
                x[blk + 4] = 15 * (n - 3)
    x[120] = 15 * opp[24]
    x[121] = 2 * (15 - sum(mover))
    return x


def pubeval_score(board_after, race: bool) -> int:
    """Exact integer pubeval score of a position after the play.

    Parameters
    ----------
    board_after : array_like of int, shape (2, 25)
        The position after the play, in the mover's frame (rows not swapped).
    race : bool
        True to use the race weights: the position *before* the play was a race
        (:func:`fastbg.reference.board.is_race`); false for the contact weights.

    Returns
    -------
    int
        ``sum(W[i] * X[i])`` with ``W`` the weights times ``10**5`` and ``X`` the
        inputs times 30 (:func:`pubeval_inputs`), i.e. ``3 * 10**6`` times
        pubeval.c's floating-point score, without rounding. A play that bears off
        the mover's last checker scores ``WIN_SCORE = 2**63 - 1``.

    Notes
    -----
    Source: G. Tesauro, ``pubeval.c`` (1993), the public benchmark evaluation for
    backgammon move selection; weights in :mod:`fastbg.spec.pubeval`.
    """
    b = np.asarray(board_after)
    if int(b[0].sum()) == 0:
        return WIN_SCORE
    weights = RACE_WEIGHTS if race else CONTACT_WEIGHTS
    return sum(w * x for w, x in zip(weights, pubeval_inputs(b)) if x)


def _check_plays(plays) -> int:
    n = len(plays)
    if n == 0:
        raise ValueError("no play to choose from (the caller handles n == 0)")
    return n


class RandomPolicy:
    """Choose uniformly among the legal plays.

    Attributes
    ----------
    name : str
        ``"random"``.

    Notes
    -----
    One :func:`fastbg.spec.dice.bounded` call per decision with two or more
    plays, nothing drawn for a single play; the draw ``k`` picks the play of rank
    ``k`` when the plays are ordered by their play keys
    (:func:`fastbg.reference.movegen.play_keys`), ties in canonical order (engine
    contract). Any fixed order gives a uniform choice; this one is what the Cython
    generator can provide without sorting boards.
    """

    name = "random"

    def choose(self, board_before, plays, bitgen) -> int:
        """Index of the chosen play.

        Parameters
        ----------
        board_before : numpy.ndarray, shape (2, 25)
            The position before the play.
        plays : numpy.ndarray of int8, shape (n, 2, 25)
            The distinct legal plays, in any order, ``n >= 1``.
        bitgen : numpy.random.BitGenerator
            Source of the draw.

        Returns
        -------
        int
            The index in ``plays`` of the play of rank ``bounded(bitgen, n)`` in
            (play key, canonical) order, or 0 without a draw when ``n == 1``.

        Raises
        ------
        ValueError
            If ``plays`` is empty.
        """
        n = _check_plays(plays)
        if n == 1:
            return 0
        k = bounded(bitgen, n)
        keys = play_keys(board_before, plays)
        order = np.argsort(keys, kind="stable")
        if np.any(keys[order[1:]] == keys[order[:-1]]):  # equal keys: by the bytes
            arr = np.asarray(plays, dtype=np.int8).reshape(n, 50)
            order = sorted(range(n), key=lambda i: (int(keys[i]), arr[i].tobytes()))
        return int(order[k])

    def __repr__(self) -> str:
        return "RandomPolicy()"


class PubevalPolicy:
    """Choose the play with the highest exact pubeval score.

    Attributes
    ----------
    name : str
        ``"pubeval"``.

    Notes
    -----
    Deterministic: never draws from the bit generator. The race weights are used
    when ``board_before`` is a race; ties go to the first play in canonical order.
    Source: G. Tesauro, ``pubeval.c`` (1993).
    """

    name = "pubeval"

    def choose(self, board_before, plays, bitgen=None) -> int:
        """Index of the best play by :func:`pubeval_score`.

        Parameters
        ----------
        board_before : numpy.ndarray, shape (2, 25)
            The position before the play, mover in row 0 (decides race/contact).
        plays : numpy.ndarray of int8, shape (n, 2, 25)
            Legal plays in canonical order, ``n >= 1``.
        bitgen : numpy.random.BitGenerator, optional
            Unused (accepted for a uniform policy interface).

        Returns
        -------
        int
            The first index with the maximum score.

        Raises
        ------
        ValueError
            If ``plays`` is empty.
        """
        _check_plays(plays)
        race = is_race(board_before)
        best, best_score = 0, None
        for i, play in enumerate(plays):
            score = pubeval_score(play, race)
            if best_score is None or score > best_score:
                best, best_score = i, score
        return best

    def __repr__(self) -> str:
        return "PubevalPolicy()"
