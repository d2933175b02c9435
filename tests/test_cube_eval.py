"""Cubeful, match-aware evaluation without a rollout (issue 38, item 2).

- ``cube_decision(method="eval", ply=N)`` / ``fastbg cube --method eval --ply N``: No
  double, Double/take and Double/pass from the n-ply probabilities by Janowski's model;
- ``rank_plays(..., state=...)`` / ``fastbg moves --eval`` with a score or a cube: plays
  ranked by match winning chances or cubeful equity.

The exact cases are last-roll bear-offs: the opponent bears off its last checker with every
roll, so the player on roll wins exactly when this roll bears off both of its checkers; the
evaluator's probabilities are then exact at every ply (the one-sided bear-off database
and certain results), the cube is dead (x = 0), and ND, DT and DP follow from the winning
chance alone, in money play and from the shipped match equity table in match play.
"""
from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

import fastbg
from fastbg import MatchState
from fastbg.cli import main
from fastbg.cube import load_met
from fastbg.cube.bearoff import bearoff_board
from fastbg.cube.decision import cubeful_value, is_plain_money
from fastbg.game.position import Position
from fastbg.rollouts.cubedecision import cube_decision
from fastbg.rollouts.plays import rank_plays

ENGINES = ("cython", "python")


def last_roll(points) -> Position:
    """The player on roll with one checker on each of ``points`` (1..6), the opponent with
    one on its ace point (it bears off with any roll: the last roll of the game)."""
    me = [0] * 6
    for p in points:
        me[p - 1] += 1
    return Position(bearoff_board(me, [1, 0, 0, 0, 0, 0]))


def exact_win(pos: Position) -> Fraction:
    """The player's winning chance on the last roll: the rolls with a play bearing off all."""
    n = sum(any(not pl.board[0].any() for pl in fastbg.legal_plays(pos, (d1, d2), engine="python"))
            for d1 in range(1, 7) for d2 in range(1, 7))
    return Fraction(n, 36)


#   X (on roll): 4-point 1, 2-point 1      O: ace point 1
# 23 of 36 rolls bear both off: 0.639, a double and a take with a dead cube (money).
DOUBLE_TAKE = last_roll((4, 2))
#   X: 3-point 1, ace point 1 -- most rolls bear off both: a pass.
DOUBLE_PASS = last_roll((3, 1))
#   X: 6-point 1, 5-point 1 -- 6 of 36: no double.
NO_DOUBLE = last_roll((6, 5))


@pytest.mark.parametrize("ply", [0, 1, 2])
@pytest.mark.parametrize("pos", [DOUBLE_TAKE, DOUBLE_PASS, NO_DOUBLE])
def test_last_roll_money_decisions_are_exact(pos, ply):
    p = float(exact_win(pos))
    d = cube_decision(pos, method="eval", ply=ply)
    assert d.method == "eval" and d.ply == ply and d.x == 0.0
    assert d.probabilities["win"] == pytest.approx(p, abs=1e-6)
    nd, dt = 2 * p - 1, 2 * (2 * p - 1)         # dead cube, no gammons
    assert d.nd == pytest.approx(nd, abs=2e-6)
    assert d.dt == pytest.approx(dt, abs=4e-6)
    assert d.dp == 1.0
    want = ("No double, take" if p <= 0.5 else "Double, take" if p <= 0.75
            else "Double, pass")
    assert d.action == want
    assert d.too_close == [] and d.stderr is None       # no sampling error


def test_the_three_last_roll_cases_are_what_their_names_say():
    assert exact_win(DOUBLE_TAKE) == Fraction(23, 36)
    assert exact_win(DOUBLE_PASS) > Fraction(3, 4)
    assert exact_win(NO_DOUBLE) == Fraction(6, 36)


@pytest.mark.parametrize("ply", [0, 1])
@pytest.mark.parametrize("score, crawford", [((0, 0), False),    # 3-away/3-away
                                             ((1, 2), False),    # 2-away/1-away post-Crawford
                                             ((2, 1), False),    # the leader: dead cube
                                             ((2, 0), True)])    # Crawford: no double
def test_last_roll_match_decisions_follow_the_table(score, crawford, ply):
    """MWC of ND, DT and DP from the table's entries themselves (dead cube, no gammons)."""
    pos = DOUBLE_TAKE
    p = float(exact_win(pos))
    table = load_met("Kazaross-XG2")
    state = MatchState.match(3, score, crawford=crawford)
    a, b = state.away

    def mwc(x, y, post):   # the player x-away, the opponent y-away, after a game
        return 1.0 if x <= 0 else 0.0 if y <= 0 else table.mwc(x, y, crawford=not post)

    # the next game is post-Crawford after the Crawford game or a post-Crawford one; from
    # an earlier game, a side that reaches 1-away plays the Crawford game next
    after_crawford = crawford or state.post_crawford
    nd = p * mwc(a - 1, b, after_crawford) + (1 - p) * mwc(a, b - 1, after_crawford)
    d = cube_decision(pos, method="eval", ply=ply, state=state, met=table)
    assert d.nd == pytest.approx(nd, abs=1e-5)
    assert d.decision["nd_emg"] == pytest.approx(table.emg(nd, a, b, 1), abs=1e-5)
    if not state.may_double:
        assert not d.can_double and d.decision["why_not"] == state.why_not_double
        assert np.isnan(d.dt) and d.action == "No double, take"
        return
    dt = p * mwc(a - 2, b, after_crawford) + (1 - p) * mwc(a, b - 2, after_crawford)
    dp = mwc(a - 1, b, after_crawford)
    assert d.dt == pytest.approx(dt, abs=1e-5) and d.dp == pytest.approx(dp, abs=1e-12)
    best = max(nd, min(dt, dp))
    assert d.decision["mwc"] == pytest.approx(best, abs=1e-5)
    assert d.decision["dp_emg"] == pytest.approx(1.0)


def test_crawford_game_has_no_cube_decision():
    state = MatchState.match(5, (4, 0), crawford=True)
    d = cube_decision("start", method="eval", state=state)
    assert not d.can_double and d.why_not == "no doubling in the Crawford game"


@pytest.mark.parametrize("state", [MatchState.money(), MatchState.money(2, "player"),
                                   MatchState.match(7, (2, 4)),
                                   MatchState.match(7, (5, 6), crawford=True)])
def test_both_engines_give_the_same_decision(state):
    pid = "4HPwATDgc/ABMA"     # the start: a contact position, 1 ply
    a = cube_decision(pid, method="eval", ply=1, state=state, engine="cython")
    b = cube_decision(pid, method="eval", ply=1, state=state, engine="python")
    same = json.dumps(a.decision, sort_keys=True) == json.dumps(b.decision, sort_keys=True)
    assert same, (a.decision, b.decision)      # (NaN where no double: as strings)
    assert a.probabilities["win"] == b.probabilities["win"]


def test_eval_refuses_rollout_arguments_and_other_methods_refuse_a_ply():
    with pytest.raises(ValueError, match="do not apply to method 'eval'|does not apply"):
        cube_decision("start", 100, method="eval")
    with pytest.raises(ValueError, match="does not apply to method 'eval'"):
        cube_decision("start", method="eval", seed=3)
    with pytest.raises(ValueError, match="ply 2 is for method 'eval'"):
        cube_decision("start", method="janowski", ply=2)
    with pytest.raises(ValueError, match="ply must be"):
        cube_decision("start", method="eval", ply=4)


def test_eval_json_has_the_documented_keys():
    d = cube_decision("start", method="eval", ply=0).to_dict()
    for k in ("position_id", "xgid", "mode", "method", "ply", "engine", "win", "equity", "class",
              "evaluated_by", "state", "x", "x_source", "met", "unit", "decision", "seconds",
              "note"):
        assert k in d, k
    assert d["method"] == "eval" and d["decision"]["ply"] == 0
    assert "stderr" not in d["decision"] and "margins" not in d["decision"]


# ------------------------------------------------------------ cubeful value of a position


def test_cubeful_value_is_the_proper_actions_value():
    probs = (0.7, 0.2, 0.01, 0.05, 0.0)
    d = fastbg.money_cube_decision(probs, x=0.68)
    assert cubeful_value(probs, MatchState.money(), x=0.68) == (d.equity, d.equity)
    m = fastbg.match_cube_decision(probs, 7, (2, 4), x=0.68)
    v, emg = cubeful_value(probs, MatchState.match(7, (2, 4)), x=0.68)
    assert v == pytest.approx(m.best, abs=1e-15) and emg == pytest.approx(
        load_met("Kazaross-XG2").emg(m.best, 5, 3, 1))
    # the opponent's cube: No double only
    s = MatchState.money(2, "opponent")
    assert cubeful_value(probs, s, x=0.68)[0] == fastbg.cubeful_equity(
        probs, x=0.68, cube_owner="opponent")


def test_plain_money_is_a_centred_one_cube_without_jacoby():
    assert is_plain_money(None) and is_plain_money(MatchState.money(beaver=True))
    assert not is_plain_money(MatchState.money(jacoby=True))
    assert not is_plain_money(MatchState.money(2, "player"))
    assert not is_plain_money(MatchState.match(5))


# -------------------------------------------------------- checker play at the score


def test_default_ranking_is_unchanged_in_plain_money():
    """No state: the cubeless ranking of every earlier version, numbers and order."""
    old = get_cubeless("start", "64")
    new = rank_plays("start", "64")
    assert [(r.move, r.probabilities) for r in new] == old
    assert all(r.cubeful_equity is None and r.mwc is None for r in new)


def get_cubeless(pos, dice):
    return [(r.move, r.probabilities) for r in rank_plays(pos, dice, cubeful=False)]


def test_double_match_point_ranks_by_winning_chance():
    """At 1-away/1-away MWC is the winning chance: gammons count for nothing."""
    state = MatchState.match(5, (4, 4))
    ranked = rank_plays("start", "64", state=state)
    for r in ranked:
        assert r.mwc == pytest.approx(r.probabilities["win"], abs=1e-12)
    wins = [r.probabilities["win"] for r in ranked]
    assert wins == sorted(wins, reverse=True)


def test_the_score_changes_the_best_play():
    """6-4 from the start: cubeless (and money) the point-making 8/2 6/2 is best at 0 ply;
    leading 4-0 in the Crawford game of a 5-point match (1-away/5-away), its gammon losses
    cost more and its gammon wins gain nothing, and the run 24/18 13/9 is best."""
    cubeless = rank_plays("start", "64")
    crawford = rank_plays("start", "64", state=MatchState.match(5, (4, 0), crawford=True))
    assert cubeless[0].move == "8/2 6/2"
    assert crawford[0].move != cubeless[0].move
    by_move = {r.move: r for r in crawford}
    assert by_move["8/2 6/2"].mwc < crawford[0].mwc


def test_an_xgid_with_a_score_is_ranked_at_the_score():
    state = MatchState.match(5, (4, 0), crawford=True)
    xgid = state.to_xgid(Position.parse("start"), dice=(6, 4))
    from_text = rank_plays(xgid, None)
    given = rank_plays("start", "64", state=state)
    assert [(r.move, r.mwc) for r in from_text] == [(r.move, r.mwc) for r in given]
    assert all(r.mwc is not None for r in from_text)


@pytest.mark.parametrize("state", [MatchState.match(5, (4, 0), crawford=True),
                                   MatchState.match(7, (3, 5)), MatchState.money(jacoby=True)])
def test_cubeful_ranking_both_engines_identical(state):
    # a small contact position, 1 ply: every play at 0 ply, the filter's survivors at 1
    b = np.zeros((2, 25), dtype=np.int8)
    b[0, [23, 5, 4]] = [1, 3, 2]
    b[1, [23, 5, 3]] = [1, 3, 2]
    a = rank_plays(b, "31", ply=1, state=state, engine="cython")
    p = rank_plays(b, "31", ply=1, state=state, engine="python")
    assert [(r.move, r.ply, r.cubeful_equity, r.mwc, r.probabilities) for r in a] == \
        [(r.move, r.ply, r.cubeful_equity, r.mwc, r.probabilities) for r in p]


def test_holland_rule_counts_the_play_as_a_roll():
    """Post-Crawford under the Holland rule, the trailer (the opponent, after the leader's
    play) may not double before each side has played two rolls: with 2 rolls played before
    this one it still may not (3 after the play), with 3 it may (4): the leader's MWC after
    each play is never lower in the first case, and lower for some play in the second."""
    blocked = MatchState.match(5, (4, 0), holland=True)
    blocked = MatchState(**{**blocked.__dict__, "rolls_played": 2})
    free = MatchState(**{**blocked.__dict__, "rolls_played": 3})
    a = {r.move: r.mwc for r in rank_plays("start", "64", state=blocked)}
    b = {r.move: r.mwc for r in rank_plays("start", "64", state=free)}
    assert all(a[m] >= b[m] - 1e-15 for m in a)
    assert any(a[m] > b[m] + 1e-6 for m in a)
    d = cube_decision("start", method="eval", state=MatchState(
        **{**MatchState.match(5, (0, 4), holland=True).__dict__, "rolls_played": 1}))
    assert not d.can_double and "Holland" in d.why_not


def test_cubeful_ranking_filters_on_the_cubeful_value():
    """A filter keeping two plays at 0 ply keeps the two best by MWC (not by cubeless
    equity), and only they reach 1 ply; one kept play stops the ranking (the choice is
    made), as the engines' cubeless ranking does."""
    state = MatchState.match(5, (4, 0), crawford=True)
    zero = rank_plays("start", "64", state=state)
    cubeless = rank_plays("start", "64")
    assert {r.move for r in zero[:2]} != {r.move for r in cubeless[:2]}
    two = rank_plays("start", "64", ply=1, state=state, move_filter=[(2, 0, 0.0)])
    assert {r.move for r in two if r.ply == 1} == {r.move for r in zero[:2]}
    one = rank_plays("start", "64", ply=1, state=state, move_filter=[(1, 0, 0.0)])
    assert one[0].move == zero[0].move and all(r.ply == 0 for r in one)


# ------------------------------------------------------------------------ the CLI


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_cube_eval_text_and_json(capsys):
    xgid = DOUBLE_TAKE.to_xgid()
    code, out, err = run(capsys, "cube", xgid, "--method", "eval", "--ply", "1")
    assert code == 0, err
    assert "evaluation at 1 ply" in out and "Proper action: Double, take" in out
    assert "x = 0, last roll: dead cube" in out
    code, out, err = run(capsys, "cube", xgid, "--method", "eval", "--json")
    d = json.loads(out)
    assert d["method"] == "eval" and d["decision"]["action"] == "Double, take"
    code, out, err = run(capsys, "cube", "start", "--method", "eval", "--match-length", "5",
                         "--score", "2-3")
    assert code == 0 and "MWC" in out and "EMG" in out


@pytest.mark.parametrize("argv, words", [
    (("cube", "start", "--ply", "1"), "--ply is for --method eval"),
    (("cube", "start", "--method", "eval", "--games", "100"), "--games does not apply"),
    (("cube", "start", "--method", "eval", "--seed", "1"), "--seed does not apply"),
    (("moves", "start", "64", "--score", "2-3", "--match-length", "5"), "is for --eval"),
    (("moves", "start", "64", "--cubeful"), "--cubeful is for --eval"),
    (("moves", "start", "64", "--eval", "--score", "7-3", "--match-length", "5"), "score"),
])
def test_cli_bad_input_is_one_line_and_status_2(capsys, argv, words):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert words in err and len(err.strip().splitlines()) == 1


def test_cli_moves_eval_at_the_score(capsys):
    code, out, err = run(capsys, "moves", "start", "64", "--eval", "--match-length", "5",
                         "--score", "4-0", "--crawford")
    assert code == 0, err
    head = out.splitlines()[0]
    assert "ranked by match winning chance" in head
    assert "Crawford game" in out
    first = out.splitlines()[3]
    assert "24/18 13/9" in first or "8/2 6/2" not in first
    code, out, _ = run(capsys, "moves", "start", "64", "--eval", "--match-length", "5",
                       "--score", "4-0", "--crawford", "--json")
    d = json.loads(out)
    assert d["ranking"] == "match winning chance" and d["cubeful"] is True
    assert d["plays"][0]["diff"] == 0 and d["plays"][0]["mwc"] > d["plays"][-1]["mwc"]


def test_cli_moves_eval_plain_money_is_as_before(capsys):
    code, out, _ = run(capsys, "moves", "start", "64", "--eval")
    assert code == 0 and "(cubeless, mover's view)" in out.splitlines()[0]
    code, out, _ = run(capsys, "moves", "start", "64", "--eval", "--cubeful")
    assert code == 0 and "ranked by cubeful equity" in out.splitlines()[0]
