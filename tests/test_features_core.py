"""The Cython core's evaluator features (fastbg._core.features, docs/evaluator.md).

Hand-made positions whose numbers are worked out in the comments, the escape table
against a search over the dice orders, the shots against a literal transcription of
the rules, the symmetry of the two sides, the dense inputs and the batch functions.
Boards are drawn from side 0's view (row 0 on roll); "idx" is a row index (point - 1),
and "s-frame" the other side's checkers counted in side 0's numbering (23 - j).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastbg.reference.board import START_BOARD, swap

from strategies import boards

F = pytest.importorskip("fastbg._core.features", reason="Cython core not built")
cnn = pytest.importorskip("fastbg._core.nn", reason="Cython core not built")
cmg = pytest.importorskip("fastbg._core.movegen", reason="Cython core not built")


def board_of(side0: dict[int, int], side1: dict[int, int]) -> np.ndarray:
    """A board from {index: count} of each side, each in its own numbering."""
    b = np.zeros((2, 25), dtype=np.int8)
    for s, row in enumerate((side0, side1)):
        for i, n in row.items():
            b[s, i] = n
    assert b[0].sum() <= 15 and b[1].sum() <= 15
    return b


def feats(b) -> list[dict[str, int]]:
    f = F.contact_features(b)
    return [dict(zip(F.FEATURE_NAMES, map(int, row))) for row in f]


# ---------------------------------------------------------------- the API


def test_constants():
    assert F.N_FEATURES == 20 and len(F.FEATURE_NAMES) == 20
    assert F.FEATURE_NAMES[0] == "back_checker" and F.FEATURE_NAMES[-1] == "back_count"
    assert F.FEATURE_DENOMINATORS.dtype == np.int64 and F.FEATURE_DENOMINATORS.shape == (20,)
    assert F.FEATURE_DENOMINATORS.tolist() == [
        25, 24, 6, 2, 6, 6, 6, 167, 167, 100, 100, 36, 36, 1296, 36, 36, 36, 36, 3600, 15]
    assert F.ESCAPE_TABLE.shape == (4096,) and F.ESCAPE_TABLE.dtype == np.int8 and F.ESCAPE_BITS == 12
    with pytest.raises(ValueError):
        F.FEATURE_DENOMINATORS[0] = 1       # read-only
    with pytest.raises(ValueError):
        F.ESCAPE_TABLE[0] = 1


# ---------------------------------------------------------------- the escape table


def escapes_by_search(mask: int) -> int:
    """E(mask) by trying every order of the dice step by step (a different algorithm)."""
    blocked = {k + 1 for k in range(12) if mask >> k & 1}
    far = max(blocked, default=0)

    def passes(pos: int, dice: tuple[int, ...]) -> bool:
        if pos > far:
            return True
        for i, d in enumerate(dice):
            p = pos + d
            if p not in blocked and passes(p, dice[:i] + dice[i + 1:]):
                return True
        return False

    return sum(passes(0, (a, a, a, a) if a == b else (a, b))
               for a in range(1, 7) for b in range(1, 7))


def test_escape_table_is_its_definition():
    table = F.ESCAPE_TABLE
    assert [escapes_by_search(m) for m in range(4096)] == table.tolist()
    assert all(F.escapes(m) == table[m] for m in (0, 1, 63, 4095, 0b101010101010))


def test_escape_table_basic_values():
    E = F.escapes
    assert E(0) == 36
    assert E(1) == 35           # a point 1 ahead: only 1-1 stays behind it
    assert E(0b111111) == 0     # six points in a row directly ahead: a full prime
    assert E(0b111111 << 1) == 0    # the prime one pip further: 1s then 2s are blocked too
    # Only the point 12 ahead: no non-double reaches 13; 3-3 (3, 6, 9, 12), 4-4 (4, 8, 12)
    # and 6-6 (6, 12) land on it; 5-5 passes (5, 10, 15).
    assert E(1 << 11) == 1
    # Only the point 6 ahead: the 9 non-doubles summing to 7 or more (18 ordered rolls;
    # each has a die other than 6 to play first), and 4-4, 5-5 (2-2 and 3-3 land on 6).
    assert E(1 << 5) == 20
    # Points 1..4 ahead: a 5 or a 6 alone (9 non-doubles: 18 rolls) and 5-5, 6-6.
    assert E(0b1111) == 20


def test_escape_table_is_monotone():
    t = F.ESCAPE_TABLE
    assert t.min() == 0 and t.max() == 36 and (t[1:] < 36).all()
    for k in range(12):
        m = np.arange(4096)
        assert (t[m | (1 << k)] <= t[m]).all()      # another blocked point never helps


@pytest.mark.parametrize("bad", [-1, 4096, 1.0, True, "3"])
def test_escapes_refuses_bad_masks(bad):
    with pytest.raises(ValueError, match="escape mask"):
        F.escapes(bad)


# ---------------------------------------------------------------- hand-made positions


def test_start_position():
    # Both sides: 2 on idx 23, 5 on 12, 3 on 7, 5 on 5. The opponent's rearmost checker
    # is on its idx 23 = our idx 0, so c = 0.
    f = F.contact_features(START_BOARD)
    expected = dict(
        back_checker=24, back_anchor=24, forward_anchor=1, anchors_back=1, prime=1,
        home_points=1, blots=0, pips=167,
        break_contact=152,      # sum n[i] * (i - 0) = 167 - 15
        free_pips=0,            # nothing below c = 0
        # outside the home board: 3 x 2 + 5 x 7 + 2 x 18 = 77, minus the three points
        # held, 2 x (2 + 7 + 18) = 54
        timing=23,
        # the back checker (idx 23) faces the opponent's points at our idx 18 (bit 4),
        # 16 (bit 6) and 11 (bit 11, its midpoint 12 pips ahead): to pass 12 pips a
        # double is needed, and 3-3, 4-4, 6-6 land on 12, 5-5 on 5
        escape_back=0,
        containment=36, containment_sq=1296,    # the same mask, mirrored
        enter_fail=0, enter_fail2=0, shots=0, double_shots=0, pip_loss=0,
        back_count=7,           # 5 on idx 12 and 2 on idx 23
    )
    assert f.dtype == np.int64 and f.shape == (2, 20)
    assert feats(START_BOARD) == [expected, expected]


def test_a_six_prime():
    #   side 0: 2 each on idx 3..8 (points 4 to 9: a full prime), 3 on idx 12
    #   side 1: 4 on its idx 0 (our 23), 4 on its 4 (our 19), 5 on its 5 (our 18),
    #           2 on its 23 (our idx 0: trapped behind the prime)
    b = board_of({3: 2, 4: 2, 5: 2, 6: 2, 7: 2, 8: 2, 12: 3}, {0: 4, 4: 4, 5: 5, 23: 2})
    s0, s1 = feats(b)
    assert s0 == dict(
        back_checker=13, back_anchor=13,     # the 3 on idx 12 hold a point
        forward_anchor=0, anchors_back=0, prime=6,
        home_points=3, blots=0,
        pips=117,               # 2 x (4 + ... + 9) + 3 x 13
        break_contact=102,      # c = 0: 117 - 15
        free_pips=0,
        timing=7,               # 2 x (1 + 2 + 3) + 3 x 7 = 33, minus 2 x (1 + 2 + 3 + 7)
        # the back checker (idx 12) faces the opponent's only point at our idx 0 (bit 11)
        escape_back=1,
        # the trapped checkers (their idx 23, j = 23) face points 3..8 ahead (and 12):
        # 1s and 2s can be played but never reach 13
        containment=36, containment_sq=1296,
        enter_fail=0, enter_fail2=0, shots=0, double_shots=0, pip_loss=0,
        back_count=3,
    )
    assert s1 == dict(
        back_checker=24, back_anchor=24, forward_anchor=1, anchors_back=1,
        prime=2,                # idx 4 and 5
        home_points=3,          # idx 0, 4, 5
        blots=0,
        pips=102,               # 4 + 4 x 5 + 5 x 6 + 2 x 24
        # side 0's rearmost checker is on its idx 12: c = 11 in side 1's frame
        break_contact=24,       # 2 x (23 - 11)
        free_pips=54,           # 4 + 20 + 30
        timing=0,               # only the anchor is outside: 2 x 18 - 2 x 18
        # the back checkers (idx 23) face the prime at side 1's idx 20..15 (bits 2..7)
        # and idx 11 (bit 11): only 1s and 2s can be played, and they never pass
        escape_back=0,
        # side 1's points idx 0, 4, 5 against a side-0 checker on the bar (j = 24,
        # mask bits 0, 4, 5): first dice 2, 3, 4 only; (2,5) (2,6) (3,4) (3,5) (3,6)
        # (4,5) (4,6) = 14 ordered rolls, and 4-4 (4, 8): 15 escape, the least over j
        containment=21, containment_sq=441,
        enter_fail=0, enter_fail2=0, shots=0, double_shots=0, pip_loss=0,
        back_count=2,
    )


def test_bar_against_a_four_point_board():
    #   side 0: 2 on the bar, 5 on idx 5, 3 on idx 7, 5 on idx 12
    #   side 1: 2 each on its idx 0..3 (its points 1 to 4: four closed home points),
    #           7 on its idx 12 (our idx 11)
    b = board_of({24: 2, 5: 5, 7: 3, 12: 5}, {0: 2, 1: 2, 2: 2, 3: 2, 12: 7})
    s0, s1 = feats(b)
    assert s0["back_checker"] == 25
    assert s0["enter_fail"] == 16            # h = 4: 4 x 4 rolls enter nothing
    assert s0["enter_fail2"] == 36 - 2 * 2   # only rolls of two open numbers enter both
    # From the bar (back = 24, c = 11) the points 1..4 ahead are closed: a 5 or a 6 alone
    # (18 rolls), and 5-5, 6-6.
    assert s0["escape_back"] == 20
    assert s0["back_count"] == 7             # 5 on idx 12 and the 2 on the bar
    assert s0["pips"] == 2 * 25 + 5 * 6 + 3 * 8 + 5 * 13
    assert s0["break_contact"] == 2 * 13 + 5 * 1     # i - c for the bar and idx 12
    assert s0["free_pips"] == 5 * 6 + 3 * 8
    assert s0["timing"] == max(0, 3 * 2 + 5 * 7 + 2 * 19 - 2 * (2 + 7))
    assert s1["home_points"] == 4 and s1["prime"] == 4 and s1["enter_fail"] == 0
    # one on the bar only: enter_fail counts, enter_fail2 does not
    b1 = board_of({24: 1, 5: 6, 7: 3, 12: 5}, {0: 2, 1: 2, 2: 2, 3: 2, 12: 7})
    assert (feats(b1)[0]["enter_fail"], feats(b1)[0]["enter_fail2"]) == (16, 0)


def test_direct_and_combination_shots_with_blocks():
    #   side 0: 9 on idx 0, 2 on idx 7, 2 on idx 8, blots on idx 10 and idx 13
    #   side 1: one hitter on its idx 18 (x = 5 in our frame), 14 on its idx 0 (our 23,
    #           past both blots)
    # To the blot on idx 10 (d = 5): every roll with a 5 (11) and 1-4 (2; 2-3 is not a
    # shot: x + 2 = 7 and x + 3 = 8 are both blocked), 13 rolls. To idx 13 (d = 8): 2-6
    # (via 11; not via 7), 3-5 (via 10), 4-4 (via 9), 5 rolls; 2-2 would stop on 7.
    # 3-5 hits both: 13 + 5 - 2 = 16 rolls, 2 of them double shots.
    # Pip loss: 13 rolls lose 24 - 10 = 14 pips, the three others 24 - 13 = 11.
    b = board_of({0: 9, 7: 2, 8: 2, 10: 1, 13: 1}, {18: 1, 0: 14})
    assert F.shots(b, 0) == (16, 2, 13 * 14 + 3 * 11)
    s0, s1 = feats(b)
    assert (s0["shots"], s0["double_shots"], s0["pip_loss"], s0["blots"]) == (16, 2, 215, 2)
    assert s1["blots"] == 1 and F.shots(b, 1)[0] == s1["shots"]
    # Each blot alone.
    assert F.shots(board_of({0: 10, 7: 2, 8: 2, 10: 1}, {18: 1, 0: 14}), 0) == (13, 0, 13 * 14)
    assert F.shots(board_of({0: 12, 7: 2, 13: 1}, {18: 1, 0: 14}), 0) == (5, 0, 5 * 11)


def test_no_shot_from_a_hitter_past_the_blot():
    # The opponent's checkers are all past our blot (x >= y): nothing hits.
    b = board_of({2: 1, 0: 14}, {0: 15})     # our blot on idx 2, theirs on our idx 23
    assert F.shots(b, 0) == (0, 0, 0)


def test_bar_hitter_rule():
    #   side 0: blots on idx 2 and idx 11, 13 on idx 5 (blocked)
    #   side 1: B on its bar (x = -1), one checker on its idx 13 (x = 10: one pip behind
    #           our blot on idx 11, but it may not move while B >= 1), the rest on its idx 0
    # B = 1: to idx 2 (d = 3) every roll with a 3 (11), 1-2 via idx 0 (2) and 1-1 (idx 0,
    # 1, 2); to idx 11 (d = 12) only 4-4 (idx 3, 7; 3-3 and 6-6 stop on the block at 5):
    # 15 rolls, 14 x (24 - 2) + 1 x (24 - 11) = 321 pips.
    def pos(bar: int) -> np.ndarray:
        return board_of({2: 1, 11: 1, 5: 13}, {24: bar, 13: 1, 0: 14 - bar})

    assert F.shots(pos(1), 0) == (15, 0, 14 * 22 + 13)
    # B = 2: non-doubles hit directly only (1-2 no longer), doubles have K = 3 steps
    # (1-1 still hits idx 2, 4-4 still reaches idx 11).
    assert F.shots(pos(2), 0) == (13, 0, 12 * 22 + 13)
    # B = 4: K = 1, direct shots only: the 11 rolls with a 3.
    assert F.shots(pos(4), 0) == (11, 0, 11 * 22)
    # B = 5: K <= 0, but the entering checkers still land on x + e: the direct shots
    # count (docs/evaluator.md, clarified).
    assert F.shots(pos(5), 0) == (11, 0, 11 * 22)
    # Without the bar checker, the checker on x = 10 hits idx 11 with every 1 (11 rolls;
    # nothing is behind idx 2 any more).
    free = board_of({2: 1, 11: 1, 5: 13}, {13: 1, 0: 14})
    assert F.shots(free, 0) == (11, 0, 11 * 13)


def test_forward_anchor_and_containment_counting():
    # Side 0 holds the opponent's 5-point (our idx 19) and 2-point (our idx 22).
    b = board_of({19: 2, 22: 2, 5: 11}, {0: 15})
    s0 = feats(b)[0]
    assert (s0["forward_anchor"], s0["anchors_back"], s0["back_anchor"]) == (5, 2, 23)
    # c = 23 - 0 = 23: our checkers on idx 0..22 are past every opponent checker
    assert (s0["break_contact"], s0["free_pips"]) == (0, s0["pips"])
    assert s0["escape_back"] == 36   # back = 22 <= c: nothing to pass


def test_position_classes():
    assert F.position_class(START_BOARD) == "contact"
    race = board_of({0: 5, 10: 5}, {0: 5, 11: 5})   # our idx 10 vs their idx 11 = our 12
    assert F.position_class(race) == "race"
    assert F.position_class(board_of({0: 5, 5: 5}, {2: 3})) == "bearoff"
    assert F.position_class(board_of({0: 5, 10: 5}, {})) == "over"
    assert F.position_class(board_of({}, {0: 1})) == "over"
    # a bar checker is contact, even against a side entirely in its home board
    assert F.position_class(board_of({24: 1}, {0: 2})) == "contact"


# ---------------------------------------------------------------- the rules, literally


def shots_literal(b: np.ndarray, s: int) -> tuple[int, int, int]:
    """docs/evaluator.md's "Shots", transcribed hitter by hitter (slow, obvious)."""
    n, o = b[s].astype(int), b[1 - s].astype(int)
    blots = [y for y in range(24) if n[y] == 1]
    blocked = {i for i in range(24) if n[i] >= 2}
    nbar = o[24]
    hitters = [-1] if nbar else [23 - j for j in range(24) if o[j] > 0]
    tot = dbl = loss = 0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            hit = set()
            for x in hitters:
                for y in blots:
                    d = y - x
                    if d <= 0:
                        continue
                    ok = d in (d1, d2)
                    if d1 != d2 and d == d1 + d2 and not (x == -1 and nbar >= 2):
                        ok |= (x + d1) not in blocked or (x + d2) not in blocked
                    if d1 == d2:
                        kmax = 4 if x >= 0 else 5 - nbar
                        for k in range(1, kmax + 1):
                            if d == k * d1 and all(x + m * d1 not in blocked
                                                   for m in range(1, k)):
                                ok = True
                    if ok:
                        hit.add(y)
            tot += bool(hit)
            dbl += len(hit) >= 2
            loss += max((24 - y for y in hit), default=0)
    return tot, dbl, loss


@settings(max_examples=400, deadline=None)
@given(boards())
def test_shots_match_the_literal_rules(b):
    for s in (0, 1):
        assert F.shots(b, s) == shots_literal(b, s)


@settings(max_examples=300, deadline=None)
@given(boards())
def test_swap_exchanges_the_rows(b):
    f = F.contact_features(b)
    assert np.array_equal(F.contact_features(swap(b)), f[::-1])
    assert f[0, 16:19].tolist() == list(F.shots(b, 0))
    assert f[1, 16:19].tolist() == list(F.shots(b, 1))
    assert f[:, 13].tolist() == (f[:, 12] ** 2).tolist()
    assert (f >= 0).all()


# ---------------------------------------------------------------- inputs and batches


@settings(max_examples=200, deadline=None)
@given(boards())
def test_contact_inputs_layout(b):
    x = F.contact_inputs(b)
    assert x.dtype == np.float64 and x.shape == (F.CONTACT_INPUTS,) == (252,)
    assert F.LEGACY_CONTACT_INPUTS == 236
    assert np.array_equal(x[:196], cnn.encode_board(b))
    f = F.contact_features(b)
    assert np.array_equal(x[196:216], f[0] / F.FEATURE_DENOMINATORS)
    assert np.array_equal(x[216:236], f[1] / F.FEATURE_DENOMINATORS)
    e = F.extra_features(b)
    assert np.array_equal(x[236:244], e[0] / F.EXTRA_FEATURE_DENOMINATORS)
    assert np.array_equal(x[244:], e[1] / F.EXTRA_FEATURE_DENOMINATORS)


@settings(max_examples=200, deadline=None)
@given(boards())
def test_race_inputs_layout(b):
    x = F.race_inputs(b)
    assert x.dtype == np.float64 and x.shape == (226,)
    units = cnn.encode_board(b).reshape(2, 98)[:, :96]
    for s in (0, 1):
        side = x[113 * s: 113 * (s + 1)]
        assert np.array_equal(side[:96], units[s])
        off = 15 - int(b[s].sum())
        assert side[96:111].tolist() == [float(off == k) for k in range(15)]
        cross = sum(int(b[s, i]) * (i // 6) for i in range(25))
        pips = sum(int(b[s, i]) * (i + 1) for i in range(25))
        assert side[111] == cross / 60 and side[112] == pips / 167


def test_race_inputs_of_the_start():
    x = F.race_inputs(START_BOARD)
    # crossovers: 3 on idx 7 (1 each), 5 on idx 12 (2 each), 2 on idx 23 (3 each)
    assert x[111] == 19 / 60 and x[112] == 1.0 and x[96] == 1.0
    assert x[113 + 111] == 19 / 60
    # the bar counts 4 crossovers
    assert F.race_inputs(board_of({24: 1}, {0: 1}))[111] == 4 / 60


@settings(max_examples=150, deadline=None)
@given(boards(), st.integers(1, 6), st.integers(1, 6))
def test_features_given_the_same_row_0(b, d1, d2):
    # The evaluator computes a candidate's numerators from those of the position before
    # the roll (both swapped: the opponent in row 0) when the play hits nothing, copying
    # the opponent's features that read only its own row. Every such play of a roll:
    before = swap(b)
    for play in cmg.legal_plays(b, d1, d2):
        after = swap(play)
        if not np.array_equal(after[0], before[0]):
            continue                        # a hit changed the opponent's row
        full = np.concatenate([F.contact_features(after).ravel(), F.extra_features(after).ravel()])
        assert np.array_equal(F.contact_features_given(after, before), full[:40])
        assert np.array_equal(F.contact_features_given(after, before, extra=True), full)
    with pytest.raises(ValueError, match="rows 0 differ"):
        F.contact_features_given(board_of({5: 2}, {5: 1}), board_of({5: 1}, {5: 1}))


def test_many_equal_one_by_one():
    rng = np.random.default_rng(3)
    bs = [np.array(START_BOARD)]
    for _ in range(300):        # random valid boards: side 1 on points side 0 left free
        b = np.zeros((2, 25), np.int8)
        for _ in range(rng.integers(1, 16)):
            b[0, rng.integers(25)] += 1
        free = [j for j in range(24) if b[0, 23 - j] == 0] + [24]
        for _ in range(rng.integers(1, 16)):
            b[1, rng.choice(free)] += 1
        bs.append(b)
    arr = np.array(bs, dtype=np.int8)
    cf = F.contact_features_many(arr)
    xf = F.extra_features_many(arr)
    ci = F.contact_inputs_many(arr)
    ri = F.race_inputs_many(arr)
    assert cf.shape == (len(bs), 2, 20) and cf.dtype == np.int64
    assert xf.shape == (len(bs), 2, 8) and xf.dtype == np.int64
    assert ci.shape == (len(bs), 252) and ri.shape == (len(bs), 226)
    for k, b in enumerate(bs):
        assert np.array_equal(cf[k], F.contact_features(b))
        assert np.array_equal(xf[k], F.extra_features(b))
        assert np.array_equal(ci[k], F.contact_inputs(b))
        assert np.array_equal(ri[k], F.race_inputs(b))
    # any integer dtype and layout; an empty batch
    assert np.array_equal(F.contact_features_many(arr.astype(np.int64)[::1]), cf)
    assert np.array_equal(F.contact_features_many(np.asfortranarray(arr)), cf)
    assert F.contact_features_many(np.zeros((0, 2, 25), np.int8)).shape == (0, 2, 20)
    assert F.extra_features_many(np.zeros((0, 2, 25), np.int8)).shape == (0, 2, 8)


def test_many_refuse_bad_boards():
    good = np.array([START_BOARD, START_BOARD], dtype=np.int8)
    for fn in (F.contact_features_many, F.extra_features_many, F.contact_inputs_many,
               F.race_inputs_many):
        with pytest.raises(ValueError, match="shape"):
            fn(good[0])
        bad = good.copy()
        bad[1, 0, 0] = 1        # 16 checkers
        with pytest.raises(ValueError, match="board 1: .*16 checkers"):
            fn(bad)
        bad = good.copy()
        bad[0, 0, 5] -= 1
        bad[0, 0, 0] = 1        # row 0's idx 0 faces row 1's idx 23 (2 checkers)
        with pytest.raises(ValueError, match="board 0: .*held by both sides"):
            fn(bad)
        wrap = good.astype(np.int64)
        wrap[1, 0, 0] = 256     # would be 0 as int8: must be refused, not wrapped
        with pytest.raises(ValueError, match="board 1"):
            fn(wrap)
        neg = good.copy()
        neg[0, 1, 3] = -1
        with pytest.raises(ValueError, match="board 0: negative"):
            fn(neg)
        with pytest.raises(ValueError, match="integers"):
            fn(good.astype(bool))


def test_single_board_functions_validate():
    bad = np.array(START_BOARD, dtype=np.int8)
    bad[0, 0] = 1
    for fn in (F.contact_features, F.extra_features, F.contact_inputs, F.race_inputs,
               F.position_class):
        with pytest.raises(ValueError, match="16 checkers"):
            fn(bad)
    with pytest.raises(ValueError, match="side"):
        F.shots(START_BOARD, 2)
