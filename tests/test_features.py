"""The second evaluator's features and inputs (``fastbg.reference.features``).

Every expected number below is worked out by hand from ``docs/evaluator.md``, in
the comment next to it. Diagrams are drawn from the side on roll (X, side 0):
points in X's numbering, X moving from 24 down to 1, O (side 1) from 1 up to 24;
a number under a point counts the checkers there. In X's frame X's point ``p``
is index ``p - 1``, and so is an O checker drawn on point ``p`` (O's own index
``24 - p``). Boards are written with :func:`scenario.board` in X's numbering.

Feature order (``N`` values): back_checker, back_anchor, forward_anchor,
anchors_back, prime, home_points, blots, pips, break_contact, free_pips, timing,
escape_back, containment, containment_sq, enter_fail, enter_fail2, shots,
double_shots, pip_loss, back_count.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings

from fastbg.reference import features as F
from fastbg.reference.board import START_BOARD, pip_counts, swap
from fastbg.reference.movegen import legal_plays
from fastbg.reference.nn import encode

from scenario import board
from strategies import bear_off_against_contact, boards, race_boards

SPEC = Path(__file__).resolve().parent.parent / "docs" / "evaluator.md"
ROLLS36 = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, 7)]
I = {name: k for k, name in enumerate(F.FEATURE_NAMES)}


def mask(*distances: int) -> int:
    """An escape mask from the blocked distances (1..12 pips ahead)."""
    return sum(1 << (d - 1) for d in distances)


# ------------------------------------------------------------------ constants


def test_names_and_denominators_are_the_spec_table():
    # Read the tables of docs/evaluator.md (the 20 features, then the 8 extra ones,
    # numbered on), so that the constants and the text the Cython twin reads cannot
    # drift apart.
    rows = re.findall(r"^\| (\d+) \| `(\w+)` \| .* \| (\d+) \|$", SPEC.read_text(), re.M)
    assert [int(r[0]) for r in rows] == list(range(28))
    first, extra = rows[:20], rows[20:]
    assert F.N_FEATURES == 20
    assert F.FEATURE_NAMES == tuple(r[1] for r in first)
    assert F.FEATURE_DENOMINATORS.dtype == np.int64
    assert F.FEATURE_DENOMINATORS.tolist() == [int(r[2]) for r in first]
    assert F.FEATURE_DENOMINATORS.tolist() == [
        25, 24, 6, 2, 6, 6, 6, 167, 167, 100, 100, 36, 36, 1296, 36, 36, 36, 36, 3600, 15]
    assert F.N_EXTRA_FEATURES == 8
    assert F.EXTRA_FEATURE_NAMES == tuple(r[1] for r in extra)
    assert F.EXTRA_FEATURE_DENOMINATORS.dtype == np.int64
    assert not F.EXTRA_FEATURE_DENOMINATORS.flags.writeable
    assert F.EXTRA_FEATURE_DENOMINATORS.tolist() == [int(r[2]) for r in extra]
    assert F.EXTRA_FEATURE_DENOMINATORS.tolist() == [60, 400, 10, 100, 100, 3, 3, 9]
    assert (F.LEGACY_CONTACT_INPUTS, F.CONTACT_INPUTS) == (236, 252)


# --------------------------------------------------------------- escape table


def test_escape_table_shape_and_range():
    t = F.ESCAPE_TABLE
    assert t.shape == (4096,) and t.dtype in (np.int8, np.int16)
    assert not t.flags.writeable
    assert t.min() >= 0 and t.max() == 36
    assert [F.escapes(m) for m in range(4096)] == t.tolist()


@pytest.mark.parametrize("distances, expected", [
    # Nothing blocked: every roll passes.
    ((), 36),
    # A full prime 1..6 ahead: no die and no first step lands, nothing passes.
    ((1, 2, 3, 4, 5, 6), 0),
    # One point 1 ahead: any die >= 2 passes alone; only 1-1 stops on the block.
    ((1,), 35),
    # 2 ahead: dice >= 3 pass (32 rolls); 1-2 and 2-1 pass via the open 1 (2);
    # 1-1 (1, then 2 blocked) and 2-2 fail. 34.
    ((2,), 34),
    # 1 and 2: dice >= 3 (32); 1-2 needs 1 or 2 open: no; doubles 1, 2 stop. 32.
    ((1, 2), 32),
    # 6 ahead: no die passes alone; a sum >= 7 of two different dice has one open
    # first landing (only 6 is blocked): 21 ordered sums >= 7 minus 4-4, 5-5, 6-6
    # = 18; doubles 4-4 (4, 8) and 5-5 (5, 10) pass, 1-1 (4), 2-2 (6), 3-3 (6),
    # 6-6 do not. 20.
    ((6,), 20),
    # 1, 3, 5: any 6 (11); without a 6, sums >= 6 with an open first landing (2 or
    # 4): 2-4, 2-5, 3-4, 4-5 (x2 = 8), not 1-5, 3-5; doubles 2-2 (2, 4, 6) and 4-4
    # (4, 8). 21.
    ((1, 3, 5), 21),
    # 2, 4, 6: sums >= 7 with a die on 1, 3 or 5: 1-6 2-5 3-4 3-5 3-6 4-5 5-6
    # (x2 = 14), not 2-6, 4-6; doubles: only 5-5 (5, 10). 15.
    ((2, 4, 6), 15),
    # 3, 5, 7: sums >= 8 with a die on 1, 2, 4 or 6: 2-6 3-6 4-5 4-6 5-6 (x2 = 10),
    # not 3-5; doubles 2-2 (2 4 6 8), 4-4 (4 8), 6-6 (6 12). 13.
    ((3, 5, 7), 13),
    # 4, 6, 8: sums >= 9 with a die on 1, 2, 3, 5 or 7: 3-6 4-5 5-6 (x2 = 6), not
    # 4-6; doubles: 5-5 (5, 10). 7.
    ((4, 6, 8), 7),
    # 11 ahead: only doubles reach 12+: 3-3 (3 6 9 12), 4-4 (4 8 12), 5-5, 6-6. 4.
    ((11,), 4),
    # 12 ahead: 13+ pips in one roll: 5-5 (5 10 15) only; 3-3 ends on 12, 4-4 and
    # 6-6 land on 12. 1.
    ((12,), 1),
    # The start's back checkers: O's 6-point 5 ahead, its 8-point 7, its mid-point
    # 12: 13+ pips needs 4-4 (12 blocked), 5-5 (5 blocked), 6-6 (12 blocked). 0.
    ((5, 7, 12), 0),
])
def test_escapes_by_hand(distances, expected):
    assert F.escapes(mask(*distances)) == expected


def _passes(m: int, far: int, order: tuple[int, ...]) -> bool:
    """Whether playing the dice of ``order`` one at a time gets past ``far``."""
    dist = 0
    for die in order:
        dist += die
        if dist > far:
            return True
        if m >> (dist - 1) & 1:
            return False  # landed on a block: this order is stopped
    return False


def _escapes_by_dice_orders(m: int) -> int:
    """E(mask) written differently: walk every order of the dice one die at a time."""
    far = max((k + 1 for k in range(12) if m >> k & 1), default=0)
    count = 0
    for d1, d2 in ROLLS36:
        orders = [(d1,) * 4] if d1 == d2 else [(d1, d2), (d2, d1)]
        count += any(_passes(m, far, order) for order in orders)
    return count


def test_escape_table_against_a_second_computation():
    assert [_escapes_by_dice_orders(m) for m in range(4096)] == F.ESCAPE_TABLE.tolist()


def test_escape_table_against_the_move_generator():
    # A lone X checker on its 24-point and two O checkers on each blocked point
    # (7 blocked points at most: O has 15 checkers). The roll escapes if some legal
    # play (DESIGN section 3) leaves the checker more pips ahead than the farthest
    # block, or borne off (6-6: 24/18/12/6/off is legal, the checker is home).
    checked = 0
    for m in range(4096):
        bits = [k for k in range(12) if m >> k & 1]
        if len(bits) > 7:
            continue
        b = np.zeros((2, 25), dtype=np.int8)
        b[0, 23] = 1
        for k in bits:
            # X's index 22 - k is k + 1 pips ahead; O's own index is 23 - (22 - k).
            b[1, k + 1] = 2
        far = max(bits, default=-1) + 1
        count = 0
        for d1 in range(1, 7):
            for d2 in range(d1, 7):
                plays = legal_plays(b, d1, d2)
                escaped = any(
                    p[0].sum() == 0 or 23 - int(np.flatnonzero(p[0])[0]) > far for p in plays
                )
                count += escaped * (1 if d1 == d2 else 2)
        assert count == F.escapes(m), (m, bits)
        checked += 1
    assert checked == 3302  # sum of C(12, k) for k <= 7


def test_escape_table_is_monotone():
    # Blocking one more point never lets more rolls through.
    t = F.ESCAPE_TABLE.astype(int)
    for k in range(12):
        bit = 1 << k
        masks = np.arange(4096)
        assert (t[masks | bit] <= t[masks]).all(), k


@pytest.mark.parametrize("bad", [-1, 4096, 1.0, "3", True, None])
def test_escapes_rejects_bad_masks(bad):
    with pytest.raises(ValueError):
        F.escapes(bad)


# ---------------------------------------------------------- hand-made positions


def test_start_position():
    #   24 23 22 21 20 19 18 17 16 15 14 13 | 12 11 10  9  8  7  6  5  4  3  2  1
    #    X              O     O           X |  O           X     X              O
    #    2              5     3           5 |  5           3     5              2
    # The start is the same from either side, so both rows are equal. Side 0:
    #  back_checker   the 24-point, index 23: 24
    #  back_anchor    the highest made index is 23: 24
    #  forward_anchor the only anchor in 18..23 is 23 (O's ace point): 24 - 23 = 1
    #  anchors_back   1
    #  prime          made 6, 8, 13, 24: no two adjacent: 1
    #  home_points    the 6-point: 1
    #  blots          0
    #  pips           2*24 + 5*13 + 3*8 + 5*6 = 167
    #  break_contact  O's rearmost is on X's 1-point, c = 0: 5*5 + 3*7 + 5*12 + 2*23
    #                 = 152
    #  free_pips      nothing below index 0: 0
    #  timing         outside: 3*2 + 5*7 + 2*18 = 77, minus the held points 8, 13,
    #                 24: 2*(2 + 7 + 18) = 54: 23
    #  escape_back    from X's 24, O's 6-point (X's 19) is 5 ahead, its 8-point
    #                 (17) 7 and its mid-point (12) 12: E({5, 7, 12}) = 0 (see above)
    #  containment    O's checker on its 24-point (X's index 0, j = 23) faces X's
    #                 points 6, 8, 13: 5, 7, 12 ahead, E = 0, the minimum: 36 - 0
    #  containment_sq 1296
    #  enter_fail(2)  no checker on the bar: 0, 0
    #  shots, double_shots, pip_loss: no blot: 0, 0, 0
    #  back_count     indices 12..24: 5 on 13 and 2 on 24: 7
    side = [24, 24, 1, 1, 1, 1, 0, 167, 152, 0, 23, 0, 36, 1296, 0, 0, 0, 0, 0, 7]
    got = F.contact_features(START_BOARD)
    assert got.dtype == np.int64 and got.shape == (2, 20)
    assert got.tolist() == [side, side]


PRIME = board(me={4: 2, 5: 2, 6: 2, 7: 2, 8: 2, 9: 2, 13: 3}, opp={2: 2, 19: 5, 17: 4, 21: 4})


def test_prime_position_side_to_move():
    #   24 23 22 21 20 19 18 17 16 15 14 13 | 12 11 10  9  8  7  6  5  4  3  2  1
    #             O     O     O           X |           X  X  X  X  X  X     O
    #             4     5     4           3 |           2  2  2  2  2  2     2
    # X has a full prime 4..9 in front of O's two checkers on X's 2-point.
    #  back_checker 13; back_anchor 13 (3 on the 13-point); no anchor in O's home: 0, 0
    #  prime 6 (indices 3..8); home_points 4, 5, 6: 3; blots 0
    #  pips 2*(4+5+6+7+8+9) + 3*13 = 117
    #  c = 1 (O's rearmost on X's 2-point): break_contact 2*(2+3+4+5+6+7) + 3*11 = 87
    #  free_pips: X's 1-point is empty: 0
    #  timing: outside 2*1 + 2*2 + 2*3 + 3*7 = 33, held 2*(1+2+3+7) = 26: 7
    #  escape_back: from the 13-point only O's 2-point anchor is ahead, 11 pips:
    #    E({11}) = 4
    #  containment: a checker on O's bar (j = 24) has X's 4..9 at 4..9 ahead: a sum
    #    >= 10 needs both dice >= 4 (both first landings blocked), every double
    #    stops: E = 0, the least possible: 36
    #  no bar, no blot; back_count 3 (the 13-point)
    assert F.contact_features(PRIME)[0].tolist() == [
        13, 13, 0, 0, 6, 3, 0, 117, 87, 0, 7, 4, 36, 1296, 0, 0, 0, 0, 0, 3]


def test_prime_position_opponent():
    # The same board for O, in O's frame (O's index = 23 - X's index): O has 2 on
    # its 23-point (index 22), 4 on its 4 (3), 5 on its 6 (5), 4 on its 8 (7); X's
    # prime is on O's indices 15..20 and X's 13-point is O's index 11.
    #  back_checker 23; back_anchor 23; forward_anchor 24 - 22 = 2; anchors_back 1
    #  prime 1 (3, 5, 7, 22); home_points 3, 5: 2; blots 0
    #  pips 2*23 + 5*6 + 4*8 + 4*4 = 124
    #  c = 23 - 12 = 11 (X's 13-point): break_contact 2*(22 - 11) = 22
    #  free_pips: indices 0..10: 4*4 + 5*6 + 4*8 = 78
    #  timing: 4*2 + 2*17 = 42 outside, held 2*2 + 2*17 = 38: 4
    #  escape_back: from index 22, X's points 2..7 and 11 ahead: 12+ pips needed,
    #    no sum of two dice reaches it, doubles: 1-1 and 2-2 stop on 2, 3-3..6-6 on
    #    their first step: 0
    #  containment: min over j of E(m_j); j = 24 (X's bar, O's index -1) sees O's
    #    3, 5, 7 at 4, 6, 8 ahead: E({4, 6, 8}) = 7; nearer checkers see fewer or
    #    nearer blocks (j = 23: {3,5,7} 13, j = 22: {2,4,6} 15, j = 21: {1,3,5} 21,
    #    j = 20: {2,4} 27, ...): 36 - 7 = 29, squared 841
    #  no bar; no blot; back_count 2 (index 22)
    assert F.contact_features(PRIME)[1].tolist() == [
        23, 23, 2, 1, 1, 2, 0, 124, 22, 78, 4, 0, 29, 841, 0, 0, 0, 0, 0, 2]


BACKGAME = board(
    me={22: 3, 20: 2, 11: 1, 9: 1, 6: 3, 5: 3, 4: 2},
    opp={23: 2, 21: 2, 19: 2, 17: 3, 14: 3, 12: 2, 7: 1},
)


def test_backgame_side_to_move():
    #   24 23 22 21 20 19 18 17 16 15 14 13 | 12 11 10  9  8  7  6  5  4  3  2  1
    #       O  X  O  X  O     O        O    |  O  X     X     O  X  X  X
    #       2  3  2  2  2     3        3    |  2  1     1     1  3  3  2
    # X holds two anchors in O's home board (its 22- and 20-points).
    #  back_checker 22; back_anchor 22; forward_anchor 24 - 19 = 5 (O's 5-point)
    #  anchors_back 2; prime 3 (4, 5, 6); home_points 3; blots 2 (9 and 11)
    #  pips 3*22 + 2*20 + 11 + 9 + 3*6 + 3*5 + 2*4 = 167
    #  c = 6 (O's blot on X's 7-point): break_contact 2 + 4 + 2*13 + 3*15 = 77
    #  free_pips 3*6 + 3*5 + 2*4 = 41
    #  timing: outside 3 + 5 + 2*14 + 3*16 = 84, held 2*14 + 2*16 = 60: 24
    #  escape_back: from 22, O's points 21, 19, 17, 14, 12 are 1, 3, 5, 8, 10 ahead
    #    (the blot on 7 does not block): 11+ pips: 5-6 and 6-5 via the open 6, 6-6
    #    (6, 12); 2-2 stops on 8, 4-4 on 8: 3
    #  containment: j = 16 (X's index 7) sees only X's 20-point, 12 ahead: E = 1
    #    (5-5 alone); nothing else is lower (j = 15: {11} 4; j = 24: {4,5,6} 12;
    #    j = 23: {3,4,5} 17; ...): 35, squared 1225
    #  no bar
    #  shots: only O's blot on X's 7 is below X's blots: the 9-point blot is 2 away
    #    (any 2: 11, 1-1: 12 rolls), the 11-point blot 4 away (any 4: 11, 1-3 and
    #    3-1: 2, 2-2 and 1-1 through open points: 15). Both: 2-4, 4-2, 2-2, 1-1.
    #    shots 12 + 15 - 4 = 23, double_shots 4
    #  pip_loss: a roll hitting the 9-point blot loses 24 - 8 = 16 (12 rolls), the
    #    others hit only the 11-point blot, 24 - 10 = 14 (11 rolls): 192 + 154 = 346
    #  back_count 3 + 2 = 5
    assert F.contact_features(BACKGAME)[0].tolist() == [
        22, 22, 5, 2, 3, 3, 2, 167, 77, 41, 24, 3, 35, 1225, 0, 0, 23, 4, 346, 5]
    assert F.shots(BACKGAME, 0) == (23, 4, 346)


def test_backgame_opponent():
    # O's frame: O has 2 on indices 1, 3, 5; 3 on 7 and 10; 2 on 12; a blot on 17
    # (X's 7-point). X's checkers are on O's indices 2 (X's 22), 4 (20), 13 (11),
    # 15 (9), 18, 19, 20 (X's 6, 5, 4).
    #  back_checker 18; back_anchor 13; no anchor in X's home; prime 1; home 3
    #  blots 1; pips 4 + 8 + 12 + 24 + 33 + 26 + 18 = 125
    #  c = 2 (X's 22-point): break_contact 2*1 + 2*3 + 3*5 + 3*8 + 2*10 + 15 = 82
    #  free_pips 2*2 = 4; timing: outside 6 + 15 + 14 + 12 = 47, held 4 + 10 + 14 = 28:
    #    19
    #  escape_back: X's made points are on O's 18..20 and 2, 4: none of them in the
    #    12 points in front of index 17: 36
    #  containment: X's checker on X's ace (j = 23, O's index 0) sees O's 1, 3, 5,
    #    7, 10, 12 at 1, 3, 5, 7, 10, 12 ahead: 13+ pips: 2-2 stops at 8, 4-4 and
    #    6-6 on 12, 1-1, 3-3 and 5-5 at once: 0; 36
    #  shots: X hits the blot on O's 17 from 15 (2 away: any 2, 1-1) and 13 (4 away:
    #    any 4, 1-3, 3-1, 2-2 over X's own blot, 1-1); from 4 (13 away) no double
    #    fits, from 2 (15 away) 5-5 lands on O's 7 and 3-3 needs five steps.
    #    Any 2 or 4: 20, plus 1-3, 3-1, 1-1: 23; one blot: double_shots 0;
    #    pip_loss 23 * (24 - 17) = 161
    #  back_count: 2 + 1 = 3
    assert F.contact_features(BACKGAME)[1].tolist() == [
        18, 13, 0, 0, 1, 3, 1, 125, 82, 4, 19, 36, 36, 1296, 0, 0, 23, 0, 161, 3]


BAR = board(me={"bar": 2, 6: 5, 8: 4, 13: 4}, opp={23: 2, 22: 1, 21: 2, 20: 2, 19: 2, 17: 6})


def test_bar_against_a_four_point_board():
    #   24 23 22 21 20 19 18 17 16 15 14 13 | 12 11 10  9  8  7  6  5  4  3  2  1   X bar 2
    #       O  O  O  O  O     O           X |              X     X
    #       2  1  2  2  2     6           4 |              4     5
    # O has closed four home points (X's 19, 20, 21, 23), h = 4.
    #  back_checker 25 (the bar); back_anchor 13; prime 1; home_points 1; blots 0
    #  pips 2*25 + 5*6 + 4*8 + 4*13 = 164
    #  c = 16 (O's rearmost on X's 17): break_contact 2*(24 - 16) = 16;
    #  free_pips 30 + 32 + 52 = 114
    #  timing: outside 4*2 + 4*7 + 2*19 = 74, held 4 + 14 = 18: 56
    #  escape_back: from the bar O's 23, 21, 20, 19, 17 are 2, 4, 5, 6, 8 ahead:
    #    9+ pips with an open first landing (1 or 3): 3-6, 6-3 only: 2
    #  containment: O's checker on X's 1-point would face X's 6, 8, 13 at 5, 7, 12:
    #    E = 0: 36, 1296
    #  enter_fail 4 * 4 = 16 (no checker enters); enter_fail2 36 - 2 * 2 = 32
    #  no blot; back_count 4 (13-point) + 2 (bar) = 6
    assert F.contact_features(BAR)[0].tolist() == [
        25, 13, 0, 0, 1, 1, 0, 164, 16, 114, 56, 2, 36, 1296, 16, 32, 0, 0, 0, 6]
    # O's side (its frame: 2 on indices 1, 3, 4, 5, a blot on 2, 6 on 7):
    #  back 8; back_anchor 8; prime 3 (3..5); home_points 1, 3, 4, 5: 4; blots 1
    #  pips 4 + 3 + 8 + 10 + 12 + 48 = 85; X on the bar: c = -1, break_contact = pips
    #  85, free_pips 0; timing 6*2 - 2*2 = 8; escape_back: X's points (O's 18, 16,
    #  11) are all behind index 7: 36; containment: j = 24 sees O's 1, 3, 4, 5, 7 at
    #  2, 4, 5, 6, 8: E = 2 (as X's escape above): 34, 1156
    #  shots: X's two bar checkers (B = 2) are the only hitters; the blot on O's 2
    #  is 3 away: any 3 (11); no combinations with B = 2; 1-1 would need O's 1 (made):
    #  11, double 0, pip_loss 11 * 22 = 242; back_count 0
    assert F.contact_features(BAR)[1].tolist() == [
        8, 8, 0, 0, 3, 4, 1, 85, 85, 0, 8, 36, 34, 1156, 0, 0, 11, 0, 242, 0]


def test_one_checker_on_the_bar():
    # As above with one checker on the bar: h * h = 16 still, enter_fail2 needs two.
    b = board(me={"bar": 1, 6: 5, 8: 4, 13: 4}, opp={23: 2, 22: 1, 21: 2, 20: 2, 19: 2, 17: 6})
    f = F.contact_features(b)[0]
    assert (f[I["enter_fail"]], f[I["enter_fail2"]]) == (16, 0)


@pytest.mark.parametrize("closed, fail, fail2", [
    ((), 0, 0),                       # h = 0: every roll enters both
    ((19,), 1, 36 - 25),              # h = 1 (the 6 blocked): 6-6 fails; 5 * 5 enter two
    ((19, 20, 21, 22, 23, 24), 36, 36),  # closed board
])
def test_enter_fail_counts(closed, fail, fail2):
    b = board(me={"bar": 2, 6: 2}, opp={p: 2 for p in closed} | {1: 1})
    f = F.contact_features(b)[0]
    assert (f[I["enter_fail"]], f[I["enter_fail2"]]) == (fail, fail2)


@pytest.mark.parametrize("blocks, expected", [
    # O's lone checker on X's 5-point (index 4), X's blot on 11 (index 10): 6 away.
    #   24 23 22 21 20 19 18 17 16 15 14 13 | 12 11 10  9  8  7  6  5  4  3  2  1
    #                                       |     X  .  .  .  .  .  O           X
    #                                       |     1                 1           2
    # (the points marked . are the candidate blocks, made by X in the cases below)
    # No block: any 6 (11), 1-5 5-1 2-4 4-2 (4), 2-2 (7, 9) and 3-3 (8): 17.
    ((), 17),
    # X's 8-point (3 ahead of O) made: 3-3 is lost; 2-2 lands on 7, 9: 16.
    ((8,), 16),
    # X's 7 and 9 (2 and 4 ahead): 2-4 and 4-2 have both first landings blocked,
    # 2-2 stops on 7; 1-5 5-1 and 3-3 remain: 11 + 2 + 1 = 14.
    ((7, 9), 14),
    # X's 6, 7, 9, 10: also 1-5 and 5-1 lost; 3-3 over the open 8 remains: 12.
    ((6, 7, 9, 10), 12),
    # Everything between made: direct 6s only: 11.
    ((6, 7, 8, 9, 10), 11),
])
def test_direct_and_blocked_combination_shots(blocks, expected):
    b = board(me={11: 1, 1: 2} | {p: 2 for p in blocks}, opp={5: 1})
    # One blot on index 10: each hitting roll loses 24 - 10 = 14 pips.
    assert F.shots(b, 0) == (expected, 0, 14 * expected)
    f = F.contact_features(b)[0]
    assert f[I["shots"]] == expected and f[I["blots"]] == 1


def test_double_shots_with_two_blots():
    #   24 23 22 21 20 19 18 17 16 15 14 13 | 12 11 10  9  8  7  6  5  4  3  2  1
    #                                       |        X        X     O           X
    #                                       |        1        1     1           2
    # O on X's 5 (index 4); blots on 7 (2 away) and 10 (5 away), nothing blocked.
    # Blot 7: any 2 (11) and 1-1: 12. Blot 10: any 5 (11), 1-4 4-1 2-3 3-2: 15.
    # Both: 2-5, 5-2, and 2-3, 3-2 (the 2 hits 7, the same checker goes on to 10).
    # shots 12 + 15 - 4 = 23, double_shots 4. pip_loss: rolls hitting 7 lose
    # 24 - 6 = 18 (12 rolls), the other 11 hit 10 only, 24 - 9 = 15: 216 + 165 = 381.
    b = board(me={7: 1, 10: 1, 1: 2}, opp={5: 1})
    assert F.shots(b, 0) == (23, 4, 381)
    assert F.blots_hit(b, 0, 2, 3) == {6, 9}
    assert F.blots_hit(b, 0, 4, 1) == {9}
    assert F.blots_hit(b, 0, 6, 6) == frozenset()


def test_blots_behind_the_hitters_are_safe():
    #   24 23 22 21 20 19 18 17 16 15 14 13 | 12 11 10  9  8  7  6  5  4  3  2  1
    #                                       |           O              X        X
    #                                       |           1              1        2
    # O on X's 9-point moves up towards X's 24; X's blot on its 4-point is behind it.
    b = board(me={4: 1, 1: 2}, opp={9: 1})
    assert F.shots(b, 0) == (0, 0, 0)


@pytest.mark.parametrize("on_bar, expected", [
    # X's blots on its 4 (index 3) and 8 (index 7); X's 6-point made; O has B
    # checkers on its bar and one on X's 2-point (index 1), which does not hit
    # while O has a checker on the bar (its 2 to the blot on 4 does not count).
    #   24 23 22 21 20 19 18 17 16 15 14 13 | 12 11 10  9  8  7  6  5  4  3  2  1   O bar B
    #    X                                  |              X     X     X     O
    #   11                                  |              1     2     1     1
    # From the bar (x = -1): the blot on 4 is 4 away, the one on 8 is 8 away.
    # B = 1, K = 4: blot 4: any 4 (11), 1-3 3-1 (2), 2-2 (over X's 2, open), 1-1
    # (four steps, over X's 1, 2, 3): 15. Blot 8: 2-6 6-2 (via the open 2), 3-5 5-3 (via 3),
    # 4-4 (over 4): 5; 2-2 would land on the made 6. Both: 4-4. shots 15 + 5 - 1 =
    # 19, double 1; pip_loss 15 * 21 (blot 4) + 4 * 17 (blot 8 alone) = 383.
    (1, (19, 1, 383)),
    # B = 2: no combination of two dice, K = 3: blot 4: any 4, 2-2 (1-1 needs four
    # steps): 12; blot 8: 4-4 (two steps): 1, also hitting 4. 12, 1, 12 * 21 = 252.
    (2, (12, 1, 252)),
    # B = 3, K = 2: the same rolls: 2-2 and 4-4 need two steps.
    (3, (12, 1, 252)),
    # B = 4, K = 1: direct shots only: any 4 (11), each on the blot on 4: 231.
    (4, (11, 0, 231)),
    # B = 5, K = 0: no step beyond entering, but the entering checkers still land on
    # the blot directly (the first rule; docs/evaluator.md): 11, 0, 231.
    (5, (11, 0, 231)),
])
def test_bar_hitter_rule(on_bar, expected):
    b = board(me={4: 1, 8: 1, 6: 2, 24: 11}, opp={"bar": on_bar, 2: 1})
    assert F.shots(b, 0) == expected
    assert F.contact_features(b)[0][16:19].tolist() == list(expected)


def test_bar_hitter_ignores_the_board_checkers():
    #   24 23 22 21 20 19 18 17 16 15 14 13 | 12 11 10  9  8  7  6  5  4  3  2  1
    #    X                                  |              X     X     X     O
    #   11                                  |              1     2     1     1
    # With no checker on O's bar, O's checker on X's 2-point (index 1) hits the blot
    # on 4 (2 away) with any 2 or 1-1: 12, and the blot on 8 (6 away) with any 6
    # (11), 1-5 5-1 (via the open 3), 2-4 4-2 (via X's blot on 4, which does not
    # block), 3-3 (over 5); 2-2 would land on the made 6: 16. Both blots: 2-6, 6-2,
    # 2-4, 4-2. shots 12 + 16 - 4 = 24, double_shots 4.
    b = board(me={4: 1, 8: 1, 6: 2, 24: 11}, opp={2: 1})
    assert F.shots(b, 0)[:2] == (24, 4)
    assert F.blots_hit(b, 0, 2, 1) == {3}
    # Put one O checker on the bar: the same 2-1 no longer hits (bar/22 then 1 more:
    # the bar checker lands on X's 2 and 3, no blot).
    b = board(me={4: 1, 8: 1, 6: 2, 24: 11}, opp={"bar": 1, 2: 1})
    assert F.blots_hit(b, 0, 2, 1) == frozenset()


def test_no_checkers_left():
    # X has borne everything off; O has one checker on its own ace (X's 24-point).
    b = board(me={}, opp={24: 1})
    # X: back -1, no points, no pips; c = 23 - 0 = 23; escape 36 (back < 0);
    # containment 36 - 36 = 0 (no made point blocks anything).
    # O: back_checker 1, one blot, 1 pip; X has nothing: c = 24, break_contact 0,
    # free_pips 1; escape 36 (back <= c); no hitter: no shots.
    assert F.contact_features(b).tolist() == [
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 36, 0, 0, 0, 0, 0, 0, 0, 0],
        [1, 0, 0, 0, 0, 0, 1, 1, 0, 1, 0, 36, 0, 0, 0, 0, 0, 0, 0, 0],
    ]
    # O has borne everything off, X has a checker on its ace and one on the bar: c =
    # 24, so break_contact sums over 25..24 (nothing) and free_pips over 0..23 (the
    # bar is in neither): 0 and 1. back_checker 25; one blot (the ace checker; the
    # bar is not a point); pips 26; timing: the bar checker is 19 pips from
    # home; escape_back 36 (back <= c); back_count 1. O, with nothing: c = -1
    # (X on the bar), every sum empty, escape_back 36.
    b = board(me={1: 1, "bar": 1}, opp={})
    assert F.contact_features(b).tolist() == [
        [25, 0, 0, 0, 0, 0, 1, 26, 0, 1, 19, 36, 0, 0, 0, 0, 0, 0, 0, 1],
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 36, 0, 0, 0, 0, 0, 0, 0, 0],
    ]


# -------------------------------------------------------------------- properties


@settings(max_examples=150, deadline=None)
@given(boards())
def test_features_are_symmetric(b):
    f = F.contact_features(b)
    assert np.array_equal(F.contact_features(swap(b)), f[::-1])
    for side in (0, 1):
        assert F.shots(b, side) == tuple(f[side, 16:19].tolist())


@settings(max_examples=150, deadline=None)
@given(boards())
def test_feature_ranges(b):
    f = F.contact_features(b)
    assert (f >= 0).all()
    for side in (0, 1):
        n = dict(zip(F.FEATURE_NAMES, f[side].tolist()))
        assert n["pips"] == pip_counts(b)[side]
        assert n["back_count"] <= 15 and n["blots"] <= 15
        for name in ("escape_back", "containment", "enter_fail", "enter_fail2", "shots"):
            assert n[name] <= 36, name
        assert n["double_shots"] <= n["shots"]
        assert n["pip_loss"] <= 24 * n["shots"]  # a blot on the ace point loses 24
        assert n["containment_sq"] == n["containment"] ** 2
        assert n["anchors_back"] <= 6 and n["forward_anchor"] <= 6
        assert n["prime"] <= n["back_anchor"]


@settings(max_examples=60, deadline=None)
@given(boards())
def test_every_legal_hit_is_counted(b):
    # The shots rules ignore legality and the choice of play, so they may count hits
    # no legal play makes; but with nobody on the hitter's bar every blot a legal
    # play of the other side actually hits must be among the blots the rules hit.
    assume(b[:, 24].min() == 0)
    for side in (0, 1):
        if b[1 - side, 24]:
            continue  # the rules let only the bar checker hit
        # The hitter on roll: side 0's blots are hit by side 1 moving in swap(b).
        mover_first = swap(b) if side == 0 else b
        blots = [y for y in range(24) if b[side, y] == 1]
        for d1, d2 in ROLLS36:
            hit = set()
            for p in legal_plays(mover_first, d1, d2):
                hit |= {y for y in blots if p[1, y] == 0}
            assert hit <= F.blots_hit(b, side, d1, d2), (side, d1, d2)


# ---------------------------------------------------------------------- inputs


@settings(max_examples=100, deadline=None)
@given(boards())
def test_contact_inputs(b):
    x = F.contact_inputs(b)
    assert x.shape == (F.CONTACT_INPUTS,) == (252,) and x.dtype == np.float64
    assert np.isfinite(x).all() and (x >= 0).all()
    assert np.array_equal(x[:196], encode(b))
    f = F.contact_features(b)
    assert np.array_equal(x[196:216], f[0] / F.FEATURE_DENOMINATORS)
    assert np.array_equal(x[216:236], f[1] / F.FEATURE_DENOMINATORS)
    e = F.extra_features(b)
    assert np.array_equal(x[236:244], e[0] / F.EXTRA_FEATURE_DENOMINATORS)
    assert np.array_equal(x[244:], e[1] / F.EXTRA_FEATURE_DENOMINATORS)


def test_contact_inputs_of_the_start():
    x = F.contact_inputs(START_BOARD)
    # pips 167 / 167 and containment_sq 1296 / 1296 are exactly 1.
    assert x[196 + I["pips"]] == 1.0 and x[216 + I["containment_sq"]] == 1.0
    assert x[196 + I["timing"]] == 23 / 100 and x[196 + I["back_count"]] == 7 / 15


def test_race_inputs_by_hand():
    #   24 23 22 21 20 19 18 17 16 15 14 13 | 12 11 10  9  8  7  6  5  4  3  2  1
    #                                  O    |              X                    X
    #                                  1    |              2                    3
    # X has 10 off, O 14.
    b = board(me={1: 3, 8: 2}, opp={14: 1})
    x = F.race_inputs(b)
    assert x.shape == (F.RACE_INPUTS,) == (226,) and x.dtype == np.float64
    want = np.zeros(226)
    want[0:3] = 1.0            # 3 on index 0: n >= 1, 2, 3; (n - 3) / 2 = 0
    want[28:30] = 1.0          # 2 on index 7
    want[96 + 10] = 1.0        # 10 off
    want[111] = (3 * 0 + 2 * 1) / 60    # crossovers: index 7 is in the second quarter
    want[112] = (3 * 1 + 2 * 8) / 167   # 19 pips
    # O in its own frame: X's 14-point is O's 11-point, index 10.
    want[113 + 40] = 1.0
    want[113 + 96 + 14] = 1.0
    want[113 + 111] = 1 / 60           # 10 // 6 = 1
    want[113 + 112] = 11 / 167
    assert np.array_equal(x, want)


def test_race_inputs_stacks_and_bar():
    # 5 on the 6-point gives (5 - 3) / 2 = 1.0; a checker on the bar counts 4
    # crossovers and 25 pips (docs/evaluator.md); no checker off: unit 96 + 0.
    b = board(me={6: 5, "bar": 1}, opp={1: 2})
    x = F.race_inputs(b)
    assert x[20:24].tolist() == [1.0, 1.0, 1.0, 1.0]
    assert x[96 + 9] == 1.0 and x[96:111].sum() == 1.0  # 9 off
    assert x[111] == (5 * 0 + 1 * 4) / 60 and x[112] == (5 * 6 + 25) / 167


@settings(max_examples=100, deadline=None)
@given(race_boards())
def test_race_inputs_shape_and_range(b):
    x = F.race_inputs(b)
    assert np.isfinite(x).all() and (x >= 0).all()
    for s in (0, 1):
        side = x[113 * s:113 * s + 113]
        assert np.array_equal(side[:96], encode(b)[98 * s:98 * s + 96])
        assert side[96:111].sum() == (1.0 if b[s].sum() > 0 else 0.0)
        assert side[112] == pip_counts(b)[s] / 167


def test_batches():
    rng = np.random.default_rng(7)
    bs = [START_BOARD, PRIME, BACKGAME, BAR]
    bs = np.array([bs[k] for k in rng.integers(0, 4, 9)], dtype=np.int8)
    c = F.contact_inputs_many(bs)
    r = F.race_inputs_many(bs)
    e = F.extra_features_many(bs)
    assert c.shape == (9, 252) and r.shape == (9, 226) and e.shape == (9, 2, 8)
    for k in range(9):
        assert np.array_equal(c[k], F.contact_inputs(bs[k]))
        assert np.array_equal(r[k], F.race_inputs(bs[k]))
        assert np.array_equal(e[k], F.extra_features(bs[k]))
    assert F.contact_inputs_many(np.zeros((0, 2, 25), np.int8)).shape == (0, 252)
    assert F.extra_features_many(np.zeros((0, 2, 25), np.int8)).shape == (0, 2, 8)
    assert F.race_inputs_many(np.zeros((0, 2, 25), np.int8)).shape == (0, 226)
    with pytest.raises(ValueError):
        F.contact_inputs_many(START_BOARD)


# -------------------------------------------------------------- position class


@pytest.mark.parametrize("b, cls", [
    (START_BOARD, "contact"),
    (PRIME, "contact"),
    (BAR, "contact"),
    # Both sides home: the bear-off database.
    (board(me={1: 3, 6: 2}, opp={24: 4, 19: 1}), "bearoff"),
    # Passed each other, X not yet home: a race.
    (board(me={1: 3, 8: 2}, opp={14: 1}), "race"),
    # X otherwise home, but its bar checker must come round past O's: contact.
    (board(me={1: 3, "bar": 1}, opp={24: 2}), "contact"),
    # One side has borne off everything: over (before the bear-off test).
    (board(me={}, opp={24: 2}), "over"),
    (board(me={1: 1}, opp={}), "over"),
    # Crashed but still in contact.
    (board(me={1: 5, 2: 5, 3: 4, 24: 1}, opp={22: 2, 20: 2}), "contact"),
])
def test_position_class(b, cls):
    assert F.position_class(b) == cls


# ------------------------------------------------------------------ validation


@pytest.mark.parametrize("fn", [
    F.contact_features, F.extra_features, F.contact_inputs, F.race_inputs, F.position_class,
    lambda b: F.shots(b, 0),
])
def test_invalid_boards_are_rejected(fn):
    both = START_BOARD.copy()
    both[1, 23 - 5] = 1  # on X's 6-point, which X holds
    for bad in (np.zeros((2, 24), np.int8), np.full((2, 25), 1, np.int8), both,
                START_BOARD.astype(float)):
        with pytest.raises(ValueError):
            fn(bad)


def test_bad_side_and_dice():
    with pytest.raises(ValueError):
        F.shots(START_BOARD, 2)
    with pytest.raises(ValueError):
        F.blots_hit(START_BOARD, 0, 0, 3)
    with pytest.raises(ValueError):
        F.blots_hit(START_BOARD, 0, 7, 3)


def test_inputs_do_not_modify_the_board():
    b = BACKGAME.copy()
    for fn in (F.contact_features, F.extra_features, F.contact_inputs, F.race_inputs,
               F.position_class):
        fn(b)
    F.shots(b, 1)
    assert np.array_equal(b, BACKGAME)



# ------------------------------------------------------------ blot features


@pytest.mark.parametrize("engine_features", ["reference", "cython"])
def test_blot_features_by_hand(engine_features):
    Fx = F if engine_features == "reference" else pytest.importorskip(
        "fastbg._core.features", reason="Cython core not built")
    # X: three on its 1-point (12 off); O: one on the bar, 14 on O's 1-point (X's 24).
    # A non-double bears two off and leaves a blot on the 1-point, which O's bar checker
    # hits by entering with any 1 (11 rolls); a double bears all three off (no shot).
    b = board({1: 3}, {"bar": 1, 24: 14})
    f = Fx.blot_features(b)
    assert f.dtype == np.int64 and f.shape == (2, F.N_BLOT_FEATURES)
    assert f[0].tolist() == [30, 30, 1, 30 * 11, 30 * 11]
    assert f[1].tolist() == [0] * 5          # O has a checker on the bar: not bearing off
    # X: one on its 1-point and one on its 2-point: every roll bears both off (the larger
    # die the 2-point's, the other the 1-point's; 1-1 too): bearing off, no shot ever
    assert Fx.blot_features(board({1: 1, 2: 1}, {"bar": 1, 24: 14}))[0].tolist() == [0, 0, 1, 0, 0]
    # no contact (O all home past X): not bearing off against contact
    assert not Fx.blot_features(board({1: 3}, {24: 15})).any()
    # side 1 is side 0 of the swapped board
    assert np.array_equal(Fx.blot_features(swap(b))[1], f[0])


def test_blot_feature_table_is_the_spec():
    rows = re.findall(r"^\| b(\d) \| `(\w+)` \| .* \| (\d+) \|$", SPEC.read_text(), re.M)
    assert [int(r[0]) for r in rows] == list(range(F.N_BLOT_FEATURES))
    assert F.BLOT_FEATURE_NAMES == tuple(r[1] for r in rows)
    assert F.BLOT_FEATURE_DENOMINATORS.tolist() == [int(r[2]) for r in rows]


def test_blot_features_depend_only_on_the_home_board_and_the_checkers_in_it():
    # The compiled evaluator memoizes a side's blot numerators by its home board and the
    # other side's checkers on the bar and in that home board (features.pxd,
    # blot_features_c): moving the other side's remaining checkers must not change them.
    rng = np.random.default_rng(5)
    checked = 0
    while checked < 60:
        b = bear_off_against_contact(rng, home=(2, 9), contact=(1, 7), rest=False)
        f = F.blot_features(b)[0]
        if not f[2]:
            continue
        for _ in range(3):              # the other 10 to 12 checkers elsewhere, at random
            c = b.copy()
            for _ in range(15 - int(c[1].sum()) - int(rng.integers(0, 3))):
                c[1, rng.integers(0, 18)] += 1
            assert np.array_equal(F.blot_features(c)[0], f), c
        # nor do more checkers where there are 2 on a point or 4 on the bar
        # (features.pyx, _blot_key caps them there)
        for i in [24] + list(range(18, 24)):
            if b[1, i] >= (4 if i == 24 else 2) and b[1].sum() < 15:
                c = b.copy()
                c[1, i] += 1
                assert np.array_equal(F.blot_features(c)[0], f), c
        checked += 1
