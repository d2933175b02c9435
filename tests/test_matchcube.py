"""Match-play cube decisions: the GNU Backgammon manual's worked example, the Crawford and
post-Crawford rules, dead cubes, clear takes and passes, the take point of the model, and
argument checking."""
from __future__ import annotations

import math

import numpy as np
import pytest

from fastbg.cube import ACTIONS
from fastbg.cube.match import (DEFAULT_CUBE_EFFICIENCY, cubeful_mwc, live_cube_mwc,
                              match_cube_decision)
from fastbg.cube import load_met

KXG2 = load_met("Kazaross-XG2")
OPENING = [0.5, 0.14, 0.005, 0.14, 0.005]     # an even game with typical gammon rates


def gammonless(p):
    return [p, 0.0, 0.0, 0.0, 0.0]


def test_gnubg_manual_example():
    # GNU Backgammon manual, "Live cube equities" and "0-ply Cubeful equities": Woolsey's
    # table, White leads 3-0 to 7, Black on roll: cubeless MWC 29.1%, live cube MWC 29.2%
    # (interpolation through (0%, 22%), (24.5%, 24%), (72.7%, 36%), (100%, 41%)), cubeful
    # MWC 29.17% with x = 0.68
    black = [0.454, 0.103, 0.001, 0.106, 0.003]
    woolsey = load_met("woolsey")
    assert woolsey.cubeless_mwc(black, 7, 4) == pytest.approx(0.291, abs=5e-4)
    assert live_cube_mwc(black, 7, 4, met=woolsey) == pytest.approx(0.292, abs=5e-4)
    assert cubeful_mwc(black, 7, 4, met="woolsey", x=0.68) == pytest.approx(0.2917, abs=5e-5)
    d = match_cube_decision(black, 7, (0, 3), met=woolsey)
    assert d.nd == pytest.approx(0.2917, abs=5e-5)
    assert d.action == "No double, take"


def test_efficiency_mixes_dead_and_live():
    for x in (0.0, 0.3, 1.0):
        v = cubeful_mwc(OPENING, 5, 7, x=x)
        dead = KXG2.cubeless_mwc(OPENING, 5, 7)
        live = live_cube_mwc(OPENING, 5, 7)
        assert v == pytest.approx(x * live + (1 - x) * dead)
    assert DEFAULT_CUBE_EFFICIENCY == 0.68


def test_model_take_point_between_dead_and_live():
    probs = [0.75, 0.2, 0.01, 0.08, 0.002]
    d0 = match_cube_decision(probs, 7, (0, 0), x=0.0)
    d1 = match_cube_decision(probs, 7, (0, 0), x=1.0)
    d = match_cube_decision(probs, 7, (0, 0))
    assert d0.take_point == pytest.approx(d0.take_point_dead, abs=1e-9)
    assert d1.take_point == pytest.approx(d1.take_point_live, abs=1e-9)
    assert d.take_point_live < d.take_point < d.take_point_dead
    assert d.cash_point == pytest.approx(1 - d.take_point)


def test_long_match_take_point_is_janowskis_money_value():
    # Janowski, gammonless money game: TP = (L - 1/2) / (W + L + x/2) with W = L = 1
    d = match_cube_decision(gammonless(0.75), 25, (0, 0))
    x = DEFAULT_CUBE_EFFICIENCY
    assert d.take_point == pytest.approx(0.5 / (2 + 0.5 * x), abs=0.005)


def test_values_and_emg_are_consistent():
    d = match_cube_decision(OPENING, 7, (2, 3))
    a, b = 5, 4
    assert (d.away, d.away_opponent) == (a, b)
    assert d.dp == KXG2.result_mwc(a, b, 1)[0]
    assert d.dp_emg == pytest.approx(1.0)
    for v, e in ((d.nd, d.nd_emg), (d.dt, d.dt_emg)):
        assert e == pytest.approx(KXG2.emg(v, a, b, 1))
    assert d.cubeless_mwc == KXG2.cubeless_mwc(OPENING, a, b)
    assert d.best == max(d.nd, min(d.dt, d.dp))


# ----------------------------------------------------------------------------- actions

def test_clear_pass_clear_take_too_good_at_3away_3away():
    # 3-point match at 0-0 (3-away/3-away), gammonless race-like probabilities. The
    # opponent's take point here is 30.2% dead, 22.6% live.
    assert match_cube_decision(gammonless(0.85), 3).action == "Double, pass"
    assert match_cube_decision(gammonless(0.72), 3).action == "Double, take"
    assert match_cube_decision(gammonless(0.55), 3).action == "No double, take"
    huge = [0.95, 0.7, 0.1, 0.0, 0.0]
    assert match_cube_decision(huge, 3).action == "Too good to double, pass"


def test_actions_follow_the_values():
    for p in np.linspace(0.5, 0.95, 10):
        d = match_cube_decision([p, 0.2 * p, 0.0, 0.1 * (1 - p), 0.0], 9, (3, 5))
        assert d.action in ACTIONS
        if d.action.startswith("Double"):
            assert min(d.dt, d.dp) >= d.nd
        else:
            assert min(d.dt, d.dp) < d.nd
        assert d.action.endswith("take") == (d.dt < d.dp)


def test_redouble_wording_and_opponent_owned_cube():
    d = match_cube_decision(gammonless(0.9), 9, (0, 0), cube=2, cube_owner="player")
    assert d.action == "Redouble, pass"
    d = match_cube_decision(gammonless(0.9), 9, (0, 0), cube=2, cube_owner="opponent")
    assert not d.can_double and d.action == "No double, take"
    assert math.isnan(d.dt) and math.isnan(d.dp)


def test_crawford_game_never_doubles():
    # player 3-away, opponent 1-away: the Crawford game
    for probs in (gammonless(0.99), [0.9, 0.6, 0.2, 0.0, 0.0], OPENING):
        d = match_cube_decision(probs, 5, (2, 4), crawford=True)
        assert not d.can_double and d.crawford and not d.post_crawford
        assert d.action == "No double, take"
        assert math.isnan(d.dt) and math.isnan(d.dp) and math.isnan(d.take_point)
        # no cube: the cubeful MWC is the dead one, whatever the efficiency
        assert d.nd == pytest.approx(KXG2.cubeless_mwc(probs, 3, 1))
    with pytest.raises(ValueError):
        match_cube_decision(OPENING, 5, (2, 4), crawford=True, cube=2, cube_owner="player")


@pytest.mark.parametrize("trailer_score", [0, 1, 2, 3])
@pytest.mark.parametrize("probs", [[0.48, 0.13, 0.005, 0.14, 0.005],
                                   [0.4, 0.1, 0.0, 0.2, 0.01], gammonless(0.3)])
def test_post_crawford_trailer_doubles_at_once_and_leader_takes(trailer_score, probs):
    # 5-point match, the leader has 4 (1-away), post-Crawford; the trailer is on roll with
    # at most even chances (at 2-away the leader takes only as the favourite: free drop)
    d = match_cube_decision(probs, 5, (trailer_score, 4))
    assert d.post_crawford and d.can_double
    assert d.action == "Double, take"
    assert d.dt > d.nd
    # after the double the leader's recube is dead: Double/take is the dead 2-cube MWC
    assert d.dt == pytest.approx(KXG2.cubeless_mwc(probs, 5 - trailer_score, 1, 2))


def test_post_crawford_free_drop_at_2away():
    # trailer 2-away, leader 1-away: the leader passes as soon as he is an underdog
    d = match_cube_decision(gammonless(0.52), 5, (3, 4))
    assert d.action == "Double, pass"
    # at even chances the leader is indifferent, whatever the gammons
    d = match_cube_decision(OPENING, 5, (3, 4))
    assert d.dt == pytest.approx(d.dp) == 0.5
    assert d.take_point == pytest.approx(0.5, abs=1e-9)


@pytest.mark.parametrize("score", [(4, 2), (4, 0), (4, 4)])
def test_dead_cube_of_the_leader_and_at_double_match_point(score):
    # post-Crawford leader (1-away) and double match point: a single win already wins the
    # match, so the player's cube is dead and he never doubles
    d = match_cube_decision(gammonless(0.9), 5, score)
    assert not d.can_double and d.action == "No double, take"


def test_owned_cube_that_already_wins_the_match_is_dead():
    # player 2-away owning a 2-cube: redoubling gains nothing
    d = match_cube_decision([0.8, 0.3, 0.0, 0.05, 0.0], 7, (5, 0), cube=2, cube_owner="player")
    assert not d.can_double and d.action == "No redouble, take"


def test_double_beyond_the_match_need():
    # player 3-away owning a 2-cube: a redouble to 4 is more than he needs, a win at 4 is
    # a match win, his gammons become worthless; the opponent (7-away) gets a live cube
    d = match_cube_decision([0.8, 0.4, 0.02, 0.02, 0.0], 7, (4, 0), cube=2, cube_owner="player")
    assert d.can_double
    assert d.dp == KXG2.mwc(1, 7)
    assert KXG2.result_mwc(3, 7, 4)[0] == 1.0
    assert d.action.startswith("No redouble") or d.action.startswith("Too good")


# ----------------------------------------------------------------------------- arguments

@pytest.mark.parametrize("kwargs", [
    dict(match_length=0),
    dict(match_length=7, score=(7, 0)),
    dict(match_length=7, score=(0, -1)),
    dict(match_length=7, score=(0,)),
    dict(match_length=30),
    dict(match_length=7, cube=2),
    dict(match_length=7, cube=1, cube_owner="player"),
    dict(match_length=7, cube=3, cube_owner="player"),
    dict(match_length=7, cube_owner="middle"),
    dict(match_length=7, crawford=True),
    dict(match_length=7, x=1.5),
    dict(match_length=7, met="no-such-table"),
])
def test_bad_arguments_raise_value_error(kwargs):
    with pytest.raises(ValueError):
        match_cube_decision(OPENING, **kwargs)


def test_bad_probabilities_raise_value_error():
    with pytest.raises(ValueError):
        match_cube_decision([0.5, 0.6, 0.0, 0.1, 0.0], 7)
    with pytest.raises(ValueError):
        match_cube_decision([OPENING, OPENING], 7)


# ------------------------------------------------------------------------ the last roll

def test_last_roll_is_a_dead_cube_in_match_play_too():
    # The opponent bears off with every roll on its next turn: the player wins only by
    # bearing off now, nobody turns the cube again, and the dead-cube MWCs are exact:
    # No double p MWC(win c) + (1 - p) MWC(lose c), Double/take the same at 2c.
    from fastbg.cube.bearoff import bearoff_board, home_boards, solve
    from fastbg.cube import cube_action, is_last_roll

    boards = home_boards(2)
    cases = [(a, b) for a in boards for b in boards if is_last_roll(bearoff_board(a, b))]
    assert cases
    for (a, b) in cases[::7]:
        board = bearoff_board(a, b)
        p = float(solve(board).win)
        for length, score in ((7, (0, 0)), (7, (3, 5)), (5, (0, 3)), (9, (6, 2))):
            d = match_cube_decision(gammonless(p), length, score, position=board)
            assert d.x == 0.0
            away, away_opp = length - score[0], length - score[1]
            r1 = KXG2.result_mwc(away, away_opp, 1)
            r2 = KXG2.result_mwc(away, away_opp, 2)
            nd = p * r1[0] + (1 - p) * r1[3]
            dt = p * r2[0] + (1 - p) * r2[3]
            assert d.nd == pytest.approx(nd, abs=1e-12)
            if d.can_double:
                assert d.dt == pytest.approx(dt, abs=1e-12) and d.dp == r1[0]
                if abs(nd - dt) > 1e-9 and abs(dt - r1[0]) > 1e-9:
                    assert d.action == cube_action(nd, dt, r1[0])
    # without a position the default stays GNU Backgammon's contact value
    assert match_cube_decision(gammonless(0.7), 7).x == DEFAULT_CUBE_EFFICIENCY
    assert cubeful_mwc(gammonless(0.7), 7, 7, position=bearoff_board({6: 1}, {1: 1})) == \
        pytest.approx(KXG2.cubeless_mwc(gammonless(0.7), 7, 7))


# ------------------------------------------------------------------ probability inputs

def test_rollout_results_and_mappings_are_accepted():
    # The same inputs as fastbg.money_cube_decision, read by the same reader.
    from fastbg import money_cube_decision, rollout
    from fastbg.game import PROBABILITY_KEYS

    res = rollout("XGID=-ABBCBCAA-------aaacbbbba-:0:0:1:00:0:0:0:0:10", 300, seed=1,
                  workers=1)
    listed = [getattr(res, k) for k in PROBABILITY_KEYS]
    money_cube_decision(res)
    want = match_cube_decision(listed, 7, (2, 4))
    assert match_cube_decision(res, 7, (2, 4)) == want
    assert match_cube_decision(dict(zip(PROBABILITY_KEYS, listed)), 7, (2, 4)) == want
    assert cubeful_mwc(res, 5, 3) == cubeful_mwc(listed, 5, 3)
    assert live_cube_mwc(res, 5, 3) == live_cube_mwc(listed, 5, 3)
    with pytest.raises(ValueError, match="lack"):
        match_cube_decision({"win": 0.5}, 7)


def test_probs_is_the_deprecated_name_of_probabilities():
    """One name for the cubeless probabilities across fastbg.cube (issue 37):
    ``probabilities``, as money_cube_decision names them; ``probs=`` still works in every
    function that took it, with a warning naming the function, and both at once are a
    TypeError."""
    from fastbg.cube.met import outcome_probabilities
    table = KXG2
    away = dict(away=5, away_opponent=3)
    cases = [(match_cube_decision, dict(match_length=7, score=(2, 4))), (live_cube_mwc, away),
             (cubeful_mwc, dict(away, x=0.6)), (outcome_probabilities, {}),
             (table.cubeless_mwc, away)]
    def same(a, b):
        return np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b
    for fn, kw in cases:
        new = fn(OPENING, **kw)
        assert same(fn(probabilities=OPENING, **kw), new)
        with pytest.warns(DeprecationWarning, match=rf"{fn.__name__}\(probs=\.\.\.\) is "
                                                    r"deprecated: use probabilities="):
            old = fn(probs=OPENING, **kw)
        assert same(old, new)
        with pytest.raises(TypeError, match="give probabilities alone"), \
                pytest.warns(DeprecationWarning):
            fn(probs=OPENING, probabilities=OPENING, **kw)
    for point in (table.take_point, table.cash_point):
        new = point(5, 3, live=True, probabilities=OPENING)
        with pytest.warns(DeprecationWarning, match=rf"MatchEquityTable\.{point.__name__}"):
            assert point(5, 3, live=True, probs=OPENING) == new
    # the signature keeps its new name (help(), Sphinx)
    import inspect
    assert next(iter(inspect.signature(match_cube_decision).parameters)) == "probabilities"


def test_owner_is_the_deprecated_name_of_cube_owner():
    """One name for the cube's owner across the public API (issue 37): ``cube_owner``, as
    MatchState and money_cube_decision name it; ``owner`` still works, with a warning."""
    new = match_cube_decision(OPENING, 7, (2, 4), cube=2, cube_owner="player")
    with pytest.warns(DeprecationWarning, match="use cube_owner"):
        old = match_cube_decision(OPENING, 7, (2, 4), cube=2, owner="player")
    assert old == new and new.cube_owner == "player"
    with pytest.warns(DeprecationWarning, match="use cube_owner"):
        assert new.owner == "player"
    with pytest.raises(TypeError, match="give cube_owner alone"), pytest.warns(DeprecationWarning):
        match_cube_decision(OPENING, 7, (2, 4), cube=2, cube_owner="player", owner="opponent")
