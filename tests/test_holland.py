"""The Holland rule (issue 12, item 7): in a post-Crawford game of a match with the rule
on, the trailer may not double until both sides have played two rolls."""
from __future__ import annotations

import json

import numpy as np
import pytest

from fastbg import MatchState
from fastbg.cli import main
from fastbg.engine import get_engine
from fastbg.rollouts.cubeful import cubeful_rollout, holland_wait

from exact import board_from

pytest.importorskip("fastbg._core.cubeful", reason="Cython core not built")

# 5-point match, the player on roll 4-away (1 point), the opponent 1-away (4 points), the
# Crawford game played: post-Crawford, the player on roll is the trailer.
POST = dict(match_length=5, score=(1, 4))
# The trailer's last checker is on its 2-point: every roll bears it off, the game is won.
SURE_WIN = board_from({2: 1}, {6: 1})


@pytest.mark.parametrize("rolls, may", [(0, False), (1, False), (3, False), (4, True),
                                        (9, True), (None, True)])
def test_state_may_double_after_two_rolls_each(rolls, may):
    s = MatchState(**POST, holland=True, rolls_played=rolls)
    assert s.post_crawford and s.may_double is may
    if not may:
        assert "Holland rule" in s.why_not_double and s.holland_wait == 4 - rolls
    else:
        assert s.why_not_double is None and s.holland_wait == 0


def test_rule_off_pre_crawford_or_crawford_game_changes_nothing():
    # the rule is a setting of the match: on at any score, it acts post-Crawford only
    assert MatchState(match_length=5, score=(1, 2), holland=True).may_double
    crawford = MatchState(**POST, crawford=True, holland=True)
    assert not crawford.may_double and "Crawford" in crawford.why_not_double
    assert MatchState(**POST, holland=False).may_double


@pytest.mark.parametrize("fields,why", [
    (dict(POST, holland=False, rolls_played=0), "Holland rule only: it is not on"),
    (dict(match_length=5, score=(1, 2), holland=True, rolls_played=0), "not post-Crawford"),
    (dict(POST, crawford=True, holland=True, rolls_played=0), "is the Crawford game"),
    (dict(rolls_played=1), "not money play"),
    (dict(POST, holland=True, rolls_played=-1), "negative"),
])
def test_rolls_played_only_where_the_rule_counts_them(fields, why):
    with pytest.raises(ValueError, match=why):
        MatchState(**fields)


def test_cli_refuses_rolls_played_where_the_rule_does_not_count_them(capsys):
    from fastbg.cli import main
    assert main(["cube", "start", "--match-length", "5", "--score", "1-2", "--holland",
                 "--rolls-played", "2"]) == 2
    err = capsys.readouterr().err
    assert "post-Crawford games only" in err and "Traceback" not in err
    assert main(["cube", "start", "--match-length", "5", "--score", "1-4",
                 "--rolls-played", "2"]) == 2
    assert "give --holland too" in capsys.readouterr().err


def test_a_rollout_from_the_start_of_the_game_counts_the_rolls():
    s = MatchState(**POST, holland=True)
    assert holland_wait(s, opening=True) == 4 and holland_wait(s, opening=False) == 0
    assert holland_wait(MatchState(**POST, holland=True, rolls_played=3), opening=False) == 1


@pytest.mark.parametrize("rolls, passed", [(None, True), (4, True), (0, False), (3, False)])
def test_cubeful_rollout_of_a_sure_win(rolls, passed):
    """Without the rule (or after two rolls each) the trailer doubles its sure win and the
    leader passes; under the rule it must roll, and wins the single game."""
    r = cubeful_rollout(SURE_WIN, 200, seed=1, state=MatchState(**POST, holland=True,
                                                               rolls_played=rolls))
    assert r.passed == (1.0 if passed else 0.0)
    assert r.settings["holland_wait"] == (0 if passed else 4 - rolls)


@pytest.mark.parametrize("wait", [0, 2, 4])
def test_engines_agree_under_the_rule(wait):
    from fastbg.cube.met import DEFAULT_MET
    from fastbg.cube.metfile import load_met
    table = load_met(DEFAULT_MET)
    a, b = 4, 1
    tables = np.array([[table.result_mwc(u, v, 2 ** j) for j in range(16)]
                       for u, v in ((a, b), (b, a))])
    board = board_from({6: 2, 5: 2, 4: 3}, {6: 3, 5: 2, 3: 2})
    out = []
    from fastbg._core import cubeful as core
    from fastbg.reference import cubeful as ref
    cy, py = get_engine("cython"), get_engine("python")
    out.append(core.cubeful_block(board, 30, np.random.PCG64DXSM(5), "pubeval",
                                  cy.evaluator.EvalPolicy(), match=(tables, a, b),
                                  holland_wait=wait))
    out.append(ref.cubeful_block(board, 30, np.random.PCG64DXSM(5), "pubeval",
                                 py.evaluator.EvalPolicy(), match=(tables, a, b),
                                 holland_wait=wait))
    assert out[0].tolist() == out[1].tolist()
    with pytest.raises(ValueError, match="holland_wait"):
        core.cubeful_block(board, 1, np.random.PCG64DXSM(5), "pubeval",
                           cy.evaluator.EvalPolicy(), holland_wait=5)


def test_cli_cube_and_rollout_apply_the_rule(capsys):
    from fastbg import Position
    xgid = MatchState(**POST).to_xgid(Position(SURE_WIN))
    assert main(["cube", xgid, "--holland", "--rolls-played", "1", "-n", "200", "--seed", "1",
                 "--no-progress", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["decision"]["can_double"] is False and "Holland" in d["decision"]["why_not"]
    assert main(["cube", xgid, "--holland", "-n", "200", "--seed", "1", "--no-progress",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["decision"]["can_double"] is True
    assert main(["rollout", xgid, "--cubeful", "--holland", "--rolls-played", "0", "-n", "200",
                 "--seed", "1", "--no-progress", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["passed"] == 0.0
    assert main(["cube", xgid, "--rolls-played", "1", "-n", "10"]) == 2
    assert "give --holland" in capsys.readouterr().err
    assert main(["rollout", xgid, "--holland", "-n", "10"]) == 2


def test_the_starting_position_counts_as_no_roll_played(capsys):
    start = MatchState(**POST, holland=True)
    assert holland_wait(start, opening=False, board=__import__("fastbg").Position.parse(
        "start").board) == 4
    assert main(["cube", "start", "--match-length", "5", "--score", "1-4", "--holland",
                 "--method", "janowski", "-n", "200", "--seed", "1", "--no-progress",
                 "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["decision"]["can_double"] is False and "0 played" in d["decision"]["why_not"]
    r = cubeful_rollout("start", 200, seed=1, opening=False, state=start)
    assert r.settings["holland_wait"] == 4


def test_the_dead_cube_is_named_before_the_holland_rule():
    leader = MatchState(match_length=7, score=(6, 3), holland=True, rolls_played=1)
    assert not leader.may_double and "dead" in leader.why_not_double
