"""Money cube decisions (fastbg.cube): Janowski's formulas at their limits and at
published figures, the proper action, Jacoby and beavers, input checks, and the
delta-method standard errors."""
from __future__ import annotations

import json
import math
from types import SimpleNamespace

import numpy as np
import pytest

from fastbg import rollout
from fastbg.cube.bearoff import bearoff_board, home_boards, solve
from fastbg.cube import (
    ACTIONS,
    CUBE_OWNERS,
    DEFAULT_CUBE_EFFICIENCY,
    MoneyCubeDecision,
    cash_point,
    cube_action,
    cubeful_equity,
    default_cube_efficiency,
    gammon_values,
    is_last_roll,
    money_cube_decision,
    probability_covariance,
    take_point,
)
from fastbg.game.position import Position
from fastbg.game import PROBABILITY_KEYS
from fastbg.rollouts import outcome_statistics


def gammonless(p: float) -> list[float]:
    return [p, 0.0, 0.0, 0.0, 0.0]


def with_values(p: float, W: float, L: float) -> list[float]:
    """Probabilities with win chance ``p`` and gammon-adjusted values ``W``, ``L``
    (gammons only, no backgammons; needs W, L <= 2)."""
    return [p, p * (W - 1), 0.0, (1 - p) * (L - 1), 0.0]


def cubeless(q) -> float:
    w, wg, wbg, lg, lbg = q
    return (2 * w - 1) + (wg - lg) + (wbg - lbg)


GAMMONISH = [
    [0.62, 0.20, 0.02, 0.10, 0.01],
    [0.35, 0.05, 0.00, 0.25, 0.04],
    [0.50, 0.14, 0.01, 0.14, 0.01],
    [0.88, 0.55, 0.10, 0.02, 0.00],
    [0.08, 0.01, 0.00, 0.60, 0.20],
]


# ------------------------------------------------------------------ W, L, points
def test_gammon_values():
    W, L = gammon_values([0.6, 0.2, 0.05, 0.1, 0.02])
    assert W == pytest.approx((0.6 + 0.2 + 0.05) / 0.6)
    assert L == pytest.approx((0.4 + 0.1 + 0.02) / 0.4)
    assert gammon_values(gammonless(0.3)) == (1.0, 1.0)
    assert gammon_values(gammonless(0.0)) == (1.0, 1.0)  # conventions at the ends
    assert gammon_values([1.0, 0.5, 0.1, 0.0, 0.0]) == pytest.approx((1.6, 1.0))


def test_take_point_limits():
    # Dead cube: risk / (risk + gain) = (L - 1/2) / (W + L); 25 % without gammons.
    assert take_point(1, 1, 0) == 0.25
    assert take_point(1.3, 1.2, 0) == pytest.approx(0.7 / 2.5)
    # Fully live cube: 20 % without gammons (Keeler and Spencer; Janowski).
    assert take_point(1, 1, 1) == pytest.approx(0.2)
    # x = 2/3, by hand: 0.5 / (2 + 1/3) = 3/14; with W = 1.2, L = 1.4:
    # 0.9 / (2.6 + 1/3) = 2.7 / 8.8.
    assert take_point(1, 1, 2 / 3) == pytest.approx(3 / 14)
    assert take_point(1.2, 1.4, 2 / 3) == pytest.approx(2.7 / 8.8)
    # Decreasing in x: a live cube makes takes easier.
    xs = np.linspace(0, 1, 11)
    assert np.all(np.diff([take_point(1.25, 1.1, x) for x in xs]) < 0)


def test_cash_point_limits():
    assert cash_point(1, 1, 0) == pytest.approx(0.75)
    assert cash_point(1, 1, 1) == pytest.approx(0.8)
    for W, L in [(1, 1), (1.3, 1.1), (1.05, 1.6)]:
        for x in (0, 0.3, 2 / 3, 1):
            assert cash_point(W, L, x) == pytest.approx(1 - take_point(L, W, x))


# -------------------------------------------------------------- cubeful equities
@pytest.mark.parametrize("q", GAMMONISH + [gammonless(0.3), gammonless(0.7)])
@pytest.mark.parametrize("owner", CUBE_OWNERS)
def test_dead_cube_is_cubeless(q, owner):
    assert cubeful_equity(q, x=0, cube_owner=owner) == pytest.approx(cubeless(q))


@pytest.mark.parametrize("p", np.linspace(0.0, 1.0, 21))
def test_live_cube_without_gammons(p):
    # Fully live, no gammons: take point 0.2, cash point 0.8.
    own = cubeful_equity(gammonless(p), x=1, cube_owner="player")
    opp = cubeful_equity(gammonless(p), x=1, cube_owner="opponent")
    cen = cubeful_equity(gammonless(p), x=1, cube_owner="centred")
    assert own == pytest.approx(min(2.5 * p - 1, 1))
    assert opp == pytest.approx(max(2.5 * p - 1.5, -1))
    assert cen == pytest.approx(min(max((10 * p - 5) / 3, -1), 1))


def test_owned_forms_and_ordering():
    for q in GAMMONISH:
        for x in (0.0, 0.3, 0.68, 1.0):
            own = cubeful_equity(q, x=x, cube_owner="player")
            cen = cubeful_equity(q, x=x, cube_owner="centred")
            opp = cubeful_equity(q, x=x, cube_owner="opponent")
            assert own >= cen - 1e-12 and cen >= opp - 1e-12
    # Janowski's owned-cube lines between the take and cash points.
    q, x = [0.5, 0.14, 0.01, 0.14, 0.01], 0.68
    W, L = gammon_values(q)
    p = q[0]
    assert cubeful_equity(q, x=x, cube_owner="player") == pytest.approx(p * (W + L + x / 2) - L)
    assert cubeful_equity(q, x=x, cube_owner="opponent") == pytest.approx(
        p * (W + L + x / 2) - L - x / 2
    )


def test_published_extreme_gammon_figures():
    # L. H. Madsen, "Janowski formulas" (bganalyses): eXtreme Gammon's cube information
    # for a gammonless bear-off, win 49.694 %, reproduced with x = 0.622: owned
    # +0.1484, centred -0.0087, opponent owns (doubled, as XG shows it) -0.3252.
    q = gammonless(0.49694)
    assert cubeful_equity(q, x=0.622, cube_owner="player") == pytest.approx(0.1484, abs=1e-4)
    assert cubeful_equity(q, x=0.622) == pytest.approx(-0.0087, abs=1e-4)
    assert 2 * cubeful_equity(q, x=0.622, cube_owner="opponent") == pytest.approx(
        -0.3252, abs=1e-4
    )


@pytest.mark.parametrize("W, L", [(1.0, 1.0), (1.3, 1.15), (1.1, 1.5)])
@pytest.mark.parametrize("x", [0.0, 0.5, 2 / 3, 1.0])
def test_take_pass_boundary_is_continuous(W, L, x):
    # At the cash point Double/take equals Double/pass, and the take point reported is
    # one minus it.
    cp = cash_point(W, L, x)
    d = money_cube_decision(with_values(cp, W, L), x=x)
    assert d.dt == pytest.approx(d.dp) and d.dp == 1.0
    assert d.cash_point == pytest.approx(cp) and d.take_point == pytest.approx(1 - cp)
    below = money_cube_decision(with_values(cp - 1e-6, W, L), x=x)
    above = money_cube_decision(with_values(cp + 1e-6, W, L), x=x)
    assert below.action.endswith("take") and above.action.endswith("pass")
    # ND is continuous across the live take and cash points (the kinks of E_live).
    s = W + L + 0.5
    for kink in ((L - 0.5) / s, (L + 1) / s):
        lo = money_cube_decision(with_values(kink - 1e-9, W, L), x=x)
        hi = money_cube_decision(with_values(kink + 1e-9, W, L), x=x)
        assert abs(lo.nd - hi.nd) < 1e-6 and abs(lo.dt - hi.dt) < 1e-6


def test_decision_fields_dead_and_live():
    d = money_cube_decision(gammonless(0.7), x=0.5)
    assert d.take_point_dead == pytest.approx(0.25) and d.take_point_live == pytest.approx(0.2)
    assert d.cash_point_dead == pytest.approx(0.75) and d.cash_point_live == pytest.approx(0.8)
    assert d.take_point == pytest.approx(take_point(1, 1, 0.5))
    assert (d.W, d.L, d.x, d.win, d.dp) == (1.0, 1.0, 0.5, 0.7, 1.0)
    assert d.equity == max(d.nd, min(d.dt, d.dp))
    json.dumps(d.to_dict())
    assert isinstance(d, MoneyCubeDecision) and d.stderr is None


# ---------------------------------------------------------------------- actions
@pytest.mark.parametrize(
    "q, action",
    [
        (gammonless(0.55), "No double, take"),
        (gammonless(0.72), "Double, take"),
        (gammonless(0.78), "Double, take"),  # below the x = 0.68 cash point 0.786
        (gammonless(0.79), "Double, pass"),
        (gammonless(0.97), "Double, pass"),
        ([0.85, 0.60, 0.05, 0.0, 0.0], "Too good to double, pass"),
    ],
)
def test_actions(q, action):
    d = money_cube_decision(q, x=0.68)
    assert d.action == action
    assert d.action in ACTIONS
    assert d.action == cube_action(d.nd, d.dt, d.dp)


def test_redouble_wording():
    for q, action in [
        (gammonless(0.55), "No redouble, take"),
        (gammonless(0.72), "Redouble, take"),
        (gammonless(0.97), "Redouble, pass"),
        ([0.85, 0.60, 0.05, 0.0, 0.0], "Too good to redouble, pass"),
    ]:
        d = money_cube_decision(q, x=0.68, cube_owner="player")
        assert d.action == action
        assert d.nd == pytest.approx(cubeful_equity(q, x=0.68, cube_owner="player"))


def test_beaver():
    # At 55 % the taker's equity after taking, -dt, is positive: a beaver.
    d = money_cube_decision(gammonless(0.55), x=0.68, beaver=True)
    assert d.dt < 0 and d.action == "No double, beaver"
    assert money_cube_decision(gammonless(0.72), x=0.68, beaver=True).action == "Double, take"


def test_jacoby():
    q = [0.85, 0.60, 0.05, 0.0, 0.0]
    plain = money_cube_decision(q, x=0.68)
    jac = money_cube_decision(q, x=0.68, jacoby=True)
    # No double counts the gammons as single wins, Double/take still counts them.
    assert jac.nd == pytest.approx(cubeful_equity(gammonless(0.85), x=0.68))
    assert jac.nd < plain.nd and jac.dt == plain.dt
    assert plain.action == "Too good to double, pass" and jac.action == "Double, pass"
    # Without gammons Jacoby changes nothing; with the cube turned it does not apply.
    a, b = money_cube_decision(gammonless(0.7), jacoby=True), money_cube_decision(gammonless(0.7))
    assert (a.nd, a.dt, a.action) == (b.nd, b.dt, b.action)
    own = money_cube_decision(q, x=0.68, cube_owner="player", jacoby=True)
    assert own.nd == money_cube_decision(q, x=0.68, cube_owner="player").nd
    # Under Jacoby a centred cube is never too good to double.
    for p in np.linspace(0.5, 1, 11):
        d = money_cube_decision([p, p * 0.9, p * 0.3, 0, 0], jacoby=True)
        assert not d.action.startswith("Too")


# ------------------------------------------------------------- input and errors
def test_input_forms_agree():
    q = GAMMONISH[0]
    as_dict = dict(zip(PROBABILITY_KEYS, q))
    as_obj = SimpleNamespace(**as_dict)
    ref = money_cube_decision(q)
    assert money_cube_decision(as_dict) == ref == money_cube_decision(as_obj)
    assert money_cube_decision(np.array(q)) == ref
    assert ref.x == DEFAULT_CUBE_EFFICIENCY == 0.68


@pytest.mark.parametrize(
    "q, message",
    [
        ([1.2, 0, 0, 0, 0], "win must be in"),
        ([-0.1, 0, 0, 0, 0], "win must be in"),
        ([0.5, float("nan"), 0, 0, 0], "finite"),
        ([0.5, 0.6, 0, 0, 0], "win_gammon <= win"),
        ([0.5, 0.1, 0.2, 0, 0], "win_backgammon <= win_gammon"),
        ([0.5, 0, 0, 0.6, 0], "lose_gammon <= 1 - win"),
        ([0.5, 0, 0, 0.1, 0.2], "lose_backgammon <= lose_gammon"),
        ([0.5, 0, 0, 0], "five numbers"),
        ("abc", "five numbers"),
        ({"win": 0.5}, "lack"),
    ],
)
def test_bad_probabilities(q, message):
    with pytest.raises(ValueError, match=message):
        money_cube_decision(q)
    with pytest.raises(ValueError, match=message):
        cubeful_equity(q)


def test_bad_arguments():
    q = gammonless(0.6)
    for x in (1.5, -0.1, float("nan"), "0.5", True):
        with pytest.raises(ValueError, match="cube efficiency"):
            money_cube_decision(q, x=x)
    with pytest.raises(ValueError, match="unknown cube owner"):
        cubeful_equity(q, cube_owner="center")
    with pytest.raises(ValueError, match="cannot double"):
        money_cube_decision(q, cube_owner="opponent")
    with pytest.raises(ValueError, match="5x5"):
        money_cube_decision(q, covariance=np.eye(4))
    with pytest.raises(ValueError, match="not both"):
        money_cube_decision(q, covariance=np.eye(5), counts=[1, 1, 1, 1, 1, 1])
    with pytest.raises(ValueError, match="six non-negative"):
        probability_covariance([1, 2, 3])
    with pytest.raises(ValueError, match=">= 1"):
        take_point(0.9, 1.0, 0.5)
    with pytest.raises(ValueError, match=">= 1"):
        cash_point(1.0, float("nan"), 0.5)
    # A tiny rounding excess is tolerated (neural-net outputs, sums of floats).
    money_cube_decision([0.5 + 1e-12, 0.5 + 2e-12, 0, 0, 0])


# ---------------------------------------------------------------- cube efficiency
def race_board(mine: dict, theirs: dict) -> Position:
    b = np.zeros((2, 25), dtype=np.int8)
    for row, side in ((0, mine), (1, theirs)):
        for point, n in side.items():
            b[row, point - 1] = n
    return Position(b)


@pytest.mark.parametrize(
    "mine, expected",
    [
        ({7: 2}, 0.6),  # 14 pips: clamped at 0.6
        ({10: 4}, 0.6),  # 40 pips
        ({10: 8}, 0.65),  # 80 pips: half way
        ({10: 10}, 0.675),  # 100 pips
        ({20: 6}, 0.7),  # 120 pips
        ({20: 8}, 0.7),  # 160 pips: clamped at 0.7
    ],
)
def test_race_efficiency_interpolates_by_pips_of_player_on_roll(mine, expected):
    pos = race_board(mine, {4: 5, 1: 3})
    assert pos.is_race
    assert default_cube_efficiency(pos) == pytest.approx(expected)
    # The opponent's pip count does not matter.
    assert default_cube_efficiency(race_board(mine, {1: 3})) == pytest.approx(expected)


def test_contact_and_bearoff_efficiency():
    assert default_cube_efficiency("start") == 0.68
    assert default_cube_efficiency(Position.start().to_position_id()) == 0.68
    # Both sides home (GNU's one-sided bear-off class): 0.6 whatever the pip count,
    # here 60 pips, where the race line would give 0.625.
    assert default_cube_efficiency(bearoff_board({6: 10}, {6: 10})) == 0.6
    d = money_cube_decision(gammonless(0.7), position="start")
    assert d.x == 0.68
    assert money_cube_decision(gammonless(0.7), position="start", x=0.5).x == 0.5
    assert cubeful_equity(gammonless(0.7), position=race_board({20: 6}, {1: 3})) == pytest.approx(
        cubeful_equity(gammonless(0.7), x=0.7)
    )


# The last roll: the opponent bears off with every roll on its next turn, so the cube is dead.
#   O: ace point 1     X (on roll): 7-point 1     X wins with 23 of 36 rolls
LAST_ROLL_SEVEN = "XGID=-------A----------------a-:0:0:1:00:0:0:0:0:10"
#   O: ace point 1     X (on roll): 6-point 1     X wins with 27 of 36 rolls: exactly 75 %
LAST_ROLL_SIX = "XGID=------A-----------------a-:0:0:1:00:0:0:0:0:10"


def test_last_roll_is_decided_by_the_move_generator():
    assert is_last_roll(LAST_ROLL_SEVEN) and is_last_roll(LAST_ROLL_SIX)
    for theirs in ({1: 1}, {2: 1}, {3: 1}, {1: 2}, {1: 1, 2: 1}):
        assert is_last_roll(bearoff_board({6: 3}, theirs)), theirs
    # 2-1 leaves a checker: on the 4-point, two on the 2-point, three on the ace
    for theirs in ({4: 1}, {2: 2}, {1: 3}, {1: 1, 3: 1}):
        assert not is_last_roll(bearoff_board({6: 3}, theirs)), theirs
    # contact: the player's checker on its 24-point, behind the opponent's on its 2-point,
    # might hit it, so the opponent is not sure to finish
    b = np.zeros((2, 25), dtype=np.int8)
    b[0, 23], b[0, 5], b[1, 1] = 1, 14, 1
    assert not Position(b).is_race and not is_last_roll(b)
    assert default_cube_efficiency(b) == 0.68
    assert not is_last_roll("start")


def test_last_roll_efficiency_is_zero():
    assert default_cube_efficiency(LAST_ROLL_SEVEN) == 0.0
    assert default_cube_efficiency(LAST_ROLL_SIX) == 0.0
    d = money_cube_decision(gammonless(23 / 36), position=LAST_ROLL_SEVEN)
    assert d.x == 0.0 and d.action == "Double, take"
    assert d.nd == pytest.approx(2 * 23 / 36 - 1) and d.dt == pytest.approx(2 * d.nd)
    # 75 %: Double/take equals Double/pass (ties go to the double and the pass)
    d = money_cube_decision(gammonless(0.75), position=LAST_ROLL_SIX)
    assert d.dt == pytest.approx(d.dp) and d.take_point == pytest.approx(0.25)


def _last_roll_bearoffs():
    boards = home_boards(2)
    return [(a, b) for a in boards for b in boards if is_last_roll(bearoff_board(a, b))]


def test_last_roll_decisions_match_the_exact_solver():
    # Every bear-off with up to 2 checkers a side in which the opponent always finishes
    # next roll: the decision from the exact cubeless winning chance with the default x
    # is the exact solver's (perfect checker and cube play), and so are its values.
    cases = _last_roll_bearoffs()
    assert len(cases) == 5 * 27
    compared = 0
    for a, b in cases:
        board = bearoff_board(a, b)
        exact = solve(board, exact=True)
        for owner in ("centred", "player"):
            nd, dt, dp, action = exact.cube_decision(owner)
            d = money_cube_decision(gammonless(float(exact.win)), position=board,
                                    cube_owner=owner)
            assert d.x == 0.0
            assert d.nd == pytest.approx(float(nd), abs=1e-12), (a, b, owner)
            assert d.dt == pytest.approx(float(dt), abs=1e-12), (a, b, owner)
            if nd == dt or dt == dp or (nd == dp and dt > dp):
                continue  # a tie: either action is right
            assert d.action == action, (a, b, owner)
            compared += 1
    assert compared > 200


# ------------------------------------------------------------- standard errors
def _f(q, what, **kw):
    d = money_cube_decision(q, **kw)
    return {"nd": d.nd, "dt": d.dt, "dt_minus_nd": d.dt - d.nd}[what]


@pytest.mark.parametrize(
    "q, kw",
    [
        ([0.62, 0.20, 0.02, 0.10, 0.01], {}),  # in the window: linear
        ([0.90, 0.55, 0.10, 0.02, 0.005], {}),  # too good: the rational tail
        ([0.12, 0.02, 0.005, 0.50, 0.10], {}),  # the opponent too good
        ([0.62, 0.20, 0.02, 0.10, 0.01], {"cube_owner": "player", "x": 0.9}),
        ([0.85, 0.60, 0.05, 0.03, 0.01], {"jacoby": True, "x": 0.4}),
    ],
)
def test_delta_method_gradient_matches_finite_differences(q, kw):
    rng = np.random.default_rng(7)
    q = np.array(q)
    for _ in range(4):
        v = rng.normal(size=5)
        # With covariance v v', the standard error is |gradient . v|.
        se = money_cube_decision(q, covariance=np.outer(v, v), **kw).stderr
        h = 1e-6
        for what in ("nd", "dt", "dt_minus_nd"):
            fd = (_f(q + h * v, what, **kw) - _f(q - h * v, what, **kw)) / (2 * h)
            assert se[what] == pytest.approx(abs(fd), rel=1e-5, abs=1e-8), what
        assert se["dp"] == 0.0


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize(
    "classes",
    [
        [0.40, 0.18, 0.02, 0.28, 0.10, 0.02],  # win 60 %, gammons both ways
        [0.30, 0.45, 0.08, 0.15, 0.02, 0.00],  # win 83 %, the too-good tail
    ],
)
def test_delta_method_matches_monte_carlo(seed, classes):
    # Simulated rollouts of n games: the spread of the cube values over replicates
    # agrees with the delta-method standard error within Monte-Carlo noise (the SD
    # of 2000 replicates is within about 3 % of the truth; allow 10 %).
    rng = np.random.default_rng(seed)
    n, reps = 5000, 2000
    pi = np.array(classes)
    counts = rng.multinomial(n, pi, size=reps)
    ind = np.array([[1, 1, 1, 0, 0, 0], [0, 1, 1, 0, 0, 0], [0, 0, 1, 0, 0, 0],
                    [0, 0, 0, 0, 1, 1], [0, 0, 0, 0, 0, 1]])
    qs = counts @ ind.T / n
    vals = np.array([[_f(q, w) for w in ("nd", "dt", "dt_minus_nd")] for q in qs])
    truth_q = ind @ pi
    cov = (ind * pi) @ ind.T - np.outer(truth_q, truth_q)
    se = money_cube_decision(truth_q, covariance=cov / n).stderr
    for j, what in enumerate(("nd", "dt", "dt_minus_nd")):
        assert vals[:, j].std(ddof=1) == pytest.approx(se[what], rel=0.1), what


def test_covariance_from_counts_matches_outcome_statistics():
    counts = np.array([400, 150, 20, 300, 100, 30])
    cov = probability_covariance(counts)
    _, se = outcome_statistics(counts)
    assert np.sqrt(np.diag(cov)) == pytest.approx([se[k] for k in PROBABILITY_KEYS])
    assert np.allclose(cov, cov.T) and np.linalg.eigvalsh(cov).min() > -1e-15
    assert np.isnan(probability_covariance([1, 0, 0, 0, 0, 0])).all()


def test_rollout_result_with_counts():
    # The CLI's use: a rollout result and its counts.
    pos = bearoff_board({6: 2, 5: 1}, {4: 2, 3: 1})
    res = rollout(pos, 2000, seed=11, workers=1, policy="pubeval")
    d = money_cube_decision(res, counts=res.counts, position=pos)
    assert d.win == res.win and d.x == 0.6
    se = d.stderr
    assert all(math.isfinite(se[k]) and se[k] >= 0 for k in ("nd", "dt", "dt_minus_nd"))
    # No gammons here: nd and dt are linear in win alone, so their standard errors are
    # the slopes times the rollout's standard error of win.
    h = 1e-6
    slope = (money_cube_decision(gammonless(res.win + h), x=0.6).dt
             - money_cube_decision(gammonless(res.win - h), x=0.6).dt) / (2 * h)
    assert se["dt"] == pytest.approx(abs(slope) * res.stderr["win"], rel=1e-6)
