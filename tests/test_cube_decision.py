"""The statistics of a cube decision and its Python entry point, ``fastbg.cube_decision``.

:mod:`fastbg.cube.stats` (delta method, margins in SE, when trials decide),
:func:`fastbg.cube.janowski_cube_decision` against the money and match decisions it reports,
and :func:`fastbg.cube_decision` by each method against the functions it calls and the JSON
of ``fastbg cube``, which only prints it.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

import fastbg
from fastbg.cli import main
from fastbg.cli.common import _finite
from fastbg.cube import (CLOSE_Z, MIN_DECIDING_TRIALS, cube_efficiency, cubeful_equity,
                         cubeful_equity_gradient, cubeful_mwc, decision_margins, decision_z,
                         delta_method_stderr, exact_cube_decision, janowski_cube_decision,
                         load_met, match_cube_decision, money_cube_decision, numerical_gradient,
                         probability_covariance, too_close, z_score)
from fastbg.cube.bearoff import BearoffSolver, bearoff_board
from fastbg.game import MatchState, Position
from fastbg.rollouts.cubedecision import DEFAULT_GAMES, cube_method

COUNTS = np.array([3000, 1200, 100, 2500, 900, 80])


def _q(counts):
    n = counts.sum()
    return np.array([counts[:3].sum(), counts[1:3].sum(), counts[2], counts[4:].sum(),
                     counts[5]]) / n


# ------------------------------------------------------------------ fastbg.cube.stats

def test_numerical_gradient_matches_the_exact_delta_method():
    cov, q = probability_covariance(COUNTS), _q(COUNTS)
    for owner in ("centred", "player"):
        for x in (0.0, 0.68, 1.0):
            lib = money_cube_decision(q, x=x, cube_owner=owner, covariance=cov).stderr
            g_nd = numerical_gradient(lambda v: cubeful_equity(v, x=x, cube_owner=owner), q)
            g_dt = numerical_gradient(
                lambda v: 2 * cubeful_equity(v, x=x, cube_owner="opponent"), q)
            assert delta_method_stderr(g_nd, cov) == pytest.approx(lib["nd"], rel=1e-6)
            assert delta_method_stderr(g_dt, cov) == pytest.approx(lib["dt"], rel=1e-6)
            assert delta_method_stderr(g_dt - g_nd, cov) == pytest.approx(
                lib["dt_minus_nd"], rel=1e-6)


@pytest.mark.parametrize("owner", ["centred", "player", "opponent"])
@pytest.mark.parametrize("jacoby", [False, True])
def test_exact_gradient_of_the_cubeful_equity(owner, jacoby):
    q = _q(COUNTS)
    exact = cubeful_equity_gradient(q, x=0.68, cube_owner=owner, jacoby=jacoby)
    numeric = numerical_gradient(
        lambda v: cubeful_equity(v, x=0.68, cube_owner=owner, jacoby=jacoby), q)
    assert exact.shape == (5,)
    np.testing.assert_allclose(exact, numeric, rtol=1e-6, atol=1e-8)


def test_delta_method_stderr_edges():
    g = np.array([1.0, 0.5, 0.0, -0.5, 0.0])
    cov = probability_covariance(COUNTS)
    assert delta_method_stderr(g, cov) == pytest.approx(math.sqrt(g @ cov @ g))
    assert delta_method_stderr(g, np.zeros((5, 5))) == 0.0
    assert math.isnan(delta_method_stderr(g, np.full((5, 5), np.nan)))     # < 2 games
    assert delta_method_stderr(g, -1e-17 * np.eye(5)) == 0.0                # rounding
    assert math.isnan(delta_method_stderr(g, -np.eye(5)))                   # no covariance


def test_z_score_and_the_two_forms_of_the_margins():
    assert z_score(0.3, 0.1) == pytest.approx(3.0)
    assert z_score(-0.3, 0.0) == -math.inf and z_score(0.3, 0.0) == math.inf
    assert math.isnan(z_score(0.0, 0.0)) and math.isnan(z_score(1.0, float("nan")))
    rng = np.random.default_rng(1)
    for _ in range(200):
        nd, dt = rng.uniform(-1, 2, 2)
        se = rng.uniform(0, 0.1, 3)
        z = decision_z(nd, dt, 1.0, *se)
        m = decision_margins(nd, dt, 1.0, *se)
        # the same statistic: the margin is the signed z without its sign
        assert m["double"]["z"] == abs(z["double"]) and m["take"]["z"] == abs(z["take"])
        assert (m["double"]["choice"] == "double") == (z["double"] >= 0)
        assert (m["take"]["choice"] == "take") == (z["take"] > 0)
        assert m["take"]["stderr"] == se[1]
        assert m["double"]["stderr"] == (se[2] if dt < 1.0 else se[0])


def test_too_close():
    many = MIN_DECIDING_TRIALS
    assert too_close(CLOSE_Z, -CLOSE_Z, many) == []
    assert too_close(1.9, 5.0, many) == ["double"]
    assert too_close(math.nan, math.inf, many) == ["double"]
    assert too_close(50.0, 50.0, many - 1) == ["double", "take"]
    assert too_close(math.nan, 0.0, 1, certain=True) == []


# ------------------------------------------------------ fastbg.cube.janowski_cube_decision

def test_janowski_decision_is_the_money_decision_with_its_errors():
    q, cov = _q(COUNTS), probability_covariance(COUNTS)
    d = janowski_cube_decision(q, MatchState.money(), counts=COUNTS, x=0.68)
    lib = money_cube_decision(q, x=0.68, covariance=cov)
    assert (d["action"], d["nd"], d["dt"], d["dp"]) == (lib.action, lib.nd, lib.dt, lib.dp)
    assert d["stderr"] == {k: lib.stderr[k] for k in ("nd", "dt", "dp")}
    assert d["margins"] == decision_margins(lib.nd, lib.dt, lib.dp, lib.stderr["nd"],
                                            lib.stderr["dt"], lib.stderr["dt_minus_nd"])
    assert d["z"] == min(d["margins"]["double"]["z"], d["margins"]["take"]["z"])
    # without a covariance every standard error is unknown
    d = janowski_cube_decision(q, MatchState.money(), x=0.68)
    assert d["nd"] == lib.nd and math.isnan(d["stderr"]["nd"]) and math.isnan(d["z"])


def test_janowski_decision_without_a_double_uses_the_exact_gradient():
    q, cov = _q(COUNTS), probability_covariance(COUNTS)
    state = MatchState.money(cube=2, cube_owner="opponent")
    d = janowski_cube_decision(q, state, covariance=cov, x=0.6)
    assert not d["can_double"] and d["why_not"] == "the opponent owns the cube"
    assert d["nd"] == cubeful_equity(q, x=0.6, cube_owner="opponent")
    g = cubeful_equity_gradient(q, x=0.6, cube_owner="opponent")
    assert d["stderr"]["nd"] == delta_method_stderr(g, cov)
    assert d["margins"] is None and math.isnan(d["dt"])


def test_janowski_decision_in_match_play():
    q, cov = _q(COUNTS), probability_covariance(COUNTS)
    state = MatchState.match(7, (2, 4))
    d = janowski_cube_decision(q, state, covariance=cov, x=0.68)
    lib = match_cube_decision(q, 7, (2, 4), x=0.68)
    for k in ("action", "nd", "dt", "dp", "nd_emg", "dt_emg", "cubeless_mwc", "take_point"):
        assert d[k] == getattr(lib, k), k
    g = numerical_gradient(lambda v: cubeful_mwc(v, 5, 3, x=0.68), q)
    assert d["stderr"]["nd"] == delta_method_stderr(g, cov)
    m = d["margins"]["double"]
    assert m["difference_emg"] / m["stderr_emg"] == pytest.approx(m["z"])


def test_janowski_decision_errors():
    with pytest.raises(ValueError, match="must be in"):
        janowski_cube_decision(_q(COUNTS), x=1.5)
    with pytest.raises(ValueError, match="not both"):
        janowski_cube_decision(_q(COUNTS), counts=COUNTS, covariance=np.eye(5))
    with pytest.raises(ValueError, match="25-away"):
        janowski_cube_decision(_q(COUNTS), MatchState.match(30))


def test_cube_efficiency_says_where_it_comes_from():
    assert cube_efficiency("start") == (0.68, "GNU Backgammon's default for contact")
    assert cube_efficiency("start", x=0.5) == (0.5, "given")
    at_limit = MatchState.money(cube=4, cube_owner="player", max_cube=4)
    assert cube_efficiency("start", at_limit) == (0.0, "cube at its limit (4): dead cube")
    last = "XGID=-------A----------------a-:0:0:1:00:0:0:0:0:10"
    assert cube_efficiency(last) == (0.0, "last roll: dead cube")
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        cube_efficiency("start", x=2)


# ------------------------------------------------------------------- fastbg.cube_decision

SMALL_BEAROFF = (0, 2, 2, 1, 0, 0), (1, 1, 0, 2, 1, 0)


def test_exact_decision_is_the_database():
    a, b = SMALL_BEAROFF
    pos = Position(bearoff_board(a, b))
    exact = BearoffSolver(exact=False).value(a, b)
    d = fastbg.cube_decision(pos)
    assert d.method == "exact" and d.certain and d.too_close == [] and d.games == 0
    assert (d.nd, d.dt, d.dp, d.win) == (exact.nd_centred, exact.dt, 1.0, exact.win)
    assert d.action == exact.cube_decision("centred")[3] and d.stderr is None
    assert exact_cube_decision(pos) == (d.win, d.decision)
    # the opponent's cube: No double only
    d = fastbg.cube_decision(pos, state=MatchState.money(cube=2, cube_owner="opponent"))
    assert not d.can_double and d.why_not == "the opponent owns the cube"
    assert d.nd == exact.opponent and d.too_close is None


def test_cube_method_resolves_auto():
    pos = Position(bearoff_board(*SMALL_BEAROFF))
    assert cube_method(pos) == "exact"
    assert cube_method(pos, MatchState.match(5)) == "rollout"            # money play only
    assert cube_method(pos, MatchState.money(beaver=True)) == "rollout"
    assert cube_method("start") == "rollout" and cube_method("start", None, "janowski") == "janowski"
    with pytest.raises(ValueError, match="two-sided bear-off database"):
        cube_method("start", method="exact")
    with pytest.raises(ValueError, match="unknown method"):
        cube_method("start", method="gnubg")


def test_rollout_method_is_the_cube_rollout():
    d = fastbg.cube_decision("start", 200, seed=3, policy="pubeval", method="rollout")
    r = fastbg.cube_rollout("start", 200, seed=3, policy="pubeval")
    assert d.method == "rollout" and d.result.counts.tolist() == r.counts.tolist()
    assert (d.nd, d.dt, d.dp, d.action) == (r.nd, r.dt, r.dp, r.action)
    assert d.stderr == r.stderr and d.decision["z"] == r.z
    assert d.games == 200 and d.too_close == too_close(r.z["double"], r.z["take"], 200)
    # auto is the rollout outside the database
    assert fastbg.cube_decision("start", 200, seed=3, policy="pubeval").decision == d.decision


def test_janowski_method_is_the_model_on_a_cubeless_rollout():
    state = MatchState.match(7, (2, 4))
    d = fastbg.cube_decision("start", 500, seed=2, policy="pubeval", method="janowski",
                             state=state)
    r = fastbg.rollout("start", 500, seed=2, policy="pubeval", opening=False, vr=False)
    assert d.result.counts.tolist() == r.counts.tolist()
    lib = janowski_cube_decision(r, state, counts=r.counts, position="start")
    assert {k: v for k, v in d.decision.items() if k not in ("certain", "too_close")} == lib
    assert d.x == 0.68 and d.x_source == "GNU Backgammon's default for contact"
    assert d.met.name == load_met().name and d.mode == "match"
    assert d.certain is False and d.too_close == too_close(
        lib["margins"]["double"]["z"], lib["margins"]["take"]["z"], 500)


def _cli_json(capsys, argv):
    assert main(argv + ["--json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    for k in ("seconds", "games_per_second"):
        out.pop(k, None)
    return out


def _lib_json(d):
    out = json.loads(json.dumps(_finite(d.to_dict())))
    for k in ("seconds", "games_per_second"):
        out.pop(k, None)
    return out


@pytest.mark.parametrize("argv, kwargs", [
    (["--method", "rollout", "-n", "100", "--policy", "pubeval"],
     dict(method="rollout", games=100, policy="pubeval")),
    (["--method", "janowski", "-n", "300", "--match-length", "5", "--score", "1-2"],
     dict(method="janowski", games=300, state=MatchState.match(5, (1, 2)))),
    (["--method", "janowski", "-n", "300", "--cube", "2", "--owner", "opponent"],
     dict(method="janowski", games=300, state=MatchState.money(2, "opponent"))),
])
def test_the_command_prints_the_library_decision(capsys, argv, kwargs):
    cli = _cli_json(capsys, ["cube", "start", "--seed", "7", *argv])
    lib = fastbg.cube_decision("start", seed=7, **kwargs)
    assert cli == _lib_json(lib)


def test_the_command_prints_the_exact_decision(capsys):
    pid = Position(bearoff_board(*SMALL_BEAROFF)).to_position_id()
    cli = _cli_json(capsys, ["cube", pid])
    assert cli.pop("unused_options") == []
    assert cli == _lib_json(fastbg.cube_decision(pid))


def test_the_state_comes_from_the_position_unless_given():
    xgid = "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:3:2:0:7:10"   # 7-pt, 3-2, our 2-cube
    d = fastbg.cube_decision(xgid, 40, seed=1, policy="pubeval", method="janowski")
    assert (d.state.match_length, d.state.score, d.state.cube) == (7, (3, 2), 2)
    assert d.action.startswith(("No redouble", "Redouble", "Too good to redouble"))
    d = fastbg.cube_decision(xgid, 40, seed=1, policy="pubeval", method="janowski",
                             state=MatchState.money())
    assert d.mode == "money" and d.state.cube == 1


def test_cube_decision_errors():
    pos = Position(bearoff_board(*SMALL_BEAROFF))
    with pytest.raises(ValueError, match="games, seed do not apply to method 'exact'"):
        fastbg.cube_decision(pos, 100, seed=1, method="exact")
    with pytest.raises(ValueError, match="two-sided bear-off database"):
        fastbg.cube_decision("start", method="exact")
    with pytest.raises(ValueError, match="vr and quasi_random are for cube rollouts"):
        fastbg.cube_decision("start", 10, method="janowski", vr=True)
    with pytest.raises(ValueError, match="dice rolled"):
        fastbg.cube_decision("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10")
    with pytest.raises(ValueError, match="unknown method"):
        fastbg.cube_decision("start", method="gnubg")
    with pytest.raises(ValueError, match="must be in"):       # before any game
        fastbg.cube_decision("start", 10**9, x=1.5)
    with pytest.raises(ValueError, match="MatchState"):
        fastbg.cube_decision("start", state="money")
    # auto in the database: the rollout arguments are not used, and not refused
    assert fastbg.cube_decision(pos, 100, seed=1).method == "exact"


def test_default_games():
    assert DEFAULT_GAMES == {"rollout": 5_184, "janowski": 20_000}
