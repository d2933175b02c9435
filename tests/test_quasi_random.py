"""Quasi-random dice: the first two random rolls stratified, as a pure function of
(seed, game index), the same in both engines."""
from __future__ import annotations

import json

import numpy as np
import pytest

from fastbg.cli import main
from fastbg.engine import get_engine
from fastbg.game.parse import position_and_roll
from fastbg.rollouts.blocks import OPENING_OUTCOMES, stratified_rolls

from exact import board_from

pytest.importorskip("fastbg._core.rollout", reason="Cython core not built")


@pytest.mark.parametrize("seed", [1, 77, 2**40 + 3])
def test_every_36_games_hold_each_first_roll_and_1296_each_pair(seed):
    q = stratified_rolls(seed, 0, 2 * 1296, opening=False)
    for i in range(0, len(q), 36):
        assert sorted(q[i:i + 36, 0].tolist()) == list(range(36))
    for i in (0, 1296):
        assert len({tuple(x) for x in q[i:i + 1296].tolist()}) == 1296


def test_from_the_opening_30_outcomes_and_no_double_first():
    q = stratified_rolls(3, 0, 1080, opening=True)
    for i in range(0, 1080, 30):
        assert sorted(q[i:i + 30, 0].tolist()) == list(OPENING_OUTCOMES)
    assert len({tuple(x) for x in q.tolist()}) == 1080
    assert all(r // 6 != r % 6 for r in q[:, 0])


def test_a_pure_function_of_seed_and_game_index():
    whole = stratified_rolls(9, 0, 3000, opening=False)
    parts = np.concatenate([stratified_rolls(9, a, b - a, opening=False)
                            for a, b in ((0, 1000), (1000, 1700), (1700, 3000))])
    assert (whole == parts).all()
    assert not (stratified_rolls(10, 0, 3000, opening=False) == whole).all()


def test_a_given_roll_is_played_without_a_draw():
    """qrolls [[r, -1]] is the game with the fixed first roll r and the same stream."""
    eng = get_engine("cython")
    b = position_and_roll("4HPwATDgc/ABMA")[0].board
    for r in (0, 7, 35):
        c1 = eng.rollout_block(b, 1, np.random.PCG64DXSM(r), "pubeval", qrolls=[[r, -1]])
        c2 = eng.rollout_block(b, 1, np.random.PCG64DXSM(r), "pubeval", dice=(r // 6 + 1, r % 6 + 1))
        assert c1.tolist() == c2.tolist()


@pytest.mark.parametrize("opening", [False, True])
def test_both_engines_play_the_same_quasi_random_games(opening):
    b = board_from({9: 1, 6: 2, 4: 1}, {8: 2, 5: 1, 1: 1})
    q = stratified_rolls(5, 0, 12, opening)
    out = []
    for name in ("cython", "python"):
        eng = get_engine(name)
        cls = np.empty(12, dtype=np.int8)
        eng.rollout_block(b, 12, np.random.PCG64DXSM(5), "pubeval", opening=opening, classes=cls,
                          qrolls=q)
        c, s = eng.rollout_block_vr(b, 12, np.random.PCG64DXSM(5), "pubeval",
                                    eng.evaluator.EvalPolicy(), opening=opening, qrolls=q,
                                    prefilter=2)
        out.append((cls.tolist(), c.tolist(), s.tobytes()))
    assert out[0] == out[1]


def test_qrolls_are_checked():
    eng = get_engine("cython")
    b = position_and_roll("start")[0].board
    with pytest.raises(ValueError, match="shape"):
        eng.rollout_block(b, 2, np.random.PCG64DXSM(1), "pubeval", qrolls=[[1, 2]])
    with pytest.raises(ValueError, match="0..35"):
        eng.rollout_block(b, 1, np.random.PCG64DXSM(1), "pubeval", qrolls=[[36, 2]])
    with pytest.raises(ValueError, match="double"):
        eng.rollout_block(b, 1, np.random.PCG64DXSM(1), "pubeval", opening=True, qrolls=[[7, 2]])


def test_cli_settings_and_errors(capsys):
    assert main(["rollout", "tN2WAgBsd6YCAA", "-n", "100", "--seed", "1", "--json",
                 "--no-progress", "--no-quasi-random"]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["dice"] == "pseudo-random"
    assert main(["rollout", "tN2WAgBsd6YCAA", "-n", "100", "--seed", "1", "--json",
                 "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["dice"].startswith("quasi-random")
    # cubeful rollouts take quasi-random dice too (tests/test_cubeful_vr.py)
    assert main(["rollout", "--cubeful", "--no-quasi-random", "-n", "10", "--seed", "1",
                 "--json", "--no-progress", "--policy", "pubeval"]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["dice"] == "pseudo-random"
    assert main(["rollout", "start", "--initial", "-n", "100", "--seed", "1", "--json",
                 "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out)["opening"] is True
