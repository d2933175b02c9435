"""Dice: distribution, the opening roll, rejection of the biased tail, equal streams.

The dice contract (DESIGN section 4, :mod:`fastbg.reference`): a roll index is
``x % 36`` for the first 64-bit draw ``x < 2**64 - 2**64 % 36``; the opening roll
re-draws doubles; both engines read the same stream.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from fastbg.engine import get_engine
from fastbg.spec import dice as ref_dice

from scenario import board

SEEDS = (1, 2, 3)
TWO64 = 1 << 64


class ScriptedBitGen:
    """Stands in for a bit generator: ``random_raw()`` returns scripted draws."""

    def __init__(self, draws):
        self._draws = list(draws)

    def random_raw(self):
        return np.uint64(self._draws.pop(0))

    @property
    def left(self) -> int:
        return len(self._draws)


@pytest.mark.parametrize("seed", SEEDS)
def test_roll_distribution_is_uniform(engine, seed):
    idx = engine.roll_indices(np.random.PCG64DXSM(seed), 36_000)
    assert idx.dtype == np.int64 and idx.shape == (36_000,)
    assert idx.min() >= 0 and idx.max() < 36
    counts = np.bincount(idx, minlength=36)
    assert stats.chisquare(counts).pvalue > 1e-4


@pytest.mark.parametrize("seed", SEEDS)
def test_roll_indices_are_consecutive_roll_index_draws(engine, seed):
    bg = np.random.PCG64DXSM(seed)
    expected = [ref_dice.roll_index(bg) for _ in range(500)]
    got = engine.roll_indices(np.random.PCG64DXSM(seed), 500)
    assert got.tolist() == expected


@pytest.mark.parametrize("seed", SEEDS)
def test_roll_maps_index_to_dice(seed):
    a, b = np.random.PCG64DXSM(seed), np.random.PCG64DXSM(seed)
    for _ in range(200):
        r = ref_dice.roll_index(a)
        assert ref_dice.roll(b) == (r // 6 + 1, r % 6 + 1)


def test_roll_index_rejects_the_biased_tail():
    limit = TWO64 - TWO64 % 36  # 2**64 - 16
    bg = ScriptedBitGen([TWO64 - 1, limit, limit - 1, 7])
    assert ref_dice.roll_index(bg) == (limit - 1) % 36
    assert bg.left == 1
    assert ref_dice.roll_index(ScriptedBitGen([0])) == 0


def test_bounded_rejects_the_biased_tail():
    n = (1 << 63) + 1  # limit 2**63 + 1: about half of all draws are rejected
    limit = TWO64 - TWO64 % n
    bg = ScriptedBitGen([TWO64 - 1, limit, limit - 1])
    assert ref_dice.bounded(bg, n) == (limit - 1) % n
    # On a real generator: the same rejection rule, draw for draw.
    a, b = np.random.PCG64DXSM(9), np.random.PCG64DXSM(9)
    for _ in range(200):
        while True:
            x = int(b.random_raw())
            if x < limit:
                break
        assert ref_dice.bounded(a, n) == x % n


@pytest.mark.parametrize("n", [0, 1, -3])
def test_bounded_needs_two_choices(n):
    with pytest.raises(ValueError, match="n"):
        ref_dice.bounded(np.random.PCG64DXSM(0), n)


@pytest.mark.parametrize("seed", SEEDS)
def test_opening_roll_is_never_a_double(seed):
    bg = np.random.PCG64DXSM(seed)
    pairs = [ref_dice.opening_roll(bg) for _ in range(30_000)]
    assert all(a != b and 1 <= a <= 6 and 1 <= b <= 6 for a, b in pairs)
    # The 30 ordered non-double pairs are equally likely.
    counts = np.zeros((6, 6), dtype=np.int64)
    for a, b in pairs:
        counts[a - 1, b - 1] += 1
    off_diagonal = counts[~np.eye(6, dtype=bool)]
    assert stats.chisquare(off_diagonal).pvalue > 1e-4


def test_opening_roll_redraws_doubles():
    # Indices 0 (1-1) and 35 (6-6) are doubles; 8 is 2-3.
    bg = ScriptedBitGen([0, 35, 8, 99])
    assert ref_dice.opening_roll(bg) == (2, 3)
    assert bg.left == 1


@pytest.mark.parametrize("policy", ["pubeval", "random"])
@pytest.mark.parametrize("seed", range(6))
def test_game_loop_opening_follows_the_contract(engine, policy, seed):
    # With opening=True the game equals: draw the opening roll; if the side on
    # roll has the higher die it plays (a, b), else the opponent plays (b, a).
    start = board(me={24: 2, 13: 5, 8: 3, 6: 5}, opp={1: 2, 12: 5, 17: 3, 19: 5})
    pol = engine.make_policy(policy)
    got = engine.play_game(start, np.random.PCG64DXSM(seed), pol, opening=True)
    bg = np.random.PCG64DXSM(seed)
    a, b = ref_dice.opening_roll(bg)
    if a > b:
        want = engine.play_game(start, bg, pol, dice=(a, b))
    else:
        want = (engine.play_game(np.ascontiguousarray(start[::-1]), bg, pol, dice=(b, a)) + 3) % 6
    assert got == want


@pytest.mark.parametrize("seed", [0, *SEEDS, 2**40 + 17])
def test_engines_read_identical_roll_streams(seed):
    pytest.importorskip("fastbg._core.movegen", reason="Cython core not built")
    py, cy = get_engine("python"), get_engine("cython")
    a, b = np.random.PCG64DXSM(seed), np.random.PCG64DXSM(seed)
    for n in (0, 1, 999, 10_000):
        assert np.array_equal(py.roll_indices(a, n), cy.roll_indices(b, n))
        # Same number of draws consumed: the generators are left in the same state.
        assert a.state == b.state
