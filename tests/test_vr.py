"""Variance reduction (luck adjustment): same games, unbiased estimates, both engines alike.

The luck-adjusted estimate must (1) play exactly the games of a plain rollout with the same
seed, (2) give bit-identical sums in both engines, (3) agree with exactly computed values
within N_SIGMA of its own standard error for several seeds (``tests/exact.py``: the value
of the policy's own play, which the yardstick does not share, so the check has teeth), and
(4) give equity 0 within N_SIGMA on the start with the opening roll (symmetry).
"""
from __future__ import annotations

import numpy as np
import pytest

from fastbg import rollout
from fastbg.engine import get_engine
from fastbg.game.parse import position_and_roll
from fastbg.spec import luck
from fastbg.rollouts.cubeless import vr_statistics

from exact import board_from
from test_statistics import POSITIONS, SEEDS

N_SIGMA = 4.0
#: Rounding of the luck sums: with an exact yardstick (the bear-off database) the adjusted
#: result of every game is the exact value up to float rounding, and its SE is ~1e-17.
FLOOR = 1e-9

core = pytest.importorskip("fastbg._core.rollout", reason="Cython core not built")


def board(pid):
    return position_and_roll(pid)[0].board


@pytest.fixture(scope="module")
def cy():
    eng = get_engine("cython")
    return eng, eng.evaluator.EvalPolicy()


@pytest.fixture(scope="module")
def py():
    eng = get_engine("python")
    return eng, eng.evaluator.EvalPolicy()


# ----------------------------------------------------------------- the bookkeeping


def test_roll_slot_covers_the_21_rolls_in_roll_values_order():
    slots = [luck.roll_slot(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]
    assert slots == list(range(21))
    assert luck.roll_slot(2, 5) == luck.roll_slot(5, 2)


def test_roll_mean_weights_doubles_once_and_others_twice():
    v = np.zeros((21, 5))
    v[luck.roll_slot(6, 6), 0] = 36.0      # a double: weight 1
    v[luck.roll_slot(6, 5), 1] = 18.0      # a non-double: weight 2
    m = luck.roll_mean(v)
    assert m[0] == 1.0 and m[1] == 1.0 and m[2:].tolist() == [0.0, 0.0, 0.0]


def test_opening_mean_averages_30_outcomes_from_the_roots_view():
    v0 = np.zeros((21, 5))
    v1 = np.zeros((21, 5))
    v0[:, 0] = 0.6          # root on roll wins 60% whatever it rolls
    v1[:, 0] = 0.7          # the opponent on roll wins 70%: root 30%
    assert luck.opening_mean(v0, v1)[0] == pytest.approx(0.45, abs=1e-15)


def test_luck_of_the_opponent_is_turned_to_the_roots_view():
    L = [0.0] * 5
    luck.add_luck(L, [0.7, 0.2, 0.01, 0.1, 0.0], [0.5, 0.1, 0.0, 0.1, 0.0], root=False)
    # the opponent's win rose 0.2 (root's fell), its gammons rose 0.1 (root's lose_gammon)
    assert L == pytest.approx([-0.2, 0.0, 0.0, 0.1, 0.01])


def test_adjusted_result_subtracts_luck_and_takes_the_equity_of_the_vector():
    adj = luck.adjusted_result(1, [0.1, 0.05, 0.0, -0.02, 0.0])   # a gammon won
    assert adj[:5] == pytest.approx([0.9, 0.95, 0.0, 0.02, 0.0])
    assert adj[5] == pytest.approx((2 * 0.9 - 1) + (0.95 - 0.02) + 0.0)


def test_vr_statistics_mean_and_standard_error():
    x = np.array([0.2, 0.5, 0.3, 0.6])
    sums = np.zeros((2, 6))
    sums[0, 5], sums[1, 5] = x.sum(), (x * x).sum()
    est, se = vr_statistics(sums, len(x))
    assert est["equity"] == pytest.approx(x.mean())
    assert se["equity"] == pytest.approx(x.std(ddof=1) / 2)


# ----------------------------------------------------------------- same games, two engines


@pytest.mark.parametrize("policy", ["nn", "pubeval", "random"])
@pytest.mark.parametrize("pid", ["start", "4HPwATDgc/ABMA", "tN2WAgBsd6YCAA"])
@pytest.mark.parametrize("prefilter", [0, 4])
def test_vr_plays_the_same_games_as_a_plain_rollout(cy, policy, pid, prefilter):
    eng, ys = cy
    b = board(pid)
    opening = pid == "start"
    plain = eng.rollout_block(b, 30, np.random.PCG64DXSM(3), policy, opening=opening)
    counts, sums = eng.rollout_block_vr(b, 30, np.random.PCG64DXSM(3), policy, ys,
                                        opening=opening, prefilter=prefilter)
    assert counts.tolist() == plain.tolist()
    assert np.isfinite(sums).all()


#: Short games (the pure-Python yardstick values 21 rolls a turn): races and bear-offs,
#: with the opening roll, a fixed first roll and ordinary dice.
SHORT = [
    (board_from({6: 2, 5: 2, 3: 1}, {6: 1, 4: 2, 2: 2}), None, False),
    (board_from({9: 1, 6: 2, 4: 1}, {8: 2, 5: 1, 1: 1}), None, True),
    (board_from({12: 1, 7: 1, 5: 2}, {10: 1, 6: 2, 3: 1}), (6, 2), False),
]


@pytest.mark.parametrize("case", range(len(SHORT)))
@pytest.mark.parametrize("prefilter", [0, 2])
@pytest.mark.parametrize("policy", ["nn", "pubeval"])
def test_both_engines_give_the_same_bits(cy, py, case, prefilter, policy):
    b, dice, opening = SHORT[case]
    out = []
    for eng, ys in (cy, py):
        out.append(eng.rollout_block_vr(b, 6, np.random.PCG64DXSM(11 + case), policy, ys,
                                        dice=dice, opening=opening, prefilter=prefilter))
    (c0, s0), (c1, s1) = out
    assert c0.tolist() == c1.tolist()
    assert s0.tobytes() == s1.tobytes(), (s0, s1)


def test_both_engines_agree_in_a_contact_game(cy, py):
    """One contact game through the public roll values: the opening and the luck of
    both sides (about 20 s in the pure-Python engine)."""
    b = board("start")
    out = [eng.rollout_block_vr(b, 1, np.random.PCG64DXSM(2), "pubeval", ys, opening=True,
                                prefilter=3) for eng, ys in (cy, py)]
    assert out[0][0].tolist() == out[1][0].tolist()
    assert out[0][1].tobytes() == out[1][1].tobytes()


def test_roll_values_match_between_engines(cy, py):
    pos = np.ascontiguousarray(board("4HPwATDgc/ABMA"))
    lookahead_cy = cy[1].lookahead(pos[None], plies=1)     # the mean of roll_values(.., 0)
    lookahead_py = py[1].lookahead(pos[None], plies=1)
    assert lookahead_cy.tobytes() == lookahead_py.tobytes()
    v = py[1].roll_values(pos, 4)
    assert v.shape == (21, 5) and ((v >= 0) & (v <= 1)).all()


# ----------------------------------------------------------------- unbiased


@pytest.fixture
def exact_values(exact_race_values):
    return exact_race_values          # conftest.py: computed once per test process


@pytest.mark.parametrize("policy", ["pubeval", "random"])
@pytest.mark.parametrize("name", list(POSITIONS))
@pytest.mark.parametrize("seed", SEEDS)
def test_vr_rollout_agrees_with_exact_values(exact_values, name, policy, seed):
    """The policy plays its own way (pubeval, or random plays), the yardstick values the
    rolls by the nn: the adjusted estimate still has the exact expectation."""
    res = rollout(POSITIONS[name], 2000, seed=seed, workers=2, policy=policy, vr=True)
    assert res.vr
    exact = exact_values[(name, policy)]
    for key in (*exact,):
        est, se = getattr(res, key), res.stderr[key]
        assert abs(est - exact[key]) <= N_SIGMA * se + FLOOR, (key, est, exact[key], se)


@pytest.mark.parametrize("seed", SEEDS[:1] + [pytest.param(s, marks=pytest.mark.slow) for s in SEEDS[1:]])
def test_vr_rollout_of_the_start_with_the_opening_roll_is_even(seed):
    res = rollout("start", 1000, seed=seed, workers=2, policy="nn", vr=True)
    assert res.opening and res.vr
    assert abs(res.equity) <= N_SIGMA * res.stderr["equity"]
    assert abs(res.win - 0.5) <= N_SIGMA * res.stderr["win"]
    # and the reduction is real: a plain rollout's SE is about 1.3 / sqrt(n)
    assert res.stderr["equity"] < 0.5 * 1.3 / np.sqrt(1000)


@pytest.mark.slow
def test_vr_does_not_depend_on_workers():
    a = rollout("4HPwATDgc/ABMA", 2500, seed=9, workers=1, vr=True)
    b = rollout("4HPwATDgc/ABMA", 2500, seed=9, workers=2, vr=True)
    assert a.equity == b.equity and a.stderr == b.stderr and a.counts.tolist() == b.counts.tolist()


def test_vr_default_follows_the_policy_and_settings_say_so():
    r = rollout("tN2WAgBsd6YCAA", 200, seed=1, policy="pubeval")
    assert not r.vr and r.settings["vr"] is False
    r = rollout("tN2WAgBsd6YCAA", 200, seed=1)
    assert r.vr and r.settings["vr"] is True and "yardstick" in r.settings
    d = r.to_dict()
    assert d["vr"] is True and d["settings"]["seed"] == 1 and d["settings"]["policy"] == "nn"
    with pytest.raises(ValueError, match="vr must be"):
        rollout("start", 10, seed=1, vr="yes")


def test_prefilter_is_checked(cy):
    eng, ys = cy
    with pytest.raises(ValueError, match="prefilter"):
        eng.rollout_block_vr(board("start"), 1, np.random.PCG64DXSM(1), "nn", ys, prefilter=65)


def test_clipped_probabilities_and_the_unclipped_equity():
    # As docs/cli.md says (new-user trial): a luck-adjusted mean below 0 is shown as 0, the
    # equity stays the unclipped mean (unbiased), so the equity of the shown probabilities
    # differs from it by the amount clipped, within that probability's standard error
    # (the seed is one whose luck-adjusted lose-backgammon mean falls below 0 with the
    # shipped nets; generation 18's, seed 15)
    r = rollout("XGID=---BBBBBA----B--a-a-Bbcce-:0:0:1:00:0:0:3:0:10", 1000, seed=15,
                workers=1, policy="nn")
    assert r.vr and r.lose_backgammon == 0.0
    rebuilt = (2 * r.win - 1) + (r.win_gammon - r.lose_gammon) \
        + (r.win_backgammon - r.lose_backgammon)
    assert 0 < r.equity - rebuilt < r.stderr["lose_backgammon"]
