"""Cubeful games (money and match) of the pure-Python engine, mirror of ``fastbg._core.cubeful``.

It lives here, beside the cubeful rollout, not in :mod:`fastbg.reference`, because it
is the obviously-correct version: every cube decision calls the library's own
:func:`fastbg.cube.money_cube_decision` on the evaluator's probabilities
(:meth:`fastbg.reference.nn.NNPolicy.probabilities`) with the cube efficiency of
:func:`fastbg.cube.default_cube_efficiency` (or a fixed ``x``), and acts on its
action string: "Double"/"Redouble" doubles, and the answer "take"/"pass" is the
opponent's (take iff ``dt < dp``). The compiled engine ports these formulas to C;
both give the same counts for the same bit generator state.

Reproducibility
---------------
For the same board, options, policies and bit generator state, both engines play
the same games and return the same counts.
"""
from __future__ import annotations

import numpy as np

from ..cube.efficiency import default_cube_efficiency, is_last_roll
from ..cube.match import _cubeful as _match_cubeful
from ..cube.money import cube_action, money_cube_decision
from ..reference.board import check_start, outcome, swap
from ..spec import luck as _luck
from ..spec.board import MAX_CUBE_LOG2, N_CUBE_VALUES, RESULT_CLASSES, validate_board
from ..reference.movegen import bears_off_all
from ..reference.evaluator import EvalPolicy
from ..reference.nn import NNPolicy
from ..reference.policies import make_policy
from ..reference.rollout import (_check_out, _check_prefilter, _check_qrolls, _check_stop,
                                 _Rolls, _stop_requested)
from ..reference.turn import opening_turn, play_turn

__all__ = ["cubeful_block", "play_cubeful", "probabilities", "RESULT_CLASSES", "N_CUBE_VALUES",
           "MAX_CUBE_LOG2"]



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

    ``match``: None (money) or ``(table, away, away_opponent, cube)`` of the player on
    roll: fastbg.cube.match's No double, Double/take and Double/pass MWCs (its
    ``_cubeful``, the values of :func:`fastbg.cube.match.match_cube_decision` without
    the take-point bisection it adds for reporting) and :func:`fastbg.cube.cube_action`.
    """
    p = probabilities(evaluator, board)
    xx = default_cube_efficiency(board) if x is None else x
    owner = "player" if owned else "centred"
    if match is not None:
        table, a, b, c = match
        nd = _match_cubeful(table, p, a, b, c, owner, False, xx)
        dt = _match_cubeful(table, p, a, b, 2 * c, "opponent", False, xx)
        dp = float(table.result_mwc(a, b, c)[0])
        action = cube_action(nd, dt, dp, redouble=owned).lower()
    else:
        d = money_cube_decision(p, x=xx, cube_owner=owner, jacoby=jacoby)
        action = d.action.lower()
    if not action.startswith(("double", "redouble")):
        return 0
    return 1 if action.endswith("take") else 2


def luck_weights(lc: int, lc0: int, owner: int, jacoby: bool, match=None) -> list:
    """The starting side's dead-cube value of a game at the cube ``2**lc`` as weights of its
    five probabilities: money, points per unit of the starting cube (gammons single with a
    centred cube under the Jacoby rule); match, MWC from its result table (the core's
    ``luck_weights``, the same operations)."""
    if match is not None:
        table, ma, mb = match
        r = [float(v) for v in table.result_mwc(ma, mb, 2 ** lc)]
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

    ``match``: None (money) or ``(table, away, away_opponent)`` of the starting side; a
    side may double only while it needs more points than the cube (fastbg.cube.match).
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
                table, ma, mb = match
                aw, bw = (ma, mb) if side == 0 else (mb, ma)
                m = (table, aw, bw, 2 ** lc)
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
    (and ``yardstick``) a :class:`fastbg.reference.evaluator.EvalPolicy`; ``match`` is ``(table, away,
    away_opponent)`` with a :class:`fastbg.cube.met.MatchEquityTable` (the compiled engine
    takes the table's ``result_mwc`` values instead).

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
    if match is not None and jacoby:
        raise ValueError("the Jacoby rule is for money play only")
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
