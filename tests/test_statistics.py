"""Rollouts agree with exactly computed values within 4 standard errors, for
several seeds (DESIGN section 7).

The exact values are the policy's own: a recursion over every roll that plays
the policy's choice (tests/exact.py). For one checker a side the play is forced,
and the recursion is checked against an independent closed form first.
"""
from __future__ import annotations

import numpy as np
import pytest

from fastbg import rollout
from fastbg.game import PROBABILITY_KEYS

from exact import ROLLS, board_from, exact_outcomes

SEEDS = [1, 20261129, 987654321]
N_SIGMA = 4.0

POSITIONS = {
    # one checker each: the play is forced
    "one-checker 6 v 6": board_from({6: 1}, {6: 1}),
    "one-checker 11 v 4": board_from({11: 1}, {4: 1}),
    # two-checker bear-offs: a real choice for the policy
    "two-checker 6-5 v 6-4": board_from({6: 1, 5: 1}, {6: 1, 4: 1}),
    # gammons and backgammons: the opponent has nothing off and a straggler on
    # its 19-point (in the roller's home board)
    "gammon race": board_from({4: 2, 3: 1}, {19: 1, 1: 14}),
    # four checkers against three, several choices each turn
    "small bear-off": board_from({6: 2, 5: 1, 3: 1}, {6: 1, 5: 1, 4: 1}),
}


def _turns_distribution(p: int, max_turns: int = 40) -> np.ndarray:
    """P(one checker on point p is off after exactly t turns), t = 0..max_turns."""
    dist = np.zeros(max_turns + 1)
    state = {p: 1.0}
    for t in range(1, max_turns + 1):
        nxt: dict[int, float] = {}
        for q, pr in state.items():
            for d1, d2, w in ROLLS:
                pips = 4 * d1 if d1 == d2 else d1 + d2
                r = max(0, q - pips)
                if r == 0:
                    dist[t] += pr * w
                else:
                    nxt[r] = nxt.get(r, 0.0) + pr * w
        state = nxt
    return dist


def one_checker_win(a: int, b: int) -> float:
    """Closed form: the roller (checker on a) wins iff it needs no more turns than
    the opponent (checker on b), since it rolls first."""
    ta, tb = _turns_distribution(a), _turns_distribution(b)
    tail_b = np.cumsum(tb[::-1])[::-1]  # P(T_b >= t)
    return float(np.dot(ta, tail_b))


@pytest.mark.parametrize("a, b", [(6, 6), (11, 4), (2, 1), (13, 11)])
def test_exact_solver_matches_closed_form_for_one_checker(engine, a, b):
    classes = exact_outcomes(board_from({a: 1}, {b: 1}), engine, "pubeval")
    assert classes[0] + classes[3] == pytest.approx(1.0, abs=1e-12)  # singles only
    assert classes[0] == pytest.approx(one_checker_win(a, b), abs=1e-12)


def test_known_value_one_checker_each_on_the_six_point():
    # The roller wins unless it misses (needs >= 6 pips in one roll: 4 misses,
    # 1-1... counted exactly) and the opponent then hits: 1 - (P miss) * (1 - P miss)
    # with P(miss) = P(pips < 6) = 4/36 + 2/36 ... computed by the closed form.
    win = one_checker_win(6, 6)
    assert 0.8 < win < 0.9
    # Exact: rolls bearing off a checker on 6: any with pip total >= 6 except
    # none... independently: misses are 2-1, 3-1, 4-1 (twice each), 3-2 (twice)
    # => 8/36 miss; 1-1 moves 4 pips (miss) => 9/36; 2-2 moves 8 (hit).
    p_miss = 9 / 36
    # After a miss the checker is at 6 - pips (2..3 left) and bears off next turn
    # for sure, but the opponent gets one shot first.
    assert win == pytest.approx(1 - p_miss * (1 - p_miss), abs=1e-12)


@pytest.fixture
def exact_values(exact_race_values):
    return exact_race_values          # conftest.py: computed once per test process


def _check(res, exact, games):
    for key in (*PROBABILITY_KEYS,):
        p = min(1.0, max(0.0, exact[key]))  # the recursion's sums may round past 1
        se = np.sqrt(p * (1 - p) / games)
        assert abs(getattr(res, key) - p) <= N_SIGMA * se + 1e-12, (
            f"{key}: rollout {getattr(res, key):.5f} vs exact {p:.5f} (se {se:.5f})"
        )
    # Equity: its standard error from the exact distribution is not at hand, use
    # the rollout's own (consistent for these sample sizes).
    assert abs(res.equity - exact["equity"]) <= N_SIGMA * res.stderr["equity"] + 1e-12


@pytest.mark.parametrize("policy", ["pubeval", "random"])
@pytest.mark.parametrize("name", list(POSITIONS))
@pytest.mark.parametrize("seed", SEEDS)
def test_cython_rollout_agrees_with_exact_values(exact_values, name, policy, seed):
    pytest.importorskip("fastbg._core.rollout", reason="Cython core not built")
    games = 20_000
    res = rollout(POSITIONS[name], games, seed=seed, workers=2, policy=policy, engine="cython")
    assert res.games == games
    _check(res, exact_values[(name, policy)], games)


@pytest.mark.parametrize("name", ["one-checker 11 v 4", "gammon race", "small bear-off"])
def test_python_rollout_agrees_with_exact_values(exact_values, name):
    games = 1500
    for seed in SEEDS[:2]:
        res = rollout(POSITIONS[name], games, seed=seed, workers=1, policy="pubeval", engine="python")
        _check(res, exact_values[(name, "pubeval")], games)


def test_gammon_race_has_gammons_and_backgammons(exact_values):
    v = exact_values[("gammon race", "pubeval")]
    # The roller bears off 4-4-3 in one roll only with 4-4, 5-5 or 6-6 (3/36),
    # and the opponent's straggler is still on the roller's 6-point then.
    assert v["win_backgammon"] == pytest.approx(3 / 36, abs=1e-12)
    assert 0.2 < v["win_gammon"] < 0.95
