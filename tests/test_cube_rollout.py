"""Cube rollouts (issue 12, item 6): No double and Double/take rolled out with the same dice."""
from __future__ import annotations

import json
import math

import pytest

from fastbg import MatchState, cube_rollout
from fastbg.cli import main
from fastbg.rollouts.cubeful import mean_and_se

from exact import board_from

pytest.importorskip("fastbg._core.cubeful", reason="Cython core not built")

CONTACT = "4HPMwQCMz+AIIQ"


def test_a_sure_win_is_double_pass_exactly():
    # the last checker on the 2-point: every roll bears it off, no gammon possible
    r = cube_rollout(board_from({2: 1}, {6: 3}), 300, seed=1)
    assert (r.nd, r.dt, r.dp) == (1.0, 2.0, 1.0)
    assert r.stderr["nd"] == 0.0 and r.stderr["dt_minus_nd"] == 0.0
    assert r.action == "Double, pass" and r.games == 300


def test_engines_and_workers_give_the_same_numbers():
    board = board_from({6: 2, 5: 2, 3: 1}, {6: 2, 4: 2, 2: 2})
    a = cube_rollout(board, 40, seed=3, policy="pubeval", engine="python")
    b = cube_rollout(board, 40, seed=3, policy="pubeval", engine="cython", workers=1)
    assert (a.nd, a.dt, a.stderr) == (b.nd, b.dt, b.stderr)
    assert a.counts.tolist() == b.counts.tolist()
    c = cube_rollout(CONTACT, 2500, seed=4, policy="pubeval", workers=1)
    d = cube_rollout(CONTACT, 2500, seed=4, policy="pubeval", workers=2)
    assert (c.nd, c.dt, c.stderr, c.action) == (d.nd, d.dt, d.stderr, d.action)


def test_the_paired_difference_is_tighter_than_either_line():
    r = cube_rollout(CONTACT, 1500, seed=2, policy="pubeval")
    assert r.stderr["dt_minus_nd"] < r.stderr["dt"]
    assert math.isclose(r.dt - r.nd, (r.dt - r.nd))
    d = r.to_dict()
    assert d["method"] == "rollout" and d["settings"]["method"].startswith("cube rollout")


def test_only_no_double_when_the_player_may_not_double():
    s = MatchState.money(cube=2, cube_owner="opponent")
    r = cube_rollout(CONTACT, 200, seed=1, policy="pubeval", state=s)
    assert math.isnan(r.dt) and r.action == "No double" and "opponent owns" in r.why_not
    assert r.to_dict()["decision"]["dt"] is None and r.counts[1].sum() == 0
    assert r.to_dict()["decision"]["can_double"] is False


def test_match_play_values_are_match_winning_chances():
    s = MatchState(match_length=7, score=(3, 2))
    r = cube_rollout(CONTACT, 400, seed=1, policy="pubeval", state=s)
    assert 0 <= r.nd <= 1 and 0 <= r.dt <= 1 and 0 < r.dp < 1 and r.mode == "match"


def test_cli_method_rollout(capsys):
    assert main(["cube", CONTACT, "--method", "rollout", "-n", "300", "--seed", "1",
                 "--policy", "pubeval", "--no-progress", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["method"] == "rollout" and d["games"] == 300 and d["decision"]["action"]
    assert d["state"]["cube_owner"] == "centred"
    assert main(["cube", CONTACT, "--method", "rollout", "-n", "300", "--seed", "1",
                 "--policy", "pubeval", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "cube rollout: 300 trials" in out and "Proper action" in out and "DT - ND" in out
    # in the two-sided database --method rollout still rolls out (auto would read it)
    assert main(["cube", "ZQEAgC0AAAAAAA", "--method", "rollout", "-n", "200", "--seed", "1",
                 "--no-progress", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["method"] == "rollout"


def test_a_certain_margin_is_infinitely_many_standard_errors():
    r = cube_rollout(board_from({2: 1}, {6: 3}), 100, seed=1)
    assert r.z["take"] == -math.inf and math.isnan(r.z["double"])   # DP = ND exactly: a tie


# The player on roll has two checkers on its ace point (every roll bears both off) and the
# opponent 14 on its 6-point, one off: a single win whatever the dice, so every trial of
# either line is the same one-roll game.
SURE_SINGLE = "4P8HAIABAAAAAA"


@pytest.mark.parametrize("score, action, take", [
    # 3-away/3-away: No double and Double/pass both win 1 point, a tie (ties go to the
    # double); the rounding of the sums used to make it "Too good to double" or "Double"
    # by chance, "no double by an unknown number of SE (the trials did not vary: play
    # more games), pass by more than 1,000 SE" (new-user trial)
    ("0-0", "Double, pass", "0.1513"),
    # 2-away/3-away: was "too close to call, leaning Double, pass (double by 0.0 SE, ...)"
    ("1-0", "Double, pass", "0.2492"),
    # 3-away/1-away post-Crawford: both parts were "an unknown number of SE"
    ("0-2", "Double, pass", "0.0120"),
])
def test_cli_trials_that_cannot_vary_are_called_certain(capsys, score, action, take):
    argv = ["cube", SURE_SINGLE, "--match-length", "3", "--score", score, "-n", "300",
            "--seed", "1", "--no-progress"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    (line,) = [ln for ln in out.splitlines() if ln.startswith("Proper action")]
    assert line == (f"Proper action: {action}   (certain: the trials cannot vary; double by "
                    f"nothing (a tie), pass by {take} MWC)"), out
    assert "unknown number" not in out and "SE" not in line and "too close" not in out
    assert "play more games" not in out and "no bias either" in out
    assert main(argv + ["--json"]) == 0
    d = json.loads(capsys.readouterr().out)["decision"]
    assert d["certain"] is True and d["too_close"] == [] and d["action"] == action
    assert d["nd"] == d["dp"] and set(d["stderr"].values()) == {0.0}
    assert d["z"] == {"double": None, "take": None}      # a tie (NaN) and -inf: null
    # --method janowski: its cubeless rollout cannot vary either (its model's values are
    # formulas of the probabilities, whose rounding may break the tie either way)
    assert main(argv + ["--method", "janowski", "--games", "100"]) == 0
    out = capsys.readouterr().out
    (line,) = [ln for ln in out.splitlines() if ln.startswith("Proper action")]
    assert line.endswith("pass   (certain: the trials cannot vary)"), out
    assert f"pass rather than take: by {take} MWC, certain: the trials cannot vary" in out
    assert " SE" not in out and "too close" not in out, out


def test_a_position_decided_by_the_first_roll_is_known_before_any_trial():
    from fastbg.game import Position
    from fastbg.rollouts.cuberollout import decided_by_first_roll

    for engine in ("cython", "python"):
        for pid, decided in ((SURE_SINGLE, True), ("APD/BwADAAAAAA", True),   # a sure gammon
                             ("/z8AAAAQAAAAAA", False),   # one checker on the 6: 1-1 fails
                             ("4HPwATDgc/ABMA", False)):
            assert decided_by_first_roll(Position.from_position_id(pid).board,
                                         engine) is decided, (pid, engine)
    # one trial is enough to know, and money play too (+1 single, +2 doubled)
    r = cube_rollout(SURE_SINGLE, 1, seed=1)
    assert r.certain and (r.nd, r.dt, r.dp) == (1.0, 2.0, 1.0)
    assert math.isnan(r.z["double"]) and r.z["take"] == -math.inf
    assert not cube_rollout(CONTACT, 40, seed=1, policy="pubeval").certain


def test_a_position_with_the_dice_rolled_is_refused():
    with pytest.raises(ValueError, match="dice rolled"):
        cube_rollout("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10", 10, seed=1)
    from fastbg import cubeful_rollout
    with pytest.raises(ValueError, match="dice rolled"):
        cubeful_rollout("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10", 10, seed=1)


def test_cli_errors_name_options_not_python_arguments(capsys):
    assert main(["rollout", "start", "--until-se", "0.01", "--min-games", "9000",
                 "--games", "100"]) == 2
    err = capsys.readouterr().err
    assert "--min-games (9,000) is more than the games asked for" in err
    assert "min_games" not in err
    assert main(["moves", "start", "31", "--rollout", "--prune-se", "-1"]) == 2
    assert "--prune-se must be" in capsys.readouterr().err
    assert main(["cube", "start", "--holland"]) == 2
    err = capsys.readouterr().err
    assert "Holland rule is for matches" in err and "holland=True" not in err


def test_cli_exact_method_refuses_rollout_options(capsys):
    two_sided = "XGID=-BBB-------------------bb-:0:0:1:00:0:0:0:0:10"
    assert main(["cube", two_sided, "--method", "exact"]) == 0
    capsys.readouterr()
    assert main(["cube", two_sided, "--method", "exact", "--games", "100", "--vr"]) == 2
    err = capsys.readouterr().err
    assert "--games, --vr do not apply to --method exact" in err


def test_cli_a_few_identical_trials_are_not_called_certain(capsys):
    # two trials that happen to agree have a sample SE of 0: that is not certainty. Which
    # seeds give two agreeing trials depends on the shipped nets' play, so look for one.
    for seed in range(1, 41):
        assert main(["cube", "start", "--games", "2", "--seed", str(seed), "--no-vr",
                     "--no-progress"]) == 0
        out = capsys.readouterr().out
        if "did not vary" in out:
            break
    assert "did not vary" in out, "no seed in 1..40 gave two agreeing trials"
    assert "certain" not in out
    assert "Proper action: too close to call, leaning " in out and "2 trials decide nothing" in out


@pytest.mark.parametrize("method", ["rollout", "janowski"])
def test_cli_too_few_trials_state_no_decision(capsys, method):
    # 1 or 2 trials (games) can show a margin of several SE or a decision like "Too good to
    # double, pass": the action is then only a leaning, the line under it says why, and
    # the JSON lists both parts as too close
    for position in (CONTACT, "start"):
        for games in ("1", "2"):
            for seed in ("1", "18"):
                argv = ["cube", position, "--method", method, "--games", games, "--seed", seed,
                        "--no-progress"]
                assert main(argv) == 0
                out = capsys.readouterr().out
                (action,) = [line for line in out.splitlines() if "Proper action" in line]
                assert action.startswith("Proper action: too close to call, leaning "), out
                assert f"{games} {'trial' if method == 'rollout' else 'game'}" in out
                assert "decide" in out and "nothing" in out
                assert main(argv + ["--json"]) == 0
                d = json.loads(capsys.readouterr().out)
                assert d["decision"]["too_close"] == ["double", "take"]


@pytest.mark.slow
def test_cli_close_cube_decisions_are_flagged(capsys):
    # post-Crawford, the trailer's double at 4-away is within a few millipoints of waiting
    assert main(["cube", CONTACT, "--match-length", "5", "--score", "1-4", "--games", "400",
                 "--seed", "2", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "Proper action: too close to call, leaning " in out and "variance reduction" in out
    assert "  the double is within 2 SE; more trials narrow it" in out
    assert main(["cube", CONTACT, "--match-length", "5", "--score", "1-4", "--games", "400",
                 "--seed", "2", "--no-progress", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["decision"]["too_close"] == ["double"]


@pytest.mark.slow
def test_cli_a_clear_decision_is_stated_plainly(capsys):
    assert main(["cube", "start", "--games", "400", "--seed", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "Proper action: No double, take   (no double by" in out and "too close" not in out
    assert main(["cube", "start", "--games", "400", "--seed", "1", "--no-progress",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["decision"]["too_close"] == []


def test_beavers_word_the_take_and_are_refused_where_not_played(capsys):
    # the taker's double/take is worth more than nothing to it: with beavers, 'beaver'
    behind = "XGID=-BBB-------------------bb-:0:0:1:00:0:0:0:0:10"   # 3 checkers against 2
    r = cube_rollout(behind, 300, seed=1, policy="pubeval", state=MatchState.money(beaver=True))
    plain = cube_rollout(behind, 300, seed=1, policy="pubeval")
    assert (r.nd, r.dt) == (plain.nd, plain.dt) and plain.dt < 0
    assert r.action.endswith("beaver") and plain.action.endswith("take")
    # cubeful rollouts do not play beavers, whether asked for or carried by the XGID; the
    # message says what to pass instead (an XGID from eXtreme Gammon: --no-beaver, or the
    # same XGID with the flag off), and that works
    why = "cubeful rollouts do not play beavers yet (their in-game cube decisions have none)"
    assert main(["rollout", "start", "--cubeful", "--beaver", "-n", "10"]) == 2
    assert capsys.readouterr().err == (f"fastbg rollout: error: --beaver: {why}; drop --beaver "
                                       "to roll the position out without them\n")
    xg = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:{}:0:10"
    assert main(["rollout", xg.format(3), "--cubeful", "-n", "10"]) == 2
    assert capsys.readouterr().err == (
        "fastbg rollout: error: POSITION's rules allow beavers (its XGID's rules field is 3, "
        f"as eXtreme Gammon writes money positions), and {why}: add --no-beaver to roll it "
        f"out without them, the Jacoby rule kept (or pass {xg.format(1)}, the same position "
        "with beavers off)\n")
    assert main(["rollout", xg.format(2), "--cubeful", "-n", "10"]) == 2
    assert f"add --no-beaver to roll it out without them (or pass {xg.format(0)}," in \
        capsys.readouterr().err
    assert main(["rollout", xg.format(3), "--cubeful", "--beaver", "-n", "10"]) == 2
    assert "give --no-beaver instead (POSITION's XGID allows them too)" in capsys.readouterr().err
    for argv in ([xg.format(3), "--no-beaver"], [xg.format(1)]):
        assert main(["rollout", *argv, "--cubeful", "-n", "10", "--seed", "1", "--policy",
                     "pubeval", "--no-progress"]) == 0
        assert "money play, cube 1 centred, Jacoby rule\n" in capsys.readouterr().out


def test_cli_many_trials_that_did_not_vary_decide(capsys):
    # The 3/36 race (new-user trial): the bear-off databases and variance reduction value
    # every trial of both lines exactly, so 360 of them have a standard error of 0; that
    # said "an unknown number of SE (the trials did not vary: play more games)", where the
    # 23/36 race, whose standard error rounds to a tiny number, said "more than 1,000 SE".
    three = "XGID=------AA---------------aa-:0:0:1:00:0:0:0:0:10"
    assert main(["cube", three, "-n", "360", "--seed", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    # valued exactly: the margins by how much, as for trials that cannot vary
    assert ("Proper action: No double, take   (exact; no double by 0.8333, take by "
            "2.6667)\n") in out
    assert "play more games" not in out and "SE" not in out.split("Proper action")[1]


def test_cli_round_off_is_no_standard_error(capsys):
    # The 23/36 race (new-user trial): every trial's luck-adjusted value is the same, as in
    # the 3/36 race above, but the sum of squares less n times the squared mean kept its
    # rounding, standard errors of about 6.5e-11 and z about 4e9: the margins were counted
    # in SE and the last line kept the caveat about the policy's play
    race = "XGID=-------A----------------a-:0:0:1:00:0:0:0:0:10"
    argv = ["cube", race, "--seed", "1", "--no-progress"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Proper action: Double, take   (exact; double by 0.2778, take by 0.4444)\n" in out
    assert "no sampling error and no bias from the play" in out and "biased by" not in out
    assert main(argv + ["--json"]) == 0
    d = json.loads(capsys.readouterr().out)["decision"]
    assert d["stderr"] == {"nd": 0.0, "dt": 0.0, "dt_minus_nd": 0.0}
    assert d["z"] == {"double": None, "take": None}
    assert d["nd"] == pytest.approx(10 / 36) and d["dt"] == pytest.approx(20 / 36)


def test_cli_an_exact_tie_is_no_close_call(capsys):
    # Take and pass worth the same in a race valued exactly (new-user trial): a difference
    # of 0 with a standard error of 0 was "too close to call, leaning Double, pass ... pass by
    # an unknown number of SE (too few games for a standard error)" above "(no sampling
    # error ...)"; --method exact says the take and the pass are worth the same
    tie = "XGID=------A-----------------a-:0:0:1:00:0:0:0:0:10"
    assert main(["cube", tie, "--method", "rollout", "-n", "1000", "--seed", "1",
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert ("Proper action: Double, pass   (exact; double by 0.5000, take and pass are worth "
            "the same)\n") in out
    assert "too close" not in out and "unknown" not in out
    assert main(["cube", tie, "--method", "rollout", "-n", "1000", "--seed", "1",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["decision"]["too_close"] == []


def test_mean_and_se_takes_round_off_for_no_variance():
    n, x = 5184, 0.2777777777777778
    s = ss = 0.0
    for _ in range(n):
        s, ss = s + x, ss + x * x
    assert mean_and_se(s, ss, n) == (pytest.approx(x), 0.0)
    # a real spread stays, small as it is: one value of the 5,184 off by 0.001
    y = x + 1e-3
    assert mean_and_se(s - x + y, ss - x * x + y * y, n)[1] > 0
    # a difference of two lines: its sum of squares is a difference of theirs
    assert mean_and_se(0.0, 1e-12, n, scale=1.0)[1] == 0.0
    assert mean_and_se(0.0, 1e-12, n)[1] > 0
