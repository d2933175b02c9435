"""Exact bear-off solver (fastbg.cube.bearoff): cubeless chances against independent
computations, the classical 13/16 position, and the structure of cubeful equities."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from exact import ROLLS, exact_outcomes, probabilities
from fastbg.cube.bearoff import ROLLS as COUNTED_ROLLS  # (d1, d2, how many of 36)
from fastbg.cube.bearoff import (
    BearoffSolver,
    bearoff_board,
    home_boards,
    side_key,
    solve,
)
from fastbg.cube import cube_action

ONE_CHECKER = home_boards(1)  # one checker on one of the points 1..6
UP_TO_TWO = home_boards(2)
UP_TO_THREE = home_boards(3)


def one_checker_turns(point: int) -> dict[int, Fraction]:
    """Distribution of the number of turns one checker on ``point`` needs to bear off,
    without any move generator: a non-double moves d1 + d2 pips, a double 4 d, and the
    checker is off once it has moved at least ``point`` pips."""
    dist = {1: Fraction(0)}
    later: dict[int, Fraction] = {}
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            pips = 4 * d1 if d1 == d2 else d1 + d2
            if pips >= point:
                dist[1] += Fraction(1, 36)
            else:
                for k, pk in one_checker_turns(point - pips).items():
                    later[k + 1] = later.get(k + 1, 0) + Fraction(1, 36) * pk
    for k, pk in later.items():
        dist[k] = dist.get(k, 0) + pk
    return dist


def one_checker_win(mine: int, theirs: int) -> Fraction:
    """The player on roll wins iff it needs no more turns than the opponent."""
    a, b = one_checker_turns(mine), one_checker_turns(theirs)
    return sum(pa * sum(pb for kb, pb in b.items() if kb >= ka) for ka, pa in a.items())


def perfect_play_win(engine, boards) -> dict[bytes, float]:
    """Cubeless winning chances with perfect checker play by a second, independent
    recursion: whole boards, the engine's own legal plays and game-over test."""
    memo: dict[bytes, float] = {}

    def value(b: np.ndarray) -> float:
        key = b.tobytes()
        if key in memo:
            return memo[key]
        total = 0.0
        for d1, d2, w in ROLLS:
            plays = engine.legal_plays(b, d1, d2)
            best = -1.0
            for after in plays if len(plays) else [b]:
                if engine.board.outcome(after):
                    v = 1.0
                else:
                    v = 1.0 - value(np.ascontiguousarray(after[::-1]))
                best = max(best, v)
            total += w * best
        memo[key] = total
        return total

    return {b.tobytes(): value(b) for b in boards}


# --------------------------------------------------------------- cubeless chances
def test_one_checker_each_matches_closed_form_and_exact_race_solver(engine):
    # One checker each: every roll has a single resulting position, so any policy plays
    # perfectly and tests/exact.py's race solver must agree with the solver exactly.
    for a in ONE_CHECKER:
        for b in ONE_CHECKER:
            board = bearoff_board(a, b)
            got = solve(board, exact=True).win
            closed = one_checker_win(a.index(1) + 1, b.index(1) + 1)
            assert got == closed, (a, b)
            for policy in ("pubeval", "random"):
                ref = probabilities(exact_outcomes(board, engine, policy))
                assert ref["win"] == pytest.approx(float(got), abs=1e-12), (a, b, policy)
                assert ref["win_gammon"] == 0 and ref["lose_gammon"] == 0


def test_perfect_play_matches_independent_recursion(engine):
    boards = [bearoff_board(a, b) for a in UP_TO_TWO for b in UP_TO_TWO]
    ref = perfect_play_win(engine, boards)
    for board in boards:
        assert solve(board).win == pytest.approx(ref[board.tobytes()], abs=1e-12)


def test_exact_and_float_solvers_agree():
    exact, flt = BearoffSolver(exact=True), BearoffSolver(exact=False)
    for a in UP_TO_TWO:
        for b in UP_TO_TWO:
            ve, vf = exact.value(a, b), flt.value(a, b)
            assert isinstance(ve.win, Fraction) and isinstance(ve.centred, Fraction)
            for name in ("win", "centred", "owned", "opponent", "nd_centred", "nd_owned", "dt"):
                assert float(getattr(ve, name)) == pytest.approx(getattr(vf, name), abs=1e-12)


def test_side_plays_do_not_depend_on_the_opponent(engine):
    # The solver generates one side's plays against a dummy opponent; the real
    # two-sided boards must give the same home boards for every roll.
    from fastbg.cube.bearoff import _side_plays

    for a in UP_TO_THREE[::3]:
        for b in (UP_TO_THREE[0], UP_TO_THREE[-1]):
            board = bearoff_board(a, b)
            for d1, d2, _ in ROLLS:
                plays = engine.legal_plays(board, d1, d2)
                assert {side_key(p[0]) for p in plays} == set(_side_plays(a, d1, d2))
                assert all(side_key(p[1]) == b for p in plays)


# ------------------------------------------------------------- the 13/16 position
def test_one_checker_each_on_the_six_point_is_13_16_and_on_the_take_pass_boundary():
    # Each side bears its checker off with 27 of 36 rolls (all but 1-1 and the eight
    # rolls of 3 to 5 pips) and surely with the next roll after a miss, so the player
    # on roll wins 3/4 + 1/4 * 1/4 = 13/16 = 0.8125. Doubled and taken, it wins 2 with
    # 3/4; after a miss the opponent redoubles to 4 a last-roll position it wins 3/4 of
    # the time, exactly the 25 % dead-cube take point, so the player loses 2:
    # DT = 3/4 * 2 - 1/4 * 2 = 1 = DP. Not doubling: the opponent doubles us out after
    # a miss, ND = 3/4 - 1/4 = 1/2.
    six = (0, 0, 0, 0, 0, 1)
    v = solve(bearoff_board(six, six), exact=True)
    assert v.win == Fraction(13, 16) == Fraction(8125, 10000)
    nd, dt, dp, action = v.cube_decision("centred")
    assert (nd, dt, dp) == (Fraction(1, 2), Fraction(1), Fraction(1))
    assert v.centred == 1 and v.owned == 1
    assert action == "Double, pass"  # a tie between take and pass; cube_action says pass
    # It is the only position with up to two checkers a side winning exactly 13/16.
    solver = BearoffSolver(exact=True)
    hits = [(a, b) for a in UP_TO_TWO for b in UP_TO_TWO
            if solver.value(a, b).win == Fraction(13, 16)]
    assert hits == [(six, six)]


# ------------------------------------------------------------------ cubeful values
def test_cube_ownership_order_and_range():
    solver = BearoffSolver()
    for a in UP_TO_THREE:
        for b in UP_TO_THREE:
            v = solver.value(a, b)
            assert 0.0 <= v.win <= 1.0
            assert -1.0 <= v.opponent <= v.centred <= v.owned <= 1.0, (a, b, v)
            # Before the cube decision is at least the value of rolling on.
            assert v.centred >= v.nd_centred and v.owned >= v.nd_owned
            # The opponent's cube: no decision, rolling on is all there is.
            assert v.opponent == pytest.approx(v.dt / 2)
            # Owning the cube, the player may never double: at least the cubeless value;
            # the opponent's cube can only cost it (the same argument for the opponent).
            assert v.owned >= v.cubeless_equity - 1e-12 >= v.opponent - 2e-12


def test_same_board_favours_the_player_on_roll():
    solver = BearoffSolver()
    for a in UP_TO_THREE:
        v = solver.value(a, a)
        assert v.win >= 0.5 and v.centred >= 0.0 and v.owned >= v.centred


def test_last_roll_positions_double_and_take_up_to_three_quarters():
    # When the opponent surely bears off next turn, the player on roll wins only if it
    # bears off now, with probability p: the cube is dead, so the opponent takes iff
    # p <= 3/4 (the 25 % take point) and the player doubles iff p > 1/2.
    solver = BearoffSolver(exact=True)
    from fastbg.cube.bearoff import _side_plays

    def finishes_surely(side):
        return all(_side_plays(side, d1, d2) == ((0,) * 6,) for d1, d2, _ in ROLLS)

    sure = [b for b in UP_TO_THREE if finishes_surely(b)]
    assert (0, 0, 1, 0, 0, 0) in sure and (0, 0, 0, 1, 0, 0) not in sure
    seen = set()
    for a in UP_TO_THREE:
        p = sum(Fraction(n, 36) for d1, d2, n in COUNTED_ROLLS
                if (0,) * 6 in _side_plays(a, d1, d2))
        for b in sure:
            v = solver.value(a, b)
            assert v.win == p
            assert v.centred == max(2 * p - 1, min(2 * (2 * p - 1), 1))
            nd, dt, dp, action = v.cube_decision("centred")
            expected = cube_action(2 * p - 1, 2 * (2 * p - 1), 1)
            assert action == expected
            if p <= Fraction(1, 2):
                assert action.startswith("No double")
            elif p < Fraction(3, 4):
                assert action == "Double, take"
            else:
                assert action == "Double, pass"
            seen.add(action)
    assert seen == {"No double, take", "Double, take", "Double, pass"}


def test_redouble_wording_and_bad_owner():
    v = solve(bearoff_board((0, 0, 0, 0, 0, 1), (0, 0, 0, 0, 0, 1)))
    assert v.cube_decision("player")[3] == "Redouble, pass"
    with pytest.raises(ValueError, match="no cube decision"):
        v.cube_decision("opponent")
    assert v.equity("opponent") == v.opponent
    with pytest.raises(ValueError, match="unknown cube owner"):
        v.equity("nobody")


# ----------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "board, message",
    [
        ("start", "not a bear-off"),
        (bearoff_board((0, 0, 0, 0, 0, 15), (1, 0, 0, 0, 0, 0)), "borne off at least one"),
        (bearoff_board((0, 0, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0)), "game is over"),
    ],
)
def test_rejects_positions_it_cannot_solve(board, message):
    with pytest.raises(ValueError, match=message):
        solve(board)


def test_rejects_a_checker_on_the_bar_or_outside():
    b = bearoff_board((1, 0, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0))
    b[0, 24] = 1
    with pytest.raises(ValueError, match="not a bear-off"):
        solve(b)
    with pytest.raises(ValueError, match="points 1..6"):
        bearoff_board({7: 1}, {1: 1})
