"""One-sided bear-off database (fastbg._core.bearoffdb, fastbg.reference.bearoffdb).

Hand-checked entries, the index, normalisation and the real maximum of rolls, the
dedicated play generators against both engines' move generators, bitwise agreement
of the two engines, and the race probabilities against the exact two-sided solver.
"""
from __future__ import annotations

import importlib
import importlib.machinery
import itertools
import pathlib
import random
from fractions import Fraction
from math import comb

import numpy as np
import pytest

import fastbg.reference.bearoffdb as ref
from conftest import cython_unavailable_reason
from fastbg.cube.bearoff import BearoffSolver, bearoff_board, home_boards
from fastbg.game.position import START_BOARD
from fastbg.reference.movegen import legal_plays as reference_legal_plays

ROLLS = tuple((d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1))

# Every side, in lexicographic order of the 6 counts (= index order).
ALL = [c for c in itertools.product(range(16), repeat=6) if sum(c) <= 15]


def pips(c) -> int:
    return sum((i + 1) * n for i, n in enumerate(c))


def load_core():
    reason = cython_unavailable_reason()
    if reason is not None:
        pytest.skip(reason)
    # Built core: a missing bearoffdb extension is an error, not a skip.
    return importlib.import_module("fastbg._core.bearoffdb")


@pytest.fixture(scope="module")
def core():
    return load_core()


@pytest.fixture(params=["python", "cython"])
def db(request):
    return ref if request.param == "python" else load_core()


# ------------------------------------------------------------------ the contract
def test_core_is_a_compiled_twin_of_the_reference(core):
    path = pathlib.Path(core.__file__)
    assert path.name.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)), path
    assert (path.parent / "bearoffdb.pyi").is_file()
    missing = [f for f in ref.__all__ if not hasattr(core, f)]
    assert not missing, f"fastbg._core.bearoffdb lacks {missing}"
    for name in ("N_POINTS", "N_POSITIONS", "N_FIRST_POSITIONS", "K_OFF", "K_FIRST"):
        assert getattr(core, name) == getattr(ref, name), name


def test_number_of_positions_and_the_lexicographic_index(db):
    assert db.N_POSITIONS == comb(21, 6) == 54_264 == len(ALL)
    assert db.N_FIRST_POSITIONS == comb(20, 5) == 15_504 == sum(sum(c) == 15 for c in ALL)
    for i, c in enumerate(ALL):
        assert db.position_index(c) == i
        assert db.position_counts(i) == c
    assert db.position_index(np.array([0, 0, 0, 0, 0, 15])) == 15
    assert db.position_index([15, 0, 0, 0, 0, 0]) == db.N_POSITIONS - 1


# ------------------------------------------------------------ hand-checked values
def test_hand_checked_entries(db):
    empty = db.onesided([0] * 6)
    assert empty["index"] == 0 and empty["off"][0] == 1.0 and empty["off"][1:].sum() == 0.0
    assert empty["mean_off"] == 0.0 and empty["first"] is None and empty["mean_first"] is None
    # One checker on the ace point: any roll bears it off.
    one = db.onesided([1, 0, 0, 0, 0, 0])
    assert one["off"].dtype == np.float64 and one["off"].shape == (db.K_OFF,)
    assert one["off"][1] == 1.0 and one["mean_off"] == 1.0
    # One checker on the 6-point goes off in one roll iff the roll moves it 6 pips:
    # all but 2-1, 3-1, 4-1, 3-2 (8 of 36) and 1-1 (4 pips): 27/36. It then stands on
    # the 3-, 2- or 1-point and any roll takes it off.
    six = db.onesided([0, 0, 0, 0, 0, 1])
    assert list(six["off"][:3]) == [0.0, 0.75, 0.25] and six["off"][3:].sum() == 0.0
    assert six["mean_off"] == 1.25
    # Three on the ace point: a double takes all (6/36), other rolls take two.
    three = db.onesided([3, 0, 0, 0, 0, 0])
    assert three["off"][1] == 6 / 36 and three["off"][2] == 30 / 36


def test_hand_checked_first_checker_off(core):
    # 15 on the 6-point: the first checker is off in one roll with any 6 (11), 5-1
    # (6/5 5/off), 4-2 (6/4 4/off), 3-3 (6/3/off) or 2-2 (6/4/2/off): 17/36. (Core only:
    # the lazy reference would compute the whole database for it, about a minute.)
    full = core.onesided([0, 0, 0, 0, 0, 15])
    assert full["first"].shape == (core.K_FIRST,) and full["first"][0] == 0.0
    assert full["first"][1] == pytest.approx(17 / 36, abs=1e-15)
    assert full["mean_first"] == pytest.approx(sum(k * p for k, p in enumerate(full["first"])))


def exact_off(c: tuple, memo: dict) -> tuple[dict, Fraction]:
    """Exact rolls-to-bear-off distribution and mean of one side, with Fractions, from
    the reference engine's legal plays on whole boards (not the database's plays);
    each roll played to minimise the exact expected rolls."""
    if c in memo:
        return memo[c]
    if not any(c):
        return {0: Fraction(1)}, Fraction(0)
    board = np.zeros((2, 25), np.int8)
    board[0, :6] = c
    dist: dict = {}
    mean = Fraction(1)
    for d1, d2 in ROLLS:
        w = Fraction(1 if d1 == d2 else 2, 36)
        best = None
        for play in reference_legal_plays(board, d1, d2):
            v = exact_off(tuple(int(x) for x in play[0, :6]), memo)
            if best is None or v[1] < best[1]:
                best = v
        mean += w * best[1]
        for k, p in best[0].items():
            dist[k + 1] = dist.get(k + 1, 0) + w * p
    memo[c] = (dist, mean)
    return memo[c]


def test_sides_of_one_or_two_checkers_match_an_exact_rational_recursion(db):
    # Ties in the exact means could in principle pick another play than the floats do;
    # with one or two checkers the fastest play is the same for every horizon (see the
    # dominance test below), so the distributions agree to rounding: 1e-15.
    memo: dict = {}
    for c in home_boards(2):
        dist, mean = exact_off(c, memo)
        got = db.onesided(c)
        want = np.zeros(db.K_OFF)
        for k, p in dist.items():
            want[k] = float(p)
        assert np.abs(got["off"] - want).max() <= 1e-15, c
        assert got["mean_off"] == pytest.approx(float(mean), abs=1e-15), c


# ------------------------------------------------- normalisation and the maximum
def test_every_distribution_sums_to_one_and_the_lengths_are_the_real_maxima(core):
    offs = np.array([core.onesided(c)["off"] for c in ALL])
    assert (offs >= 0).all()
    assert np.abs(offs.sum(axis=1) - 1.0).max() <= 1e-12
    # K_OFF is tight: 15 on the 6-point (90 pips) can need K_OFF - 1 = 30 rolls (2-1
    # every time moves 3 pips); the build checked that no mass falls beyond.
    assert offs[core.position_index([0, 0, 0, 0, 0, 15]), -1] > 0.0
    means = np.array([core.onesided(c)["mean_off"] for c in ALL])
    assert np.abs(means - offs @ np.arange(core.K_OFF)).max() <= 1e-12
    firsts = np.array([core.onesided(c)["first"] for c in ALL if sum(c) == 15])
    assert firsts.shape == (core.N_FIRST_POSITIONS, core.K_FIRST)
    assert (firsts >= 0).all() and firsts[:, 0].max() == 0.0
    assert np.abs(firsts.sum(axis=1) - 1.0).max() <= 1e-12
    assert firsts[:, -1].max() > 0.0
    mfirst = np.array([core.onesided(c)["mean_first"] for c in ALL if sum(c) == 15])
    assert np.abs(mfirst - firsts @ np.arange(core.K_FIRST)).max() <= 1e-12


def test_adding_a_checker_never_reduces_the_expected_rolls(core):
    mean = {c: core.onesided(c)["mean_off"] for c in ALL}
    for c in ALL:
        if sum(c) == 15:
            continue
        for i in range(6):
            more = c[:i] + (c[i] + 1,) + c[i + 1:]
            assert mean[more] >= mean[c], (c, more)
    # (Moving a checker to a higher point can help, as sixes are then not wasted:
    # six on the 5-point need more rolls on average than five on it and one on the 6.)
    assert mean[(0, 0, 0, 0, 5, 1)] < mean[(0, 0, 0, 0, 6, 0)]


# ---------------------------------------------------------------------- plays
def test_core_plays_equal_the_core_move_generator_on_every_position_and_roll(core):
    assert core._check_against_movegen() == []


def plays_via_legal_plays(c, d1, d2) -> list:
    board = np.zeros((2, 25), np.int8)
    board[0, :6] = c
    plays = reference_legal_plays(board, d1, d2)
    assert not plays[:, 0, 6:].any() and not plays[:, 1].any()
    return [tuple(int(x) for x in p[0, :6]) for p in plays]


def test_reference_plays_equal_the_reference_move_generator():
    rng = random.Random(20240611)
    sides = [c for c in ALL if 0 < sum(c) <= 4] + rng.sample([c for c in ALL if sum(c) > 4], 120)
    for c in sides:
        for d1, d2 in ROLLS:
            got = [tuple(int(x) for x in p) for p in ref.bearoff_plays(c, d1, d2)]
            assert got == plays_via_legal_plays(c, d1, d2), (c, d1, d2)
            assert got == [tuple(int(x) for x in p) for p in ref.bearoff_plays(c, d2, d1)]


def test_core_and_reference_plays_agree(core):
    rng = random.Random(7)
    for c in rng.sample(ALL, 1500):
        for d1, d2 in ROLLS:
            a = core.bearoff_plays(c, d1, d2)
            b = ref.bearoff_plays(c, d1, d2)
            assert a.dtype == b.dtype == np.int8 and a.shape == b.shape
            assert np.array_equal(a, b), (c, d1, d2)
    assert core.bearoff_plays([0] * 6, 6, 5).shape == (0, 6)
    assert ref.bearoff_plays([0] * 6, 6, 5).shape == (0, 6)


# ------------------------------------------------------- bitwise engine agreement
def bitwise_sample() -> list:
    """All sides of up to 5 checkers and a seeded sample of larger ones. The reference
    computes lazily everything a side can reach, so the larger ones are drawn among
    sides of at most 32 pips (a closure of at most 9,233 sides) to keep it quick."""
    rng = random.Random(1234)
    small = [c for c in ALL if sum(c) <= 5]
    larger = [c for c in ALL if sum(c) > 5 and pips(c) <= 32]
    full = [c for c in larger if sum(c) == 15]
    return small + rng.sample(larger, 60) + rng.sample(full, 15)


def test_core_and_reference_entries_are_bitwise_equal(core):
    for c in bitwise_sample():
        a, b = core.onesided(c), ref.onesided(c)
        assert a["index"] == b["index"]
        assert a["off"].tobytes() == b["off"].tobytes(), c
        assert a["mean_off"].hex() == b["mean_off"].hex(), c
        if sum(c) == 15:
            assert a["first"].tobytes() == b["first"].tobytes(), c
            assert a["mean_first"].hex() == b["mean_first"].hex(), c
        else:
            assert a["first"] is None and b["first"] is None


def test_core_and_reference_race_probabilities_are_bitwise_equal(core):
    rng = random.Random(99)
    sides = [c for c in bitwise_sample() if sum(c)]
    full = [c for c in sides if sum(c) == 15]
    pairs = [(rng.choice(sides), rng.choice(sides)) for _ in range(300)]
    pairs += [(rng.choice(full), rng.choice(sides)) for _ in range(50)]
    pairs += [(rng.choice(sides), rng.choice(full)) for _ in range(50)]
    pairs += [(rng.choice(full), rng.choice(full)) for _ in range(50)]
    for mine, theirs in pairs:
        board = bearoff_board(mine, theirs)
        a, b = core.bearoff_probabilities(board), ref.bearoff_probabilities(board)
        assert a.dtype == b.dtype == np.float64 and a.shape == b.shape == (5,)
        assert a.tobytes() == b.tobytes(), (mine, theirs)


# ------------------------------------------------------------ race probabilities
def test_race_formulas_against_the_joint_distribution(core):
    # The same sums done as plain sums over the joint (independent) distribution.
    rng = random.Random(5)
    full = [c for c in ALL if sum(c) == 15]
    sides = [c for c in ALL if sum(c)]
    for _ in range(200):
        mine = rng.choice(full if rng.random() < 0.4 else sides)
        theirs = rng.choice(full if rng.random() < 0.4 else sides)
        a, b = core.onesided(mine), core.onesided(theirs)
        k = np.arange(core.K_OFF)
        joint = np.outer(a["off"], b["off"])  # [k, l]
        want = [joint[k[:, None] <= k[None, :]].sum(), 0.0, 0.0, 0.0, 0.0]
        if b["first"] is not None:  # gammon iff the opponent's first checker needs >= k
            f = np.arange(core.K_FIRST)
            want[1] = np.outer(a["off"], b["first"])[k[:, None] <= f[None, :]].sum()
        if a["first"] is not None:  # gammoned iff my first checker needs > l
            f = np.arange(core.K_FIRST)
            want[3] = np.outer(b["off"], a["first"])[k[:, None] < f[None, :]].sum()
        got = core.bearoff_probabilities(bearoff_board(mine, theirs))
        assert np.abs(got - want).max() <= 1e-14, (mine, theirs)
        assert got[1] <= got[0] + 1e-15 and got[3] <= 1 - got[0] + 1e-15


def test_hand_checked_race_probabilities(db):
    ace, six, full1 = [1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1], [15, 0, 0, 0, 0, 0]
    # One checker on my ace point against 15 checkers: I win a gammon.
    assert db.bearoff_probabilities(bearoff_board(ace, full1)) == pytest.approx(
        [1, 1, 0, 0, 0], abs=1e-15)
    # One checker on my 6-point against 15 on its ace point: the opponent needs at least
    # 4 rolls and bears off a checker on its first, so I win, a gammon iff I finish in
    # one roll (27/36).
    assert db.bearoff_probabilities(bearoff_board(six, full1)) == pytest.approx(
        [1, 0.75, 0, 0, 0], abs=1e-15)
    # 15 on my ace point against one checker on its ace point: I lose, never a gammon.
    assert db.bearoff_probabilities(bearoff_board(full1, ace)) == pytest.approx(
        [0, 0, 0, 0, 0], abs=1e-15)


def test_hand_checked_gammon_loss(core):
    # 15 on my 6-point against one checker on its ace point: I lose, a gammon unless my
    # first roll bears off a checker (17/36, see above). Core only (see above).
    full6, ace = [0, 0, 0, 0, 0, 15], [1, 0, 0, 0, 0, 0]
    assert core.bearoff_probabilities(bearoff_board(full6, ace)) == pytest.approx(
        [0, 0, 0, 19 / 36, 0], abs=1e-15)


def test_win_chances_match_the_exact_solver_for_one_or_two_checkers_a_side(db):
    # With one or two checkers a side the one-sided method is exact: the play that
    # minimises the expected rolls also maximises the chance to be off within n rolls
    # for every n (test below), so it is the best play whatever the opponent's
    # distribution, neither side's play depends on the other's position, and the
    # roll counts are independent. Only rounding remains: the solver sums other terms
    # in another order. Largest difference measured: 3.3e-16 (1.5 ulp of 1); bound 1e-15.
    solver = BearoffSolver()
    sides = home_boards(2)
    worst = 0.0
    for mine in sides:
        for theirs in sides:
            got = db.bearoff_probabilities(bearoff_board(mine, theirs))
            assert list(got[1:]) == [0.0, 0.0, 0.0, 0.0]  # both have checkers off
            worst = max(worst, abs(got[0] - solver._win(mine, theirs)))
    assert worst <= 1e-15


def test_fastest_play_dominates_for_two_checkers_but_not_for_three(core):
    def cdf(c):
        return np.cumsum(core.onesided(c)["off"])

    def violations(c):
        out = []
        for d1, d2 in ROLLS:
            plays = [tuple(int(x) for x in p) for p in core.bearoff_plays(c, d1, d2)]
            best = min(plays, key=lambda q: core.onesided(q)["mean_off"])
            out += [(d1, d2, best, q) for q in plays if (cdf(q) > cdf(best) + 1e-15).any()]
        return out

    assert not any(violations(c) for c in home_boards(2))
    # Three on the 6-point rolling 1-1: 6/5 6/3 (expected 2.376 rolls) is best on
    # average, but 6/4(2) (2.400) is off in one more roll more often (3/36 against
    # 2/36), which matters when the opponent is one roll from home: the exact two-sided
    # play then prefers it, so with three checkers the method is an approximation.
    assert (1, 1, (0, 0, 1, 0, 1, 1), (0, 0, 0, 2, 0, 1)) in violations((0, 0, 0, 0, 0, 3))


def test_win_chances_are_close_to_the_exact_solver_for_three_checkers_a_side(core):
    # Largest measured difference 1.36e-3 (mine (0,0,0,0,1,2) against (1,0,2,0,0,0)):
    # the exact game adapts the plays to the opponent's position. Bound 2e-3.
    solver = BearoffSolver()
    sides = home_boards(3)
    worst = max(
        abs(core.bearoff_probabilities(bearoff_board(m, t))[0] - solver._win(m, t))
        for m in sides
        for t in sides
    )
    assert 1e-3 < worst <= 2e-3


# ---------------------------------------------------------------- bad input
def test_is_bearoff(db):
    assert db.is_bearoff(bearoff_board([1, 2, 0, 0, 0, 0], [0, 0, 0, 0, 0, 15]))
    assert not db.is_bearoff(START_BOARD)
    over = np.zeros((2, 25), np.int8)
    over[1, 3] = 2
    assert not db.is_bearoff(over)  # the side on roll has no checker left
    with pytest.raises(ValueError, match="shape"):
        db.is_bearoff(np.zeros((2, 24), np.int8))


@pytest.mark.parametrize(
    "counts, match",
    [
        ([1, 2, 3], "6 entries"),
        ([0, 0, 0, 0, 0, 0, 0], "6 entries"),
        ([1, 0, 0, 0, 0, -1], "negative"),
        ([5, 5, 5, 1, 0, 0], "at most 15"),
        ([1.5, 0, 0, 0, 0, 0], "must be an int"),
        ([True, 0, 0, 0, 0, 0], "must be an int"),
        ("123456", "6 checker counts"),
        (7, "6 checker counts"),
    ],
)
def test_bad_counts_are_value_errors(db, counts, match):
    with pytest.raises(ValueError, match=match):
        db.onesided(counts)
    with pytest.raises(ValueError, match=match):
        db.position_index(counts)
    with pytest.raises(ValueError, match=match):
        db.bearoff_plays(counts, 3, 1)


def test_bad_index_and_dice_are_value_errors(db):
    for bad in (-1, db.N_POSITIONS, 1.0, True):
        with pytest.raises(ValueError, match="index"):
            db.position_counts(bad)
    for dice in ((0, 1), (7, 2), (1.0, 2), (True, 2)):
        with pytest.raises(ValueError, match="die"):
            db.bearoff_plays([0, 0, 0, 0, 0, 1], *dice)


def test_non_bearoff_positions_are_value_errors_naming_the_problem(db):
    with pytest.raises(ValueError, match="not a bear-off: the side on roll has a checker on its point"):
        db.bearoff_probabilities(START_BOARD)
    b = bearoff_board([1, 0, 0, 0, 0, 0], [2, 0, 0, 0, 0, 0])
    b[1, 24] = 1
    with pytest.raises(ValueError, match="opponent has a checker on the bar"):
        db.bearoff_probabilities(b)
    b = bearoff_board([1, 0, 0, 0, 0, 0], [2, 0, 0, 0, 0, 0])
    b[1, 6] = 1
    with pytest.raises(ValueError, match="opponent has a checker on its point 7"):
        db.bearoff_probabilities(b)
    b = np.zeros((2, 25), np.int8)
    b[0, 0] = 1
    with pytest.raises(ValueError, match="game is over: the opponent"):
        db.bearoff_probabilities(b)
    with pytest.raises(ValueError, match="held by both sides"):
        bad = np.zeros((2, 25), np.int8)
        bad[0, 0] = 1
        bad[1, 23] = 1
        db.bearoff_probabilities(bad)


def test_build_stats(core):
    core.onesided([0] * 6)
    seconds, nbytes = core._build_stats()
    assert 0 < seconds
    assert nbytes == 8 * (core.N_POSITIONS * (core.K_OFF + 1)
                          + core.N_FIRST_POSITIONS * (core.K_FIRST + 1))


def test_rounding_never_leaves_the_probability_limits():
    # Positions a fresh user found a few ulps outside [0, 1] / with gammon > win.
    from fastbg.game.position import Position

    from fastbg._core import bearoffdb as cdb
    from fastbg.reference import bearoffdb as rdb

    for pid in ("79cAAMBfAAAAAA", "f98CAAABAAAAAA"):
        b = Position.from_position_id(pid).board
        for mod in (cdb, rdb):
            p = mod.bearoff_probabilities(b)
            assert 0.0 <= p[0] <= 1.0 and 0.0 <= p[3] <= 1.0 - p[0]
            assert 0.0 <= p[1] <= p[0]
        assert cdb.bearoff_probabilities(b).tobytes() == rdb.bearoff_probabilities(b).tobytes()
