"""The extra contact features (docs/evaluator.md, "Extra contact features"), both engines.

mobility, moment2, backbone, backgame, backgame2 and the off ramps on hand-made positions
whose numbers are worked out in the comments, then properties on Hypothesis boards
(symmetry, ranges, and mobility and moment2 against second computations written
differently). Every test runs on the pure-Python reference and on the Cython core.

Diagrams are drawn from the side on roll (X, side 0) as in tests/test_features.py:
points in X's numbering, X moving from 24 down to 1, O from 1 up to 24; X's point ``p``
is index ``p - 1`` in X's frame, and so is an O checker drawn on point ``p``.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings

from fastbg.reference import evaluator as rev
from fastbg.reference import features as R
from fastbg.reference.board import START_BOARD, pip_counts, swap

from scenario import board
from strategies import boards

X = {name: k for k, name in enumerate(R.EXTRA_FEATURE_NAMES)}


def _core():
    return pytest.importorskip("fastbg._core.features", reason="Cython core not built")


@pytest.fixture(params=["python", "cython"])
def F(request):
    return R if request.param == "python" else _core()


def extra(F, b, side=0) -> dict[str, int]:
    return dict(zip(R.EXTRA_FEATURE_NAMES, F.extra_features(b)[side].tolist()))


# ------------------------------------------------------------------- mobility


def test_mobility_against_points(F):
    #   24 23 22 21 20 19 18 17 16 15 14 13 | 12 11 10  9  8  7  6  5  4  3  2  1
    #    O                                X |        O     X     X  O     O
    #    1                                1 |        2     2     3  2     2
    # O holds X's 10, 5 and 3 (indices 9, 4, 2); its blot on X's 24 blocks nothing.
    # X is not all home: nothing bears off.
    #  13-point (12): to 12 11 10* 9 8 7 -> 5 (10 is O's)
    #   8-point (7):  to 7 6 5* 4 3* 2   -> 4
    #   6-point (5):  to 5* 4 3* 2 1, off -> 3
    # mobility 12, counted once per point (the 3 on the 6-point count as one).
    b = board(me={13: 1, 8: 2, 6: 3}, opp={10: 2, 5: 2, 3: 2, 24: 1})
    assert extra(F, b)["mobility"] == 12


def test_mobility_on_the_bar(F):
    #   24 23 22 21 20 19 18 17 16 15 14 13 | 12 11 10  9  8  7  6  5  4  3  2  1   X bar 1
    #       O     O  O                      |              X     X
    #       2     2  2                      |              2     4
    # X on the bar: only the bar checker moves; it enters on 24 - d + 1 for a die d:
    # 24, 22, 21 open, 23, 20, 19 closed (O's): 3 = 6 - h, whatever X's other points.
    b = board(me={"bar": 1, 8: 2, 6: 4}, opp={23: 2, 20: 2, 19: 2})
    assert extra(F, b)["mobility"] == 3
    # O's side, in O's numbering: its points 2, 5, 6 (X's 23, 20, 19), all in its home
    # board, so it may bear off; X's points are O's 17 and 19, out of the way.
    #  O's 6 (index 5): 1..5 to its 5, 4, 3, 2, 1; the 6 bears off exactly: 6
    #  O's 5 (index 4): 1..4 to its 4..1; the 5 exactly; not the 6 (a checker on
    #                   the 6): 5
    #  O's 2 (index 1): the 1 to its ace, the 2 exactly; 3..6 not: 2
    # mobility 13
    assert extra(F, b, 1)["mobility"] == 13


def test_mobility_bearing_off(F):
    #   24 23 22 21 20 19 18 17 16 15 14 13 | 12 11 10  9  8  7  6  5  4  3  2  1
    #                                       |                    X     X  O  X
    #                                       |                    2     1  2  3
    # All X's checkers home, O holds X's 2-point (index 1). Rearmost: index 4.
    #  5-point (4): 1 to 4, 2 to 3, 3 to 2 (O's), 4 to 1, 5 off exactly, 6 off (the
    #               rearmost): 5
    #  3-point (2): 1 to 2 (O's), 2 to 1, 3 off exactly, 4 5 6 not (the 5 is behind): 2
    #  1-point (0): 1 off exactly, 2..6 not: 1
    # mobility 8 (the shifts give 4, the exact dice 3, the larger dice 5 - 4 = 1)
    b = board(me={5: 2, 3: 1, 1: 3}, opp={2: 2})
    assert extra(F, b)["mobility"] == 8


def test_mobility_of_the_start(F):
    # O holds X's 19, 17, 12 and 1 (indices 18, 16, 11, 0). From the 24 (index 23)
    # to 22..17: 18 closed: 5. From the 13 (12) to 11..6: 11 closed: 5. From the 8
    # (7) to 6..1: 6. From the 6 (5) to 4..0: 0 closed, and nothing bears off: 4.
    # 20 for either side.
    assert F.extra_features(START_BOARD)[:, X["mobility"]].tolist() == [20, 20]


# -------------------------------------------------------------------- moment2


@pytest.mark.parametrize("me, expected", [
    # 2 on the 24, 3 on the 1: T = 5, P = 48 + 3 = 51 (mean 10.2). Behind: the 24s,
    # 24 * 5 - 51 = 69 each: S = 2 * 69 ** 2 = 9522, / 25 = 380.88: 380.
    ({24: 2, 1: 3}, 380),
    # One on the bar (25 pips), 4 on the 6: T = 5, P = 49 (9.8). The bar: 125 - 49 =
    # 76, S = 5776, / 25 = 231.04: 231.
    ({"bar": 1, 6: 4}, 231),
    # The largest possible: 5 on the bar and 10 on the ace: T = 15, P = 135 (mean 9);
    # S = 5 * (375 - 135) ** 2 = 288000, / 225 = 1280 exactly.
    ({"bar": 5, 1: 10}, 1280),
    # Everything on one point: nobody behind the mean.
    ({13: 9}, 0),
    # A checker exactly on the mean is not behind it: 1, 2, 3 have mean 2; only the 3
    # counts, (3 * 3 - 6) ** 2 / 9 = 1.
    ({1: 1, 2: 1, 3: 1}, 1),
    # No checker: 0.
    ({}, 0),
])
def test_moment2_by_hand(F, me, expected):
    b = board(me=me, opp={20: 1} if me else {20: 1, 21: 1})
    assert extra(F, b)["moment2"] == expected


def test_moment2_of_the_start(F):
    # T = 15, P = 167: behind the mean 11.13 are the 24s and the 13s:
    # 2 * (360 - 167) ** 2 + 5 * (195 - 167) ** 2 = 74498 + 3920 = 78418, / 225 = 348.5.
    assert F.extra_features(START_BOARD)[:, X["moment2"]].tolist() == [348, 348]


# ------------------------------------------------------------------- backbone


def test_backbone(F):
    #   24 23 22 21 20 19 18 17 16 15 14 13 | 12 11 10  9  8  7  6  5  4  3  2  1
    #    X                                X |        X     X  X  X     X
    #    2                                2 |        1     2  2  2     2
    # Made: 24, 13, 8, 7, 6, 4 (the blot on 10 is no point). Pairs 1..6 apart:
    # 13-8, 13-7, 8-7, 8-6, 8-4, 7-6, 7-4, 6-4: 8 (13-6 is 7 apart, the 24 alone).
    b = board(me={24: 2, 13: 2, 10: 1, 8: 2, 7: 2, 6: 2, 4: 2}, opp={1: 1})
    assert extra(F, b)["backbone"] == 8
    # Seven points in a row (1..7): every pair is at most 6 apart: 21, the largest.
    assert extra(F, board(me={p: 2 for p in range(1, 8)}, opp={24: 1}))["backbone"] == 21
    # The start: 8-6 and 13-8: 2.
    assert F.extra_features(START_BOARD)[:, X["backbone"]].tolist() == [2, 2]


# ------------------------------------------------------------------- backgames


def test_two_anchor_backgame(F):
    #   24 23 22 21 20 19 18 17 16 15 14 13 | 12 11 10  9  8  7  6  5  4  3  2  1
    #       O  X  O  X  O     O        O    |  O  X     X     O  X  X  X
    #       2  3  2  2  2     3        3    |  2  1     1     1  3  3  2
    # (tests/test_features.py's BACKGAME) X holds the 22 and 20 in O's home board:
    # A = 2; pips: X 167, O 125 (the first features' pips). X trails by 42:
    # backgame 0, backgame2 42. O has no anchor in X's home and leads: 0, 0.
    b = board(me={22: 3, 20: 2, 11: 1, 9: 1, 6: 3, 5: 3, 4: 2},
              opp={23: 2, 21: 2, 19: 2, 17: 3, 14: 3, 12: 2, 7: 1})
    assert pip_counts(b) == (167, 125)
    got = F.extra_features(b)[:, [X["backgame"], X["backgame2"]]].tolist()
    assert got == [[0, 42], [0, 0]]


def test_one_anchor_backgame(F):
    #   24 23 22 21 20 19 18 17 16 15 14 13 | 12 11 10  9  8  7  6  5  4  3  2  1
    #             O     O     O           X |           X  X  X  X  X  X     O
    #             4     5     4           3 |           2  2  2  2  2  2     2
    # (tests/test_features.py's PRIME) O's one anchor is X's 2-point, O's own 23:
    # A = 1 for O. Pips X 117, O 124: O trails by 7: O's backgame 7, backgame2 0.
    # X has no anchor in O's home board: 0, 0.
    b = board(me={4: 2, 5: 2, 6: 2, 7: 2, 8: 2, 9: 2, 13: 3}, opp={2: 2, 19: 5, 17: 4, 21: 4})
    assert pip_counts(b) == (117, 124)
    got = F.extra_features(b)[:, [X["backgame"], X["backgame2"]]].tolist()
    assert got == [[0, 0], [7, 0]]
    # The start: an anchor each (the 24-points), level in the race: 0 for both.
    assert F.extra_features(START_BOARD)[:, X["backgame"]].tolist() == [0, 0]


def test_backgame_needs_the_anchor_in_the_home_board(F):
    # X's anchor on its 18-point (index 17, O's bar point) is outside O's home board:
    # A = 0, whatever the deficit (X: 2 * 18 + 13 * 13 = 205 pips, O: 2 on its ace, 2).
    b = board(me={18: 2, 13: 13}, opp={24: 2})
    assert extra(F, b)["backgame"] == extra(F, b)["backgame2"] == 0
    # Move the anchor to the 19 (index 18): A = 1, deficit 2 * 19 + 169 - 2 = 205.
    b = board(me={19: 2, 13: 13}, opp={24: 2})
    assert (extra(F, b)["backgame"], extra(F, b)["backgame2"]) == (205, 0)


# ----------------------------------------------------------------- off ramps


@pytest.mark.parametrize("off, ramps", [
    (0, (0, 0, 0)), (1, (1, 0, 0)), (3, (3, 0, 0)), (4, (3, 1, 0)), (6, (3, 3, 0)),
    (7, (3, 3, 1)), (14, (3, 3, 8)), (15, (3, 3, 9)),
])
def test_off_ramps(F, off, ramps):
    # X has 15 - off checkers on its 1-point; O one on X's 24-point (14 off).
    b = board(me={1: 15 - off} if off < 15 else {}, opp={24: 1})
    e = extra(F, b)
    assert (e["off1"], e["off2"], e["off3"]) == ramps
    o = extra(F, b, 1)
    assert (o["off1"], o["off2"], o["off3"]) == (3, 3, 8)


# ----------------------------------------------------------------- properties


def _mobility_by_moves(b: np.ndarray, side: int) -> int:
    """mobility, from the rules of a one-checker move (DESIGN section 3) on the board."""
    me, opp = b[side].astype(int), b[1 - side].astype(int)
    starts = [24] if me[24] else [i for i in range(24) if me[i]]
    home = me[6:].sum() == 0
    count = 0
    for i in starts:
        for d in range(1, 7):
            to = i - d
            if to >= 0:
                count += opp[23 - to] < 2           # my index t is its 23 - t
            else:
                count += home and (to == -1 or not me[i + 1:].any())
    return count


def _moment2_exact(row: np.ndarray) -> int:
    pips = [i + 1 for i in range(25) for _ in range(int(row[i]))]
    if not pips:
        return 0
    mean = Fraction(sum(pips), len(pips))
    return int(sum((p - mean) ** 2 for p in pips if p > mean))  # int() of a Fraction >= 0: floor


@settings(max_examples=150, deadline=None)
@given(boards())
def test_extra_features_by_other_means(b):
    for F in (R, _core()):
        e = F.extra_features(b)
        for side in (0, 1):
            assert e[side, X["mobility"]] == _mobility_by_moves(b, side)
            assert e[side, X["moment2"]] == _moment2_exact(b[side])


@settings(max_examples=150, deadline=None)
@given(boards())
def test_extra_features_are_symmetric_and_in_range(b):
    limit = np.array(rev.EXTRA_FEATURE_MAX)
    for F in (R, _core()):
        e = F.extra_features(b)
        assert e.dtype == np.int64 and e.shape == (2, 8)
        assert np.array_equal(F.extra_features(swap(b)), e[::-1])
        assert (e >= 0).all() and (e <= limit).all()
        f = F.contact_features(b)
        pips = pip_counts(b)
        for side in (0, 1):
            n = dict(zip(R.EXTRA_FEATURE_NAMES, e[side].tolist()))
            off = 15 - int(b[side].sum())
            assert n["off1"] + n["off2"] + n["off3"] == off
            assert n["backgame"] * n["backgame2"] == 0
            deficit = max(0, pips[side] - pips[1 - side])
            anchors = f[side, R.FEATURE_NAMES.index("anchors_back")]
            assert n["backgame"] + n["backgame2"] == (deficit if anchors else 0)
            if b[side, 24]:
                h = sum(b[1 - side, j] >= 2 for j in range(6))
                assert n["mobility"] == 6 - h
