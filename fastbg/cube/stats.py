"""How sure a cube decision is: standard errors, margins in standard errors, and when to call it.

A cube decision from a rollout compares three values, No double (ND), Double/take (DT) and
Double/pass (DP), each an estimate with a standard error. Two differences decide it: the
doubler's (``min(DT, DP) - ND``: double or not) and the taker's (``DP - DT``: take or pass).
This module holds the arithmetic that every method of valuing the cube shares
(:func:`fastbg.cube.decision.janowski_cube_decision`, the cube rollout of
:func:`fastbg.rollouts.cuberollout.cube_rollout`):

- :func:`delta_method_stderr`: the standard error of a function of the five probabilities,
  ``sqrt(g' C g)`` from its gradient ``g`` and the covariance ``C`` of the estimates;
  :func:`numerical_gradient` for the functions that have no exact gradient (the match-play
  equities, through the match equity table's interpolations).
- :func:`z_score`, :func:`decision_z`, :func:`decision_margins`: a difference in standard
  errors, signed (the two halves of the decision) or as "the better choice over the other".
- :func:`too_close`: which halves a number of trials leaves undecided (:data:`CLOSE_Z`,
  :data:`MIN_DECIDING_TRIALS`).

Sources: the delta method (e.g. Casella and Berger, *Statistical Inference*, 2nd ed.,
section 5.5.4); Student's t quantiles for the trial count (any table of the t distribution).
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

__all__ = ["CLOSE_Z", "MIN_DECIDING_TRIALS", "GRADIENT_STEP", "delta_method_stderr",
           "numerical_gradient", "z_score", "decision_z", "decision_margins", "too_close"]

#: A decision within this many standard errors of the difference is too close to call.
CLOSE_Z = 2.0
#: Fewer trials (games) than this decide nothing, whatever their margins: the margin in
#: standard errors of a few trials is no 95% call (Student's t with n - 1 degrees of freedom
#: needs 12.7 at 2 trials, 2.03 at 36, against CLOSE_Z = 2), and a standard error of 0 from
#: a few trials that agree says nothing. 36 trials also hold each first roll once with
#: quasi-random dice.
MIN_DECIDING_TRIALS = 36
#: Step of :func:`numerical_gradient`, in probability.
GRADIENT_STEP = 1e-6
#: How far below 0 a computed variance ``g' C g`` may be from rounding alone; below it the
#: matrix is no covariance, and the standard error is NaN rather than a confident 0.
_ROUND_OFF_VARIANCE = 1e-15


def delta_method_stderr(gradient, covariance) -> float:
    """Standard error of ``f(p)`` by the delta method: ``sqrt(g' C g)``.

    Parameters
    ----------
    gradient : array_like of float, shape (5,)
        The gradient ``g`` of ``f`` at the estimated probabilities (win, win_gammon,
        win_backgammon, lose_gammon, lose_backgammon), in the unit of ``f`` per unit of
        probability.
    covariance : array_like of float, shape (5, 5)
        The covariance ``C`` of the probability estimates
        (:func:`fastbg.cube.money.probability_covariance` of a rollout's counts).

    Returns
    -------
    float
        In the unit of ``f``. 0 when ``g' C g`` is 0 or negative by rounding only (above
        -1e-15); NaN when it is NaN (too few games for a covariance) or clearly negative
        (``C`` is not a covariance matrix).

    Notes
    -----
    First-order (delta method): ``Var f(p_hat) ~ g' C g`` for an estimate ``p_hat`` close to
    ``p``. Exact for functions linear in the probabilities, such as a cubeless equity.
    """
    g = np.asarray(gradient, dtype=np.float64)
    var = float(g @ np.asarray(covariance, dtype=np.float64) @ g)
    if var > 0:
        return math.sqrt(var)
    return 0.0 if var > -_ROUND_OFF_VARIANCE else float("nan")


def numerical_gradient(f: Callable[[np.ndarray], float], q, step: float = GRADIENT_STEP
                       ) -> np.ndarray:
    """Gradient of ``f`` at the five probabilities ``q`` by finite differences.

    Parameters
    ----------
    f : callable
        A function of the five probabilities (an array of shape (5,)) that raises
        ``ValueError`` where they are not valid (a probability outside [0, 1], gammons above
        wins, ...), as the cube functions of :mod:`fastbg.cube` do.
    q : array_like of float, shape (5,)
        Where to take the gradient.
    step : float
        The step, in probability (default :data:`GRADIENT_STEP`, 1e-6).

    Returns
    -------
    numpy.ndarray of float64, shape (5,)
        Central differences; one-sided where a step leaves the valid probabilities (``f``
        raises ``ValueError`` there), 0 where neither side is valid (then the estimate has
        no sampling variance in that direction either).
    """
    q = np.asarray(q, dtype=np.float64)
    f0 = f(q)
    g = np.zeros(5)
    for i in range(5):
        vals = {}
        for sign in (1, -1):
            v = q.copy()
            v[i] += sign * step
            try:
                vals[sign] = f(v)
            except ValueError:
                pass
        if len(vals) == 2:
            g[i] = (vals[1] - vals[-1]) / (2 * step)
        elif 1 in vals:
            g[i] = (vals[1] - f0) / step
        elif -1 in vals:
            g[i] = (f0 - vals[-1]) / step
    return g


def z_score(difference: float, stderr: float) -> float:
    """A difference in standard errors.

    Parameters
    ----------
    difference, stderr : float
        In the same unit.

    Returns
    -------
    float
        ``difference / stderr``; without sampling error (``stderr`` 0) +-inf for a
        difference, NaN for a tie (0 / 0); NaN when ``stderr`` is NaN (too few trials).
    """
    if stderr != stderr:
        return float("nan")
    if stderr > 0:
        return float(difference / stderr)
    return math.copysign(math.inf, difference) if difference else float("nan")


def decision_z(nd: float, dt: float, dp: float, se_nd: float, se_dt: float,
               se_dt_minus_nd: float) -> dict:
    """The two halves of a cube decision in standard errors, signed.

    Parameters
    ----------
    nd, dt, dp : float
        No double, Double/take and Double/pass for the doubler, in one unit (larger is
        better for the doubler).
    se_nd, se_dt, se_dt_minus_nd : float
        Standard errors of ``nd``, ``dt`` and of the difference ``dt - nd`` (paired, or from
        the covariance of the estimates: smaller than either). Double/pass has none.

    Returns
    -------
    dict
        ``double``: :func:`z_score` of the doubler's gain ``min(dt, dp) - nd`` (the taker
        answers with the worse of take and pass for the doubler) in standard errors of that
        difference: of ``dt - nd`` when the taker takes, of ``nd`` when it passes;
        ``take``: :func:`z_score` of ``dp - dt`` in standard errors of ``dt``. Positive
        favours the double and the take.
    """
    takes = dt < dp
    gain = (dt if takes else dp) - nd
    return {"double": z_score(gain, se_dt_minus_nd if takes else se_nd),
            "take": z_score(dp - dt, se_dt)}


def _margin(better: str, worse: str, difference: float, stderr: float) -> dict:
    return {"choice": better, "over": worse, "difference": difference, "stderr": stderr,
            "z": z_score(difference, stderr)}


def decision_margins(nd: float, dt: float, dp: float, se_nd: float, se_dt: float,
                     se_dt_minus_nd: float) -> dict:
    """The two halves of a cube decision as the better choice over the other.

    Parameters
    ----------
    nd, dt, dp, se_nd, se_dt, se_dt_minus_nd : float
        As :func:`decision_z`.

    Returns
    -------
    dict
        ``double`` and ``take``, each a dict: ``choice`` and ``over`` (``"double"`` /
        ``"no double"``, ``"take"`` / ``"pass"``), ``difference`` (>= 0, the better over the
        other, in the unit of the values), ``stderr`` (of that difference) and ``z``
        (:func:`z_score` of the two: the absolute value of :func:`decision_z`'s). The
        taker takes when Double/take is worse for the doubler than Double/pass; the doubler
        doubles when the double, answered that way, is worth at least No double (ties go to
        the double, as :func:`fastbg.cube.money.cube_action` has it).
    """
    take = (_margin("take", "pass", dp - dt, se_dt) if dt < dp
            else _margin("pass", "take", dt - dp, se_dt))
    doubled = min(dt, dp)
    se_diff = se_dt_minus_nd if dt < dp else se_nd
    double = (_margin("double", "no double", doubled - nd, se_diff) if nd <= doubled
              else _margin("no double", "double", nd - doubled, se_diff))
    return {"double": double, "take": take}


def too_close(z_double: float, z_take: float, games: int, certain: bool = False) -> list[str]:
    """The halves of a cube decision that ``games`` trials do not decide.

    Parameters
    ----------
    z_double, z_take : float
        The halves' margins in standard errors (:func:`decision_z` or
        :func:`decision_margins`; the sign does not matter).
    games : int
        Trials (games) the estimates come from.
    certain : bool
        The trials cannot vary (every roll ends the game at once) or were valued exactly:
        every margin decides, a tie too.

    Returns
    -------
    list of str
        ``"double"`` and/or ``"take"``, in that order: margins within :data:`CLOSE_Z`
        standard errors or unknown (NaN: too few games for a standard error, or a tie
        without sampling error), or both with fewer than :data:`MIN_DECIDING_TRIALS`
        trials. An infinite margin (no sampling error at all) decides. ``[]`` when decided.
    """
    if certain:
        return []
    return [part for part, z in (("double", z_double), ("take", z_take))
            if games < MIN_DECIDING_TRIALS or not abs(z) >= CLOSE_Z]
