"""Variance reduction of cubeful and cube rollouts: same games, unbiased, both engines alike.

The luck of a roll in a cubeful game is the yardstick's luck of the five probabilities
valued as the starting side's dead-cube value at the cube of that roll (money: points per
unit of the starting cube; match: MWC). The checks: (1) the games are those of a plain
cubeful rollout with the same seed (same counts); (2) both engines give the same bits;
(3) with the cube out of play (cube at its limit, the Crawford game) the cubeful value is a
known function of the exactly computable cubeless outcomes, and the adjusted estimate is
within N_SIGMA of it for several seeds; (4) the start with the opening roll has equity 0
(money) and MWC 1/2 at an even match score, by symmetry; (5) the reduction is real.
"""
from __future__ import annotations

import numpy as np
import pytest

from fastbg import MatchState, Position, cube_rollout, cubeful_rollout, load_met
from fastbg.engine import get_engine
from fastbg.reference import cubeful as ref

from test_statistics import POSITIONS, SEEDS

N_SIGMA = 4.0

pytest.importorskip("fastbg._core.cubeful", reason="Cython core not built")


# ----------------------------------------------------------------- the luck's weights


def test_luck_weights_are_the_dead_cube_value_of_the_probabilities():
    p = np.array([0.6, 0.2, 0.05, 0.1, 0.01])
    equity = (2 * p[0] - 1) + (p[1] - p[3]) + (p[2] - p[4])
    # money: linear in the probabilities, times the cube over the starting cube
    for lc, lc0 in ((0, 0), (2, 1)):
        w = ref.luck_weights(lc, lc0, -1, False)
        assert np.dot(w, p) - 1.0 * 2 ** (lc - lc0) == pytest.approx(equity * 2 ** (lc - lc0))
    # Jacoby with a centred cube: gammons count single
    w = ref.luck_weights(0, 0, -1, True)
    assert np.dot(w, p) - 1.0 == pytest.approx(2 * p[0] - 1)
    assert ref.luck_weights(1, 0, 1, True) == ref.luck_weights(1, 0, 1, False)
    # match: the MWC after the game, r3 + w . p, from the result table at that cube
    met = load_met("Kazaross-XG2")
    r = met.result_mwc(3, 5, 2)
    mwc = ((p[0] - p[1]) * r[0] + (p[1] - p[2]) * r[1] + p[2] * r[2]
           + (1 - p[0] - p[3]) * r[3] + (p[3] - p[4]) * r[4] + p[4] * r[5])
    tables = [[met.result_mwc(u, v, 2 ** j).tolist() for j in range(16)] for u, v in ((3, 5), (5, 3))]
    w = ref.luck_weights(1, 0, -1, False, (tables, 3, 5))
    assert r[3] + np.dot(w, p) == pytest.approx(mwc)


def test_luck_dot_turns_the_opponents_luck_to_the_roots_view():
    w = [2.0, 1.0, 1.0, -1.0, -1.0]
    actual, mean = [0.7, 0.3, 0.1, 0.05, 0.0], [0.5, 0.1, 0.0, 0.1, 0.0]
    mine = ref.luck_dot(w, actual, mean, True)
    assert mine == pytest.approx(2 * 0.2 + 0.2 + 0.1 + 0.05)
    # the opponent's good roll is the root's bad luck, its gammons the root's losses
    assert ref.luck_dot(w, actual, mean, False) == pytest.approx(-mine)


# ----------------------------------------------------------------- same games, same bits

CASES = {
    "money start": dict(position="start"),
    "money contact": dict(position="4HPMwQCMz+AIIQ"),
    "money Jacoby": dict(position="4HPMwQCMz+AIIQ", state=MatchState.money(jacoby=True)),
    "money owned cube": dict(position="4HPMwQCMz+AIIQ",
                             state=MatchState.money(cube=2, cube_owner="opponent")),
    "match": dict(position="4HPMwQCMz+AIIQ", state=MatchState.match(7, (2, 4))),
    "match start": dict(position="start", state=MatchState.match(5, (1, 3))),
}


@pytest.mark.parametrize("case", list(CASES))
def test_vr_plays_the_games_of_a_plain_cubeful_rollout(case):
    kw = CASES[case]
    a = cubeful_rollout(kw["position"], 300, seed=4, state=kw.get("state"), vr=True)
    b = cubeful_rollout(kw["position"], 300, seed=4, state=kw.get("state"), vr=False)
    assert a.vr and not b.vr
    assert a.counts.tolist() == b.counts.tolist()
    assert a.settings["vr"] is True and "yardstick" in a.settings and b.settings["vr"] is False


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.slow) for c in
                                  ("money start", "money Jacoby", "money owned cube")] + ["match"])
def test_both_engines_give_the_same_bits(case):
    # the pure-Python yardstick takes seconds a game: a few games, chosen to double
    kw = CASES[case]
    a = cubeful_rollout(kw["position"], 3, seed=7, state=kw.get("state"), vr=True,
                        engine="cython")
    b = cubeful_rollout(kw["position"], 3, seed=7, state=kw.get("state"), vr=True,
                        engine="python")
    # a whole run each: a Ctrl-C (or a SIGTERM taken as one) ends a pure-Python run with the
    # games finished so far, which would read as different bits (test_cli_import.py)
    assert (a.games, a.interrupted, b.games, b.interrupted) == (3, False, 3, False)
    assert a.doubled > 0 or case == "money owned cube"
    assert a.counts.tolist() == b.counts.tolist()
    assert (a.equity, a.stderr) == (b.equity, b.stderr)
    assert a.mwc == b.mwc or (np.isnan(a.mwc) and np.isnan(b.mwc))


@pytest.mark.slow
def test_block_luck_is_the_same_in_both_engines_game_by_game():
    eng = get_engine("cython")
    from fastbg._core import cubeful as core
    from fastbg.reference.evaluator import EvalPolicy as RefEval
    board = np.ascontiguousarray(Position.parse("4HPMwQCMz+AIIQ").board, dtype=np.int8)
    out = []
    for mod, ev, pol in ((core, eng.evaluator.EvalPolicy(), eng.make_policy("nn")),
                         (ref, RefEval(), "nn")):
        cells, luck = np.empty(3, dtype=np.int64), np.empty(3)
        counts = mod.cubeful_block(board, 3, np.random.PCG64DXSM(11), pol, ev,
                                   yardstick=ev, prefilter=4, cells=cells, luck=luck)
        out.append((counts.tolist(), cells.tolist(), luck.tolist()))
    assert out[0] == out[1]
    assert any(v != 0.0 for v in out[0][2])


@pytest.mark.slow
def test_vr_does_not_depend_on_workers():
    st = MatchState.match(7, (2, 4))
    a = cubeful_rollout("4HPMwQCMz+AIIQ", 2500, seed=9, workers=1, state=st, vr=True)
    b = cubeful_rollout("4HPMwQCMz+AIIQ", 2500, seed=9, workers=2, state=st, vr=True)
    assert (a.mwc, a.mwc_stderr, a.equity) == (b.mwc, b.mwc_stderr, b.equity)


def test_bad_vr_arguments_are_refused():
    with pytest.raises(ValueError, match="vr must be"):
        cubeful_rollout("start", 10, seed=1, vr="yes")
    eng = get_engine("cython")
    from fastbg._core import cubeful as core
    ev = eng.evaluator.EvalPolicy()
    board = Position.start().board
    with pytest.raises(ValueError, match="luck array"):
        core.cubeful_block(board, 2, np.random.PCG64DXSM(1), "nn", ev, yardstick=ev)
    with pytest.raises(ValueError, match="luck must be"):
        core.cubeful_block(board, 2, np.random.PCG64DXSM(1), "nn", ev, yardstick=ev,
                           luck=np.empty(3))
    with pytest.raises(ValueError, match="prefilter"):
        core.cubeful_block(board, 2, np.random.PCG64DXSM(1), "nn", ev, prefilter=-1)


# ----------------------------------------------------------------- unbiased


@pytest.fixture
def exact_values(exact_race_values):
    # conftest.py: computed once per test process
    return {name: p for (name, pol), p in exact_race_values.items() if pol == "pubeval"}


@pytest.mark.parametrize("name", list(POSITIONS))
@pytest.mark.parametrize("seed", SEEDS)
def test_vr_with_the_cube_out_of_play_agrees_with_exact_values(exact_values, name, seed):
    """A cube at its limit (money) and the Crawford game (match): nobody doubles, so the
    cubeful value is the exact cubeless outcome distribution of pubeval's play valued in
    points or in MWC; the luck is valued by the nn, which pubeval does not follow."""
    p = exact_values[name]
    equity = (2 * p["win"] - 1) + (p["win_gammon"] - p["lose_gammon"]) \
        + (p["win_backgammon"] - p["lose_backgammon"])
    r = cubeful_rollout(POSITIONS[name], 1500, seed=seed, policy="pubeval", vr=True,
                        state=MatchState.money(max_cube=1))
    assert r.vr and r.doubled == 0
    assert abs(r.equity - equity) <= N_SIGMA * r.stderr + 1e-9, (r.equity, equity, r.stderr)
    met = load_met("Kazaross-XG2")
    q = met.result_mwc(1, 3, 1)      # 4-point match at 3-1: the Crawford game, 1-away v 3-away
    mwc = ((p["win"] - p["win_gammon"]) * q[0] + (p["win_gammon"] - p["win_backgammon"]) * q[1]
           + p["win_backgammon"] * q[2] + (1 - p["win"] - p["lose_gammon"]) * q[3]
           + (p["lose_gammon"] - p["lose_backgammon"]) * q[4] + p["lose_backgammon"] * q[5])
    r = cubeful_rollout(POSITIONS[name], 1500, seed=seed, policy="pubeval", vr=True,
                        state=MatchState.match(4, (3, 1), crawford=True))
    assert abs(r.mwc - mwc) <= N_SIGMA * r.mwc_stderr + 1e-9, (r.mwc, mwc, r.mwc_stderr)


@pytest.mark.parametrize("seed", SEEDS[:1] + [pytest.param(s, marks=pytest.mark.slow) for s in SEEDS[1:]])
def test_vr_cubeful_rollout_of_the_start_is_even(seed):
    money = cubeful_rollout("start", 800, seed=seed, vr=True)
    assert money.opening and money.vr
    assert abs(money.equity) <= N_SIGMA * money.stderr
    match = cubeful_rollout("start", 800, seed=seed, vr=True, state=MatchState.match(7, (3, 3)))
    assert abs(match.mwc - 0.5) <= N_SIGMA * match.mwc_stderr


@pytest.mark.slow
def test_vr_and_plain_cubeful_rollouts_agree_and_vr_is_tighter():
    st = MatchState.match(7, (2, 4))
    a = cubeful_rollout("4HPMwQCMz+AIIQ", 3000, seed=21, state=st, vr=True)
    b = cubeful_rollout("4HPMwQCMz+AIIQ", 3000, seed=22, state=st, vr=False)
    assert abs(a.mwc - b.mwc) <= N_SIGMA * np.hypot(a.mwc_stderr, b.mwc_stderr)
    assert a.mwc_stderr < 0.5 * b.mwc_stderr


# ----------------------------------------------------------------- cube rollouts


@pytest.mark.slow
def test_cube_rollout_vr_both_engines():
    a = cube_rollout("4HPMwQCMz+AIIQ", 2, seed=3, engine="cython", vr=True)
    b = cube_rollout("4HPMwQCMz+AIIQ", 2, seed=3, engine="python", vr=True)
    assert (a.nd, a.dt, a.stderr) == (b.nd, b.dt, b.stderr) and a.vr and a.settings["vr"]


@pytest.mark.slow
def test_cube_rollout_vr_tighter_pairs():
    kw = dict(seed=5, state=MatchState.match(5, (1, 4)))
    v = cube_rollout("4HPMwQCMz+AIIQ", 1500, vr=True, **kw)
    p = cube_rollout("4HPMwQCMz+AIIQ", 1500, vr=False, **kw)
    assert v.counts.tolist() == p.counts.tolist()          # the same games
    assert v.stderr["nd"] < 0.5 * p.stderr["nd"]
    assert v.stderr["dt_minus_nd"] < p.stderr["dt_minus_nd"]
    for key in ("nd", "dt"):
        assert abs(getattr(v, key) - getattr(p, key)) <= N_SIGMA * p.stderr[key]


@pytest.mark.slow
def test_cube_rollout_vr_money_lines_are_in_units_of_the_current_cube():
    # a doubled money cube: DT's luck comes per unit of 2c and is scaled to c; the
    # adjusted and plain DT agree (same games) within the plain SE
    kw = dict(seed=8, state=MatchState.money(cube=2, cube_owner="player"))
    v = cube_rollout("4HPMwQCMz+AIIQ", 1500, vr=True, **kw)
    p = cube_rollout("4HPMwQCMz+AIIQ", 1500, vr=False, **kw)
    assert abs(v.dt - p.dt) <= N_SIGMA * p.stderr["dt"]
    assert v.stderr["dt"] < 0.5 * p.stderr["dt"]


# ----------------------------------------------------------------- quasi-random dice


def _last_roll():
    from fastbg.cube.bearoff import bearoff_board
    # checkers on the 1- and 5-points against one on the opponent's 3-point: 23 rolls of 36
    # bear both off, and the opponent bears off with any roll
    return bearoff_board([1, 0, 0, 0, 1, 0], [0, 0, 1, 0, 0, 0])


@pytest.mark.parametrize("engine", ["cython", "python"])
def test_quasi_random_cubeful_games_hold_each_first_roll_once_per_36(engine):
    # a last-roll position: the player doubles, the opponent takes, the roll decides; with
    # stratified first rolls 72 games hold exactly 2 x 23 wins
    r = cubeful_rollout(_last_roll(), 72, seed=5, engine=engine, vr=False)
    wins = r.counts[:3].sum()
    assert wins == 46 and r.counts[:, 1].sum() == 72          # doubled and taken every time
    assert r.equity == pytest.approx(2 * (46 - 26) / 72)
    plain = cubeful_rollout(_last_roll(), 72, seed=5, engine=engine, vr=False,
                            quasi_random=False)
    assert plain.settings["dice"] == "pseudo-random" and r.settings["dice"].startswith("quasi")
    with pytest.raises(ValueError, match="quasi_random must be"):
        cubeful_rollout(_last_roll(), 10, seed=5, quasi_random="yes")


def test_quasi_random_cube_rollout_lines_share_the_stratified_first_roll():
    from fastbg import cube_rollout
    r = cube_rollout(_last_roll(), 36, seed=2, vr=False)
    # No double: the player rolls at once; Double/take: the same 36 first rolls
    assert r.counts[0, :3].sum() == 23 and r.counts[1, :3].sum() == 23
    assert r.nd == pytest.approx((23 - 13) / 36) and r.dt == pytest.approx(2 * (23 - 13) / 36)


def test_quasi_random_opening_in_cubeful_rollouts_is_even_by_construction():
    # from the start with the opening roll, 30 games hold each of the 30 outcomes once:
    # each side moves first in exactly 15
    from fastbg.rollouts.blocks import stratified_rolls
    q = stratified_rolls(1, 0, 30, True)[:, 0]
    assert sorted(q.tolist()) == sorted(r for r in range(36) if r // 6 != r % 6)
    a = cubeful_rollout("start", 30, seed=1, policy="pubeval")
    b = cubeful_rollout("start", 30, seed=1, policy="pubeval", engine="python")
    assert a.counts.tolist() == b.counts.tolist() and a.settings["dice"].startswith("quasi")
