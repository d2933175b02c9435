"""Cube decisions: from cubeless probabilities to the proper cube action.

The vocabulary shared by money play (this module) and match play (:mod:`fastbg.cube.match`):
the cube owner names and :func:`cube_action`, which turns the three cubeful values of a cube
decision into the proper action.

Money play (this module): gammon-adjusted values :func:`gammon_values`, take and cash points
(:func:`take_point`, :func:`cash_point`), Janowski's cubeful equities
(:func:`cubeful_equity`) and their exact gradient (:func:`cubeful_equity_gradient`), the
cube decision with optional delta-method standard errors (:func:`money_cube_decision` ->
:class:`MoneyCubeDecision`; the delta method itself is :mod:`fastbg.cube.stats`) and GNU
Backgammon's default cube efficiency (:func:`default_cube_efficiency`; 0 on the last roll,
:func:`is_last_roll`). Exact money values of small bear-offs, to test these approximations
against, are in :mod:`fastbg.cube.bearoff`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ..game.outcomes import CUBE_OWNERS, OUTCOME_INDICATORS, PROBABILITY_KEYS
from .efficiency import (BEAROFF_CUBE_EFFICIENCY, CONTACT_CUBE_EFFICIENCY,  # noqa: F401
                         DEFAULT_CUBE_EFFICIENCY, LAST_ROLL_CUBE_EFFICIENCY,
                         RACE_CUBE_EFFICIENCY, _check_x, _resolve_x, default_cube_efficiency,
                         is_last_roll)
from .stats import delta_method_stderr

#: The proper actions, in GNU Backgammon's words. With ``redouble=True`` "double" reads
#: "redouble".
ACTIONS = (
    "No double, take",
    "No double, beaver",
    "Double, take",
    "Double, beaver",
    "Double, pass",
    "Too good to double, take",
    "Too good to double, pass",
)


def cube_action(nd: float, dt: float, dp: float, *, redouble: bool = False,
                beaver: bool = False) -> str:
    """The proper cube action from the values of its three outcomes.

    Parameters
    ----------
    nd, dt, dp : float
        Value to the player who may double of No double, Double/take and Double/pass, all in
        the same unit, larger is better for the doubler: equity per unit of the cube *before*
        the double (money play, so Double/pass is 1 without Jacoby effects), or match winning
        chances in [0, 1] (match play).
    redouble : bool
        Word the action as a redouble (the doubler owns the cube).
    beaver : bool
        Whether the taker may beaver (money play with the beaver option): a take whose value
        to the taker is positive, ``dt < 0`` in per-cube equity, is then a beaver.

    Returns
    -------
    str
        One of :data:`ACTIONS` (with "redouble" for "double" when ``redouble``).

    Notes
    -----
    The taker answers a double by whichever of take and pass is worse for the doubler, so
    doubling is worth ``min(dt, dp)``. The doubler doubles when that beats ``nd``; when it
    does not and ``nd`` beats even ``dp``, the position is too good to double (play on for a
    gammon); otherwise it is no double. Ties go to the double. The same rule as GNU
    Backgammon's cube analysis.
    """
    takes = dt < dp
    d = dt if takes else dp
    answer = ("beaver" if beaver and dt < 0 else "take") if takes else "pass"
    if nd > d:
        action = f"Too good to double, {answer}" if nd > dp else f"No double, {answer}"
    else:
        action = f"Double, {answer}"
    if redouble:
        # Lower case first: "Redouble" itself contains "double".
        action = action.replace("double", "redouble").replace("Double", "Redouble")
    return action


# ---------------------------------------------------------------------------------------
# Money play: Janowski's cubeful equities
# ---------------------------------------------------------------------------------------

# Tolerance for rounding in probabilities given as floats (a neural net's outputs, sums).
_TOL = 1e-9


def _check_owner(cube_owner) -> str:
    if cube_owner not in CUBE_OWNERS:
        raise ValueError(
            f"unknown cube owner {cube_owner!r}: choose one of {', '.join(CUBE_OWNERS)}"
        )
    return cube_owner


def probability_vector(probabilities) -> np.ndarray:
    """The five cubeless probabilities as an array, checked.

    Parameters
    ----------
    probabilities : mapping, object or sequence of 5 float
        As :func:`gammon_values`: keys or attributes of
        :data:`fastbg.game.outcomes.PROBABILITY_KEYS` (a
        :class:`~fastbg.rollouts.cubeless.RolloutResult`), or the five numbers in that order.

    Returns
    -------
    numpy.ndarray of float64, shape (5,)
        ``win, win_gammon, win_backgammon, lose_gammon, lose_backgammon``, clipped to
        [0, 1] (values within the rounding tolerance 1e-9 outside it).

    Raises
    ------
    ValueError
        As :func:`gammon_values`.
    """
    if isinstance(probabilities, Mapping):
        missing = [k for k in PROBABILITY_KEYS if k not in probabilities]
        if missing:
            raise ValueError(f"probabilities lack {', '.join(missing)}")
        values = [probabilities[k] for k in PROBABILITY_KEYS]
    elif all(hasattr(probabilities, k) for k in PROBABILITY_KEYS):
        values = [getattr(probabilities, k) for k in PROBABILITY_KEYS]
    else:
        values = probabilities
    try:
        q = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"probabilities must be five numbers, got {probabilities!r}") from exc
    if q.shape != (5,):
        raise ValueError(
            "probabilities must be five numbers (win, win_gammon, win_backgammon, "
            f"lose_gammon, lose_backgammon), got shape {q.shape}"
        )
    if not np.isfinite(q).all():
        raise ValueError(f"probabilities must be finite, got {q.tolist()}")
    for key, v in zip(PROBABILITY_KEYS, q):
        if not -_TOL <= v <= 1 + _TOL:
            raise ValueError(f"{key} must be in [0, 1], got {v}")
    q = np.clip(q, 0.0, 1.0)
    w, wg, wbg, lg, lbg = q
    for small, big, what in (
        (wg, w, "win_gammon <= win"),
        (wbg, wg, "win_backgammon <= win_gammon"),
        (lg, 1 - w, "lose_gammon <= 1 - win"),
        (lbg, lg, "lose_backgammon <= lose_gammon"),
    ):
        if small > big + _TOL:
            raise ValueError(
                f"inconsistent probabilities: need {what} (gammons include backgammons), "
                f"got {small} > {big}"
            )
    return q


class _Dual:
    """A number with its gradient with respect to the five probabilities.

    Forward-mode automatic differentiation: the formulas below run unchanged on floats
    (values) or on these (values and exact first derivatives, for the delta method).
    Branches compare values only.
    """

    __slots__ = ("v", "g")

    def __init__(self, v: float, g: np.ndarray):
        self.v = v
        self.g = g

    @staticmethod
    def lift(o) -> "_Dual":
        return o if isinstance(o, _Dual) else _Dual(float(o), np.zeros(5))

    def __add__(self, o):
        o = _Dual.lift(o)
        return _Dual(self.v + o.v, self.g + o.g)

    __radd__ = __add__

    def __sub__(self, o):
        o = _Dual.lift(o)
        return _Dual(self.v - o.v, self.g - o.g)

    def __rsub__(self, o):
        return _Dual.lift(o) - self

    def __mul__(self, o):
        o = _Dual.lift(o)
        return _Dual(self.v * o.v, self.g * o.v + self.v * o.g)

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = _Dual.lift(o)
        r = self.v / o.v
        return _Dual(r, (self.g - r * o.g) / o.v)

    def __rtruediv__(self, o):
        return _Dual.lift(o) / self

    def __neg__(self):
        return _Dual(-self.v, -self.g)


def _val(z) -> float:
    return z.v if isinstance(z, _Dual) else float(z)


def _wl(q):
    """(p, W, L) from the five probabilities (floats or duals)."""
    w, wg, wbg, lg, lbg = q
    won = w + wg + wbg  # points won per game from the wins: p W
    lost = (1 - w) + lg + lbg  # points lost per game from the losses: (1 - p) L
    W = won / w if _val(w) > 0 else 1.0
    L = lost / (1 - w) if _val(w) < 1 else 1.0
    return w, W, L


def _live(p, W, L, owner: str):
    """Fully live cube equity (x = 1), piecewise linear in p between the points
    (0, -L), the live take point (-1, when the opponent can double), the live cash point
    (+1, when the player can double) and (1, W)."""
    s = W + L + 0.5
    tp = (L - 0.5) / s  # the player's own live take point
    cp = (L + 1.0) / s  # the player's live cash point (= 1 - the opponent's take point)
    pv = _val(p)
    if owner != "opponent" and pv > _val(cp):
        return 1 + (W - 1) * (p - cp) / (1 - cp)  # too good: cash, or play on for W
    if owner != "player" and pv < _val(tp):
        return -L + (L - 1) * p / tp  # the opponent is too good
    if owner == "player":
        return p * s - L
    if owner == "opponent":
        return p * s - L - 0.5
    return -1 + 2 * (p - tp) / (cp - tp)


def _equity(q, x: float, owner: str, jacoby: bool = False):
    """Janowski's cubeful equity: x E_live + (1 - x) E_dead (floats or duals)."""
    if jacoby and owner == "centred":
        # Gammons and backgammons count as single games while the cube is centred.
        q = [q[0], 0.0, 0.0, 0.0, 0.0]
    p, W, L = _wl(q)
    dead = p * W - (1 - p) * L
    return x * _live(p, W, L, owner) + (1 - x) * dead


def _equity_gradient(q, x: float, owner: str, jacoby: bool = False) -> np.ndarray:
    """The exact gradient of :func:`_equity` at the checked probabilities ``q``, shape (5,)."""
    duals = [_Dual(float(v), np.eye(5)[i]) for i, v in enumerate(q)]
    return _Dual.lift(_equity(duals, x, owner, jacoby)).g


def gammon_values(probabilities) -> tuple[float, float]:
    """Gammon-adjusted values of wins and losses.

    Parameters
    ----------
    probabilities : mapping, object or sequence of 5 float
        The five cubeless probabilities of DESIGN section 5 (player on roll's view, before
        the roll; gammons include backgammons): a mapping or an object (such as a
        :class:`~fastbg.rollouts.cubeless.RolloutResult`) with the keys or attributes of
        :data:`fastbg.game.outcomes.PROBABILITY_KEYS`, or the five numbers in that order
        (``win, win_gammon, win_backgammon, lose_gammon, lose_backgammon``), each in
        [0, 1].

    Returns
    -------
    W, L : float
        Average points (per unit cube) won when winning,
        ``(win + win_gammon + win_backgammon) / win``, and lost when losing,
        ``(1 - win + lose_gammon + lose_backgammon) / (1 - win)``; each at least 1. By
        convention ``W = 1`` when ``win = 0`` and ``L = 1`` when ``win = 1``.

    Raises
    ------
    ValueError
        If a probability is not finite, outside [0, 1] (beyond a rounding tolerance of
        1e-9), or the set is inconsistent: it needs ``win_backgammon <= win_gammon <=
        win`` and ``lose_backgammon <= lose_gammon <= 1 - win``.
    """
    _, W, L = _wl(probability_vector(probabilities))
    return float(W), float(L)


def take_point(W: float, L: float, x: float = DEFAULT_CUBE_EFFICIENCY) -> float:
    """Janowski's money take point.

    Parameters
    ----------
    W, L : float
        Gammon-adjusted values of the *taker* (its average win and loss, each >= 1, see
        :func:`gammon_values`).
    x : float
        Cube efficiency in [0, 1]: 0 dead cube, 1 fully live cube.

    Returns
    -------
    float
        The least winning chance, in the taker's view, with which taking a double is at
        least as good as passing: ``(L - 1/2) / (W + L + x/2)``. Without gammons
        (``W = L = 1``) 25 % for a dead cube, 20 % for a live one (Keeler and Spencer
        1975), 3/14 = 21.4 % at ``x = 2/3``.

    Raises
    ------
    ValueError
        If ``W`` or ``L`` is below 1 or ``x`` is outside [0, 1].

    Notes
    -----
    R. Janowski, "Take-Points in Money Games" (1993). The taker takes a 2-cube whose
    equity to it is ``2 (p (W + L + x/2) - L)``, from :func:`cubeful_equity` with the
    cube owned (by the taker), and compares it with -1.
    """
    W, L, x = _check_wl(W, "W"), _check_wl(L, "L"), _check_x(x)
    return (L - 0.5) / (W + L + 0.5 * x)


def cash_point(W: float, L: float, x: float = DEFAULT_CUBE_EFFICIENCY) -> float:
    """Janowski's money cash point.

    Parameters
    ----------
    W, L : float
        Gammon-adjusted values of the *doubler* (>= 1, see :func:`gammon_values`).
    x : float
        Cube efficiency in [0, 1].

    Returns
    -------
    float
        The doubler's winning chance from which the opponent should pass:
        ``(L + 1/2 + x/2) / (W + L + x/2)``, that is ``1 - take_point(L, W, x)``. Without
        gammons 75 % for a dead cube, 80 % for a live one.

    Raises
    ------
    ValueError
        If ``W`` or ``L`` is below 1 or ``x`` is outside [0, 1].
    """
    W, L, x = _check_wl(W, "W"), _check_wl(L, "L"), _check_x(x)
    return (L + 0.5 + 0.5 * x) / (W + L + 0.5 * x)


def _check_wl(v, name: str) -> float:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a number >= 1, got {v!r}")
    v = float(v)
    if not v >= 1.0 or math.isinf(v):
        raise ValueError(f"{name} (average points per won or lost game) must be >= 1, got {v}")
    return v


def cubeful_equity(probabilities, *, x: float | None = None, cube_owner: str = "centred",
                   jacoby: bool = False, position=None) -> float:
    """Janowski's money cubeful equity of the player on roll, before its cube decision.

    Parameters
    ----------
    probabilities : mapping, object or sequence of 5 float
        The five cubeless probabilities (see :func:`gammon_values`).
    x : float, optional
        Cube efficiency in [0, 1]. Default: ``default_cube_efficiency(position)`` if a
        position is given, else :data:`DEFAULT_CUBE_EFFICIENCY` (0.68, GNU Backgammon's
        contact value).
    cube_owner : {"centred", "player", "opponent"}
        Who owns the cube, from the view of the player on roll.
    jacoby : bool
        Jacoby rule: with a centred cube, gammons and backgammons count as single games.
    position : optional
        Only used for the default ``x``.

    Returns
    -------
    float
        Equity in points per unit of the current cube, with the cube where it is (for a
        centred or owned cube this is the No double value of :func:`money_cube_decision`).

    Raises
    ------
    ValueError
        For bad probabilities (see :func:`gammon_values`), ``x`` outside [0, 1] or an
        unknown cube owner.

    Notes
    -----
    **Formula.** GNU Backgammon's form of Janowski's model, ``E = x E_live + (1 - x)
    E_dead`` (GNU Backgammon manual, "Basic formula for cubeful equities"), for every cube
    position including the centred cube. ``E_dead = p W - (1 - p) L`` is the cubeless
    equity. ``E_live``, the equity when every double is made exactly at the opponent's
    take point (Keeler and Spencer's continuous model extended to gammons by Janowski),
    is piecewise linear in ``p``: with ``TP = (L - 1/2) / (W + L + 1/2)`` (the player's
    own live take point) and ``CP = (L + 1) / (W + L + 1/2)`` (its live cash point) it
    joins the points ``(0, -L)``, ``(TP, -1)`` (only when the opponent can double),
    ``(CP, +1)`` (only when the player can double) and ``(1, W)``. So between the take
    and cash points:

    - owned by the player: ``E = p (W + L + x/2) - L``;
    - owned by the opponent: ``E = p (W + L + x/2) - L - x/2``;
    - centred: ``E = x (-1 + 2 (p - TP) / (CP - TP)) + (1 - x) (p W - (1 - p) L)``.

    The owned-cube forms are Janowski's own (R. Janowski, "Take-Points in Money Games",
    1993). For the centred cube Janowski's paper gives a different line,
    ``4/(4 - x) (p (W + L + x/2) - L - x/4)``, which agrees with the mixture at
    ``x = 0`` and ``x = 1`` only; the mixture is what GNU Backgammon and eXtreme Gammon
    report (it reproduces XG's centred-cube equity -0.0087 for a gammonless 49.694 %
    position at ``x = 0.622``, where Janowski's line gives -0.0084).
    """
    x = _resolve_x(x, position)
    q = probability_vector(probabilities)
    return float(_equity(list(q), x, _check_owner(cube_owner), bool(jacoby)))


def cubeful_equity_gradient(probabilities, *, x: float | None = None,
                            cube_owner: str = "centred", jacoby: bool = False,
                            position=None) -> np.ndarray:
    """Exact gradient of :func:`cubeful_equity` with respect to the five probabilities.

    Parameters
    ----------
    probabilities, x, cube_owner, jacoby, position
        As :func:`cubeful_equity`.

    Returns
    -------
    numpy.ndarray of float64, shape (5,)
        ``d equity / d p_i`` for ``win, win_gammon, win_backgammon, lose_gammon,
        lose_backgammon``, in points per unit of the current cube per unit of probability.
        With :func:`fastbg.cube.stats.delta_method_stderr` and the covariance of the
        estimates (:func:`probability_covariance`) it gives the equity's standard error.

    Raises
    ------
    ValueError
        As :func:`cubeful_equity`.

    Notes
    -----
    Forward-mode automatic differentiation of the formulas of :func:`cubeful_equity` (exact,
    no step): the equity is linear in the probabilities between the take and cash points
    and rational outside them. At a kink (a winning chance exactly at a take or cash point)
    it is the gradient of the side the value lies on.
    """
    x = _resolve_x(x, position)
    q = probability_vector(probabilities)
    return _equity_gradient(q, x, _check_owner(cube_owner), bool(jacoby))


def probability_covariance(counts) -> np.ndarray:
    """Covariance matrix of the five probability estimates of a rollout.

    Parameters
    ----------
    counts : array_like of int, shape (6,)
        Games won single/gammon/backgammon, lost single/gammon/backgammon (the
        :attr:`~fastbg.rollouts.cubeless.RolloutResult.counts` of a rollout).

    Returns
    -------
    numpy.ndarray of float64, shape (5, 5)
        Covariance of the estimates of ``win, win_gammon, win_backgammon, lose_gammon,
        lose_backgammon``: the sample covariance (ddof=1) of the per-game indicator
        vectors divided by the number of games, so its diagonal is the square of the
        standard errors of :func:`fastbg.rollouts.cubeless.outcome_statistics`. NaN for fewer
        than two games.

    Raises
    ------
    ValueError
        If ``counts`` is not six non-negative integers.
    """
    c = np.asarray(counts)
    if c.shape != (6,) or c.dtype.kind not in "iu" or (c < 0).any():
        raise ValueError(f"counts must be six non-negative integers, got {counts!r}")
    n = int(c.sum())
    if n < 2:
        return np.full((5, 5), np.nan)
    ind = OUTCOME_INDICATORS.astype(np.float64)
    pi = c.astype(np.float64) / n
    mean = ind @ pi
    second = (ind * pi) @ ind.T
    return (second - np.outer(mean, mean)) / (n - 1)


@dataclass(frozen=True)
class MoneyCubeDecision:
    """A money-play cube decision of the player on roll, from Janowski's formulas.

    Attributes
    ----------
    nd, dt, dp : float
        Cubeful equity of No double, Double/take and Double/pass for the player on roll,
        in points per unit of the cube *before* the double: ``nd`` with the cube where it
        is, ``dt`` twice the equity with the opponent owning the doubled cube, ``dp = 1``.
    action : str
        The proper action, one of :data:`ACTIONS` ("Redouble" wording when the player
        owns the cube; "beaver" when allowed and the taker's equity is positive).
    take_point : float
        The opponent's take point at efficiency ``x``, in the opponent's winning chances
        (``take_point(L, W, x)`` with the player's ``W``, ``L``).
    cash_point : float
        ``1 - take_point``: the player's winning chance from which the opponent should
        pass.
    take_point_dead, take_point_live, cash_point_dead, cash_point_live : float
        The same at ``x = 0`` and ``x = 1``.
    W, L : float
        The player's gammon-adjusted values (see :func:`gammon_values`), gammons counted
        (a double always turns the cube, so Jacoby does not apply to these).
    x : float
        The cube efficiency used.
    win : float
        The player's cubeless winning chance.
    cube_owner : str
        ``"centred"`` or ``"player"``.
    jacoby, beaver : bool
        The options used.
    stderr : dict or None
        Standard errors of ``nd``, ``dt``, ``dp`` (0) and ``dt_minus_nd`` by the delta
        method, when a covariance or counts were given.
    """

    nd: float
    dt: float
    dp: float
    action: str
    take_point: float
    cash_point: float
    W: float
    L: float
    x: float
    win: float
    cube_owner: str = "centred"
    jacoby: bool = False
    beaver: bool = False
    take_point_dead: float = float("nan")
    take_point_live: float = float("nan")
    cash_point_dead: float = float("nan")
    cash_point_live: float = float("nan")
    stderr: dict | None = field(default=None, compare=False)

    @property
    def equity(self) -> float:
        """Cubeful equity after the proper cube action: ``max(nd, min(dt, dp))``."""
        return max(self.nd, min(self.dt, self.dp))

    def to_dict(self) -> dict:
        """JSON-ready dict of the attributes and ``equity``."""
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["stderr"] = None if self.stderr is None else dict(self.stderr)
        d["equity"] = self.equity
        return d


def money_cube_decision(probabilities, *, x: float | None = None, cube_owner: str = "centred",
                        jacoby: bool = False, beaver: bool = False, position=None,
                        covariance=None, counts=None) -> MoneyCubeDecision:
    """The money-play cube decision of the player on roll, by Janowski's formulas.

    Parameters
    ----------
    probabilities : mapping, object or sequence of 5 float
        The five cubeless probabilities in [0, 1] (see :func:`gammon_values`), for
        instance a :class:`~fastbg.rollouts.cubeless.RolloutResult`.
    x : float, optional
        Cube efficiency in [0, 1]. Default: ``default_cube_efficiency(position)`` if
        ``position`` is given, else :data:`DEFAULT_CUBE_EFFICIENCY` (0.68).
    cube_owner : {"centred", "player"}
        Who owns the cube; the player on roll can only double a centred cube or redouble
        its own.
    jacoby : bool
        Jacoby rule: with a centred cube, No double counts gammons and backgammons as
        single games (a double turns the cube, so Double/take counts them).
    beaver : bool
        Whether the opponent may beaver (only changes the wording of the action).
    position : optional
        Only used for the default ``x``.
    covariance : array_like, shape (5, 5), optional
        Covariance matrix of the probability estimates, for standard errors.
    counts : array_like of int, shape (6,), optional
        Rollout outcome counts; their covariance (:func:`probability_covariance`) is used.

    Returns
    -------
    MoneyCubeDecision
        Equities in points per unit of the current cube.

    Raises
    ------
    ValueError
        For bad probabilities (see :func:`gammon_values`), ``x`` outside [0, 1], an unknown
        owner or ``cube_owner="opponent"`` (no cube decision; use
        :func:`cubeful_equity`), a covariance that is not 5x5, or both ``covariance`` and
        ``counts``.

    Notes
    -----
    ``nd`` is :func:`cubeful_equity` with the cube where it is, ``dt = 2
    cubeful_equity(cube_owner="opponent")``, ``dp = 1``; the action is
    :func:`cube_action` of the three. See :func:`cubeful_equity` for the formulas.

    **Standard errors.** For fixed ``x`` each equity is a function of the five
    probabilities, linear between the take and cash points and rational outside them;
    its gradient is computed exactly (forward-mode differentiation,
    :func:`cubeful_equity_gradient`), and the delta method gives ``se(f) = sqrt(g' C g)`` for
    the covariance ``C`` (:func:`fastbg.cube.stats.delta_method_stderr`). At a kink of the piecewise
    formulas (a probability exactly at a take or cash point) the gradient of the side
    the value lies on is used.
    """
    cube_owner = _check_owner(cube_owner)
    if cube_owner == "opponent":
        raise ValueError(
            "the player on roll cannot double when the opponent owns the cube; "
            "use cubeful_equity(..., cube_owner='opponent') for its equity"
        )
    x = _resolve_x(x, position)
    q = probability_vector(probabilities)
    jacoby = bool(jacoby)
    if covariance is not None and counts is not None:
        raise ValueError("give either a covariance matrix or outcome counts, not both")
    if counts is not None:
        covariance = probability_covariance(counts)
    stderr = None
    if covariance is not None:
        cov = np.asarray(covariance, dtype=np.float64)
        if cov.shape != (5, 5):
            raise ValueError(f"covariance must be a 5x5 matrix, got shape {cov.shape}")
        g_nd = _equity_gradient(q, x, cube_owner, jacoby)
        g_dt = 2 * _equity_gradient(q, x, "opponent")
        stderr = {"nd": delta_method_stderr(g_nd, cov), "dt": delta_method_stderr(g_dt, cov),
                  "dp": 0.0, "dt_minus_nd": delta_method_stderr(g_dt - g_nd, cov)}
    nd = float(_equity(list(q), x, cube_owner, jacoby))
    dt = float(2 * _equity(list(q), x, "opponent"))
    dp = 1.0
    p, W, L = _wl(list(q))
    W, L = float(W), float(L)
    # The opponent's take point: its W is the player's L and vice versa.
    tps = {k: take_point(L, W, xx) for k, xx in (("x", x), ("dead", 0.0), ("live", 1.0))}
    return MoneyCubeDecision(
        nd=nd, dt=dt, dp=dp,
        action=cube_action(nd, dt, dp, redouble=cube_owner == "player", beaver=bool(beaver)),
        take_point=tps["x"], cash_point=1.0 - tps["x"], W=W, L=L, x=x, win=float(p),
        cube_owner=cube_owner, jacoby=jacoby, beaver=bool(beaver),
        take_point_dead=tps["dead"], take_point_live=tps["live"],
        cash_point_dead=1.0 - tps["dead"], cash_point_live=1.0 - tps["live"],
        stderr=stderr,
    )
