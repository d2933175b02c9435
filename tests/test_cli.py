"""The fastbg command line: output, JSON keys, errors with exit status 2."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from fastbg.cli import main
from fastbg.rollout import PROBABILITY_KEYS


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_show(capsys):
    code, out, _ = run(capsys, "show", "start")
    assert code == 0 and "4HPwATDgc/ABMA" in out and "pips 167" in out


@pytest.mark.parametrize("dice", [["31"], ["3-1"], ["3", "1"]])
def test_moves_dice_spellings(capsys, dice):
    code, out, _ = run(capsys, "moves", "start", *dice, "--json", "--engine", "python")
    assert code == 0
    data = json.loads(out)
    assert data["position_id"] == "4HPwATDgc/ABMA" and data["dice"] == [3, 1]
    moves = {p["move"] for p in data["plays"]}
    assert "8/5 6/5" in moves and "24/23 24/21" in moves
    assert len(data["plays"]) == 16


def test_moves_table(capsys):
    code, out, _ = run(capsys, "moves", "start", "66", "--engine", "python")
    assert code == 0 and "24/18(2) 13/7(2)" in out


def test_rollout_json(capsys):
    code, out, _ = run(capsys, "rollout", "4HPMwQCMz+AIIQ", "--games", "50", "--seed", "3",
                       "--engine", "python", "--json", "--workers", "1")
    assert code == 0
    d = json.loads(out)
    for k in (*PROBABILITY_KEYS, "equity", "games", "seed", "engine", "policy", "seconds",
              "games_per_second", "stderr"):
        assert k in d
    assert d["games"] == 50 and d["seed"] == 3 and d["policy"] == "pubeval"


def test_rollout_table(capsys):
    code, out, _ = run(capsys, "rollout", "start", "-n", "30", "--seed", "1", "--engine", "python",
                       "--dice", "3-1", "--workers", "1")
    assert code == 0
    assert "win gammon" in out and "cubeless equity" in out and "first roll 3-1" in out


@pytest.mark.parametrize("argv, fragment", [
    (["show", "4HPwATDgc/ABM"], "13 characters"),
    (["show", "XGID=-b----E-C---eE---c-e----BB:0:0:1:00:0:0:0:0:10"], "checkers"),
    (["moves", "start", "71"], "die 7 out of range"),
    (["moves", "start", "3"], "bad dice"),
    (["rollout", "start", "--games", "0"], "must be at least 1"),
    (["rollout", "start", "--games", "ten"], "not a whole number"),
    (["rollout", "start", "--policy", "gnubg"], "invalid choice"),
    (["rollout", "start", "--dice", "9-9"], "out of range"),
    (["rollout", "start", "--seed", "-4"], "non-negative"),
    (["rollout", "start", "--frobnicate"], "unrecognized arguments"),
])
def test_bad_input_one_line_exit_2(capsys, argv, fragment):
    with pytest.raises(SystemExit) as exc:
        code = main(argv)
        raise SystemExit(code)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert fragment in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_console_script_runs_without_traceback():
    proc = subprocess.run([sys.executable, "-m", "fastbg.cli", "show", "nonsense"],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "bad position" in proc.stderr


def test_bare_xgid_starting_with_a_dash(capsys):
    code, out, _ = run(capsys, "show", "-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10")
    assert code == 0 and "4HPwATDgc/ABMA" in out


def test_write_error_is_reported_not_a_traceback(tmp_path):
    import os

    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "fastbg.cli", "show", "start"],
                              stdout=full, stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 1 and "cannot write" in proc.stderr and "Traceback" not in proc.stderr


def test_eval_json_is_the_network_evaluation_in_both_engines(capsys):
    import fastbg.nn

    outs = []
    for engine in ("cython", "python"):
        code, out, _ = run(capsys, "eval", "4HPMwQCMz+AIIQ", "--json", "--engine", engine)
        assert code == 0
        outs.append(json.loads(out))
    a, b = outs
    assert {k: a[k] for k in (*PROBABILITY_KEYS, "equity")} == {
        k: b[k] for k in (*PROBABILITY_KEYS, "equity")}
    ev = fastbg.nn.evaluate("4HPMwQCMz+AIIQ")
    assert all(a[k] == ev[k] for k in (*PROBABILITY_KEYS, "equity"))
    assert 0 <= a["win_backgammon"] <= a["win_gammon"] <= a["win"] <= 1
    assert a["network"]["sha256"] == fastbg.nn.network_info()["sha256"]


@pytest.mark.parametrize("position, message", [
    ("bogus", "bad position"),
    ("XGID=-------------------------A:0:0:1:00:0:0:0:0:10", "game is over"),
])
def test_eval_bad_position(capsys, position, message):
    code, _, err = run(capsys, "eval", position)
    assert code == 2 and message in err and err.count("\n") == 1
