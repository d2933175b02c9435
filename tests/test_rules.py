"""Scenario tests for every rule of DESIGN section 3, on both engines.

Each test draws the relevant part of the board from the mover's side: X are the
mover's checkers, O the opponent's, a number under a point counts the checkers
there, and X moves from high points to low (bar = 25, off = 0). Every test lists
the FULL set of resulting positions (mover's frame, rows not swapped), written
with :func:`scenario.board` in the mover's numbering.
"""
from __future__ import annotations

import numpy as np
import pytest

from scenario import assert_plays, board

ALL_ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]


# --------------------------------------------------------------- 3.1 dice


def test_each_die_is_a_separate_move(engine):
    #   24 23 22 21 20 19 18 17 16 15 14 13 12 11 10  9  8  7   roll 6-5
    #    X                 X
    # 24/18/13 and 24/18 18/13 end the same; 18/12/7; 24/19 18/12.
    start = board(me={24: 1, 18: 1}, opp={1: 2})
    assert_plays(engine, start, 6, 5, [
        board(me={18: 1, 13: 1}, opp={1: 2}),
        board(me={24: 1, 7: 1}, opp={1: 2}),
        board(me={19: 1, 12: 1}, opp={1: 2}),
    ])


def test_doubles_give_four_moves(engine):
    #   24 23 22 21 20 19 18 17 16 15 14 13 12 11 10   roll 2-2
    #    X                 X
    # Four 2s split between the two checkers as 4+0, 3+1, 2+2, 1+3, 0+4; the
    # splits 3+1 and 4+0 end in the same position (one play).
    start = board(me={24: 1, 18: 1}, opp={1: 2})
    assert_plays(engine, start, 2, 2, [
        board(me={24: 1, 10: 1}, opp={1: 2}),
        board(me={22: 1, 12: 1}, opp={1: 2}),
        board(me={20: 1, 14: 1}, opp={1: 2}),
        board(me={18: 1, 16: 1}, opp={1: 2}),
    ])


# --------------------------------------------------------------- 3.2 landing


def test_blocked_points(engine):
    #   13 12 11 10  9  8  7  6  5  4  3   roll 6-3
    #    X           X     O  O
    #                      2  3
    # 13/7 is blocked (2 O), 9/6 is blocked (3 O); 13/10/4 goes round.
    start = board(me={13: 1, 9: 1}, opp={7: 2, 6: 3})
    assert_plays(engine, start, 6, 3, [
        board(me={10: 1, 3: 1}, opp={7: 2, 6: 3}),
        board(me={9: 1, 4: 1}, opp={7: 2, 6: 3}),
    ])


def test_hitting_a_blot(engine):
    #   13 12 11 10  9  8  7  6  5  4      roll 3-1       (O also has 2 on X's 24)
    #    X        O     X
    # 13/10* sends the blot to O's bar; 13/10*/9 and 13/12/9 are two plays.
    opp = {10: 1, 24: 2}
    hit = {"bar": 1, 24: 2}
    start = board(me={13: 1, 8: 1}, opp=opp)
    assert_plays(engine, start, 3, 1, [
        board(me={9: 1, 8: 1}, opp=hit),    # 13/10*/9
        board(me={9: 1, 8: 1}, opp=opp),    # 13/12/9
        board(me={10: 1, 7: 1}, opp=hit),   # 13/10* 8/7
        board(me={12: 1, 5: 1}, opp=opp),   # 13/12 8/5
        board(me={13: 1, 4: 1}, opp=opp),   # 8/4
    ])


@pytest.mark.parametrize(
    "opp, expected_me",
    [
        #   13 12 11 10  9   roll 3-1: 13/10 blocked, 13/12/9 is fine
        #    X        O
        #             2
        ({10: 2}, [{9: 1}]),
        #   13 12 11 10  9   roll 3-1: both first steps blocked, 9 is open but unreachable
        #    X  O     O
        #       2     2
        ({10: 2, 12: 2}, []),
    ],
)
def test_combined_move_needs_open_intermediate_points(engine, opp, expected_me):
    start = board(me={13: 1}, opp=opp)
    assert_plays(engine, start, 3, 1, [board(me=m, opp=opp) for m in expected_me])


def test_double_stops_at_a_blocked_intermediate_point(engine):
    #   13 12 11 10  9  8  7   roll 2-2: 13/11, then 11/9 is blocked: one 2 only
    #    X     .     O
    #                2
    start = board(me={13: 1}, opp={9: 2})
    assert_plays(engine, start, 2, 2, [board(me={11: 1}, opp={9: 2})])


# --------------------------------------------------------------- 3.3 the bar


def test_bar_checker_enters_before_anything_else(engine):
    #   bar | 24 23 22 21 20 19 | 18 ... 13   roll 6-4
    #    X  |           .     O |         X
    #       |                 2 |
    # The 6 cannot enter (19 blocked), the 4 can: bar/21, then a 6 for any checker.
    # 13/7 13/9 (a play without entering) is illegal.
    opp = {19: 2}
    start = board(me={"bar": 1, 13: 1}, opp=opp)
    assert_plays(engine, start, 6, 4, [
        board(me={15: 1, 13: 1}, opp=opp),  # bar/21/15
        board(me={21: 1, 7: 1}, opp=opp),   # bar/21 13/7
    ])


def test_entering_hits_a_blot(engine):
    #   bar | 24 23 22 21 20 19 | 18 ... 13   roll 6-4
    #    X  |           O     O |         X
    #       |           1     2 |
    opp = {21: 1, 19: 2}
    hit = {"bar": 1, 19: 2}
    start = board(me={"bar": 1, 13: 1}, opp=opp)
    assert_plays(engine, start, 6, 4, [
        board(me={15: 1, 13: 1}, opp=hit),  # bar/21*/15
        board(me={21: 1, 7: 1}, opp=hit),   # bar/21* 13/7
    ])


def test_cannot_enter_all_loses_the_rest_of_the_roll(engine):
    #   bar | 24 23 22 21 20 19 | 18 ... 13   roll 6-4
    #   XX  |           .     O |         X
    #       |                 2 |
    # bar/21; the second checker cannot enter with the 6, so the 6 is lost
    # (13/7 is not allowed while a checker is on the bar).
    opp = {19: 2}
    start = board(me={"bar": 2, 13: 1}, opp=opp)
    assert_plays(engine, start, 6, 4, [board(me={"bar": 1, 21: 1, 13: 1}, opp=opp)])


def test_cannot_enter_at_all_is_no_play(engine):
    #   bar | 24 23 22 21 20 19 | 18 ... 13   roll 6-4: both entry points blocked
    #    X  |           O     O |         X
    #       |           2     2 |
    start = board(me={"bar": 1, 13: 1}, opp={21: 2, 19: 2})
    assert_plays(engine, start, 6, 4, [])


# --------------------------------------------------------------- 3.4 use of the dice


def test_must_use_both_dice_when_possible(engine):
    #   12 11 10  9  8  7  6  5  4  3  2  1   roll 6-3
    #    X           X        O     O
    #                         2     2
    # 12/6 alone is a dead end (6/3 and 8/5 are blocked), so it is illegal:
    # 12/9 8/2 plays both dice.
    opp = {5: 2, 3: 2}
    start = board(me={12: 1, 8: 1}, opp=opp)
    assert_plays(engine, start, 6, 3, [board(me={9: 1, 2: 1}, opp=opp)])


def test_larger_die_when_only_one_can_be_played(engine):
    #   12 11 10  9  8  7  6  5  4  3  2  1   roll 6-3
    #    X           X        O     O  O
    #                         2     2  2
    # Either 12/6 or 12/9 can be played, never both dice: the 6 must be played.
    opp = {5: 2, 3: 2, 2: 2}
    start = board(me={12: 1, 8: 1}, opp=opp)
    assert_plays(engine, start, 6, 3, [board(me={6: 1, 8: 1}, opp=opp)])


def test_smaller_die_when_the_larger_cannot_be_played(engine):
    #   12 11 10  9  8  7  6  5  4  3  2  1   roll 6-3
    #    X           X     O  O     O  O
    #                      2  2     2  2
    # No 6 at all (12/6 and 8/2 blocked): the 3 is played, 12/9.
    opp = {6: 2, 5: 2, 3: 2, 2: 2}
    start = board(me={12: 1, 8: 1}, opp=opp)
    assert_plays(engine, start, 6, 3, [board(me={9: 1, 8: 1}, opp=opp)])


@pytest.mark.parametrize(
    "me, opp, expected_me",
    [
        #   12 11 10  9  8  7  6  5  4  3   roll 6-3: the 3 only after the 6
        #    X        O                       (12/9 is blocked; 12/6/3 is not)
        #             2
        ({12: 1}, {9: 2}, [{3: 1}]),
        #   12 11 10  9  8  7  6  5  4  3  2   roll 6-3
        #    X  X        O              O
        #                2              2
        # 12/6 alone is a dead end; 11/5 first lets the 3 be played (12/9 or 5/2),
        # and 12/9 first lets the 6 be played (11/5).
        ({12: 1, 11: 1}, {8: 2, 3: 2}, [{9: 1, 5: 1}, {12: 1, 2: 1}]),
    ],
)
def test_one_die_playable_only_if_the_other_is_played_first(engine, me, opp, expected_me):
    start = board(me=me, opp=opp)
    assert_plays(engine, start, 6, 3, [board(me=m, opp=opp) for m in expected_me])


# --------------------------------------------------------------- 3.5 bearing off


def test_bear_off_with_the_exact_die(engine):
    #   6  5  4  3  2  1 | off    roll 5-3     (O has 2 on X's 20)
    #      X     X       |
    # 5/off 3/off ends the game; 5/2 then the 5 bears off the 3 (highest) is
    # legal too. The 5 cannot bear off the 3 while the 5-point is occupied.
    opp = {20: 2}
    start = board(me={5: 1, 3: 1}, opp=opp)
    assert_plays(engine, start, 5, 3, [
        board(me={}, opp=opp),        # 5/off 3/off
        board(me={2: 1}, opp=opp),    # 5/2 3/off
    ])


def test_larger_die_bears_off_from_the_highest_point_only(engine):
    #   6  5  4  3  2  1 | off    roll 6-1
    #         X     X    |
    # The 6 bears off the 4 (highest), never the 2 while the 4 is there:
    # 4/off 2/1, or 4/3 then the 6 bears off the 3 (now highest).
    opp = {20: 2}
    start = board(me={4: 1, 2: 1}, opp=opp)
    assert_plays(engine, start, 6, 1, [
        board(me={1: 1}, opp=opp),   # 4/off 2/1
        board(me={2: 1}, opp=opp),   # 4/3/off
    ])


def test_no_bear_off_with_a_checker_outside(engine):
    #   8  7 | 6  5  4  3  2  1 | off    roll 6-1
    #   X    |             X    |
    # 2/off with the 6 is illegal while the 8 is outside the home board.
    opp = {20: 2}
    start = board(me={8: 1, 2: 1}, opp=opp)
    assert_plays(engine, start, 6, 1, [board(me={2: 1, 1: 1}, opp=opp)])


def test_bear_off_allowed_once_the_last_checker_comes_home(engine):
    #   8  7 | 6  5  4  3  2  1 | off    roll 4-3
    #      X |       X          |
    # 7/3 then 3/off (or 7/4 then 4/off): the 3 cannot be borne off first.
    opp = {20: 2}
    start = board(me={7: 1, 3: 1}, opp=opp)
    assert_plays(engine, start, 4, 3, [board(me={3: 1}, opp=opp)])


def test_hitting_during_bear_off(engine):
    #   6  5  4  3  2  1 | off    roll 3-2
    #         X        O |
    #         2        1 |
    # 4/1* 4/2 is the only play (the 2 cannot bear off the 2 while 4 is occupied).
    start = board(me={4: 2}, opp={1: 1})
    assert_plays(engine, start, 3, 2, [board(me={2: 1, 1: 1}, opp={"bar": 1})])


def test_hit_checker_must_come_home_before_bearing_off(engine):
    #   bar | 24 23 22 21 20 19 | ... 13 ... | 6  5  4  3  2  1   roll 6-1
    #    X  |                   |     O      |          X
    #       |                   |     2      |          2
    # X was hit during its bear-off: it enters and moves on; no checker may be
    # borne off this turn (3/off with the 6 is illegal).
    opp = {13: 2}
    start = board(me={"bar": 1, 3: 2}, opp=opp)
    assert_plays(engine, start, 6, 1, [
        board(me={18: 1, 3: 2}, opp=opp),          # bar/24/18 or bar/19/18
        board(me={19: 1, 3: 1, 2: 1}, opp=opp),    # bar/19 3/2
    ])


def test_last_checker_off_counts_the_dice_actually_played(engine):
    #   6  5  4  3  2  1 | off    roll 5-3    (O has 6 off)
    #      X        O    |
    #               1    |
    # 5/off with the 5 alone would end the game, but 5/2*/off plays both dice, so
    # only 5/2*/off is legal (engine contract; GNU Backgammon agrees, see the
    # golden lines v0VEBCICAAAAAA 2-1 and VxkAQEAAAAAAAA 5-3, 6-3).
    opp = {2: 1, 24: 3, 23: 1, 22: 1, 21: 1, 19: 2}
    start = board(me={5: 1}, opp=opp)
    assert_plays(engine, start, 5, 3, [
        board(me={}, opp={"bar": 1, 24: 3, 23: 1, 22: 1, 21: 1, 19: 2}),   # 5/2*/off
    ])


def test_last_checker_off_with_one_die_when_no_route_plays_both(engine):
    #   6  5  4  3  2  1 | off    roll 6-5    (O has 13 off)
    #            X       |
    # Either die bears the checker off and nothing is left for the other: one
    # die is played, the larger by rule 4 (the position is the same either way).
    opp = {24: 2}
    start = board(me={3: 1}, opp=opp)
    assert_plays(engine, start, 6, 5, [board(me={}, opp=opp)])


# --------------------------------------------------------------- 3.6 no legal play


@pytest.mark.parametrize("d1, d2", ALL_ROLLS)
def test_no_legal_play_leaves_the_board_unchanged(engine, d1, d2):
    #   bar | 24 23 22 21 20 19 | ... 10
    #    X  |  O  O  O  O  O  O |      X
    #       |  2  2  2  2  2  2 |
    # Closed out: no roll enters, so no checker may move; the empty result means
    # the position stays as it is and the turn passes.
    start = board(me={"bar": 1, 10: 1}, opp={p: 2 for p in range(19, 25)})
    plays = assert_plays(engine, start, d1, d2, [])
    assert plays.shape == (0, 2, 25)


@pytest.mark.parametrize("policy", ["pubeval", "random"])
@pytest.mark.parametrize("seed", range(4))
def test_game_loop_passes_the_turn_without_a_legal_play(engine, policy, seed):
    #   bar | 24 23 22 21 20 19 | 18 ... 13 12
    #    X  |                 O |          X  O
    #       |                 2 |          4  3
    # With the fixed first roll 6-6, X cannot enter: the board stays as it is and O
    # is on roll. No draw is spent on X's turn, so the game must go exactly as a
    # game started from the swapped board (O to roll) with the same bit generator,
    # with the result seen from the other side.
    start = board(me={"bar": 1, 13: 4}, opp={19: 2, 12: 3})
    assert engine.legal_plays(start, 6, 6).shape == (0, 2, 25)
    pol = engine.make_policy(policy)
    passed = engine.play_game(start, np.random.PCG64DXSM(seed), pol, dice=(6, 6))
    o_first = engine.play_game(np.ascontiguousarray(start[::-1]), np.random.PCG64DXSM(seed), pol)
    assert passed == (o_first + 3) % 6


# --------------------------------------------------------------- 3.7 results


@pytest.mark.parametrize(
    "opp, points",
    [
        # O has borne off a checker: single game.
        ({12: 14}, 1),
        # O has all 15 on the board, none in X's home board or on the bar: gammon.
        ({12: 15}, 2),
        # ... one on its 18-point (X's 7): still outside X's home board: gammon.
        ({12: 14, 7: 1}, 2),
        # ... one on its bar: backgammon.
        ({12: 14, "bar": 1}, 3),
        # ... one in X's home board (X's 6 = O's 19-point): backgammon.
        ({12: 14, 6: 1}, 3),
        # ... one on X's 1 (O's 24-point): backgammon.
        ({12: 14, 1: 1}, 3),
    ],
)
def test_result_classification(engine, opp, points):
    #   after X's play: X has no checker left; O's checkers decide the points.
    #   X's home board: 6  5  4  3  2  1   (O's 19..24)
    done = board(me={}, opp=opp)
    assert engine.board.outcome(done) == points


def test_result_is_zero_while_the_mover_has_checkers(engine):
    assert engine.board.outcome(board(me={1: 1}, opp={12: 15})) == 0


@pytest.mark.parametrize(
    "opp, expected_class",
    [({12: 14}, 0), ({12: 15}, 1), ({12: 14, 6: 1}, 2)],
)
@pytest.mark.parametrize("policy", ["pubeval", "random"])
def test_game_loop_win_classes(engine, policy, opp, expected_class):
    #   6  5  4  3  2  1 | off   X's last checker bears off with the fixed 6-5.
    #                 X  |
    start = board(me={2: 1}, opp=opp)
    result = engine.play_game(start, np.random.PCG64DXSM(1), engine.make_policy(policy),
                              dice=(6, 5))
    assert result == expected_class


@pytest.mark.parametrize(
    "me, expected_class",
    [
        ({13: 14}, 3),           # X has a checker off: loses a single game
        ({13: 15}, 4),           # none off, all outside O's home board: gammon
        ({22: 2, 13: 13}, 5),    # 1-1 cannot bring both back checkers out of O's home
    ],
)
@pytest.mark.parametrize("policy", ["pubeval", "random"])
def test_game_loop_lose_classes(engine, policy, me, expected_class):
    #   X to play 1-1 first, then O bears off its last checker (on X's 24 = O's ace
    #   point) with any roll.
    #   24 23 22 ... 19 | 18 ... 13
    #    O     X        |         X
    start = board(me=me, opp={24: 1})
    result = engine.play_game(start, np.random.PCG64DXSM(2), engine.make_policy(policy),
                              dice=(1, 1))
    assert result == expected_class


# --------------------------------------------------------------- inputs


@pytest.mark.parametrize("d1, d2", [(0, 3), (7, 2), (3, -1), (2.0, 3), ("3", 1), (True, 2)])
def test_bad_dice_are_rejected(engine, d1, d2):
    start = board(me={13: 1}, opp={1: 2})
    with pytest.raises(ValueError, match="die"):
        engine.legal_plays(start, d1, d2)


@pytest.mark.parametrize(
    "bad, fragment",
    [
        (np.zeros((2, 24), dtype=np.int8), "shape"),
        (np.array([[0] * 12 + [16] + [0] * 12, [0] * 25], dtype=np.int8), "at most 15"),
        (np.array([[0] * 12 + [-1] + [0] * 12, [0] * 25], dtype=np.int8), "negative"),
        (board(me={13: 1}, opp={13: 1}), "both"),
    ],
)
def test_bad_boards_are_rejected(engine, bad, fragment):
    with pytest.raises(ValueError, match=fragment):
        engine.legal_plays(bad, 3, 1)


def test_huge_counts_whose_sum_wraps_are_too_many():
    # int64 sums of counts near 2**62 wrap to 0 (a new-user trial): each count above 15
    # is too many by itself, and the message gives the exact total
    from fastbg.reference.board import validate_board, validate_boards
    huge = np.array([[2 ** 62] * 4 + [0] * 21, [0] * 25], dtype=np.int64)
    with pytest.raises(ValueError, match=f"the side on roll has {2 ** 64} checkers; at most 15"):
        validate_board(huge)
    with pytest.raises(ValueError, match="play 1: the side on roll has"):
        validate_boards(np.stack([np.zeros((2, 25), np.int64), huge]), what="play")


def test_both_engines_name_the_sides_of_a_bad_board_alike():
    from fastbg.engine import get_engine
    too_many = np.array([[0] * 12 + [16] + [0] * 12, [0] * 25], dtype=np.int8)
    negative = np.array([[0] * 25, [0] * 5 + [-1] + [0] * 19], dtype=np.int8)
    both = np.array(board(me={13: 1}, opp={13: 1}), dtype=np.int8)
    for bad, text in ((too_many, "the side on roll has 16 checkers; at most 15"),
                      (negative, "negative checker count on the opponent's"),
                      (both, r"of the side on roll \(the opponent's point \d+\) is held by both")):
        messages = set()
        for name in ("python", "cython"):
            with pytest.raises(ValueError, match=text) as err:
                get_engine(name).legal_plays(bad, 3, 1)
            messages.add(str(err.value))
        assert len(messages) == 1, messages
