"""`fastbg rollout --cubeful`: the cubeful rollout API behind the command line."""
from __future__ import annotations

import json

import pytest

from fastbg.cli import main
from fastbg.rollouts.cubeful import cubeful_rollout
from fastbg.game import MatchState


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


RACE = "XGID=-ABBCBCAA-------aaacbbbba-:0:0:1:00:0:0:0:0:10"


def test_money_json_is_the_library_result(capsys):
    code, out, _ = run(capsys, "rollout", RACE, "--cubeful", "-n", "2000", "--seed", "3",
                       "--policy", "pubeval", "--json", "--no-progress")
    assert code == 0
    d = json.loads(out)
    lib = cubeful_rollout(RACE, 2000, seed=3, policy="pubeval")
    assert d["equity"] == lib.equity and d["counts"] == lib.counts.tolist()
    for k in ("equity", "stderr", "doubled", "passed", "mean_cube", "outcomes", "games", "seed"):
        assert k in d
    assert d["match_length"] == 0 and d["games"] == 2000


def test_match_state_from_options(capsys):
    code, out, _ = run(capsys, "rollout", RACE, "--cubeful", "-n", "1000", "--seed", "2",
                       "--policy", "pubeval", "--match-length", "7", "--score", "2-4",
                       "--json", "--no-progress")
    assert code == 0
    d = json.loads(out)
    lib = cubeful_rollout(RACE, 1000, seed=2, policy="pubeval",
                          state=MatchState.match(7, (2, 4)))
    assert d["mwc"] == lib.mwc and d["score"] == [2, 4] and 0 <= d["mwc"] <= 1


def test_text_output(capsys):
    code, out, _ = run(capsys, "rollout", RACE, "--cubeful", "-n", "1000", "--seed", "1",
                       "--policy", "pubeval", "--no-progress")
    assert code == 0
    for fragment in ("Cubeful rollout", "money play, cube 1 centred", "cubeful equity",
                     "doubled in", "win pass"):
        assert fragment in out, fragment


@pytest.mark.parametrize("argv, message", [
    (["--cube", "2"], "add --cubeful"),
    (["--match-length", "5"], "add --cubeful"),
    (["--cubeful", "--dice", "31"], "--dice cannot be used with --cubeful"),
    (["--cubeful", "--x", "1.5"], "[0, 1]"),
    (["--cubeful", "--match-length", "5", "--score", "5-0"], "score"),
])
def test_bad_input(capsys, argv, message):
    code, _, err = run(capsys, "rollout", "start", "-n", "100", *argv)
    assert code == 2 and message in err and err.count("\n") == 1
