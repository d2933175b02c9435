"""The cube and match-table commands: `fastbg cube`, `met`, `takepoints`, `gammon-values`.

Each command runs and its JSON has the documented keys; cube decisions of bear-offs whose
probabilities are known exactly are right; the tables agree with the library; CSV parses;
bad input gives one line naming the problem and exit status 2.
"""
from __future__ import annotations

import csv
import io
import json
import math
from fractions import Fraction

import numpy as np
import pytest

from fastbg.cube.bearoff import bearoff_board, solve
from fastbg.cli import main
from fastbg.cube import cubeful_equity, money_cube_decision
from fastbg.cube.match import match_cube_decision
from fastbg.cube import load_met
from fastbg.game.position import Position
from fastbg.game import PROBABILITY_KEYS

# One checker each on the 6-point: the player on roll wins 13/16 (75 % at once, and when
# it misses the opponent misses too a quarter of the time); no gammons.
#   O: 6-point 1     X (on roll): 6-point 1
SIX_SIX = Position(bearoff_board([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1])).to_xgid()
# Two checkers on the 6-point against one on the ace: only 3-3 to 6-6 bear both off before
# the opponent's certain finish, so the player wins exactly 4/36 = 1/9 under any policy.
TWO_V_ACE = Position(bearoff_board([0, 0, 0, 0, 0, 2], [1, 0, 0, 0, 0, 0])).to_xgid()

MATCH_XGID = "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:3:2:0:7:10"  # 7-pt, 3-2, 2-cube ours

CUBE_KEYS = (*PROBABILITY_KEYS, "equity", "stderr", "games", "seed", "engine", "policy",
             "seconds", "games_per_second", "counts", "mode", "xgid", "state", "x", "x_source",
             "met", "unit", "decision", "stderr_method", "note")
STATE_KEYS = ("match_length", "score", "away", "cube", "cube_owner", "crawford",
              "post_crawford", "jacoby", "beaver")
DECISION_KEYS = ("action", "can_double", "why_not", "nd", "dt", "dp", "stderr", "take_point",
                 "cash_point", "take_point_dead", "take_point_live", "margins", "z")
MARGIN_KEYS = ("choice", "over", "difference", "stderr", "z")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def cube_json(capsys, *argv, games=2000, seed=1):
    # the rollout and Janowski's model, also in the bear-offs that --method auto would read
    # from the two-sided database (tests/test_truncation.py tests that path)
    code, out, err = run(capsys, "cube", *argv, "--method", "janowski", "--games", str(games),
                         "--seed", str(seed),
                         "--workers", "1", "--json", "--no-progress")
    assert code == 0, err
    return json.loads(out)


# ------------------------------------------------------------------------- fastbg cube

def test_cube_json_keys_money(capsys):
    d = cube_json(capsys, "start")
    for k in CUBE_KEYS:
        assert k in d, k
    for k in STATE_KEYS:
        assert k in d["state"], k
    for k in (*DECISION_KEYS, "equity", "W", "L"):
        assert k in d["decision"], k
    for part in ("double", "take"):
        for k in MARGIN_KEYS:
            assert k in d["decision"]["margins"][part]
    assert d["mode"] == "money" and d["met"] is None and d["policy"] == "nn"
    assert d["games"] == 2000 and d["seed"] == "1"
    assert d["state"]["match_length"] == 0 and d["state"]["cube_owner"] == "centred"
    assert d["x"] == pytest.approx(0.68) and "contact" in d["x_source"]
    # the cube decision is before a normal roll, not the opening roll
    assert d["opening"] is False


def test_cube_json_keys_match(capsys):
    d = cube_json(capsys, "start", "--match-length", "7", "--score", "2-4")
    dec = d["decision"]
    for k in (*DECISION_KEYS, "nd_emg", "dt_emg", "dp_emg", "mwc", "cubeless_mwc"):
        assert k in dec, k
    for k in ("nd", "dt", "dp", "nd_emg", "dt_emg", "dp_emg", "cubeless_mwc"):
        assert k in dec["stderr"], k
    assert d["mode"] == "match" and d["met"].startswith("Kazaross")
    assert d["state"]["away"] == [5, 3] and d["state"]["score"] == [2, 4]
    assert dec["dp_emg"] == pytest.approx(1.0)
    # EMG is a linear map of MWC: the same z in both
    m = dec["margins"]["double"]
    assert m["difference_emg"] / m["stderr_emg"] == pytest.approx(m["z"])


def test_cube_text(capsys):
    code, out, _ = run(capsys, "cube", SIX_SIX, "--method", "janowski", "-n", "1000", "--seed", "1",
                       "--workers", "1",
                       "--no-progress")
    assert code == 0
    for fragment in ("money play, cube 1 centred", "policy nn", "biased", "No double",
                     "Double, take", "Double, pass", "Proper action: Double, pass",
                     "take point", "x = 0.6", "bear-off"):
        assert fragment in out, fragment


def _exact(p_win):
    return [float(p_win), 0.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize("xgid, p_win", [(SIX_SIX, Fraction(13, 16)),
                                         (TWO_V_ACE, Fraction(1, 9))])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_cube_exact_bearoff_money(capsys, xgid, p_win, seed):
    # The solver agrees with the closed forms used here.
    assert solve(Position.parse(xgid), exact=True).win == p_win
    d = cube_json(capsys, xgid, games=4000, seed=seed)
    dec = d["decision"]
    assert d["win_gammon"] == d["lose_gammon"] == 0.0
    assert abs(d["win"] - float(p_win)) < 4 * d["stderr"]["win"]
    # the default x: 0.6 for a bear-off, 0 on the last roll (TWO_V_ACE: the opponent's
    # ace-point checker is sure to come off next turn)
    truth = money_cube_decision(_exact(p_win), position=xgid)
    assert d["x"] == truth.x == (0.0 if xgid == TWO_V_ACE else 0.6)
    assert dec["action"] == truth.action
    for k in ("nd", "dt"):
        assert abs(dec[k] - getattr(truth, k)) < 4 * dec["stderr"][k], k
    # the standard errors are the library's delta method on the rollout's counts
    lib = money_cube_decision([d[k] for k in PROBABILITY_KEYS], x=truth.x,
                              counts=np.array(d["counts"]))
    assert dec["stderr"]["nd"] == pytest.approx(lib.stderr["nd"])
    assert dec["stderr"]["dt"] == pytest.approx(lib.stderr["dt"])


def test_cube_exact_bearoff_actions(capsys):
    # 13/16 is a double and a pass by Janowski at the bear-off efficiency 0.6 (cash point
    # 78.3 %; Double/take 1.1375 against Double/pass 1, about 11 standard errors apart with
    # 20,000 games), 1/9 a clear no double.
    d = cube_json(capsys, SIX_SIX, games=20_000)["decision"]
    assert d["action"] == "Double, pass"
    assert d["margins"]["take"]["choice"] == "pass" and d["margins"]["double"]["choice"] == "double"
    assert d["z"] > 6
    d = cube_json(capsys, TWO_V_ACE, games=4000)["decision"]
    assert d["action"] == "No double, take" and d["margins"]["double"]["choice"] == "no double"
    assert d["z"] > 10


@pytest.mark.parametrize("seed", [1, 2])
def test_cube_exact_bearoff_match(capsys, seed):
    d = cube_json(capsys, SIX_SIX, "--match-length", "5", "--score", "1-2", games=4000,
                  seed=seed)
    dec = d["decision"]
    truth = match_cube_decision(_exact(Fraction(13, 16)), 5, (1, 2), x=0.6)
    assert dec["action"] == truth.action
    for k in ("nd", "dt"):
        assert abs(dec[k] - getattr(truth, k)) < 4 * dec["stderr"][k], k
    assert dec["dp"] == pytest.approx(truth.dp) and dec["stderr"]["dp"] == 0.0
    # the numbers are the library's at the rollout's probabilities
    lib = match_cube_decision([d[k] for k in PROBABILITY_KEYS], 5, (1, 2), x=0.6)
    for k in ("nd", "dt", "dp", "nd_emg", "dt_emg", "take_point", "cubeless_mwc"):
        assert dec[k] == pytest.approx(getattr(lib, k)), k


# The last roll: the opponent's single checker on its ace point comes off with any roll.
#   O: ace point 1     X (on roll): 7-point 1     X wins with 23 of 36 rolls
LAST_ROLL_SEVEN = "XGID=-------A----------------a-:0:0:1:00:0:0:0:0:10"
#   O: ace point 1     X (on roll): 6-point 1     X wins with 27 of 36 rolls, exactly 75 %
LAST_ROLL_SIX = "XGID=------A-----------------a-:0:0:1:00:0:0:0:0:10"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_last_roll_is_a_dead_cube(capsys, seed):
    # 23/36: a double and a take (the take point is the dead cube's 25 %), not the "No
    # double, take" of x = 0.6.
    # Exactly: No double 2p - 1, Double/take 2 (2p - 1), Double/pass 1, with p = 23/36.
    p = 23 / 36
    assert 2 * p - 1 < 2 * (2 * p - 1) < 1
    d = cube_json(capsys, LAST_ROLL_SEVEN, games=4000, seed=seed)
    assert abs(d["win"] - p) < 4 * d["stderr"]["win"]
    assert d["x"] == 0.0 and d["x_source"] == "last roll: dead cube"
    dec = d["decision"]
    assert dec["action"] == "Double, take" and dec["z"] > 10
    assert dec["take_point"] == pytest.approx(0.25)
    assert dec["nd"] == pytest.approx(d["equity"]) and dec["dt"] == pytest.approx(2 * d["equity"])
    code, out, _ = run(capsys, "cube", LAST_ROLL_SEVEN, "--method", "janowski", "-n", "1000", "--seed", str(seed),
                       "--no-progress")
    assert code == 0 and "x = 0, last roll: dead cube" in out


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_last_roll_at_exactly_the_take_point_is_close(capsys, seed):
    # 27/36 = 75 %, the dead cube's cash point: Double/take equals Double/pass exactly, so
    # the take-or-pass margin is pure sampling noise, a few standard errors at most.
    exact = solve(Position.parse(LAST_ROLL_SIX), exact=True)
    assert exact.win == Fraction(3, 4) and exact.dt == 1
    d = cube_json(capsys, LAST_ROLL_SIX, games=4000, seed=seed)
    take = d["decision"]["margins"]["take"]
    assert d["x"] == 0.0
    assert abs(take["z"]) < 4 and d["decision"]["z"] < 4
    assert d["decision"]["action"] in ("Double, take", "Double, pass")


def test_last_roll_in_match_play(capsys):
    d = cube_json(capsys, LAST_ROLL_SEVEN, "--match-length", "7", "--score", "2-4", games=1000)
    assert d["x"] == 0.0 and d["x_source"] == "last roll: dead cube"
    lib = match_cube_decision([d[k] for k in PROBABILITY_KEYS], 7, (2, 4),
                              position=LAST_ROLL_SEVEN)
    assert lib.x == 0.0 and d["decision"]["action"] == lib.action
    assert d["decision"]["nd"] == pytest.approx(lib.nd)


def test_certain_position_has_exact_margin(capsys):
    # One checker on the ace against anything: the player always wins (no gammon, the
    # opponent has borne off), so there is no sampling error at all.
    xgid = Position(bearoff_board([1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 3])).to_xgid()
    d = cube_json(capsys, xgid, games=1000)
    dec = d["decision"]
    assert d["win"] == 1.0 and dec["action"] == "Double, pass"
    assert dec["margins"]["take"]["choice"] == "pass" and dec["margins"]["take"]["z"] is None
    assert dec["stderr"]["nd"] == 0.0


def test_difference_stderr_uses_covariance(capsys):
    # ND and DT come from the same rollout: the difference is known far better than
    # the separate errors would say.
    dec = cube_json(capsys, "start")["decision"]
    m = dec["margins"]["double"]
    assert m["choice"] == "no double" and m["over"] == "double"
    assert m["difference"] == pytest.approx(dec["nd"] - min(dec["dt"], dec["dp"]))
    assert m["stderr"] < math.hypot(dec["stderr"]["nd"], dec["stderr"]["dt"]) / 2
    assert m["z"] == pytest.approx(m["difference"] / m["stderr"])
    assert dec["z"] == min(m["z"], dec["margins"]["take"]["z"])


def test_state_from_xgid_and_overrides(capsys):
    d = cube_json(capsys, MATCH_XGID, games=1000)
    s = d["state"]
    assert (s["match_length"], s["score"], s["cube"], s["cube_owner"]) == (7, [3, 2], 2, "player")
    assert d["decision"]["action"].startswith(("No redouble", "Redouble", "Too good to redouble"))
    # --cube 1 alone centres the cube; options replace the ID's fields one by one
    s = cube_json(capsys, MATCH_XGID, "--cube", "1", games=1000)["state"]
    assert (s["cube"], s["cube_owner"], s["score"]) == (1, "centred", [3, 2])
    s = cube_json(capsys, MATCH_XGID, "--score", "5-6", games=1000)["state"]
    assert s["away"] == [2, 1] and s["post_crawford"]
    # to money play: the score goes
    s = cube_json(capsys, MATCH_XGID, "--match-length", "0", games=1000)["state"]
    assert (s["match_length"], s["score"], s["cube"]) == (0, [0, 0], 2)


def test_gnubg_pair_state(capsys):
    # GNU Backgammon's manual example with the dice cleared: 9-point match, 4-2, the
    # opponent owns a 2-cube.
    from fastbg.game import parse_game

    _, state, _ = parse_game("4HPwATDgc/ABMA:QYkqASAAIAAA")
    pair = state.to_gnubg_id(Position.start())
    d = cube_json(capsys, pair, games=1000)
    assert d["state"]["score"] == [4, 2] and d["state"]["cube_owner"] == "opponent"
    assert d["decision"]["can_double"] is False
    assert "opponent owns" in d["decision"]["why_not"]


def test_no_cube_decision_cases(capsys):
    # (200 games: what is said does not depend on the number)
    d = cube_json(capsys, "start", "--cube", "2", "--owner", "opponent", games=200)["decision"]
    assert not d["can_double"] and d["dt"] is None and d["margins"] is None
    assert d["nd"] is not None and d["stderr"]["nd"] > 0
    d = cube_json(capsys, "start", "--match-length", "5", "--score", "4-1", "--crawford",
                  games=200)["decision"]
    assert not d["can_double"] and "Crawford" in d["why_not"]
    code, out, _ = run(capsys, "cube", "start", "--match-length", "5", "--score", "4-1",
                       "--crawford", "-n", "200", "--seed", "1", "--no-progress")
    assert code == 0 and "No cube decision: no doubling in the Crawford game" in out


# The take position of the README with the cube at 1024, the XGID's limit (max cube 10).
AT_LIMIT = "XGID=-ABBCBCAA-------aaacbbbba-:10:1:1:00:0:0:0:0:10"


def test_no_double_at_the_cube_limit(capsys):
    from fastbg.game import parse_game

    assert not parse_game(AT_LIMIT)[1].may_double
    d = cube_json(capsys, AT_LIMIT, games=1000)
    dec = d["decision"]
    assert not dec["can_double"] and dec["dt"] is None and dec["margins"] is None
    assert "at its limit" in dec["why_not"] and "1024" in dec["why_not"]
    assert dec["action"] == "No redouble, take"
    # nobody can turn the cube again: it is dead, the equity the cubeless one
    assert d["x"] == 0.0 and "limit" in d["x_source"]
    assert dec["nd"] == pytest.approx(d["equity"])
    code, out, _ = run(capsys, "cube", AT_LIMIT, "-n", "1000", "--seed", "1", "--no-progress")
    assert code == 0 and "No cube decision: the cube is at its limit" in out
    assert "Proper action" not in out
    # match play too
    d = cube_json(capsys, AT_LIMIT, "--match-length", "25", "--score", "0-0", "--cube", "1024",
                  "--owner", "player", games=1000)["decision"]
    assert not d["can_double"] and "at its limit" in d["why_not"]
    # --max-cube raises the limit explicitly
    d = cube_json(capsys, AT_LIMIT, "--max-cube", "2048", games=1000)
    assert d["decision"]["can_double"] and d["decision"]["action"].startswith(
        ("Redouble", "No redouble", "Too good"))
    d = cube_json(capsys, "start", "--cube", "4096", "--owner", "player", "--max-cube", "8192",
                  games=1000)
    assert d["state"]["cube"] == 4096 and d["decision"]["can_double"]
    assert d["xgid"].endswith(":13")


def test_dead_cube_message_article(capsys):
    d = cube_json(capsys, "start", "--match-length", "11", "--score", "3-0", "--cube", "8",
                  "--owner", "player", games=1000)["decision"]
    assert "8-away with an 8-cube" in d["why_not"]


def test_cube_options_x_jacoby_beaver(capsys):
    d = cube_json(capsys, "start", "--x", "1", "--jacoby", "--beaver", games=1000)
    assert d["x"] == 1.0 and d["x_source"] == "given"
    assert d["state"]["jacoby"] and d["state"]["beaver"]
    q = [d[k] for k in PROBABILITY_KEYS]
    assert d["decision"]["nd"] == pytest.approx(
        cubeful_equity(q, x=1.0, jacoby=True))


# ------------------------------------------------------------------------- tables

def test_met_json_and_csv(capsys):
    table = load_met("Kazaross-XG2")
    code, out, _ = run(capsys, "met", "--length", "9", "--json")
    assert code == 0
    d = json.loads(out)
    for k in ("met", "description", "source", "length", "pre_crawford", "post_crawford"):
        assert k in d
    assert d["length"] == 9 and len(d["pre_crawford"]) == 9 and len(d["post_crawford"]) == 9
    assert d["pre_crawford"][2][3] == table.mwc(3, 4)
    assert d["post_crawford"][4] == table.post_crawford_mwc(5)

    code, out, _ = run(capsys, "met", "--length", "4", "--csv", "--met", "woolsey")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 16 + 4
    woolsey = load_met("woolsey")
    for r in rows:
        a, b = int(r["away"]), int(r["away_opponent"])
        want = woolsey.mwc(a, b) if r["table"] == "pre-crawford" else woolsey.post_crawford_mwc(a)
        assert float(r["mwc"]) == pytest.approx(want)

    code, out, _ = run(capsys, "met", "--post-crawford", "--length", "3", "--json")
    d = json.loads(out)
    assert "pre_crawford" not in d and len(d["post_crawford"]) == 3


def test_met_text_default_length(capsys):
    code, out, _ = run(capsys, "met")
    assert code == 0
    assert "Pre-Crawford" in out and "Post-Crawford" in out
    assert " 15 " in out and " 16 " not in out


def test_takepoints_json_agree_with_library(capsys):
    table = load_met("Kazaross-XG2")
    code, out, _ = run(capsys, "takepoints", "--length", "5", "--json")
    assert code == 0
    d = json.loads(out)
    for k in ("met", "length", "cubes", "gammonless", "take_points"):
        assert k in d
    assert d["cubes"] == [1, 2, 4]
    recs = d["take_points"]
    assert len(recs) == 3 * 25
    for r in recs:
        assert set(r) == {"cube", "away_taker", "away_doubler", "dead", "live"}
        if r["away_doubler"] <= r["cube"]:
            assert r["dead"] is None and r["live"] is None
            continue
        args = (r["away_taker"], r["away_doubler"], r["cube"])
        assert r["dead"] == table.take_point(*args)
        assert r["live"] == table.take_point(*args, live=True)
    # the published 3-away/3-away figures (dead 30.17 %, live 22.65 %)
    r = next(r for r in recs if (r["cube"], r["away_taker"], r["away_doubler"]) == (1, 3, 3))
    assert r["dead"] == pytest.approx(0.3017, abs=5e-5)
    assert r["live"] == pytest.approx(0.2265, abs=5e-5)


def test_takepoints_csv_and_text(capsys):
    code, out, _ = run(capsys, "takepoints", "--length", "3", "--csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 27 and rows[0].keys() == {"cube", "away_taker", "away_doubler",
                                                   "dead", "live"}
    r = next(r for r in rows if (r["cube"], r["away_taker"], r["away_doubler"]) == ("1", "3", "3"))
    assert float(r["dead"]) == pytest.approx(0.3017, abs=5e-5)
    code, out, _ = run(capsys, "takepoints", "--length", "3")
    assert code == 0 and "30.2/22.6" in out and "1-cube, doubled to 2" in out


def test_gammon_values_json_csv(capsys):
    table = load_met("Kazaross-XG2")
    code, out, _ = run(capsys, "gammon-values", "--length", "4", "--json")
    assert code == 0
    d = json.loads(out)
    for k in ("met", "length", "cube", "gammon_values"):
        assert k in d
    assert len(d["gammon_values"]) == 16
    for r in d["gammon_values"]:
        assert (r["win"], r["lose"]) == table.gammon_values(r["away"], r["away_opponent"], 1)
    code, out, _ = run(capsys, "gammon-values", "--length", "3", "--cube", "2", "--csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 9 and {r["cube"] for r in rows} == {"2"}
    for r in rows:
        want = table.gammon_values(int(r["away"]), int(r["away_opponent"]), 2)
        assert (float(r["win"]), float(r["lose"])) == pytest.approx(want)
    code, out, _ = run(capsys, "gammon-values", "--length", "3")
    assert code == 0 and "0.00/1.00" in out  # 1-away against 2-away: a lost gammon ends it


# ------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("argv, fragment", [
    (["cube", "start", "--match-length", "7", "--met", "nosuch"], "unknown match equity table"),
    (["cube", "start", "--match-length", "7", "--score", "7-2"], "already won"),
    (["cube", "start", "--match-length", "7", "--score", "3-9"], "already won"),
    (["cube", "start", "--cube", "3"], "not a power of two"),
    (["cube", "start", "--owner", "player"], "1-cube is centred"),
    (["cube", "start", "--cube", "1", "--owner", "opponent"], "1-cube is centred"),
    (["cube", "start", "--match-length", "7", "--score", "3-2", "--crawford"], "neither side is 1-away"),
    (["cube", "start", "--match-length", "7", "--score", "6-6", "--crawford"], "Crawford game has been played"),
    (["cube", "start", "--match-length", "7", "--score", "6-2", "--crawford", "--cube", "2",
      "--owner", "player"], "Crawford game"),
    (["cube", "start", "--x", "1.5"], "must be in [0, 1]"),
    (["cube", "start", "--x", "-0.1"], "must be in [0, 1]"),
    (["cube", "start", "--x", "nan"], "must be in [0, 1]"),
    (["cube", "start", "--x", "abc"], "not a number"),
    (["cube", "start", "--score", "1-2"], "money play"),
    (["cube", "start", "--score", "1:2", "--match-length", "5"], "not A-B"),
    (["cube", "start", "--match-length", "-3"], "money play"),
    (["cube", "start", "--match-length", "30"], "holds scores up to 25-away"),
    (["cube", "start", "--match-length", "65"],
     "holds scores up to 25-away; got 65-away/65-away"),
    (["cube", "start", "--match-length", "1", "--crawford"],
     "a 1-point match has no Crawford game"),
    (["cube", "start", "--match-length", "7", "--cube", "2"],
     "a centred 2-cube in a 7-point match"),
    (["cube", "start", "--match-length", "7", "--score", "-1-2"], "-1 is negative"),
    (["cube", "start", "--jacoby", "--match-length", "5"], "Jacoby"),
    (["cube", "start", "--met", "woolsey"], "--met is for match play"),
    (["cube", "4HPwATDgc/ABMA:QYkqASAAIAAA"], "dice rolled"),
    (["cube", "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"], "dice rolled"),
    (["cube", "4HPwATDgc/ABM"], "13 characters"),
    (["cube", "start", "--games", "0"], "must be at least 1"),
    (["cube", "start", "--owner", "me"], "invalid choice"),
    (["met", "--csv", "--json"], "not allowed with"),
    (["met", "--met", "nosuch"], "unknown match equity table"),
    (["met", "--length", "30"], "holds scores up to 25-away"),
    (["takepoints"], "required: --length"),
    (["takepoints", "--length", "0"], "must be at least 1"),
    (["takepoints", "--length", "26"], "holds scores up to 25-away"),
    (["takepoints", "--length", "5", "--json", "--csv"], "not allowed with"),
    (["gammon-values", "--length", "5", "--cube", "3"], "power of two"),
    (["gammon-values", "--length", "5", "--met", "nosuch.xml"], "unknown match equity table"),
    # an explicit cube above the limit is refused, as an XGID's is
    (["cube", "start", "--cube", "4096", "--owner", "player"],
     "--cube 4096 is above the cube limit 1024"),
    (["cube", AT_LIMIT, "--cube", "2048"], "above the cube limit 1024 (the XGID's max cube"),
    (["cube", "start", "--cube", "8", "--owner", "player", "--max-cube", "4"],
     "above the cube limit 4 (--max-cube)"),
    (["cube", "start", "--max-cube", "3"], "--max-cube 3 is not a power of two"),
    (["cube", "XGID=-ABBCBCAA-------aaacbbbba-:11:1:1:00:0:0:0:0:10"], "cube 2048 is above"),
    (["cube", "start", "--bogus"], "fastbg cube: error: unrecognized arguments: --bogus"),
    (["met", "--frob"], "fastbg met: error: unrecognized arguments: --frob"),
])
def test_bad_input_one_line_exit_2(capsys, argv, fragment):
    with pytest.raises(SystemExit) as exc:
        raise SystemExit(main(argv))
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert fragment in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_met_directory(capsys, tmp_path):
    for argv in (["met", "--met", str(tmp_path)],
                 ["cube", "start", "--match-length", "5", "--met", str(tmp_path)]):
        code, _, err = run(capsys, *argv)
        assert code == 2 and "is a directory" in err and "no such file" not in err


def test_bad_met_file(capsys, tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text("<met><info/></met>")
    code, _, err = run(capsys, "takepoints", "--length", "3", "--met", str(bad))
    assert code == 2 and "no <pre-crawford-table>" in err and len(err.strip().splitlines()) == 1


def test_interrupted_cube_reports_partial_result(capsys, monkeypatch):
    # Ctrl-C during the rollout: the finished games are analysed, marked, status 130.
    import dataclasses

    import fastbg.rollouts.cubedecision as lib

    real = lib.rollout

    def interrupted(*args, **kwargs):
        return dataclasses.replace(real(*args, **kwargs), interrupted=True)

    monkeypatch.setattr(lib, "rollout", interrupted)
    code, out, _ = run(capsys, "cube", SIX_SIX, "--method", "janowski", "-n", "1000", "--seed", "1",
                       "--workers", "1",
                       "--no-progress")
    assert code == 130 and out.startswith("INTERRUPTED: Cube decision")
    code, out, _ = run(capsys, "cube", SIX_SIX, "--method", "janowski", "-n", "1000", "--seed", "1",
                       "--workers", "1",
                       "--no-progress", "--json")
    assert code == 130 and json.loads(out)["interrupted"] is True


def test_a_race_the_databases_value_exactly_is_worded_as_it_is(capsys):
    # The 3/36 race (new-user trial): 3 trials in 36 are won, so the trials vary; only their
    # luck-adjusted values do not (the bear-off databases value every position after the
    # first roll exactly). The output said "the trials did not vary", and then called the
    # exact values "biased by the policy's play and by the in-game cube decisions".
    three = "XGID=------AA---------------aa-:0:0:1:00:0:0:0:0:10"
    code, out, _ = run(capsys, "cube", three, "-n", "360", "--seed", "1", "--no-progress")
    assert code == 0
    assert "(exact; no double by 0.8333, take by 2.6667)\n" in out
    assert "the trials did not vary" not in out and "biased" not in out
    assert out.endswith("(no sampling error and no bias from the play: every trial's "
                        "luck-adjusted value was the same, the bear-off databases valuing "
                        "every position after the first roll exactly)\n")
    # without variance reduction the games vary, and the caveat stands
    code, out, _ = run(capsys, "cube", three, "-n", "360", "--seed", "1", "--no-progress",
                       "--no-vr")
    assert code == 0 and "did not vary" not in out
    assert out.endswith("(not variance-reduced; biased by the policy's play and by the "
                        "in-game cube decisions)\n")


@pytest.mark.parametrize("match", [[], ["--match-length", "5"]])
def test_janowski_cube_of_one_game_says_na_for_its_standard_errors(capsys, match):
    # one game has no standard error: the tables say n/a, as rollout's do, never "nan"
    code, out, _ = run(capsys, "cube", "start", "--method", "janowski", "-n", "1", "--seed", "1",
                       "--workers", "1", "--no-progress", *match)
    assert code == 0
    assert "nan" not in out and "n/a" in out
    assert "std.err of the difference n/a" in out


def test_one_trial_shows_no_standard_error_as_n_a(capsys):
    # `cube start -n 1` printed "nan" where `rollout -n 1` prints "n/a" (new-user trial)
    code, out, _ = run(capsys, "cube", "start", "-n", "1", "--seed", "1", "--no-progress")
    assert code == 0 and "nan" not in out
    for row in ("No double", "Double, take", "DT - ND"):
        line = next(x for x in out.splitlines() if x.strip().startswith(row))
        assert line.split()[-1 if row != "DT - ND" else 4] == "n/a", line
