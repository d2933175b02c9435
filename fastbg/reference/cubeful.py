"""Cubeful games (money and match) of the pure-Python engine, mirror of ``fastbg._core.cubeful``.

Before each roll the player on roll may double (a centred cube or its own, within the cube
limit) by Janowski's formulas on the evaluator's probabilities (:func:`probabilities`),
with the cube efficiency of :func:`default_x` or a fixed ``x``; the opponent takes or passes
by the same numbers. The formulas are :mod:`fastbg.cube`'s (money play:
:func:`fastbg.cube.money_cube_decision`; match play: :mod:`fastbg.cube.match`'s No double,
Double/take and Double/pass MWCs; the cube efficiency:
:func:`fastbg.cube.default_cube_efficiency`), written out here on plain floats because the
engine sits below the library and may not import it; the compiled engine ports the same
formulas to C. ``tests/test_cubeful.py`` holds both engines' decisions to the library's.

Reproducibility
---------------
For the same board, options, policies and bit generator state, both engines play
the same games and return the same counts.
"""
from __future__ import annotations

import numpy as np

from ..spec import luck as _luck
from ..spec.board import MAX_CUBE_LOG2, N_CUBE_VALUES, RESULT_CLASSES, validate_board
from .board import check_start, is_race, outcome, pip_counts, swap
from .evaluator import EvalPolicy
from .movegen import bears_off_all
from .nn import NNPolicy
from .policies import make_policy
from .rollout import (_check_out, _check_prefilter, _check_qrolls, _check_stop, _Rolls,
                      _stop_requested)
from .turn import opening_turn, play_turn

__all__ = ["cubeful_block", "play_cubeful", "probabilities", "default_x", "is_last_roll",
           "cube_decision", "match_decision", "luck_weights", "luck_dot", "RESULT_CLASSES",
           "N_CUBE_VALUES", "MAX_CUBE_LOG2", "M_LEVELS"]

#: Cube levels of the match tables, 2**0 .. 2**15: a match table is the player's
#: ``fastbg.cube.met.MatchEquityTable.result_mwc`` at each, shape (M_LEVELS, 6).
M_LEVELS = 16


# ---------------------------------------------------------------------------------------
# Cube efficiency and the last roll (fastbg.cube.efficiency)
# ---------------------------------------------------------------------------------------

def is_last_roll(board) -> bool:
    """Whether the opponent (row 1) bears off all its checkers with every roll of its next
    turn: a race, both sides with checkers left, the opponent with at most two, and for
    each of the 21 rolls a legal play of the opponent that bears off its last checker
    (:func:`fastbg.cube.is_last_roll`).

    Parameters
    ----------
    board : array_like of int, shape (2, 25)

    Returns
    -------
    bool
    """
    b = validate_board(board)
    if not b[0].any() or not b[1].any() or not is_race(b) or int(b[1].sum()) > 2:
        return False
    theirs = swap(b)                          # the opponent on roll
    return all(bears_off_all(theirs, d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1))


def default_x(board) -> float:
    """The cube efficiency of a position (row 0 on roll): 0.68 in contact, 0 on the last
    roll (:func:`is_last_roll`), 0.6 in a bear-off (every checker home), else 0.6 at 40 pips
    of the player on roll to 0.7 at 120, linear between (GNU Backgammon's values,
    :func:`fastbg.cube.default_cube_efficiency`).

    Parameters
    ----------
    board : array_like of int, shape (2, 25)

    Returns
    -------
    float
    """
    b = validate_board(board)
    if not is_race(b):
        return 0.68
    if is_last_roll(b):
        return 0.0
    if not b[:, 6:].any():
        return 0.6
    pips = pip_counts(b)[0]
    t = min(max((pips - 40) / (120 - 40), 0.0), 1.0)
    return 0.6 + t * (0.7 - 0.6)


# ---------------------------------------------------------------------------------------
# Money play: Janowski's cubeful equities (fastbg.cube.money)
# ---------------------------------------------------------------------------------------

def _equity(q, x: float, owner: str, jacoby: bool) -> float:
    """Janowski's cubeful equity ``x E_live + (1 - x) E_dead`` per unit of the cube, of the
    side that owns the cube (``owner`` "player"), of the centred cube ("centred") or of the
    opponent's ("opponent"); ``jacoby``: gammons count single while the cube is centred."""
    w, wg, wbg, lg, lbg = (float(v) for v in q)
    if jacoby and owner == "centred":
        wg = wbg = lg = lbg = 0.0
    won = w + wg + wbg                    # points won per game from the wins: p W
    lost = (1.0 - w) + lg + lbg           # points lost per game from the losses: (1 - p) L
    W = won / w if w > 0.0 else 1.0
    L = lost / (1.0 - w) if w < 1.0 else 1.0
    p = w
    # the fully live cube: piecewise linear in p through (0, -L), the live take point
    # (-1, when the opponent can double), the live cash point (+1, when the player can
    # double) and (1, W)
    s = W + L + 0.5
    tp = (L - 0.5) / s
    cp = (L + 1.0) / s
    if owner != "opponent" and p > cp:
        live = 1.0 + (W - 1.0) * (p - cp) / (1.0 - cp)
    elif owner != "player" and p < tp:
        live = -L + (L - 1.0) * p / tp
    elif owner == "player":
        live = p * s - L
    elif owner == "opponent":
        live = p * s - L - 0.5
    else:
        live = -1.0 + 2.0 * (p - tp) / (cp - tp)
    dead = p * W - (1.0 - p) * L
    return x * live + (1.0 - x) * dead


def _action(nd: float, dt: float, dp: float) -> int:
    """0 no double (or too good), 1 double/take, 2 double/pass (fastbg.cube.cube_action:
    the taker answers by the worse of take and pass for the doubler, ties to the double)."""
    takes = dt < dp
    if nd > (dt if takes else dp):
        return 0
    return 1 if takes else 2


def cube_decision(probabilities, x, owned=False, jacoby=False) -> tuple[int, float, float]:
    """The money cube decision of the player on roll from five probabilities.

    Parameters
    ----------
    probabilities : array_like of float, shape (5,)
    x : float
        Cube efficiency.
    owned : bool
        The player owns the cube (a redouble), else it is centred.
    jacoby : bool
        The Jacoby rule (with a centred cube, No double counts gammons single).

    Returns
    -------
    (int, float, float)
        Action (0 no double or too good, 1 double/take, 2 double/pass), ``nd`` and ``dt``
        per unit of the cube before the double (``dp`` is 1).
    """
    q = np.asarray(probabilities, dtype=np.float64)
    if q.shape != (5,):
        raise ValueError(f"probabilities must have shape (5,), got {q.shape}")
    nd = _equity(q, float(x), "player" if owned else "centred", bool(jacoby))
    dt = 2.0 * _equity(q, float(x), "opponent", False)
    return _action(nd, dt, 1.0), nd, dt


# ---------------------------------------------------------------------------------------
# Match play: Janowski's model in match winning chances (fastbg.cube.match); R[j][k] the
# player's MWC after result k (win single/gammon/backgammon, lose single/gammon/backgammon)
# at a cube of 2**j (fastbg.cube.met.MatchEquityTable.result_mwc)
# ---------------------------------------------------------------------------------------

def _mean3(v, g: float, bg: float) -> float:
    return (1.0 - g) * v[0] + (g - bg) * v[1] + bg * v[2]


def _take_point(R, a_p: int, a_o: int, j: int, taker_is_p: bool, pg: float, pbg: float,
                og: float, obg: float, live: bool) -> float:
    """The taker's take point at a cube of 2**j, in the doubler's winning chances (player p
    the side whose table R is; fastbg.cube.met.MatchEquityTable.take_point)."""
    r1, r2 = R[j], R[j + 1]
    a_taker = a_p if taker_is_p else a_o
    recube_live = live and a_taker > (2 << j)
    if taker_is_p:
        pass_ = r1[3]
        lose = _mean3(r2[3:], og, obg)
        win = _mean3(r2, 0.0, 0.0) if recube_live else _mean3(r2, pg, pbg)
    else:
        pass_ = 1.0 - r1[0]
        lose = 1.0 - _mean3(r2, pg, pbg)
        win = 1.0 - (_mean3(r2[3:], 0.0, 0.0) if recube_live else _mean3(r2[3:], og, obg))
    if win - lose <= 1e-9:
        tp = 0.0 if pass_ <= lose else 1.0
    else:
        tp = min(max((pass_ - lose) / (win - lose), 0.0), 1.0)
    if recube_live and j + 2 < M_LEVELS:
        tp *= 1.0 - _take_point(R, a_p, a_o, j + 1, not taker_is_p, pg, pbg, og, obg, live)
    return tp


def _interp(w: float, xs: list, ys: list) -> float:
    """:func:`numpy.interp` at ``w`` for increasing ``xs`` (duplicates allowed)."""
    if w <= xs[0]:
        return ys[0]
    if w >= xs[-1]:
        return ys[-1]
    j = len(xs) - 2
    while xs[j] > w:
        j -= 1
    return (ys[j + 1] - ys[j]) / (xs[j + 1] - xs[j]) * (w - xs[j]) + ys[j]


def _live(R, q, a: int, b: int, j: int, owner: str) -> float:
    """The fully live cube's MWC: Janowski's piecewise-linear interpolation between the
    take and cash points (fastbg.cube.match's, outside the Crawford game)."""
    r = R[j]
    w, wg, wbg, lg, lbg = q
    lose = 1.0 - w
    W = ((w - wg) * r[0] + (wg - wbg) * r[1] + wbg * r[2]) / w if w > 0.0 else r[0]
    L = ((lose - lg) * r[3] + (lg - lbg) * r[4] + lbg * r[5]) / lose if lose > 0.0 else r[3]
    c = 1 << j
    xs, ys = [0.0], [L]
    if owner != "player" and b > c:         # the opponent may double usefully
        wo = 1.0 - w                        # the shares from the opponent's view
        lo = 1.0 - wo
        og = lg / wo if wo > 0.0 else 0.0
        obg = lbg / wo if wo > 0.0 else 0.0
        pg = wg / lo if lo > 0.0 else 0.0
        pbg = wbg / lo if lo > 0.0 else 0.0
        xs.append(_take_point(R, a, b, j, True, pg, pbg, og, obg, True))
        ys.append(r[3])
    if owner != "opponent" and a > c:       # the player may double usefully
        pg = wg / w if w > 0.0 else 0.0
        pbg = wbg / w if w > 0.0 else 0.0
        og = lg / lose if lose > 0.0 else 0.0
        obg = lbg / lose if lose > 0.0 else 0.0
        xs.append(1.0 - _take_point(R, a, b, j, False, pg, pbg, og, obg, True))
        ys.append(r[0])
    xs.append(1.0)
    ys.append(W)
    if len(xs) == 4 and xs[1] > xs[2]:
        # the take point above the cash point: the windows overlap; meet in the middle
        m = 0.5 * (xs[1] + xs[2])
        if w < m:
            return _interp(w, [0.0, m], [L, r[3]])
        return _interp(w, [m, 1.0], [r[0], W])
    return _interp(w, xs, ys)


def _cubeful_mwc(R, q, a: int, b: int, j: int, owner: str, x: float) -> float:
    """``x`` live + (1 - ``x``) dead, the dead cube's MWC summed in outcome order."""
    r = R[j]
    w, lose = q[0], 1.0 - q[0]
    dead = (w - q[1]) * r[0]
    dead = dead + (q[1] - q[2]) * r[1]
    dead = dead + q[2] * r[2]
    dead = dead + (lose - q[3]) * r[3]
    dead = dead + (q[3] - q[4]) * r[4]
    dead = dead + q[4] * r[5]
    if x == 0.0:
        return dead
    return x * _live(R, q, a, b, j, owner) + (1.0 - x) * dead


def _match_tables(tables, shape, what: str = "tables") -> list:
    """Match tables checked, as nested lists of floats."""
    t = np.asarray(tables, dtype=np.float64)
    if t.shape != shape:
        raise ValueError(f"{what} must have shape ({', '.join(map(str, shape))})")
    return t.tolist()


def match_decision(tables, probabilities, away, away_opponent, cube=1, owned=False,
                   x=0.68) -> tuple[int, float, float, float]:
    """The match cube decision of the player on roll (who may double: ``away`` > ``cube``).

    Parameters
    ----------
    tables : array_like of float, shape (16, 6)
        The player's ``result_mwc`` at cubes ``2**j``.
    probabilities : array_like of float, shape (5,)
    away, away_opponent : int
    cube : int
    owned : bool
    x : float

    Returns
    -------
    (int, float, float, float)
        Action (0 no double or too good, 1 double/take, 2 double/pass) and ``nd``, ``dt``,
        ``dp`` in MWC.
    """
    R = _match_tables(tables, (M_LEVELS, 6))
    q = [float(v) for v in np.asarray(probabilities, dtype=np.float64)[:5]]
    return _match_decision(R, q, int(away), int(away_opponent), int(cube).bit_length() - 1,
                           bool(owned), float(x))


def _match_decision(R, q, a: int, b: int, j: int, owned: bool, x: float):
    nd = _cubeful_mwc(R, q, a, b, j, "player" if owned else "centred", x)
    dt = _cubeful_mwc(R, q, a, b, j + 1, "opponent", x)
    dp = R[j][0]
    return _action(nd, dt, dp), nd, dt, dp


def _check_cube_args(cube, owner, max_cube, x):
    for name, v in (("cube", cube), ("max_cube", max_cube)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) \
                or v < 1 or v & (v - 1) or v > 2 ** MAX_CUBE_LOG2:
            raise ValueError(
                f"{name} must be a power of two in 1..{2 ** MAX_CUBE_LOG2}, got {v!r}")
    if cube > max_cube:
        raise ValueError(f"cube {cube} is above max_cube {max_cube}")
    if owner not in ("centred", "player", "opponent"):
        raise ValueError(f"unknown cube owner {owner!r}")
    if x is not None:
        if isinstance(x, (bool, np.bool_)) or \
                not isinstance(x, (int, float, np.integer, np.floating)) \
                or not 0.0 <= float(x) <= 1.0:
            raise ValueError(f"cube efficiency x must be a number in [0, 1] or None, got {x!r}")
    return (int(cube).bit_length() - 1, {"centred": -1, "player": 0, "opponent": 1}[owner],
            int(max_cube).bit_length() - 1, None if x is None else float(x))


def probabilities(evaluator, board) -> np.ndarray:
    """The loop's evaluation of a position (row 0 on roll, before its roll).

    The ``nn`` policy's probabilities (bear-off database or network), except on the last roll
    (:func:`fastbg.cube.is_last_roll`), where they are exact: the player wins now, with
    the rolls of which some legal play bears off all its checkers, or never; its win is
    single (the opponent has at least 13 checkers off), its loss a gammon if it has no
    checker off, a backgammon if also one of its checkers is in the opponent's home
    board or on the bar.

    Returns
    -------
    numpy.ndarray of float64, shape (5,)
    """
    b = validate_board(board)
    if not is_last_roll(b):
        return evaluator.probabilities(b)
    finishing = sum(bears_off_all(b, d1, d2) for d1 in range(1, 7) for d2 in range(1, 7))
    win = finishing / 36.0
    lose = 1.0 - win
    gammon = lose if b[0].sum() == 15 else 0.0
    backgammon = gammon if b[0, 18:].any() else 0.0
    return np.array([win, 0.0, 0.0, gammon, backgammon])


def _decide(evaluator, board, x, owned, jacoby, match=None) -> int:
    """0 no double (or too good), 1 double/take, 2 double/pass.

    ``match``: None (money) or ``(R, away, away_opponent, j)`` of the player on roll, ``R``
    its match table (``M_LEVELS`` rows of six MWCs) and ``2**j`` the cube: the No double,
    Double/take and Double/pass MWCs of :func:`match_decision`; money, those of
    :func:`cube_decision`.
    """
    p = probabilities(evaluator, board)
    xx = default_x(board) if x is None else x
    if match is not None:
        R, a, b, j = match
        return _match_decision(R, [float(v) for v in p], a, b, j, owned, xx)[0]
    return cube_decision(p, xx, owned, jacoby)[0]


def luck_weights(lc: int, lc0: int, owner: int, jacoby: bool, match=None) -> list:
    """The starting side's dead-cube value of a game at the cube ``2**lc`` as weights of its
    five probabilities: money, points per unit of the starting cube (gammons single with a
    centred cube under the Jacoby rule); match, MWC from its match table at ``2**lc``
    (``match`` as :func:`play_cubeful`'s; the core's ``luck_weights``, the same operations)."""
    if match is not None:
        r = match[0][0][lc]
        return [r[0] - r[3], r[1] - r[0], r[2] - r[1], r[4] - r[3], r[5] - r[4]]
    sc = float(2 ** lc) / float(2 ** lc0)
    if jacoby and owner == -1:
        return [2.0 * sc, 0.0, 0.0, 0.0, 0.0]
    return [2.0 * sc, sc, sc, -sc, -sc]


def luck_dot(w, actual, mean, root: bool) -> float:
    """``w . (actual - mean)``, the difference (mover's view) turned to the starting side's
    view when the mover is not it, summed in index order (the core's ``luck_dot``)."""
    d = [float(actual[k]) - float(mean[k]) for k in range(5)]
    e = d if root else [-d[0], d[3], d[4], d[1], d[2]]
    t = w[0] * e[0]
    for k in range(1, 5):
        t = t + w[k] * e[k]
    return t


def play_cubeful(board, bitgen, policy, evaluator, lc0, owner0, max_log2, x, jacoby,
                 opening, match=None, holland_wait=0,
                 root_decision=True, yardstick=None, prefilter=0,
                 q=None) -> tuple[int, int, float]:
    """One cubeful game from a validated board: (result class, log2 of the final cube,
    summed luck).

    ``match``: None (money) or ``(tables, away, away_opponent)`` of the starting side,
    ``tables[s]`` side ``s``'s match table (nested lists of floats, ``M_LEVELS`` rows of six
    MWCs, as :func:`match_decision`'s); a side may double only while it needs more points
    than the cube (fastbg.cube.match).
    ``holland_wait``: the Holland rule, no double before this many plays of the game.
    ``root_decision``: False skips the cube decision before the first roll.
    ``yardstick``: variance reduction, the luck of each random roll by its
    ``roll_values(board, prefilter)`` weighted by :func:`luck_weights` (0.0 without).
    ``q``: quasi-random dice, the game's first two random rolls (-1 = drawn), or None.
    """
    L = 0.0
    rolls = _Rolls(bitgen, q)
    plays = 0
    decide = root_decision
    side = 0                # 0 while the starting side is on roll
    lc, owner = lc0, owner0  # owner: -1 centred, else the side that owns the cube
    first_opening = opening
    while True:
        if first_opening:
            first_opening = False
            if yardstick is not None:
                v0 = yardstick.roll_values(board, prefilter)
                v1 = yardstick.roll_values(swap(board), prefilter)
                mean = _luck.opening_mean(v0, v1)
            board, root, d1, d2 = opening_turn(board, bitgen, rolls.opening())
            side = 0 if root else 1
            if yardstick is not None:
                slot = _luck.roll_slot(d1, d2)
                came = v0[slot] if root else _luck.flip(v1[slot])
                L = L + luck_dot(luck_weights(lc, lc0, owner, jacoby, match), came, mean, True)
        else:
            m = None
            if match is not None:
                tables, ma, mb = match
                aw, bw = (ma, mb) if side == 0 else (mb, ma)
                m = (tables[side], aw, bw, lc)
            if lc < max_log2 and owner in (-1, side) and (m is None or aw > 2 ** lc) \
                    and plays >= holland_wait and decide:
                act = _decide(evaluator, board, x, owner == side, jacoby, m)
                if act == 2:
                    return (6 if side == 0 else 7), lc, L
                if act == 1:
                    lc += 1
                    owner = side ^ 1
            r = rolls.roll()
            d1, d2 = r // 6 + 1, r % 6 + 1
            if yardstick is not None:
                v = yardstick.roll_values(board, prefilter)
                mean = _luck.roll_mean(v)
                L = L + luck_dot(luck_weights(lc, lc0, owner, jacoby, match),
                                 v[_luck.roll_slot(d1, d2)], mean, side == 0)
        decide = True
        after = play_turn(board, d1, d2, policy, bitgen)
        if not after[0].any():
            c = outcome(after) - 1
            return (c if side == 0 else 3 + c), lc, L
        plays += 1
        board = swap(after)
        side ^= 1


def cubeful_block(board, games, bitgen, policy, evaluator, *, cube=1, cube_owner="centred",
                  max_cube=2 ** MAX_CUBE_LOG2, x=None, jacoby=False,
                  opening=False, match=None, holland_wait=0,
                  root_decision=True, yardstick=None, prefilter=0, cells=None,
                  luck=None, qrolls=None, stop=None) -> np.ndarray:
    """Play ``games`` cubeful money games and count (result class, final cube).

    Parameters and result as :func:`fastbg._core.cubeful.cubeful_block`; ``evaluator``
    (and ``yardstick``) a :class:`fastbg.reference.evaluator.EvalPolicy`; ``match`` is
    ``(tables, away, away_opponent)``, ``tables`` of shape (2, 16, 6) each side's
    ``fastbg.cube.met.MatchEquityTable.result_mwc`` at cubes ``2**j`` (side 0's from
    ``(away, away_opponent)``, side 1's from the other way round), as the compiled engine's.

    Returns
    -------
    numpy.ndarray of int64, shape (8, 13)
    """
    b = validate_board(board)
    check_start(b)
    if isinstance(games, (bool, np.bool_)) or not isinstance(games, (int, np.integer)) \
            or games < 0:
        raise ValueError(f"games must be a non-negative int, got {games!r}")
    lc0, own, ml, xx = _check_cube_args(cube, cube_owner, max_cube, x)
    if not isinstance(evaluator, (NNPolicy, EvalPolicy)):
        raise TypeError(f"evaluator must be a fastbg.reference.evaluator.EvalPolicy or "
                        f"fastbg.reference.nn.NNPolicy, got {type(evaluator).__name__}")
    if isinstance(policy, str):
        policy = make_policy(policy)
    if not isinstance(bitgen, np.random.BitGenerator):
        raise TypeError("bitgen must be a numpy.random.BitGenerator")
    if match is not None:
        tables, ma, mb = match
        tables = _match_tables(tables, (2, M_LEVELS, 6), "match tables")
        if int(ma) < 1 or int(mb) < 1:
            raise ValueError("away scores must be >= 1")
        if jacoby:
            raise ValueError("the Jacoby rule is for money play only")
        match = (tables, int(ma), int(mb))
    if isinstance(holland_wait, (bool, np.bool_)) or not isinstance(holland_wait, (int, np.integer)) \
            or not 0 <= holland_wait <= 4:
        raise ValueError(f"holland_wait must be an int in 0..4, got {holland_wait!r}")
    if yardstick is not None:
        if not isinstance(yardstick, EvalPolicy):
            raise TypeError(f"the yardstick must be the reference EvalPolicy, got "
                            f"{type(yardstick).__name__}")
        if luck is None:
            raise ValueError("variance reduction needs a luck array for its per-game luck")
    prefilter = _check_prefilter(prefilter)
    cells = _check_out(cells, (int(games),), np.int64, "cells")
    luck = _check_out(luck, (int(games),), np.float64, "luck")
    q = _check_qrolls(qrolls, int(games), bool(opening))
    stop = _check_stop(stop)
    counts = np.zeros((len(RESULT_CLASSES), N_CUBE_VALUES), dtype=np.int64)
    for i in range(int(games)):
        if _stop_requested(stop):
            break
        c, lc, L = play_cubeful(b, bitgen, policy, evaluator, lc0, own, ml, xx, bool(jacoby),
                                bool(opening), match, int(holland_wait), bool(root_decision),
                                yardstick, prefilter, None if q is None else q[i])
        counts[c, lc] += 1
        if cells is not None:
            cells[i] = c * N_CUBE_VALUES + lc
        if luck is not None:
            luck[i] = L
    return counts
