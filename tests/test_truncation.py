"""Truncation and the two-sided bear-off database (issue 12, item 5).

The database must be exact: bit for bit the float solver of :mod:`fastbg.cube.bearoff` on
every position both can solve quickly, and the pure-Python recursion of the reference on
others. Truncated rollouts must be the same in both engines, and a rollout stopped at the
database must agree within N_SIGMA standard errors with the exact value of "the policy plays
until the database, then perfect play" (``tests/exact.py`` with a stop rule).
"""
from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from fastbg import rollout
from fastbg.cli import main
from fastbg.cube.bearoff import BearoffSolver, bearoff_board, home_boards
from fastbg.engine import get_engine
from fastbg.game.position import Position
from fastbg.reference import bearoffdb as ref_db
from fastbg.spec.luck import flip

from exact import board_from, exact_outcomes, probabilities

core_db = pytest.importorskip("fastbg._core.bearoffdb", reason="Cython core not built")

N_SIGMA = 4.0
SEEDS = [1, 20261202, 987654321]


# ------------------------------------------------------------------ the database


def test_two_sided_database_is_the_solvers_bits_on_every_small_position():
    solver = BearoffSolver(exact=False)
    sides = home_boards(3)                       # 83 sides: 6,889 positions
    for a in sides:
        for b in sides:
            x, y = solver.value(a, b), core_db.two_sided(a, b)
            assert (y["win"], y["centred"], y["owned"], y["opponent"], y["nd_centred"],
                    y["nd_owned"], y["dt"]) == (x.win, x.centred, x.owned, x.opponent,
                                                x.nd_centred, x.nd_owned, x.dt), (a, b)


@pytest.mark.parametrize("a, b", [((0, 1, 0, 2, 0, 1), (1, 0, 1, 1, 0, 0)),
                                  ((2, 0, 0, 0, 0, 2), (0, 0, 3, 0, 0, 0))])
def test_two_sided_database_agrees_with_exact_rationals(a, b):
    exact = BearoffSolver(exact=True).value(a, b)
    got = core_db.two_sided(a, b)
    for key in ("win", "centred", "owned", "opponent"):
        assert abs(got[key] - float(getattr(exact, key))) < 1e-13, key
        assert isinstance(getattr(exact, key), Fraction)


def test_two_sided_win_of_the_reference_is_the_cores_bits():
    rng = np.random.default_rng(3)
    sides = home_boards(6, 4)
    for _ in range(6):
        a, b = (sides[int(i)] for i in rng.integers(len(sides), size=2))
        if sum((i + 1) * n for i, n in enumerate(a + b)) > 40:   # keep the recursion small
            continue
        board = bearoff_board(a, b)
        assert ref_db.two_sided_win(board) == core_db.two_sided(a, b)["win"]


def test_two_sided_database_by_hand():
    # one checker each on the ace point: the player on roll is off first
    assert core_db.two_sided([1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0])["win"] == 1.0
    # one checker on my 6-point against one on the opponent's ace point: I win only by
    # bearing it off now, with 6 pips or more: all rolls but 1-1 (4 pips), 1-2, 2-1, 1-3,
    # 3-1, 1-4, 4-1, 2-3 and 3-2 (9 rolls); 2-2 plays 6/4/2/off. So 27/36.
    v = core_db.two_sided([0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0])
    assert v["win"] == 27 / 36
    # win or lose now: rolling is worth 2 x 27/36 - 1 = 0.5; a double is passed
    # (DP = 1 <= DT = 2 x 0.5), so the cube centred is worth 1
    assert v["nd_opponent"] == 0.5 and v["dt"] == 1.0 and v["centred"] == 1.0


@pytest.mark.parametrize("mine, theirs, match", [
    ([0] * 6, [1, 0, 0, 0, 0, 0], "1 to 6 checkers"),
    ([1, 1, 1, 1, 1, 1], [0, 0, 0, 0, 0, 7], "1 to 6 checkers"),
    ([1, 0, 0], [1, 0, 0, 0, 0, 0], "6 entries"),
    ([1, -1, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0], "negative"),
])
def test_two_sided_bad_input(mine, theirs, match):
    with pytest.raises(ValueError, match=match):
        core_db.two_sided(mine, theirs)


def test_is_two_sided():
    assert core_db.is_two_sided(bearoff_board([0, 2, 0, 0, 0, 4], [1, 1, 1, 1, 1, 1]))
    assert not core_db.is_two_sided(bearoff_board([0, 2, 0, 0, 0, 5], [1, 0, 0, 0, 0, 0]))
    assert not core_db.is_two_sided(Position.parse("start").board)
    assert ref_db.two_sided_key(bearoff_board([0, 0, 0, 0, 0, 5], [1] * 6)) is not None
    assert ref_db.two_sided_key(Position.parse("start").board) is None


# ------------------------------------------------------------------ the two engines


CASES = [
    ("start", dict(truncate=7, vr=False)),
    ("start", dict(truncate=5, vr=False, opening=True)),
    ("start", dict(truncate=3, vr=False, dice=(3, 1))),
    ("start", dict(truncate=2, vr=True)),
    ("small", dict(bearoff2=True, vr=False)),
    ("small", dict(bearoff2=True, vr=True)),
    ("race", dict(bearoff2=True, truncate=6, vr=False)),
]


@pytest.mark.parametrize("name, kw", CASES)
def test_engines_agree_bit_for_bit_on_truncated_games(name, kw):
    board = {"start": Position.parse("start").board,
             "small": board_from({6: 2, 5: 1, 3: 1}, {6: 1, 5: 1, 4: 1}),
             "race": board_from({9: 2, 7: 2, 4: 1}, {8: 1, 5: 2, 2: 2})}[name]
    out = []
    for eng in (get_engine("cython"), get_engine("python")):
        pg = np.zeros((6, 6))
        out.append(eng.rollout_block_vr(board, 6, np.random.PCG64DXSM(11), eng.make_policy("pubeval"),
                                        eng.evaluator.EvalPolicy(), per_game=pg, **kw) + (pg,))
    (c1, s1, p1), (c2, s2, p2) = out
    assert c1.tolist() == c2.tolist() and s1.tobytes() == s2.tobytes() and p1.tobytes() == p2.tobytes()


# ------------------------------------------------------------------ exact values


def test_truncated_after_one_play_with_fixed_dice_is_the_evaluators_value():
    """A fixed first roll, truncation after 1 half-move: every game stops at the same
    position, so the estimate is the evaluator's value of it (root's view), SE 0."""
    eng = get_engine("cython")
    start = Position.parse("4HPMwQCMz+AIIQ").board
    pol = eng.make_policy("nn")
    plays = eng.legal_plays(start, 6, 2)
    after = plays[pol.choose(start, plays, np.random.PCG64DXSM(0))]
    p = flip(list(eng.evaluator.EvalPolicy().probabilities(np.ascontiguousarray(after[::-1]))))
    r = rollout("4HPMwQCMz+AIIQ", 300, seed=4, dice=(6, 2), truncate=1, vr=False)
    assert r.truncated == 300 and r.counts.sum() == 0
    # SE 0 up to the rounding of the sum of squares (about sqrt(n * eps) * value)
    assert r.win == pytest.approx(p[0], abs=1e-12) and r.stderr["win"] < 1e-6
    assert r.win_gammon == pytest.approx(p[1], abs=1e-12)


def _stop_in_db(board):
    if ref_db.two_sided_key(board) is None:
        return None
    w = core_db.two_sided(*ref_db.two_sided_key(board))["win"]
    return np.array([w, 0, 0, 1 - w, 0, 0])


@pytest.fixture(scope="module")
def exact_truncated():
    eng = get_engine("cython")
    return {name: probabilities(exact_outcomes(b, eng, "pubeval", stop=_stop_in_db))
            for name, b in POSITIONS.items()}


POSITIONS = {
    "one-checker 11 v 4": board_from({11: 1}, {4: 1}),
    "race 9-9-7 v 8-5-5": board_from({9: 2, 7: 1}, {8: 1, 5: 2}),
    "home 7 v 6": board_from({6: 2, 5: 2, 3: 2, 2: 1}, {6: 2, 4: 2, 1: 2}),
}


@pytest.mark.parametrize("vr", [False, True])
@pytest.mark.parametrize("name", list(POSITIONS))
@pytest.mark.parametrize("seed", SEEDS)
def test_rollout_stopped_at_the_database_has_the_exact_value(exact_truncated, name, vr, seed):
    r = rollout(POSITIONS[name], 2000, seed=seed, workers=2, policy="pubeval", vr=vr,
                truncate_bearoff=True)
    assert r.truncated + int(r.counts.sum()) == 2000 and r.truncated > 0
    exact = exact_truncated[name]
    for key in ("win", "equity"):
        est, se = getattr(r, key), r.stderr[key]
        assert abs(est - exact[key]) <= N_SIGMA * se + 1e-9, (key, est, exact[key], se)


def test_rollout_stopped_at_the_database_matches_a_plain_rollout():
    """Perfect play from the database on differs little from the policy's: the two
    estimates agree within their combined standard errors."""
    pos = board_from({10: 2, 8: 2, 6: 1}, {9: 1, 7: 2, 3: 2})
    a = rollout(pos, 20_000, seed=3, truncate_bearoff=True)
    b = rollout(pos, 20_000, seed=4)
    assert a.truncated > 10_000
    se = (a.stderr["equity"] ** 2 + b.stderr["equity"] ** 2) ** 0.5
    assert abs(a.equity - b.equity) <= N_SIGMA * se


def test_truncated_rollout_settings_and_workers():
    a = rollout("start", 2000, seed=2, truncate=8, workers=1)
    b = rollout("start", 2000, seed=2, truncate=8, workers=2)
    assert (a.equity, a.stderr) == (b.equity, b.stderr)
    d = a.to_dict()
    assert d["truncated"] == 2000 and d["settings"]["truncation"] == 8
    assert d["settings"]["truncate_bearoff"] is False
    with pytest.raises(ValueError, match="half-moves"):
        rollout("start", 10, truncate=0)
    with pytest.raises(ValueError, match="truncate_bearoff must be"):
        rollout("start", 10, truncate_bearoff="yes")


def test_cli_truncate(capsys):
    assert main(["rollout", "start", "-n", "1000", "--seed", "1", "--truncate", "6",
                 "--no-progress", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["truncated"] == 1000 and d["settings"]["truncation"] == 6
    assert main(["rollout", "XGID=------BBB-------------bbb-:0:0:1:00:0:0:0:0:10", "-n", "1000",
                 "--seed", "1", "--truncate-bearoff", "--no-progress"]) == 0
    assert "exact in the two-sided bear-off database" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:        # argparse: one line, status 2
        main(["rollout", "--truncate", "0", "-n", "10"])
    assert exc.value.code == 2 and "at least 1" in capsys.readouterr().err
    assert main(["rollout", "--cubeful", "--truncate", "5", "-n", "10"]) == 2
    assert "cubeless rollouts" in capsys.readouterr().err


# ------------------------------------------------------------------ fastbg cube


def test_cube_uses_the_database_for_money_play(capsys):
    a, b = (0, 2, 2, 1, 0, 0), (1, 1, 0, 2, 1, 0)
    pid = Position(bearoff_board(a, b)).to_position_id()
    exact = BearoffSolver(exact=False).value(a, b)
    assert main(["cube", pid, "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["exact"] and d["win"] == exact.win
    assert (d["decision"]["nd"], d["decision"]["dt"]) == (exact.nd_centred, exact.dt)
    nd, dt, dp, action = exact.cube_decision("centred")
    assert d["decision"]["action"] == action == "Double, pass"
    assert main(["cube", pid, "--cube", "2", "--owner", "opponent"]) == 0
    out = capsys.readouterr().out
    assert "No cube decision: the opponent owns the cube" in out and "exact" in out
    # match play is not in the (money) database: a rollout as usual
    assert main(["cube", pid, "--match-length", "5", "--games", "1000", "--seed", "1",
                 "--no-progress", "--json"]) == 0
    assert "exact" not in json.loads(capsys.readouterr().out)


def test_core_and_reference_key_and_win_functions_agree():
    for a, b in [((0, 2, 0, 0, 0, 4), (1, 1, 1, 1, 1, 1)), ((1, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 2))]:
        board = bearoff_board(a, b)
        assert core_db.two_sided_key(board) == ref_db.two_sided_key(board) == (a, b)
    board = bearoff_board((1, 0, 0, 0, 0, 1), (0, 0, 2, 0, 0, 0))
    assert core_db.two_sided_win(board) == ref_db.two_sided_win(board)
    for mod in (core_db, ref_db):
        assert mod.TWO_SIDED_MAX == 6
        assert mod.two_sided_key(Position.parse("start").board) is None
        with pytest.raises(ValueError, match="not in the two-sided"):
            mod.two_sided_win(Position.parse("start").board)


def test_cube_method_option(capsys):
    pid = Position(bearoff_board((0, 2, 2, 1, 0, 0), (1, 1, 0, 2, 1, 0))).to_position_id()
    assert main(["cube", pid, "--method", "janowski", "-n", "500", "--seed", "1",
                 "--no-progress", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert "exact" not in d and d["games"] == 500
    assert main(["cube", pid, "--method", "exact", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["exact"] is True
    assert main(["cube", "start", "--method", "exact"]) == 2
    assert "two-sided bear-off database" in capsys.readouterr().err


def test_the_database_is_cached_and_a_bad_cache_is_rebuilt(tmp_path):
    import os
    import subprocess
    import sys
    code = ("from fastbg._core import bearoffdb as B; v = B.two_sided([0,0,0,0,0,6], "
            "[0,0,0,0,0,6]); print(repr(v['win']), B._build2_stats()[2])")
    env = dict(os.environ, FASTBG_CACHE_DIR=str(tmp_path))

    def run():
        return subprocess.run([sys.executable, "-c", code], env=env, check=True,
                              capture_output=True, text=True).stdout.split()

    built = run()
    assert built[1] == "built" and (tmp_path / "bearoff2-v1.npy").is_file()
    cached = run()
    assert cached == [built[0], "cache"]                 # the same bits, read back
    with open(tmp_path / "bearoff2-v1.npy", "r+b") as f:   # corrupt it: rebuilt, rewritten
        f.seek(4096)
        f.write(b"\xff" * 64)
    assert run() == [built[0], "built"]
    assert run() == [built[0], "cache"]
