"""A cube decision as ``fastbg cube`` reports it, from probabilities or from the database.

:func:`janowski_cube_decision` values No double, Double/take and Double/pass of any cube
state (money or match, a double possible or not) by Janowski's model on estimated cubeless
probabilities, with the standard error of each value and the margins of the decision in
standard errors of the differences that decide it (:mod:`fastbg.cube.stats`).
:func:`exact_cube_decision` reads money decisions of small bear-offs from the two-sided
bear-off database instead. Both give the ``decision`` object of ``fastbg cube --json``; the
method that runs the rollout first is :func:`fastbg.rollouts.cubedecision.cube_decision`.

Standard errors (:data:`STDERR_METHOD`): the delta method, ``se(f) = sqrt(g' C g)`` with
``C`` the covariance of the five probability estimates (:func:`fastbg.cube.money.
probability_covariance` of a rollout's counts) and ``g`` the gradient of the value: exact in
money play (:func:`fastbg.cube.money.cubeful_equity_gradient`), by central differences in
match play (:func:`fastbg.cube.stats.numerical_gradient`: the match equities go through the
table's take points and interpolations). The three values come from the same probabilities,
so the standard error of a difference uses the gradient of the difference, which is far
smaller than the separate errors would say.
"""
from __future__ import annotations

import numpy as np

from ..engine import get_engine
from ..game.matchstate import MatchState
from ..game.position import Position
from .efficiency import cube_efficiency
from .match import cubeful_mwc, match_cube_decision
from .met import DEFAULT_MET
from .metfile import load_met
from .money import (ACTIONS, cube_action, cubeful_equity, cubeful_equity_gradient, gammon_values,
                    money_cube_decision, probability_covariance, probability_vector)
from .stats import decision_margins, delta_method_stderr, numerical_gradient

__all__ = ["STDERR_METHOD", "EXACT_SOURCE", "janowski_cube_decision", "exact_cube_decision",
           "cubeful_value", "is_plain_money"]

#: How :func:`janowski_cube_decision` computes its standard errors, by mode.
STDERR_METHOD = {
    "money": "delta method with the exact gradient of Janowski's formulas "
             "(fastbg.cube.money_cube_decision) and the rollout's covariance of the five "
             "probabilities",
    "match": "delta method with a numerical gradient (central differences, step 1e-6, "
             "one-sided at the edges of the valid probabilities) and the rollout's "
             "covariance of the five probabilities; EMG errors scaled from MWC errors",
}

#: Where :func:`exact_cube_decision`'s values come from.
EXACT_SOURCE = ("exact: the two-sided bear-off database (perfect checker and cube play, "
                "unlimited redoubles, no gammons possible)")


def _smaller(margins: dict) -> float:
    """The smaller of the two margins in SE: how sure the decision is; NaN if either is
    (unknown, or a tie without sampling error: no surer than the other)."""
    z = (margins["double"]["z"], margins["take"]["z"])
    return float("nan") if z[0] != z[0] or z[1] != z[1] else min(z)


def _no_double(owner: str) -> str:
    """The action when the player on roll may not double: "No double, take" (the answer is
    moot), "No redouble, take" for its own cube."""
    return ACTIONS[0].replace("double", "redouble") if owner == "player" else ACTIONS[0]


def janowski_cube_decision(probabilities, state: MatchState | None = None, *, covariance=None,
                           counts=None, x: float | None = None, met=None,
                           position=None) -> dict:
    """The cube decision of the player on roll by Janowski's model, with standard errors.

    Parameters
    ----------
    probabilities : mapping, object or sequence of 5 float
        Cubeless probabilities of the player on roll in any form
        :func:`fastbg.cube.money.gammon_values` accepts (a
        :class:`~fastbg.rollouts.cubeless.RolloutResult`, for instance).
    state : MatchState, optional
        Cube, owner, score and rules (default money play, centred cube). When the player
        may not double (:attr:`MatchState.may_double`: the opponent's cube, the Crawford
        game, a dead cube in a match, a cube at its limit) only No double is valued.
    covariance : array_like, shape (5, 5), optional
        Covariance of the probability estimates, for the standard errors.
    counts : array_like of int, shape (6,), optional
        A plain rollout's outcome counts instead: their covariance
        (:func:`fastbg.cube.money.probability_covariance`). Without either the standard
        errors and margins in SE are NaN.
    x : float, optional
        Cube efficiency in [0, 1]. Default: :func:`fastbg.cube.efficiency.cube_efficiency`
        of ``position`` and ``state`` (0 for a cube at its limit and on the last roll, GNU
        Backgammon's value otherwise, 0.68 without a position).
    met : str or MatchEquityTable, optional
        Match play: the table (default Kazaross-XG2); ignored in money play.
    position : optional
        Only used for the default ``x``.

    Returns
    -------
    dict
        The ``decision`` of ``fastbg cube --method janowski --json`` (NaN where a value does
        not exist; the command writes it as ``null``): ``action``, ``can_double``,
        ``why_not`` (None, or why the player may not double), ``nd``, ``dt``, ``dp`` (dt
        and dp NaN without a double); money play: equity per unit of the current cube, and
        ``stderr`` (``nd``, ``dt``, ``dp``), ``equity`` (after the proper action),
        ``take_point``, ``cash_point``, ``take_point_dead``, ``take_point_live``, ``W``,
        ``L``; match play: match winning chances, ``nd_emg``, ``dt_emg``, ``dp_emg`` (their
        money equivalents), ``stderr`` (of each, and of ``cubeless_mwc``), ``mwc`` (of the
        proper action), ``cubeless_mwc`` and the take and cash points; then ``margins``
        (None without a double, else ``double`` and ``take`` as
        :func:`fastbg.cube.stats.decision_margins`, in match play with ``difference_emg``
        and ``stderr_emg``) and ``z``, the smaller margin in SE (NaN if either is NaN).

    Raises
    ------
    ValueError
        For bad probabilities, ``x`` outside [0, 1], a score beyond the table, both
        ``covariance`` and ``counts``, a covariance that is not 5 x 5, as
        :func:`fastbg.cube.money.money_cube_decision` and
        :func:`fastbg.cube.match.match_cube_decision`.

    Notes
    -----
    The values are those of :func:`~fastbg.cube.money.money_cube_decision` and
    :func:`~fastbg.cube.match.match_cube_decision`; the standard errors are explained in
    the module docstring (:data:`STDERR_METHOD`).
    """
    state = MatchState.money() if state is None else state
    if covariance is not None and counts is not None:
        raise ValueError("give either a covariance matrix or outcome counts, not both")
    if counts is not None:
        covariance = probability_covariance(counts)
    if covariance is None:
        covariance = np.full((5, 5), np.nan)     # unknown: every standard error NaN
    cov = np.asarray(covariance, dtype=np.float64)
    if cov.shape != (5, 5):
        raise ValueError(f"covariance must be a 5x5 matrix, got shape {cov.shape}")
    x, _ = cube_efficiency(position, state, x)
    if state.is_money:
        return _money(probabilities, cov, state, x)
    return _match(probabilities, cov, state, x, load_met(DEFAULT_MET if met is None else met))


def _money(probabilities, cov, state, x) -> dict:
    if not state.may_double:
        nd = cubeful_equity(probabilities, x=x, cube_owner=state.cube_owner,
                            jacoby=state.jacoby)
        g = cubeful_equity_gradient(probabilities, x=x, cube_owner=state.cube_owner,
                                    jacoby=state.jacoby)
        W, L = gammon_values(probabilities)
        nan = float("nan")
        return {"action": _no_double(state.cube_owner), "can_double": False,
                "why_not": state.why_not_double, "nd": nd, "dt": nan, "dp": nan,
                "stderr": {"nd": delta_method_stderr(g, cov), "dt": nan, "dp": nan},
                "equity": nd, "take_point": nan, "cash_point": nan, "take_point_dead": nan,
                "take_point_live": nan, "W": W, "L": L, "margins": None, "z": nan}
    d = money_cube_decision(probabilities, x=x, cube_owner=state.cube_owner,
                            jacoby=state.jacoby, beaver=state.beaver, covariance=cov)
    se = d.stderr
    margins = decision_margins(d.nd, d.dt, d.dp, se["nd"], se["dt"], se["dt_minus_nd"])
    return {"action": d.action, "can_double": True, "why_not": None,
            "nd": d.nd, "dt": d.dt, "dp": d.dp,
            "stderr": {"nd": se["nd"], "dt": se["dt"], "dp": se["dp"]},
            "equity": d.equity, "take_point": d.take_point, "cash_point": d.cash_point,
            "take_point_dead": d.take_point_dead, "take_point_live": d.take_point_live,
            "W": d.W, "L": d.L, "margins": margins,
            "z": _smaller(margins)}


def _match(probabilities, cov, state, x, table) -> dict:
    a, b = state.away
    c, owner = state.cube, state.cube_owner
    d = match_cube_decision(probabilities, state.match_length, state.score, cube=c,
                            cube_owner=owner, crawford=state.crawford, met=table, x=x)
    q = probability_vector(probabilities)

    def f_nd(v):
        return cubeful_mwc(v, a, b, cube=c, cube_owner=owner, crawford=state.crawford,
                           met=table, x=x)

    def f_dt(v):
        return cubeful_mwc(v, a, b, cube=2 * c, cube_owner="opponent", met=table, x=x)

    def f_cubeless(v):
        return table.cubeless_mwc(v, a, b, c)

    if np.isfinite(cov).any():
        gradient = numerical_gradient
    else:   # no covariance (an evaluation): every error NaN, without the 30 evaluations
        def gradient(f, q):
            return np.full(5, np.nan)
    g_nd = gradient(f_nd, q)
    r = table.result_mwc(a, b, c)
    to_emg = 2.0 / (r[0] - r[3])  # EMG is linear in MWC: 2 (MWC - lose) / (win - lose) - 1
    nan = float("nan")
    se = {"nd": delta_method_stderr(g_nd, cov), "dt": nan, "dp": nan,
          "cubeless_mwc": delta_method_stderr(gradient(f_cubeless, q), cov)}
    margins, z = None, nan
    # MatchState.may_double is match_cube_decision's rule (no Crawford game, not the
    # opponent's cube, not a dead cube) plus the cube limit, which the match equity model
    # does not know.
    can_double = state.may_double
    if can_double:
        g_dt = gradient(f_dt, q)
        se.update(dt=delta_method_stderr(g_dt, cov), dp=0.0)
        margins = decision_margins(d.nd, d.dt, d.dp, se["nd"], se["dt"],
                                   delta_method_stderr(g_dt - g_nd, cov))
        z = _smaller(margins)
        values = {k: getattr(d, k) for k in ("action", "dt", "dp", "dt_emg", "dp_emg", "best",
                                             "take_point", "cash_point", "take_point_dead",
                                             "take_point_live")}
    else:
        values = {"action": _no_double(owner), "dt": nan, "dp": nan, "dt_emg": nan,
                  "dp_emg": nan, "best": d.nd, "take_point": nan, "cash_point": nan,
                  "take_point_dead": nan, "take_point_live": nan}
    for k in ("nd", "dt", "dp"):
        se[f"{k}_emg"] = se[k] * to_emg
    out = {"action": values["action"], "can_double": can_double,
           "why_not": state.why_not_double, "nd": d.nd, "dt": values["dt"], "dp": values["dp"],
           "nd_emg": d.nd_emg, "dt_emg": values["dt_emg"], "dp_emg": values["dp_emg"],
           "stderr": se, "mwc": values["best"], "cubeless_mwc": d.cubeless_mwc,
           "take_point": values["take_point"], "cash_point": values["cash_point"],
           "take_point_dead": values["take_point_dead"],
           "take_point_live": values["take_point_live"],
           "margins": margins, "z": z}
    for m in (margins or {}).values():  # the same margins in EMG, for readers of equities
        m["difference_emg"] = m["difference"] * to_emg
        m["stderr_emg"] = m["stderr"] * to_emg
    return out


def is_plain_money(state: MatchState | None) -> bool:
    """Money play with a centred 1-cube and no Jacoby rule (or no state at all): the state
    in which fastbg ranks plays by cubeless equity unless asked otherwise
    (:func:`fastbg.rank_plays`). Beavers and the cube limit do not count: they change no
    value of a centred 1-cube."""
    return state is None or (state.is_money and state.cube == 1 and not state.jacoby)


def cubeful_value(probabilities, state: MatchState | None = None, *, x: float | None = None,
                  met=None, position=None, over: bool = False) -> tuple[float, float]:
    """The cubeful value of the player on roll, after its proper cube action, by Janowski's
    model: what a position is worth at the score and cube, for ranking plays.

    Parameters
    ----------
    probabilities : mapping, object or sequence of 5 float
        Cubeless probabilities of the player on roll, before its roll (any form
        :func:`fastbg.cube.money.gammon_values` accepts).
    state : MatchState, optional
        Cube, owner, score and rules, from the view of the player on roll (default money
        play, centred cube).
    x : float, optional
        Cube efficiency in [0, 1]. Default :func:`fastbg.cube.efficiency.cube_efficiency`
        of ``position`` and ``state`` (0.68 without a position, 0 at the cube limit).
    met : str or MatchEquityTable, optional
        Match play: the table (default Kazaross-XG2).
    position : optional
        Only for the default ``x``.
    over : bool
        The game is over (the probabilities are its result, exactly): no cube decision,
        ``x`` unused.

    Returns
    -------
    value : float
        Money play: cubeful equity per unit of the current cube; match play: match winning
        chance in [0, 1].
    emg : float
        The same as equity per unit of the current cube: ``value`` in money play, the MWC
        normalised by :meth:`fastbg.cube.met.MatchEquityTable.emg` in match play (GNU
        Backgammon's "normalized equity"; a single game lost or won at the current cube is
        -1 or +1).

    Raises
    ------
    ValueError
        As :func:`janowski_cube_decision`.

    Notes
    -----
    The three values of :func:`janowski_cube_decision` without its standard errors and
    take points: No double is :func:`fastbg.cube.money.cubeful_equity` (money) or
    :func:`fastbg.cube.match.cubeful_mwc` (match) with the cube where it is; when the
    player may double (:attr:`MatchState.may_double`), Double/take is the value at twice
    the cube owned by the opponent, Double/pass a single game won at the current cube, and
    the value is ``max(ND, min(DT, DP))`` (the opponent answers a double with the better of
    take and pass for it). Beavers change nothing: a proper double is never beavered.
    """
    state = MatchState.money() if state is None else state
    x = 0.0 if over else cube_efficiency(position, state, x)[0]
    double = state.may_double and not over
    if state.is_money:
        owner, jacoby = state.cube_owner, state.jacoby
        nd = cubeful_equity(probabilities, x=x, cube_owner=owner, jacoby=jacoby)
        if double:
            dt = 2.0 * cubeful_equity(probabilities, x=x, cube_owner="opponent")
            nd = max(nd, min(dt, 1.0))
        return nd, nd
    table = load_met(DEFAULT_MET if met is None else met)
    a, b = state.away
    c = state.cube
    v = cubeful_mwc(probabilities, a, b, cube=c, cube_owner=state.cube_owner,
                    crawford=state.crawford, met=table, x=x)
    if double:
        dt = cubeful_mwc(probabilities, a, b, cube=2 * c, cube_owner="opponent", met=table, x=x)
        v = max(v, min(dt, float(table.result_mwc(a, b, c)[0])))
    return v, float(table.emg(v, a, b, c))


def exact_cube_decision(position, state: MatchState | None = None):
    """The exact money cube decision of a small bear-off, from the two-sided database.

    Parameters
    ----------
    position : Position, str or array_like
        The position, the player on roll before its cube decision.
    state : MatchState, optional
        Default money play, centred cube.

    Returns
    -------
    (win, decision) or None
        None where the database does not apply: match play, beavers allowed, a cube at its
        limit, a position that is not a bear-off of 1 to 6 checkers a side, all home, or
        the compiled core not built. Else the player's cubeless winning chance and the
        ``decision`` of ``fastbg cube --method exact --json``: ``nd`` (cubeful equity per
        unit of the current cube, the cube where it is), ``can_double``, then ``dt``,
        ``dp`` (1) and ``action`` (:func:`fastbg.cube.money.cube_action`), or ``why_not``
        when the opponent owns the cube.

    Notes
    -----
    Perfect checker and cube play by both sides with unlimited redoubles (no gammon is
    possible in these positions): :data:`EXACT_SOURCE`. The database is
    ``fastbg._core.bearoffdb`` (the values of :class:`fastbg.cube.bearoff.BearoffSolver`,
    bit for bit).
    """
    state = MatchState.money() if state is None else state
    if not state.is_money or state.beaver or state.cube >= state.max_cube:
        return None
    pos = Position.parse(position)
    try:   # everything else runs without the compiled core (engine="python")
        bearoffdb = get_engine("cython").bearoffdb
    except ImportError:
        return None
    if not bearoffdb.is_two_sided(pos.board):
        return None
    v = bearoffdb.two_sided(pos.board[0, :6], pos.board[1, :6])
    owner = state.cube_owner
    nd = (v["nd_centred"] if owner == "centred" else v["nd_owned"] if owner == "player"
          else v["opponent"])
    d = {"nd": nd, "can_double": owner != "opponent"}
    if d["can_double"]:
        d.update(dt=v["dt"], dp=1.0,
                 action=cube_action(nd, v["dt"], 1.0, redouble=owner == "player"))
    else:
        d["why_not"] = "the opponent owns the cube"
    return v["win"], d
