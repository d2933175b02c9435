"""Cubeful money rollouts (fastbg.rollouts.cubeful, fastbg._core.cubeful, fastbg.reference.cubeful).

- the compiled loop's pieces (network probabilities, default cube efficiency with its
  last-roll rule, Janowski decision) agree bit for bit with the library's Python ones;
- both engines give identical counts for the same seed;
- last-roll bear-offs, where Janowski at x = 0 is exact, agree with the exact solver
  (:mod:`fastbg.cube.bearoff`) within 4 standard errors for several seeds;
- an immediate pass gives exactly +1 per game; cube statistics are consistent; the
  numbers do not depend on the number of workers.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from fastbg.cube.bearoff import bearoff_board, solve
from fastbg.cube import default_cube_efficiency, is_last_roll, money_cube_decision
from fastbg.rollouts.cubeful import RESULT_CLASSES, cubeful_rollout, cubeful_statistics
from fastbg.game import MatchState
from fastbg.game.position import Position
from fastbg.reference.movegen import legal_plays
from fastbg.reference.board import swap

cc = pytest.importorskip("fastbg._core.cubeful")
rc = pytest.importorskip("fastbg.reference.cubeful")


@pytest.fixture(params=["cython", "python"])
def cub(request):
    """Each engine's cubeful module: both port fastbg.cube's formulas, bit for bit."""
    return cc if request.param == "cython" else rc

START = Position.parse("start").board


def _sample_positions(n_games=12, seed=0):
    """Positions from random games (contact, races, bear-offs, last rolls)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_games):
        b = START.copy()
        while True:
            out.append(b.copy())
            plays = legal_plays(b, int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            if len(plays):
                b = plays[int(rng.integers(len(plays)))]
            if not b[0].any():
                break
            b = swap(b)
    return out


POSITIONS = _sample_positions()


def _last_roll_candidates():
    """Races with the opponent on at most 3 checkers in its home board."""
    out = []
    theirs_list = []
    for k in (1, 2, 3):
        for pts in itertools.combinations_with_replacement(range(6), k):
            row = [0] * 6
            for p in pts:
                row[p] += 1
            theirs_list.append(row)
    for theirs in theirs_list:
        for mine in ([1, 0, 0, 0, 1, 0], [0, 0, 0, 0, 0, 2], [3, 0, 0, 0, 0, 0]):
            out.append(bearoff_board(mine, theirs))
        b = START.copy()
        b[1] = 0
        b[1, :6] = theirs
        b[0] = 0
        b[0, 5] = 15  # no contact, the player with 15 on its 6-point
        out.append(b)
    return out


def test_probabilities_bitwise():
    from fastbg._core.nn import NNPolicy as CNN
    from fastbg.reference.nn import NNPolicy as RNN

    c, r = CNN(), RNN()
    for b in POSITIONS[::7]:
        p = cc.probabilities(c, b)
        assert p.tobytes() == rc.probabilities(r, b).tobytes()
        if not is_last_roll(b):
            assert p.tobytes() == c.probabilities(b).tobytes()
            assert p.tobytes() == r.probabilities(b).tobytes()


def test_last_roll_probabilities_are_exact():
    # The network can be far off on these rare positions (0.98 for a 23/36 shot); the
    # loop uses the exact values, the same in both engines.
    from fastbg._core.nn import NNPolicy as CNN
    from fastbg.reference.nn import NNPolicy as RNN

    c, r = CNN(), RNN()
    seen = 0
    for b in _last_roll_candidates():
        if not is_last_roll(b):
            continue
        seen += 1
        p = cc.probabilities(c, b)
        assert p.tobytes() == rc.probabilities(r, b).tobytes()
        if b[0].sum() <= 3 and b[1].sum() <= 3 and not b[:, 6:].any():
            # the exact solver's cubeless win, with perfect checker play
            assert p[0] == pytest.approx(float(solve(Position(b), exact=True).win), abs=1e-15)
    assert seen > 10
    seven_v_ace = Position.parse("XGID=-------A----------------a-:0:0:1:00:0:0:0:0:10").board
    assert cc.probabilities(c, seven_v_ace)[0] == 23 / 36
    fifteen = START.copy()
    fifteen[0] = 0
    fifteen[0, 5] = 14
    fifteen[0, 20] = 1          # one checker still in the opponent's home board
    fifteen[1] = 0
    fifteen[1, 0] = 1
    assert is_last_roll(fifteen)
    assert list(cc.probabilities(c, fifteen)) == [0.0, 0.0, 0.0, 1.0, 1.0]



def test_last_roll_rule_exact(cub):
    for b in _last_roll_candidates() + POSITIONS:
        assert cub.is_last_roll(b) == is_last_roll(b), Position(b).to_position_id()


def test_default_x_bitwise(cub):
    seen = set()
    for b in _last_roll_candidates() + POSITIONS:
        x = cub.default_x(b)
        assert x == default_cube_efficiency(b)
        seen.add(x)
    assert {0.0, 0.6, 0.68} <= seen and len(seen) > 4  # race interpolation reached


@pytest.mark.parametrize("jacoby", [False, True])
@pytest.mark.parametrize("owned", [False, True])
def test_decision_bitwise(owned, jacoby, cub):
    rng = np.random.default_rng(7)
    acts = set()
    for _ in range(3000):
        w = float(rng.random())
        wg = w * float(rng.random()) * float(rng.random() < 0.8)
        wbg = wg * float(rng.random()) ** 3
        lg = (1 - w) * float(rng.random()) * float(rng.random() < 0.8)
        lbg = lg * float(rng.random()) ** 3
        q = np.array([w, wg, wbg, lg, lbg])
        x = float(rng.choice([0.0, 0.6, 0.68, 1.0, float(rng.random())]))
        act, nd, dt = cub.cube_decision(q, x, owned, jacoby)
        d = money_cube_decision(q, x=x, cube_owner="player" if owned else "centred",
                                jacoby=jacoby)
        assert nd == d.nd and dt == d.dt
        a = d.action.lower()
        want = 0 if not a.startswith(("double", "redouble")) else (1 if a.endswith("take") else 2)
        assert act == want
        acts.add(act)
    assert acts == {0, 1, 2}


@pytest.mark.parametrize("position,kw", [
    pytest.param("start", {}, marks=pytest.mark.slow),
    pytest.param("start", {"opening": False, "jacoby": True}, marks=pytest.mark.slow),
    pytest.param("start", {"opening": False, "policy": "pubeval", "x": 0.5}, marks=pytest.mark.slow),
    pytest.param(POSITIONS[40], {"state": MatchState.money(2, "opponent")}, marks=pytest.mark.slow),
    (POSITIONS[-30], {}),
    (POSITIONS[-30], {"jacoby": True, "x": 0.5}),
])
def test_engines_identical(position, kw):
    # the plain loop (variance reduction has its own tests, tests/test_cubeful_vr.py)
    a = cubeful_rollout(position, 6, seed=11, engine="python", vr=False, **kw)
    b = cubeful_rollout(position, 6, seed=11, engine="cython", vr=False, **kw)
    assert np.array_equal(a.counts, b.counts)
    assert a.equity == b.equity and a.stderr == b.stderr


# Last roll: the player on roll (1 checker on its 1- and 5-points: 23/36) against one
# opponent checker on its 3-point (it bears off with any roll). Double/take: 2 (2 p - 1).
# And 13/36 (checkers on 2 and 6): no double, 2 p - 1.
@pytest.mark.parametrize("mine", [[1, 0, 0, 0, 1, 0], [0, 1, 0, 0, 0, 1]])
@pytest.mark.parametrize("x", [None, 0.0])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_last_roll_exact(mine, x, seed):
    b = bearoff_board(mine, [0, 0, 1, 0, 0, 0])
    exact = solve(b).centred
    r = cubeful_rollout(b, 4000, seed=seed, x=x, workers=1)
    # + rounding: variance reduction by an exact yardstick leaves no sampling error
    assert abs(r.equity - exact) < 4 * r.stderr + 1e-9, (r.equity, exact, r.stderr)


def test_immediate_pass():
    # 17/18 to bear off with the opponent finishing next: double, pass.
    b = bearoff_board([0, 0, 0, 1, 0, 0], [0, 0, 1, 0, 0, 0])
    for engine in ("python", "cython"):
        r = cubeful_rollout(b, 20 if engine == "python" else 3000, seed=5, engine=engine)
        assert r.equity == 1.0 and r.stderr == 0.0
        assert r.passed == 1.0 and r.doubled == 1.0 and r.mean_cube == 1.0
        assert r.counts[RESULT_CLASSES.index("win pass"), 0] == r.games
    # with a 4-cube owned by the player, still +1 per unit of the starting cube
    r = cubeful_rollout(b, 1000, seed=5, state=MatchState.money(4, "player"))
    assert r.equity == 1.0 and r.counts[6, 2] == 1000


def test_no_double_when_opponent_owns():
    b = bearoff_board([0, 0, 0, 1, 0, 0], [0, 0, 1, 0, 0, 0])
    r = cubeful_rollout(b, 2000, seed=9, state=MatchState.money(2, "opponent"))
    # we cannot double; the opponent, sure to win if we miss, redoubles and we pass:
    # +-1 per unit of the starting cube either way
    assert r.counts[6].sum() == 0 and r.counts[:, 2:].sum() == 0
    assert r.doubled == r.passed == r.counts[7].sum() / r.games > 0
    assert set(np.flatnonzero(r.counts.sum(axis=1))) <= {0, 3, 7}
    assert abs(r.equity - (2 * 17 / 18 - 1)) < 4 * r.stderr + 1e-12


def test_cube_limit():
    b = bearoff_board([0, 0, 0, 1, 0, 0], [0, 0, 1, 0, 0, 0])
    r = cubeful_rollout(b, 1000, seed=9, state=MatchState.money(2, "player", max_cube=2))
    assert r.doubled == 0.0 and r.counts[:, 1].sum() == 1000


def test_statistics_consistent():
    r = cubeful_rollout("start", 3000, seed=4, workers=1, vr=False)
    c = r.counts
    assert c.shape == (8, 13) and c.sum() == r.games == 3000
    assert abs(sum(r.outcomes.values()) - 1) < 1e-12
    assert r.passed == c[6:].sum() / 3000
    assert r.doubled == (c[:, 1:].sum() + c[6:, 0].sum()) / 3000
    pts = np.repeat(np.array([1, 2, 3, -1, -2, -3, 1, -1]), 1)[:, None] * 2 ** np.arange(13)
    per_game = np.repeat(pts.ravel(), c.ravel())
    assert r.equity == pytest.approx(per_game.mean(), abs=1e-12)
    assert r.stderr == pytest.approx(per_game.std(ddof=1) / np.sqrt(3000), rel=1e-9)
    cubes = np.repeat(np.tile(2 ** np.arange(13), 8), c.ravel())
    assert r.mean_cube == pytest.approx(cubes.mean(), rel=1e-12)
    d = r.to_dict()
    assert d["counts"] == c.tolist() and d["seed"] == 4
    # Jacoby scoring: gammons with the centred 1-cube count single
    s = cubeful_statistics(c, jacoby=True)
    jpts = pts.copy()
    jpts[[1, 2], 0] = 1
    jpts[[4, 5], 0] = -1
    assert s["equity"] == pytest.approx(np.repeat(jpts.ravel(), c.ravel()).mean(), abs=1e-12)


@pytest.mark.slow
def test_workers_identical():
    a = cubeful_rollout("start", 2500, seed=21, workers=1)
    b = cubeful_rollout("start", 2500, seed=21, workers=2)
    assert np.array_equal(a.counts, b.counts) and a.equity == b.equity


def test_bad_arguments():
    with pytest.raises(ValueError):
        cubeful_rollout("start", 0)
    with pytest.raises(ValueError):
        cubeful_rollout("start", 10, x=1.5)
    with pytest.raises(ValueError):
        cubeful_rollout("start", 10, policy="nope")
    with pytest.raises(ValueError):
        cubeful_rollout("start", 10, state=MatchState.match(5), jacoby=True)


# --------------------------------------------------------------------------- match play

@pytest.mark.parametrize("lengths", [(1, 3, 5), pytest.param((7, 9), marks=pytest.mark.slow)])
def test_match_decision_against_matchcube(lengths, cub):
    # the match lengths in two parts (quick tier, slow); the same draws for each case
    from fastbg.cube.match import match_cube_decision
    from fastbg.cube import DEFAULT_MET, load_met

    met = load_met(DEFAULT_MET)
    rng = np.random.default_rng(3)
    acts = set()
    for n in (1, 3, 5, 7, 9):
        for sp in range(n):
            for so in range(n):
                a, b = n - sp, n - so
                R = np.array([met.result_mwc(a, b, 2 ** j) for j in range(16)])
                for cube, owner in ((1, "centred"), (2, "player"), (4, "player")):
                    if a <= cube:
                        continue
                    for _ in range(6):
                        w = rng.random()
                        wg = w * rng.random() * 0.6
                        wbg = wg * rng.random() * 0.2
                        lg = (1 - w) * rng.random() * 0.6
                        lbg = lg * rng.random() * 0.2
                        q = np.array([w, wg, wbg, lg, lbg])
                        x = float(rng.choice([0.0, 0.6, 0.68, 1.0]))
                        if n not in lengths:
                            continue
                        act, nd, dt, dp = cub.match_decision(R, q, a, b, cube, owner == "player", x)
                        d = match_cube_decision(q, n, (sp, so), cube=cube, cube_owner=owner, x=x)
                        assert (nd, dt, dp) == pytest.approx((d.nd, d.dt, d.dp), abs=1e-12)
                        a2 = d.action.lower()
                        want = (0 if not a2.startswith(("double", "redouble"))
                                else (1 if a2.endswith("take") else 2))
                        assert act == want
                        acts.add(act)
    assert acts == {0, 1, 2}


@pytest.mark.parametrize("state", [
    pytest.param(MatchState.match(5, (2, 3)), marks=pytest.mark.slow),
    pytest.param(MatchState.match(7, (6, 3), crawford=True), marks=pytest.mark.slow),
    pytest.param(MatchState.match(7, (6, 3)), marks=pytest.mark.slow),
    MatchState.match(3, (1, 1), cube=2, cube_owner="opponent"),
    pytest.param(MatchState.match(9, (0, 0)), marks=pytest.mark.slow),
])
def test_match_engines_identical(state):
    a = cubeful_rollout("start", 5, seed=2, engine="python", state=state, vr=False)
    b = cubeful_rollout("start", 5, seed=2, engine="cython", state=state, vr=False)
    assert np.array_equal(a.counts, b.counts)
    assert a.mwc == b.mwc and a.equity == b.equity


@pytest.mark.slow
def test_match_crawford_no_double():
    r = cubeful_rollout("start", 2000, seed=3, state=MatchState.match(7, (6, 3), crawford=True))
    assert r.doubled == 0.0 and r.counts[:, 1:].sum() == 0


# Last roll at match scores: with x = 0 (the default on the last roll) the model's
# decisions are exact; the exact MWC is max(ND, min(DT, DP)) from the table.
@pytest.mark.parametrize("mine", [[1, 0, 0, 0, 1, 0], [0, 1, 0, 0, 0, 1]])
@pytest.mark.parametrize("n,score", [(5, (0, 0)), (7, (2, 4)), (7, (4, 2))])
@pytest.mark.parametrize("seed", [1, 2])
def test_match_last_roll_exact(mine, n, score, seed):
    from fastbg.cube import DEFAULT_MET, load_met

    met = load_met(DEFAULT_MET)
    b = bearoff_board(mine, [0, 0, 1, 0, 0, 0])
    p = solve(b).win
    a, o = n - score[0], n - score[1]
    r1, r2 = met.result_mwc(a, o, 1), met.result_mwc(a, o, 2)
    nd = p * r1[0] + (1 - p) * r1[3]
    dt = p * r2[0] + (1 - p) * r2[3]
    exact = max(nd, min(dt, r1[0]))
    r = cubeful_rollout(b, 4000, seed=seed, state=MatchState.match(n, score))
    assert abs(r.mwc - exact) < 4 * r.mwc_stderr + 1e-9
    assert r.equity == pytest.approx(met.emg(r.mwc, a, o, 1), abs=1e-12)


@pytest.mark.slow
def test_match_workers_identical():
    st = MatchState.match(5, (1, 2))
    a = cubeful_rollout("start", 2200, seed=8, workers=1, state=st)
    b = cubeful_rollout("start", 2200, seed=8, workers=2, state=st)
    assert np.array_equal(a.counts, b.counts) and a.mwc == b.mwc
    assert 0 <= a.mwc <= 1 and a.to_dict()["score"] == [1, 2]


def test_run_blocks_block_function():
    """run_blocks with a custom block: block k gets SeedSequence(seed, spawn_key=(k,)) and
    its counts are added, whatever the number of workers."""
    from fastbg.rollouts.blocks import block_bit_generator, run_blocks

    def block(k, n, bitgen):
        c = np.zeros((2, 3), dtype=np.int64)
        c[k % 2, int(bitgen.random_raw() % 3)] += n
        return c

    runs = [run_blocks(START, 5500, 42, workers=w, block=block, counts_shape=(2, 3))
            for w in (1, 2)]
    want = np.zeros((2, 3), dtype=np.int64)
    for k, n in enumerate([1000] * 5 + [500]):
        want[k % 2, int(block_bit_generator(42, k).random_raw() % 3)] += n
    for run in runs:
        assert np.array_equal(run.counts, want) and run.games == 5500 and not run.interrupted
