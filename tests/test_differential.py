"""The Cython core against the pure-Python engine (DESIGN section 6)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from fastbg.engine import get_engine

from strategies import boards, race_boards

pytest.importorskip("fastbg._core.movegen", reason="Cython core not built")

CY = get_engine("cython")
PY = get_engine("python")
ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]


def _same_plays(board):
    for d1, d2 in ROLLS:
        a = PY.legal_plays(board, d1, d2)
        b = CY.legal_plays(board, d1, d2)
        assert a.shape == b.shape, (d1, d2, a.shape, b.shape)
        assert np.array_equal(a, b), (d1, d2)
        # The order of the dice does not matter.
        assert np.array_equal(CY.legal_plays(board, d2, d1), b)


@settings(max_examples=150, deadline=None)
@given(boards())
def test_plays_equal_on_random_positions(board):
    _same_plays(board)


@settings(max_examples=60, deadline=None)
@given(race_boards())
def test_plays_equal_on_races_and_bearoffs(board):
    _same_plays(board)


@settings(max_examples=40, deadline=None)
@given(boards(allow_bar=False), st.integers(0, 2**32 - 1))
def test_policies_choose_the_same_play(board, seed):
    for name in ("pubeval", "random"):
        pc, pp = CY.make_policy(name), PY.make_policy(name)
        for d1, d2 in ROLLS[::4]:
            plays = CY.legal_plays(board, d1, d2)
            if len(plays) < 2:
                continue
            a = pc.choose(board, plays, np.random.PCG64DXSM(seed))
            b = pp.choose(board, plays, np.random.PCG64DXSM(seed))
            assert a == b


@settings(max_examples=30, deadline=None)
@given(boards(allow_bar=False))
def test_pubeval_scores_equal(board):
    for race in (False, True):
        assert CY.eval.pubeval_score(board, race) == PY.eval.pubeval_score(board, race)


@pytest.mark.parametrize("generator", [np.random.PCG64DXSM, np.random.PCG64, np.random.MT19937,
                                       np.random.Philox, np.random.SFC64])
@pytest.mark.parametrize("seed", [0, 1, 2**63 + 5])
def test_equal_dice_streams(seed, generator):
    a = CY.roll_indices(generator(seed), 5000)
    b = PY.roll_indices(generator(seed), 5000)
    assert np.array_equal(a, b)
    assert a.min() >= 0 and a.max() <= 35


@pytest.mark.parametrize("policy", ["pubeval", "random"])
@pytest.mark.parametrize("seed", [3, 4])
def test_equal_games(policy, seed):
    from fastbg.game.position import START_BOARD

    board = np.ascontiguousarray(START_BOARD)
    for opening in (False, True):
        a = CY.rollout_block(board, 40, np.random.PCG64DXSM(seed), CY.make_policy(policy), opening=opening)
        b = PY.rollout_block(board, 40, np.random.PCG64DXSM(seed), PY.make_policy(policy), opening=opening)
        assert np.array_equal(a, b)
