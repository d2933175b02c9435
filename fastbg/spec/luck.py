"""Variance reduction by luck adjustment: the arithmetic both engines follow (the core's ``luck.pxd``).

The luck of a roll is the yardstick's value of the position after the best play for that
roll minus the mean of that value over the rolls that could have come
(:meth:`fastbg.reference.evaluator.EvalPolicy.roll_values`). A game's luck-adjusted result
is its outcome minus the summed luck of its random rolls, each in the root's point of view
(row 0 of the rollout's start). Given everything before it, a roll's luck has mean zero
whatever the yardstick, so the adjusted result has the outcome's expectation (the
estimate is unbiased) and, with a good yardstick, a much smaller variance. This is the
method of GNU Backgammon's and eXtreme Gammon's rollouts (GNU Backgammon manual, "Variance
reduction"; D. Montgomery, "Variance reduction", 1998).

Every sum runs in the core's order, element by element, so both engines give the same bits.
The pure-Python engine computes its luck with these functions, the compiled core with the
same operations in ``luck.pxd``, and the rollouts' breakdown by first roll
(:mod:`fastbg.rollouts`) with these again; it is part of the engine spec.
"""
from __future__ import annotations

import numpy as np

__all__ = ["roll_slot", "roll_mean", "opening_mean", "flip", "add_luck", "adjusted_result"]

#: The 15 non-double rolls (d1 > d2) in the order the opening mean sums them.
_OPENING_ROLLS = [(d1, d2) for d1 in range(2, 7) for d2 in range(1, d1)]


def roll_slot(a: int, b: int) -> int:
    """Row of the roll ``a-b`` in :meth:`EvalPolicy.roll_values` (0..20)."""
    hi, lo = max(a, b), min(a, b)
    return hi * (hi - 1) // 2 + lo - 1


def roll_mean(v: np.ndarray) -> np.ndarray:
    """The average of ``v`` (shape (21, 5)) over the 36 rolls: weight 1 a double, 2 else."""
    acc = [0.0] * 5
    s = 0
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            w = 1.0 if d1 == d2 else 2.0
            for k in range(5):
                acc[k] = acc[k] + w * float(v[s, k])
            s += 1
    return np.array([a / 36.0 for a in acc])


def flip(r) -> np.ndarray:
    """The other side's probabilities: win <-> lose, gammons exchanged."""
    return np.array([1.0 - r[0], r[3], r[4], r[1], r[2]], dtype=np.float64)


def opening_mean(v0: np.ndarray, v1: np.ndarray) -> np.ndarray:
    """Root's view: the average over the 30 outcomes of the opening roll of ``v0`` (root on
    roll) and of ``v1`` flipped (the opponent on roll), root's 15 rolls first."""
    acc = [0.0] * 5
    for d1, d2 in _OPENING_ROLLS:
        for k in range(5):
            acc[k] = acc[k] + float(v0[roll_slot(d1, d2), k])
    for d1, d2 in _OPENING_ROLLS:
        q = flip(v1[roll_slot(d1, d2)])
        for k in range(5):
            acc[k] = acc[k] + float(q[k])
    return np.array([a / 30.0 for a in acc])


def add_luck(L: list, actual, mean, root: bool) -> None:
    """``L += actual - mean`` in place, both in the mover's view; for the root's opponent
    the difference is turned to the root's view (win negated, gammons exchanged)."""
    d = [float(actual[k]) - float(mean[k]) for k in range(5)]
    if root:
        for k in range(5):
            L[k] = L[k] + d[k]
    else:
        L[0] = L[0] - d[0]
        L[1] = L[1] + d[3]
        L[2] = L[2] + d[4]
        L[3] = L[3] + d[1]
        L[4] = L[4] + d[2]


def adjusted_result(c: int, L: list) -> list:
    """Outcome class ``c``'s indicators (root's view) minus ``L``, then their cubeless
    equity ``(2 w - 1) + (wg - lg) + (wbg - lbg)``: six floats."""
    a0 = (1.0 if c < 3 else 0.0) - L[0]
    a1 = (1.0 if c in (1, 2) else 0.0) - L[1]
    a2 = (1.0 if c == 2 else 0.0) - L[2]
    a3 = (1.0 if c in (4, 5) else 0.0) - L[3]
    a4 = (1.0 if c == 5 else 0.0) - L[4]
    return [a0, a1, a2, a3, a4, (2.0 * a0 - 1.0) + (a1 - a3) + (a2 - a4)]
