"""The position families' rules (fastbg.game.families): one scenario each, drawn.

Points are in the side on roll's numbering (tests/scenario.py): X is on roll and moves
from 24 towards 1; O's checkers are shown on X's points. Checkers not placed are off.
"""
from __future__ import annotations

import numpy as np
import pytest

import fastbg
from fastbg.game.families import FAMILIES, FAMILY_RULES, classify

from scenario import board


def test_start_and_non_contact_positions_belong_to_no_family():
    assert classify(fastbg.Position.parse("start").board) == {}
    race = board({6: 5, 5: 5, 8: 5}, {20: 5, 19: 5, 13: 5})
    assert classify(race) == {}


def test_issue_position_is_a_backgame_of_the_opponent_and_crunched_for_x():
    # The issue's AMWgmxv/gBKYAg: O holds X's 2-, 3-, 5- and 6-points and trails by 163
    # pips; X has 8 on its ace point and 6 checkers outside its home board.
    got = classify(fastbg.Position.parse("AMWgmxv/gBKYAg").board)
    assert got == {"backgame": 1, "crunched": 0}


def test_backgame_needs_two_points_and_40_pips_of_timing():
    #  O holds X's 1- and 3-points; X has borne in
    #  24 ..              13 | 12 ..  7 |  6  5  4  3  2  1
    #   O(5 on 13)           |          | X3 X3 X3 O2 X2 O2 ...
    b = board({6: 3, 5: 3, 4: 3, 2: 2, 8: 2, 9: 2}, {1: 2, 3: 2, 13: 5, 16: 3, 18: 3})
    pips = b[0] @ np.arange(1, 26), b[1] @ np.arange(1, 26)
    assert pips[1] - pips[0] >= 40
    assert classify(b)["backgame"] == 1
    # the same with one anchor is not a back game
    one = board({6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 8: 2}, {1: 2, 13: 7, 16: 3, 18: 3})
    assert "backgame" not in classify(one)


def test_ace_point_game():
    #  O holds X's ace point alone and trails; X has 11 checkers home and 2 off
    b = board({6: 4, 5: 3, 4: 2, 3: 2, 8: 2}, {1: 2, 13: 6, 17: 4, 19: 3})
    assert classify(b).get("ace_point") == 1


def test_prime_with_a_checker_behind_it():
    #  X holds 4 to 9 (a six-prime reaching its 7-point and beyond); O has a checker on X's 2
    b = board({9: 2, 8: 2, 7: 2, 6: 3, 5: 2, 4: 2, 13: 2}, {2: 1, 19: 4, 20: 4, 13: 0, 12: 6})
    assert classify(b).get("prime") == 0
    # no checker behind: no prime family
    free = board({9: 2, 8: 2, 7: 2, 6: 3, 5: 2, 4: 2, 13: 2}, {19: 5, 20: 4, 12: 6})
    assert "prime" not in classify(free)


def test_crunched_board_with_checkers_still_out():
    #  X: 6 on its 2-point, 3 more home, an anchor on O's 4-point (X's 21) and 2 in transit
    b = board({2: 6, 1: 2, 3: 1, 21: 2, 15: 2, 12: 2}, {7: 3, 8: 3, 9: 3, 10: 3, 19: 3})
    assert classify(b).get("crunched") == 0


def test_crashed_against_an_anchor():
    #  X has 6 on its ace point, 4 on its 2-point, 2 off ... at most 7 in play; O holds X's 4
    b = board({1: 6, 2: 4, 3: 2, 14: 1}, {4: 2, 19: 4, 20: 4, 21: 5})
    assert classify(b).get("crashed_anchor") == 0


def test_bearing_in_against_an_anchor():
    #  X: all 15 on 1-10, 11 home; O holds X's 5-point
    b = board({6: 4, 4: 3, 3: 2, 2: 2, 8: 2, 10: 2}, {5: 2, 19: 5, 20: 4, 24: 4})
    assert classify(b).get("bear_anchor") == 0


def test_blitz_a_checker_on_the_bar_against_four_home_points():
    b = board({"bar": 1, 13: 5, 8: 3, 6: 3, 24: 1, 20: 2}, {6: 0, 1: 0, 19: 3, 20: 0, 21: 2, 22: 2,
                                                                  23: 2, 12: 5, 17: 1})
    # O's home board seen by X: its points 19..24 from X's side; O holds 19, 21, 22, 23
    assert classify(b).get("blitz") == 0


def test_mutual_holding_game():
    #  X holds O's 5-point (X's 20), O holds X's 5-point; even race
    b = board({20: 2, 13: 4, 8: 3, 6: 4, 4: 2}, {5: 2, 12: 4, 17: 3, 19: 4, 21: 2})
    assert classify(b).get("holding") == 0


@pytest.mark.parametrize("pid", ["AMWgmxv/gBKYAg", "4HPMwQCMz+AIIQ", "jHNwAGzu7g0AAA",
                                 "d4cDBIT/CCDCAg", "9xiDoAF/rwEABA", "3usAAGDbbgAABg"])
def test_rules_are_symmetric_in_the_two_sides(pid):
    """Seen from the other side (rows swapped) a position has the same families, each
    with the other row as its subject (holding names both sides: row 0 either way)."""
    b = fastbg.Position.parse(pid).board
    a, s = classify(b), classify(b[::-1].copy())
    assert set(a) == set(s)
    for fam in a:
        assert s[fam] == (0 if fam == "holding" else 1 - a[fam])


def test_bad_board_is_refused_with_the_problem_named():
    b = np.zeros((2, 25), np.int8)
    b[0, 0] = 16
    with pytest.raises(ValueError, match="16"):
        classify(b)
    assert set(FAMILY_RULES) == set(FAMILIES)
