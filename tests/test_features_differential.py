"""The two engines of docs/evaluator.md agree exactly: fastbg._core.features against
fastbg.reference.features, written independently from the same text.

Integers are compared for equality, the float inputs bit for bit (both take the IEEE
division N / D once). Boards: Hypothesis's (odd ones: stacks on the bar, many blots)
and every position of seeded random games (the mix a rollout sees).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

from fastbg.reference import features as R
from fastbg.reference.board import START_BOARD, swap

from strategies import bear_off_against_contact, boards, race_boards

C = pytest.importorskip("fastbg._core.features", reason="Cython core not built")
cmovegen = pytest.importorskip("fastbg._core.movegen", reason="Cython core not built")


def random_game_positions(games: int, seed: int) -> np.ndarray:
    """Every position with a side on roll of `games` games of uniformly random plays."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(games):
        b = np.array(START_BOARD, dtype=np.int8)
        while b[0].sum() and b[1].sum():
            out.append(b)
            plays = cmovegen.legal_plays(b, int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            if len(plays):
                b = plays[int(rng.integers(len(plays)))]
            b = swap(b)
        out.append(b)       # the game over, once
    return np.ascontiguousarray(out, dtype=np.int8)


@pytest.fixture(scope="module")
def game_positions() -> np.ndarray:
    return random_game_positions(200, 20261201)


def test_the_api_mirrors_the_reference():
    # blots_hit is the reference's per-roll detail ("the twin need not have it")
    missing = [name for name in R.__all__ if name != "blots_hit" and not hasattr(C, name)]
    assert not missing
    for name in ("N_FEATURES", "FEATURE_NAMES", "N_EXTRA_FEATURES", "EXTRA_FEATURE_NAMES",
                 "CONTACT_INPUTS", "LEGACY_CONTACT_INPUTS", "RACE_INPUTS",
                 "POSITION_CLASSES", "ESCAPE_BITS", "CRASHED_MAX", "N_BLOT_FEATURES",
                 "BLOT_FEATURE_NAMES"):
        assert getattr(C, name) == getattr(R, name), name
    for name in ("FEATURE_DENOMINATORS", "EXTRA_FEATURE_DENOMINATORS", "ESCAPE_TABLE",
                 "BLOT_FEATURE_DENOMINATORS"):
        r, c = getattr(R, name), getattr(C, name)
        assert c.dtype == r.dtype and np.array_equal(c, r), name


def test_escape_tables_agree():
    assert np.array_equal(C.ESCAPE_TABLE, R.ESCAPE_TABLE)
    assert all(C.escapes(m) == R.escapes(m) for m in range(4096))


def check(b: np.ndarray) -> None:
    assert np.array_equal(C.contact_features(b), R.contact_features(b))
    assert np.array_equal(C.extra_features(b), R.extra_features(b))
    for side in (0, 1):
        assert C.shots(b, side) == R.shots(b, side)
    assert np.array_equal(C.contact_inputs(b), R.contact_inputs(b))
    assert np.array_equal(C.race_inputs(b), R.race_inputs(b))
    assert C.position_class(b) == R.position_class(b)
    assert C.is_crashed(b) == R.is_crashed(b)


@settings(max_examples=600, deadline=None)
@given(boards())
def test_hypothesis_boards(b):
    check(b)


@settings(max_examples=200, deadline=None)
@given(boards(max_checkers=5))
def test_hypothesis_sparse_boards(b):
    check(b)            # few checkers: blots, long shots, open boards


@settings(max_examples=100, deadline=None)
@given(race_boards())
def test_hypothesis_races(b):
    check(b)


def _part(positions: np.ndarray, part: int) -> np.ndarray:
    """Every 10th position (part 0, the quick tier) or the others (part 1, slow)."""
    quick = np.zeros(len(positions), dtype=bool)
    quick[::10] = True
    return positions[quick if part == 0 else ~quick]


@pytest.mark.parametrize("part", [0, pytest.param(1, marks=pytest.mark.slow)])
def test_random_game_positions(game_positions, part):
    assert len(game_positions) > 15000
    game_positions = _part(game_positions, part)
    n = len(game_positions)
    cf = C.contact_features_many(game_positions)
    ref = np.array([R.contact_features(b) for b in game_positions])
    bad = np.flatnonzero((cf != ref).any(axis=(1, 2)))
    assert bad.size == 0, f"{bad.size} of {n} positions differ, first {game_positions[bad[0]].tolist()}"
    assert [C.position_class(b) for b in game_positions] == [R.position_class(b) for b in game_positions]


def test_random_game_extra_features(game_positions):
    n = len(game_positions)
    cx = C.extra_features_many(game_positions)
    ref = R.extra_features_many(game_positions)
    bad = np.flatnonzero((cx != ref).any(axis=(1, 2)))
    assert bad.size == 0, f"{bad.size} of {n} positions differ, first {game_positions[bad[0]].tolist()}"
    # the games reach what the extra features are for: crashed boards with checkers
    # off, two-anchor backgames behind in the race, a side on the bar
    names = R.EXTRA_FEATURE_NAMES
    for name in ("backgame", "backgame2", "off3"):
        assert (ref[:, :, names.index(name)] > 0).any(), name


def test_random_game_inputs(game_positions):
    sub = game_positions[::5]
    assert np.array_equal(C.contact_inputs_many(sub), R.contact_inputs_many(sub))
    assert np.array_equal(C.race_inputs_many(sub), R.race_inputs_many(sub))


@pytest.mark.parametrize("fn", ["contact_features", "extra_features", "contact_inputs",
                                "race_inputs", "position_class"])
def test_both_refuse_the_same_boards(fn):
    bad = np.array(START_BOARD, dtype=np.int8)
    bad[0, 0] = 1                       # 16 checkers, and a point held by both sides
    for board in (bad, np.zeros((2, 24), np.int8), bad.astype(float)):
        with pytest.raises(ValueError):
            getattr(R, fn)(board)
        with pytest.raises(ValueError):
            getattr(C, fn)(board)


def test_blot_features_agree_where_a_side_bears_off_against_contact(game_positions):
    # the random games' positions where a side has every checker home against contact (the
    # features are 0 elsewhere, checked on a sample), each side's view
    home = ~game_positions[:, :, 6:].any(axis=2) & game_positions[:, :, :6].any(axis=2)
    some = game_positions[home.any(axis=1)]
    assert len(some) > 100
    rest = game_positions[~home.any(axis=1)][::50]
    got = []
    for b in np.concatenate([some[:300], rest]):
        got.append(C.blot_features(b))
        assert np.array_equal(got[-1], R.blot_features(b)), b
    got = np.array(got)
    # (not all zeros: 167 of the 300 bear off against contact, 42 must leave a shot)
    assert (got[:, :, 2] == 1).any(axis=1).sum() > 100 and (got[:, :, 0] > 0).any(axis=1).sum() > 20


@settings(max_examples=150, deadline=None)
@given(boards(max_checkers=5))
def test_blot_features_agree_on_few_checkers(b):
    assert np.array_equal(C.blot_features(b), R.blot_features(b))


@pytest.mark.parametrize("part", [0, pytest.param(1, marks=pytest.mark.slow)])
def test_blot_features_agree_on_random_bear_offs_against_contact(part):
    # the compiled core's own search of a bearing-off side's plays (fbgb_side) against
    # the reference's move generator: random home boards of 1 to 15 checkers against 1 to
    # 4 checkers on the bar or in that home board (blots and points), either side on roll;
    # the first 100 of 400 boards in the quick tier, the others slow
    rng = np.random.default_rng(17)
    checked = 0
    while checked < 400:
        b = bear_off_against_contact(rng)
        if checked % 3 == 2:
            b = b[::-1].copy()
        if (checked < 100) == (part == 0):
            assert np.array_equal(C.blot_features(b), R.blot_features(b)), b.tolist()
        checked += 1
