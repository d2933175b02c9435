"""The fastbg command line: output, JSON keys, errors with exit status 2."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from fastbg.cli import main
from fastbg.game import PROBABILITY_KEYS


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_status(capsys, *argv):
    """``run``, with argparse's SystemExit turned into its status."""
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
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


def test_moves_names_the_roll_higher_die_first(capsys):
    # the dice in the order typed (13), as the field writes them (3-1)
    code, out, _ = run(capsys, "moves", "start", "13")
    assert code == 0 and out.startswith("Position 4HPwATDgc/ABMA, roll 3-1: 16 legal plays")
    code, out, _ = run(capsys, "moves", "start", "13", "--rollout", "-n", "36", "--seed", "1",
                       "-w", "1", "--no-progress")
    assert code == 0 and out.startswith("Rollout of 2 plays of 3-1 in 4HPwATDgc/ABMA")


def test_moves_table(capsys):
    code, out, _ = run(capsys, "moves", "start", "66", "--engine", "python")
    assert code == 0 and "24/18(2) 13/7(2)" in out


def test_rollout_json(capsys):
    code, out, _ = run(capsys, "rollout", "4HPMwQCMz+AIIQ", "--games", "50", "--seed", "3",
                       "--engine", "python", "--json", "--workers", "1", "--policy", "pubeval")
    assert code == 0
    d = json.loads(out)
    for k in (*PROBABILITY_KEYS, "equity", "games", "seed", "engine", "policy", "seconds",
              "games_per_second", "stderr"):
        assert k in d
    assert d["games"] == 50 and d["seed"] == "3" and d["policy"] == "pubeval"


def test_rollout_table(capsys):
    code, out, _ = run(capsys, "rollout", "start", "-n", "30", "--seed", "1", "--engine", "python",
                       "--dice", "3-1", "--workers", "1", "--policy", "pubeval")
    assert code == 0
    assert "win gammon" in out and "cubeless equity" in out and "first roll 3-1" in out


RACE = "XGID=-ABBCBCAA-------aaacbbbba-:0:0:1:00:0:0:0:0:10"
RACE_31 = "XGID=-ABBCBCAA-------aaacbbbba-:0:0:1:31:0:0:0:0:10"
RACE_PAIR = "bdtVAABttysAAA:cAngACAAIAAA"  # the same board; 7-point match, 4-2


def _rollout_json(capsys, *argv):
    code, out, err = run(capsys, "rollout", *argv, "-n", "300", "--seed", "5", "--workers",
                         "1", "--json", "--no-progress")
    assert code == 0, err
    return json.loads(out)


def test_rollout_plays_the_rolled_dice_of_an_xgid(capsys):
    rolled = _rollout_json(capsys, RACE_31)
    assert rolled["dice"] == [3, 1]
    assert rolled["counts"] == _rollout_json(capsys, RACE, "--dice", "31")["counts"]
    assert rolled["counts"] == _rollout_json(capsys, RACE_31, "--dice", "1-3")["counts"]
    assert _rollout_json(capsys, RACE)["dice"] is None
    code, _, err = run(capsys, "rollout", RACE_31, "--dice", "64")
    assert code == 2 and "3-1 rolled but --dice is 6-4" in err and err.count("\n") == 1


def test_eval_refuses_rolled_dice(capsys):
    code, _, err = run(capsys, "eval", RACE_31)
    assert code == 2 and "dice rolled (3-1)" in err and "before the roll" in err
    assert err.count("\n") == 1


def test_moves_checks_rolled_dice(capsys):
    code, out, _ = run(capsys, "moves", RACE_31, "13", "--json")
    assert code == 0 and json.loads(out)["dice"] == [1, 3]
    code, _, err = run(capsys, "moves", RACE_31, "64")
    assert code == 2 and "3-1 rolled but DICE is 6-4" in err


@pytest.mark.parametrize("argv", [["--json", "31"], ["--json", "3", "1"],
                                  ["--engine", "python", "--json", "3-1"]])
def test_moves_dice_after_an_option(capsys, argv):
    # DICE may be left out (nargs="*"), and argparse then gave it no word when an option
    # came between it and POSITION: `moves start --json 31` said "unrecognized arguments: 31"
    code, out, err = run_status(capsys, "moves", "start", *argv)
    assert code == 0 and json.loads(out)["dice"] == [3, 1], err


def test_moves_takes_the_roll_of_an_xgid_when_dice_are_left_out(capsys):
    """A new-user trial: `fastbg moves XGID` with the dice in the XGID asked for DICE."""
    code, out, _ = run(capsys, "moves", RACE_31, "--json")
    assert code == 0 and json.loads(out)["dice"] == [3, 1]
    code, _, err = run(capsys, "moves", "start")
    assert code == 2 and "give DICE, the roll" in err and "POSITION has no dice rolled" in err


@pytest.mark.parametrize("command", [["show"], ["eval"], ["moves", "--json", "31"],
                                     ["rollout", "-n", "20", "--seed", "1", "--no-progress"]])
def test_gnubg_pair_is_a_position(capsys, command):
    code, out, err = run(capsys, command[0], RACE_PAIR, *command[1:])
    assert code == 0, err
    assert "bdtVAABttysAAA" in out


def test_show_prints_the_state_of_a_pair_or_xgid(capsys):
    code, out, _ = run(capsys, "show", RACE_PAIR)
    assert code == 0
    assert "XGID: XGID=-ABBCBCAA-------aaacbbbba-:0:0:1:00:4:2:0:7:10" in out
    assert "Match ID: " in out and "7-point match, score 4-2 (3-away/5-away)" in out
    xgid = "XGID=-b----E-C---eE---c-e----B-:1:1:1:52:3:2:0:7:10"
    code, out, _ = run(capsys, "show", xgid)
    assert code == 0 and f"XGID: {xgid}" in out and "cube 2 owned by the player on roll" in out
    assert "rolled 5-2" in out
    # a pending double: the board, the state before it, and the offer
    code, out, _ = run(capsys, "show", xgid.replace(":52:", ":D:"))
    assert code == 0 and "4HPwATDgc/ABMA" in out
    assert "cube 2 owned by the player on roll; the player on roll has doubled (D)" in out
    assert f"XGID: {xgid.replace(':52:', ':00:')}" in out and "before it" in out
    # 'start' and a bare Position ID carry no state: as before
    code, out, _ = run(capsys, "show", "start")
    assert "XGID: XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10" in out
    assert "Match ID" not in out


def test_show_json_gives_the_ids_checkers_state_and_dice(capsys):
    code, out, _ = run(capsys, "show", "start", "--json")
    data = json.loads(out)
    assert code == 0 and data["position_id"] == "4HPwATDgc/ABMA" and data["state"] is None
    me, you = data["board"]["player_on_roll"], data["board"]["opponent"]
    assert me["points"][5] == 5 and me["points"][23] == 2 and me["bar"] == 0 and me["pips"] == 167
    assert sum(me["points"]) + me["bar"] + me["off"] == 15 == sum(you["points"]) + you["off"]
    assert data["xgid"] == "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    xgid = "XGID=-b----E-C---eE---c-e----B-:1:1:1:52:3:2:0:7:10"
    data = json.loads(run(capsys, "show", xgid, "--json")[1])
    assert data["xgid"] == xgid and data["dice"] == [5, 2] and data["pending_offer"] is None
    assert data["state"]["cube"] == 2 and data["state"]["cube_owner"] == "player"
    assert data["state"]["score"] == [3, 2] and data["state"]["match_length"] == 7
    assert data["match_id"]
    # a pending double: the state before it, and the offer
    data = json.loads(run(capsys, "show", xgid.replace(":52:", ":D:"), "--json")[1])
    assert data["dice"] is None and "doubled" in data["pending_offer"]
    assert data["xgid"] == xgid.replace(":52:", ":00:")
    # a back game's families, subject named from the player on roll's side
    data = json.loads(run(capsys, "show", "AMWgmxv/gBKYAg", "--json")[1])
    assert {"family": "backgame", "subject": "opponent"} in data["families"]


def test_help_lists_every_policy_and_the_engine(capsys):
    from fastbg.rollouts import POLICIES

    for command in ("rollout", "cube"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = " ".join(capsys.readouterr().out.split())
        assert "uniformly random" in out
        for policy in POLICIES:
            assert f"{policy} = " in out, (command, policy)
        assert "pubeval (default) or uniformly random" not in out
    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--engine {cython,python} the network's forward pass" in out


@pytest.mark.parametrize("argv, fragment", [
    (["show", "4HPwATDgc/ABM"], "13 characters"),
    (["cube", "start", "--frobnicate"], "fastbg cube: error: unrecognized arguments"),
    (["show", "start", "extra"], "fastbg show: error: unrecognized arguments: extra"),
    (["eval", "start", "--nope"], "fastbg eval: error: unrecognized arguments"),
    (["show", "4HPwATDgc/ABMA:QYkqASAAIAA"], "Match ID"),
    (["show", "XGID=-b----E-C---eE---c-e----BB:0:0:1:00:0:0:0:0:10"], "checkers"),
    (["moves", "start", "71"], "die 7 out of range"),
    (["show", "4HPwATDB5+ADYA"], "the player on roll has 16 checkers (more than 15)"),
    (["moves", "start", "3"], "bad dice"),
    # digits of other scripts (fullwidth, Arabic-Indic) used to be read as dice and points
    (["moves", "start", "３１"], "bad dice '３１': dice are written with the digits 1-6, not '３'"),
    (["moves", "start", "3-١"], "not '١'"),
    (["rollout", "start", "--dice", "３-１"], "dice are written with the digits 1-6"),
    (["moves", "start", "31", "--rollout", "--play", "８/５ ６/５", "--play", "24/23 24/21"],
     "'８/５' is not a move like 13/11"),
    (["rollout", "start", "-n", "２０"], "'２０' is not a number written with the digits 0-9 "
                                         "('２' is not one of them)"),
    (["rollout", "start", "--seed", "٣"], "--seed: '٣' is not a number written with the digits"),
    (["rollout", "start", "--until-se", "０.01"], "written with the digits 0-9"),
    (["moves", "start", "31", "--eval", "--ply", "０"], "--ply: '０' is not a number"),
    (["perft", "start", "２"], "DEPTH: '２' is not a number"),
    (["table", "race", "--pips", "５0"], "--pips: '５0' is not a number"),
    (["cube", "start", "--match-length", "５"], "--match-length: '５' is not a number"),
    (["rollout", "start", "--games", "0"], "must be at least 1"),
    (["rollout", "start", "--games", "ten"], "not a whole number"),
    (["rollout", "start", "--policy", "gnubg"], "invalid choice"),
    (["rollout", "start", "--dice", "9-9"], "out of range"),
    (["rollout", "start", "--seed", "-4"], "non-negative"),
    (["rollout", "start", "--frobnicate"], "fastbg rollout: error: unrecognized arguments"),
])
def test_bad_input_one_line_exit_2(capsys, argv, fragment):
    with pytest.raises(SystemExit) as exc:
        code = main(argv)
        raise SystemExit(code)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert fragment in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("argv, prefix", [
    # argparse's own errors (a bad option value, an unknown option) ...
    (["table", "race", "--pips", "x"], "fastbg table race: error: argument --pips"),
    (["table", "race", "--bogus"], "fastbg table race: error: unrecognized arguments"),
    # ... and the command's own checks carry the same full command name
    (["table", "race", "--pips", "10"], "fastbg table race: error: the cell of 10 pips"),
    (["table", "replies"], "fastbg table replies: error: give the OPENING"),
    (["table", "openings", "--rolls", "33"], "fastbg table openings: error: "),
    (["table"], "fastbg table: error: the following arguments are required: TABLE"),
    (["rollout", "start", "--until-se", "-1"], "fastbg rollout: error: --until-se must be"),
    (["rollout", "start", "--bogus"], "fastbg rollout: error: unrecognized arguments"),
    # an unknown option without a command is named (argparse said COMMAND was missing)
    (["--bogus"], "fastbg: error: unrecognized arguments: --bogus"),
    (["--bogus", "-x"], "fastbg: error: unrecognized arguments: --bogus -x"),
    (["--bogus", "rollout"], "fastbg rollout: error: unrecognized arguments: --bogus"),
])
def test_every_error_names_the_full_command(capsys, argv, prefix):
    code, out, err = run_status(capsys, *argv)
    assert code == 2 and out == "" and err.startswith(prefix), err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_bare_fastbg_lists_the_commands_and_is_a_usage_error(capsys):
    """`fastbg` alone used to print only "the following arguments are required: COMMAND",
    leaving a new user to guess them (new-user trial): it prints the help, with every
    command, then the one line of the problem, and exits with status 2."""
    from fastbg.cli import build_parser

    code, out, err = run_status(capsys)
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.startswith("usage: fastbg ")
    for name in build_parser().commands:
        assert f"\n    {name} " in err or f"\n    {name}\n" in err, name
    assert err.splitlines()[-1] == ("fastbg: error: the following arguments are required: "
                                    "COMMAND (one of those above)")


XGID_31 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"


@pytest.mark.parametrize("argv, first, second", [
    # `start` is the POSITION: the XGID meant as it was "unrecognized" (new-user trial)
    (["rollout", "start", XGID_31, "-n", "10"], "start", XGID_31),
    (["rollout", "start", XGID_31[5:]], "start", XGID_31),      # bare, from a dash
    (["rollout", "4HPMwQCMz+AIIQ", "start"], "4HPMwQCMz+AIIQ", "start"),
    (["rollout", "start", "XGID=garbage"], "start", "XGID=garbage"),   # meant, if not valid
    (["eval", "start", "4HPMwQCMz+AIIQ"], "start", "4HPMwQCMz+AIIQ"),
    (["cube", "start", "4HPwATDgc/ABMA:cAkAAAAAAAAA"], "start", "4HPwATDgc/ABMA:cAkAAAAAAAAA"),
    # moves' DICE took the second one as a die: "bad dice 'start 31'" (new-user trial)
    (["moves", "start", "start", "31"], "start", "start"),
    (["moves", "start", "31", XGID_31], "start", XGID_31),
    (["moves", "start", "--json", "4HPMwQCMz+AIIQ", "31"], "start", "4HPMwQCMz+AIIQ"),
])
def test_a_second_position_says_that_the_command_takes_one(capsys, argv, first, second):
    code, out, err = run_status(capsys, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert err == (f"fastbg {argv[0]}: error: {argv[0]} takes one POSITION; got {first!r} "
                   f"and {second!r}: give the one to use\n"), err


@pytest.mark.parametrize("argv, options", [
    # the word after an unknown option became the POSITION and the real one was left
    # over: "cube takes one POSITION; got 'x' and 'start'" (new-user trial)
    (["cube", "--bogus", "x", "start"], "--bogus"),
    (["rollout", "--bogus", "x", "start", "-n", "10"], "--bogus"),
    (["rollout", "x", "--bogus", "start"], "--bogus"),
    (["eval", "--bogus=3", "-q", "x", "start"], "--bogus=3 -q"),
])
def test_an_unknown_option_is_named_before_a_second_position(capsys, argv, options):
    code, out, err = run_status(capsys, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert err == f"fastbg {argv[0]}: error: unrecognized arguments: {options}\n", err


def test_a_left_over_word_that_is_no_position_is_still_unrecognized(capsys):
    for argv in (["rollout", "start", "foo"], ["show", "start", "extra"]):
        code, _, err = run_status(capsys, *argv)
        assert code == 2 and f"unrecognized arguments: {argv[-1]}" in err, err


@pytest.mark.parametrize("argv, roll", [
    (["rollout", "start", "31"], "31"), (["rollout", "start", "3", "1"], "31"),
    (["rollout", "start", "-n", "10", "6-6"], "66"),
])
def test_a_left_over_roll_says_how_to_fix_the_first_roll(capsys, argv, roll):
    # `rollout start 31` said only "unrecognized arguments: 31" (new-user trial)
    code, out, err = run_status(capsys, *argv)
    words = " ".join(argv[2:] if argv[2] != "-n" else argv[4:])
    assert code == 2 and out == "" and err == (
        f"fastbg rollout: error: unrecognized arguments: {words} (to fix the first roll, "
        f"--dice {roll})\n"), err


def test_a_roll_as_the_position_says_how_to_fix_the_first_roll(capsys):
    # `rollout 31` (no POSITION) said only "bad position '31'" (new-user trial)
    code, _, err = run_status(capsys, "rollout", "31", "-n", "10")
    assert code == 2 and err.startswith("fastbg rollout: error: bad position '31'") and err.endswith(
        "(a roll is not a position: to fix the first roll, fastbg rollout POSITION --dice 31, "
        "e.g. fastbg rollout start --dice 31)\n"), err
    for argv in (["cube", "31"], ["rollout", "31", "--cubeful"], ["rollout", "foo"]):
        code, _, err = run_status(capsys, *argv)
        assert code == 2 and "bad position" in err and "--dice" not in err, err


def test_a_left_over_roll_gets_no_hint_where_there_is_no_dice_option(capsys):
    for argv in (["cube", "start", "31"], ["eval", "start", "31"],
                 ["rollout", "start", "31", "--cubeful"]):
        code, _, err = run_status(capsys, *argv)
        assert code == 2 and err.endswith("error: unrecognized arguments: 31\n"), err


def test_console_script_runs_without_traceback():
    proc = subprocess.run([sys.executable, "-m", "fastbg", "show", "nonsense"],
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
        proc = subprocess.run([sys.executable, "-m", "fastbg", "show", "start"],
                              stdout=full, stderr=subprocess.PIPE, text=True)
    # an environment problem is status 2, as the error contract says (it used to be 1)
    assert proc.returncode == 2 and "cannot write" in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1


@pytest.mark.parametrize("argv, prog", [
    (["show", "start"], "fastbg show"), (["eval", "start", "--json"], "fastbg eval"),
    (["--help"], "fastbg"), (["--version"], "fastbg"), (["rollout", "--help"], "fastbg rollout"),
    (["rollout", "start", "--games", "100", "--no-progress"], "fastbg rollout"),
    (["table", "race", "--positions", "1", "--no-progress"], "fastbg table race")])
def test_a_closed_standard_output_is_reported_before_any_work(argv, prog):
    # `fastbg show start >&-` (new-user trial): Python's sys.stdout is None there, and the
    # flush after the command raised AttributeError, a traceback and status 1; the error
    # names the command, as the others do (it was checked before the arguments were read,
    # and said "fastbg: error", another trial)
    proc = subprocess.run([sys.executable, "-m", "fastbg", *argv], stdout=None,
                          stderr=subprocess.PIPE, text=True,
                          preexec_fn=lambda: __import__("os").close(1))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr == f"{prog}: error: cannot write the output: standard output is closed\n"


@pytest.mark.parametrize("argv, prog", [
    (["--help"], "fastbg"), (["show", "--help"], "fastbg show"),
    (["table", "race", "--help"], "fastbg table race"), (["--version"], "fastbg")])
def test_help_and_version_on_a_full_disk_are_a_write_error(argv, prog):
    # `fastbg --help > /dev/full` (new-user trial): argparse dropped the failing write and
    # exited 0 with the text lost, where a command's output on a full disk is status 2
    import os

    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "fastbg", *argv], stdout=full,
                              stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"{prog}: error: cannot write the output: ")
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_help_read_in_part_is_not_an_error():
    # (the reader of a pipe going away is not, as for a command's output)
    proc = subprocess.run(f"{sys.executable} -m fastbg rollout --help | head -c 1",
                          shell=True, capture_output=True, text=True)
    assert proc.stdout == "u" and proc.stderr == ""


_CLOSED_STDERR_COMMANDS = [
    ["rollout", "start", "--games", "100"], ["moves", "start", "31", "--rollout", "--games", "20"],
    ["cube", "start", "--games", "100"], ["table", "race", "--positions", "1", "--games", "100"]]


def _fastbg_with_stderr(argv, stderr):
    import os

    if stderr == "closed":
        return subprocess.run([sys.executable, "-m", "fastbg", *argv], stdout=subprocess.PIPE,
                              text=True, preexec_fn=lambda: os.close(2))
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    with open("/dev/full", "w") as full:
        return subprocess.run([sys.executable, "-m", "fastbg", *argv], stdout=subprocess.PIPE,
                              stderr=full, text=True)


@pytest.mark.parametrize("stderr", ["closed", "full"])
@pytest.mark.parametrize("argv", _CLOSED_STDERR_COMMANDS)
def test_a_good_command_gives_its_result_with_stderr_closed_or_full(argv, stderr):
    # `fastbg rollout start --games 1000 2>&-` (new-user trial): Python's sys.stderr is None
    # there, the progress bar raised AttributeError, and the command exited 1 with nothing
    # on stdout; nothing can be said on such a stderr, but the result is still the result
    proc = _fastbg_with_stderr(argv, stderr)
    assert proc.returncode == 0 and proc.stdout.strip()


@pytest.mark.parametrize("stderr", ["closed", "full"])
@pytest.mark.parametrize("argv", [["show", "nonsense"], ["rollout", "start", "--games", "0"]])
def test_bad_input_is_status_2_with_stderr_closed_or_full(argv, stderr):
    # (the error's own write raised, and the status was 1)
    proc = _fastbg_with_stderr(argv, stderr)
    assert proc.returncode == 2 and proc.stdout == ""


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


# a crashed position (the side on roll has 5 checkers in play, 5 off) and the start
CRASHED_ID = "zA4ccAPvBgAAAQ"


@pytest.mark.parametrize("position, net", [(CRASHED_ID, "crashed"), ("4HPwATDgc/ABMA", "contact")])
def test_eval_names_the_net_that_read_the_position(capsys, position, net):
    import fastbg.nn

    hidden = fastbg.nn.network_info()["nets"][net]["hidden"]
    code, out, _ = run(capsys, "eval", position)
    assert code == 0 and f"a contact position, read by the {net} net ({hidden} hidden units)" in out
    code, out, _ = run(capsys, "eval", position, "--json")
    assert code == 0 and json.loads(out)["evaluated_by"] == f"the {net} net"


@pytest.mark.parametrize("position, message", [
    ("bogus", "bad position"),
    ("XGID=-------------------------A:0:0:1:00:0:0:0:0:10", "game is over"),
])
def test_eval_bad_position(capsys, position, message):
    code, _, err = run(capsys, "eval", position)
    assert code == 2 and message in err and err.count("\n") == 1


@pytest.mark.parametrize("xgid, side", [
    ("XGID=-OA-----------------------:0:0:1:00:0:0:0:0:10", "the side on roll"),
    ("XGID=-----------------------ao-:0:0:1:00:0:0:0:0:10", "the opponent")])
def test_a_side_with_too_many_checkers_is_named_in_the_field_s_words(capsys, xgid, side):
    # "the side to move (row 0) has 16 checkers" (new-user trial): a user who gave an XGID
    # has no rows; the side is named as the commands name it
    for command in ("show", "eval"):
        code, _, err = run_status(capsys, command, xgid)
        assert (code, err) == (2, f"fastbg {command}: error: bad XGID {xgid!r}: {side} has 16 "
                                  "checkers; at most 15\n")
        assert "row" not in err


def test_eval_says_a_game_is_over_as_the_other_commands_do(capsys):
    # eval said "the game is over: a side has no checker left", the others "the game is
    # over in this position: a side has borne off all 15 checkers" (new-user trial)
    over = "XGID=-----------------------aa-:0:0:1:00:0:0:0:0:10"
    said = set()
    for argv in (["eval", over], ["moves", over, "31"], ["rollout", over], ["cube", over],
                 ["cube", over, "--method", "janowski"]):
        code, out, err = run_status(capsys, *argv, "--no-progress")
        assert code == 2 and out == "" and err.count("\n") == 1, (argv, err)
        said.add(err.split(": error: ", 1)[1])
    assert said == {"the game is over in this position: a side has borne off all 15 "
                    "checkers\n"}


START_FIELDS = "XGID=-b----E-C---eE---c-e----B-:{}"


@pytest.mark.parametrize("argv", [
    ["cube", "start", "--match-length", "7", "--score", "-1-2"],
    ["cube", "start", "--match-length", "7", "--sc", "-1-2"],
    ["cube", "start", "--match-length", "7", "--score", "1--2"],
    ["cube", "start", "--match-length", "7", "--score=-1-2"],
    ["rollout", "start", "--cubeful", "--match-length", "7", "--score", "-1-2"],
])
def test_negative_score_is_named_not_a_missing_argument(capsys, argv):
    # argparse took "-1-2" for an option and said "--score: expected one argument".
    code, _, err = run_status(capsys, *argv)
    assert code == 2 and "expected one argument" not in err
    assert "argument --score: score" in err and "is invalid" in err and "is negative" in err
    assert err.startswith(f"fastbg {argv[0]}: error: ") and err.count("\n") == 1


def test_other_dash_values_reach_their_option(capsys):
    code, _, err = run_status(capsys, "rollout", "start", "--cubeful", "--x", "-1e-3")
    assert code == 2 and "--x must be in [0, 1], got -0.001" in err
    code, _, err = run_status(capsys, "cube", "start", "--seed", "-3")
    assert code == 2 and "seed '-3' must be non-negative" in err


@pytest.mark.parametrize("fields, fragment", [
    ("0:0:1:00:0:0:1:1:10", "a 1-point match has no Crawford game"),
    ("1:0:1:00:0:0:0:7:10", "a centred 2-cube in a 7-point match"),
    ("0:0:1:00:7:0:0:7:10", "has already won"),
    ("1:1:1:00:6:2:1:7:10", "cube 2 in the Crawford game"),
    ("0:0:1:00:0:0:0:0", "it has 9 fields, expected 10"),
])
def test_show_refuses_an_impossible_xgid_as_the_other_commands_do(capsys, fields, fragment):
    xgid = START_FIELDS.format(fields)
    code, out, err = run(capsys, "show", xgid)
    assert code == 2 and out == "" and fragment in err and err.count("\n") == 1
    assert err.startswith("fastbg show: error: bad XGID")
    code, _, err_eval = run(capsys, "eval", xgid)
    assert code == 2
    assert err_eval.replace("fastbg eval:", "fastbg show:") == err


def test_show_names_the_xgid_whose_match_length_does_not_fit_a_match_id(capsys):
    # it said "match length 100000 does not fit the Match ID's 15 bits" alone, without
    # the "bad XGID '...':" of the other errors of an XGID (new-user trial)
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:100000:10"
    code, out, err = run_status(capsys, "show", xgid)
    assert code == 2 and out == "" and err == (
        f"fastbg show: error: bad XGID {xgid!r}: match length 100000 does not fit the Match "
        "ID's 15 bits (at most 32767)\n")
    code, out, _ = run_status(capsys, "show", xgid.replace("100000", "32767"))
    assert code == 0 and "32767-point match" in out


def test_show_refuses_a_non_canonical_position_id(capsys):
    for text in ("4HPwATDgc/ABMB", "4HPwATDgc/ABMB:QYkqASAAIAAA"):
        code, out, err = run(capsys, "show", text)
        assert code == 2 and out == ""
        assert "not canonical" in err and "'4HPwATDgc/ABMA'" in err


def test_show_reads_a_centred_cube_above_one_in_money_play(capsys):
    code, out, _ = run(capsys, "show", START_FIELDS.format("1:0:1:00:0:0:0:0:10"))
    assert code == 0 and "money play, cube 2 centred; to roll" in out


def test_one_point_match_is_described_without_a_crawford_game(capsys):
    code, out, _ = run(capsys, "show", START_FIELDS.format("0:0:1:00:0:0:0:1:10"))
    assert code == 0
    assert "1-point match, score 0-0 (1-away/1-away), no Crawford game in a 1-point match, " \
           "dead cube, cube 1 centred" in out


def test_show_refuses_a_board_with_no_checker_on_either_side(capsys):
    code, out, err = run_status(capsys, "show", "AAAAAAAAAAAAAA")
    assert code == 2 and "both sides have borne off" in err and out == ""


def test_a_slow_run_reports_its_speed_not_0_games_per_second():
    """A --engine python rollout (about 5 games a minute) used to end "36.54 s, 0 games/s"."""
    import dataclasses

    from fastbg import cubeful_rollout, rollout
    from fastbg.cli.common import games_rate
    from fastbg.cli.rollouts import _format_cubeful, _format_table
    from fastbg.game import MatchState, Position

    assert [games_rate(r) for r in (35288.3, 12.5, 2.43, 0.0821)] == [
        "35,288 games/s", "12 games/s", "2.4 games/s", "4.93 games/min"]
    res = dataclasses.replace(rollout("start", 3, seed=1, policy="pubeval"), seconds=36.54)
    assert _format_table(res).endswith("\n  36.54 s, 4.93 games/min")
    res = dataclasses.replace(cubeful_rollout("start", 3, seed=1, policy="pubeval"),
                              seconds=36.54)
    text = _format_cubeful(res, Position.start(), MatchState())
    assert text.endswith("\n  36.54 s, 4.93 games/min")


def _leaf_commands(parser, prefix=()):
    """``(words, parser)`` of every command, nested ones (``table race``) included."""
    import argparse

    nested = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not nested:
        yield prefix, parser
        return
    for name, sub in nested[0].choices.items():
        yield from _leaf_commands(sub, (*prefix, name))


def test_every_command_takes_no_progress():
    # `show --help` says --no-progress is "accepted, as by every command, for scripts", but
    # met, takepoints, gammon-values, perft, bench and runs refused it as an unrecognized
    # argument (status 2; new-user trial)
    from fastbg.cli import build_parser

    commands = list(_leaf_commands(build_parser()))
    assert len(commands) > 10
    for words, parser in commands:
        options = {o for a in parser._actions for o in a.option_strings}
        assert "--no-progress" in options, " ".join(words)


@pytest.mark.parametrize("argv", [
    ["met", "--length", "2"], ["takepoints", "--length", "2"],
    ["gammon-values", "--length", "2"], ["show", "start"], ["eval", "start"],
])
def test_no_progress_is_a_no_op_where_there_is_no_progress(capsys, argv):
    plain = run_status(capsys, *argv)
    assert run_status(capsys, *argv, "--no-progress") == plain and plain[0] == 0


def test_perft_takes_no_progress(capsys):
    code, out, err = run_status(capsys, "perft", "start", "1", "--no-progress")
    assert code == 0 and "perft of 4HPwATDgc/ABMA" in out and err == ""


def test_perft_refuses_a_finished_game_as_eval_does(capsys):
    # the player on roll has borne off all 15: perft counted one leaf at every depth
    code, out, err = run_status(capsys, "perft", "4P8PAAAAAAAAAA", "2")
    assert code == 2 and out == "" and "the game is over" in err
    assert run_status(capsys, "eval", "4P8PAAAAAAAAAA")[2] == err.replace("perft", "eval")


def test_runs_takes_no_progress(capsys, tmp_path):
    store = str(tmp_path / "none.sqlite")
    code, out, _ = run_status(capsys, "runs", "--store", store, "--no-progress")
    assert code == 0 and out.startswith("no runs: there is no store")


def test_bench_no_progress_drops_its_progress_lines(capsys, monkeypatch):
    import fastbg.cli.bench as bench

    def fake_run_bench(engines, repeat, seed, workers, log):
        if log is not None:
            log("cython random: 1 games/s")
        return {}
    monkeypatch.setattr(bench, "run_bench", fake_run_bench)
    monkeypatch.setattr(bench, "format_table", lambda report: "the table")
    assert run_status(capsys, "bench") == (0, "the table\n", "  cython random: 1 games/s\n")
    assert run_status(capsys, "bench", "--no-progress") == (0, "the table\n", "")


def test_show_says_when_the_game_is_over(capsys):
    # `show` drew a finished game's board as "to roll" (new-user trial)
    for text in ("IAAAAAAAAAAAAA", "XGID=-------------------a------:0:0:1:00:0:0:0:0:10"):
        code, out, _ = run_status(capsys, "show", text)
        assert code == 0 and "to roll" not in out.splitlines()[-1]
        assert "the game is over: the player on roll (X) has borne off all 15 checkers" in out
    code, out, _ = run_status(capsys, "show", "start")
    assert code == 0 and "game is over" not in out


def test_perft_time_estimate_is_progress(capsys, monkeypatch):
    # the estimate of a long depth went to stderr under --no-progress too (review)
    from fastbg.cli import bench

    monkeypatch.setattr(bench, "_estimate", lambda rows, ahead=1: (1e9, 120.0))
    code, _, err = run_status(capsys, "perft", "start", "1")
    assert code == 0 and "about 1.0e+09 leaves, roughly" in err
    code, _, err = run_status(capsys, "perft", "start", "1", "--no-progress")
    assert code == 0 and err == ""


def test_a_refused_perft_depth_keeps_the_counted_ones_in_json(capsys, monkeypatch):
    # depth 3 estimated at more than a day (after depths 1 and 2 are counted): refused,
    # exit 2, and the JSON keeps depths 1 and 2 as the text output prints them
    from fastbg.cli import bench

    monkeypatch.setattr(bench, "_estimate", lambda rows, ahead=1: None if len(rows) < 3
                        else (1e15, 10 * bench.PERFT_MAX_SECONDS))
    code, out, err = run_status(capsys, "perft", "start", "3", "--json")
    data = json.loads(out)
    assert code == 2 and [d["depth"] for d in data["depths"]] == [1, 2]
    assert data["depths"][1]["leaves"] == 202782 and "give --force" in data["refused"]
    assert "depth 3 would take about" in err


@pytest.mark.parametrize("argv, early, command", [
    (["--json", "eval", "start"], "--json", "eval"),
    (["--workers", "2", "rollout", "start"], "--workers 2", "rollout"),
])
def test_a_command_option_before_the_command_says_where_it_goes(capsys, argv, early, command):
    # `fastbg --json eval start` said "unrecognized arguments: --json", and
    # `fastbg --games 10 rollout` "invalid choice: '10'" (new-user trial)
    code, _, err = run_status(capsys, *argv)
    assert code == 2 and err.endswith(
        f"fastbg: error: {early}: the options of a command go after it "
        f"(fastbg {command} ... {early})\n"), err


def _seeds(obj, where=""):
    """Every ``seed`` key of a JSON value, as (path, value)."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == "seed":
                yield f"{where}.seed", v
            yield from _seeds(v, f"{where}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _seeds(v, f"{where}[{i}]")


@pytest.mark.parametrize("argv", [
    ["rollout", "start", "-n", "100"],
    ["rollout", "start", "-n", "100", "--cubeful"],
    ["moves", "start", "31", "--rollout", "-n", "36", "--top", "2"],
    ["cube", "start", "-n", "20"],
    ["cube", "start", "-n", "100", "--method", "janowski"],
    ["table", "openings", "-n", "36", "--rolls", "31", "--top", "2"],
])
def test_json_seeds_are_decimal_strings(capsys, tmp_path, argv):
    # a fresh seed is a 128-bit integer, which jq and JavaScript read as a double, rounded
    # (4.5234735403628935e+36; issue 37): every seed of every command's JSON is a string,
    # always (not only when it is large), and reads back as the seed that was used
    code, out, err = run_status(capsys, *argv, "--policy", "pubeval", "--json",
                                "--no-progress")
    assert code == 0, err
    d = json.loads(out)
    seeds = list(_seeds(d))
    assert any(path == ".seed" for path, _ in seeds), seeds
    top = d["seed"]
    assert isinstance(top, str) and top.isdigit() and int(top) >= 2**64, top   # fresh: 128-bit
    for path, v in seeds:
        assert isinstance(v, str) and v.isdigit(), (path, v)
    # the seed read back replays the run: the same numbers
    code, again, _ = run_status(capsys, *argv, "--policy", "pubeval", "--json",
                                "--no-progress", "--seed", top)
    again = json.loads(again)
    assert again["seed"] == top
    for key in ("counts", "rows", "plays"):
        if key in d:
            assert again[key] == d[key], key


def test_stored_runs_json_has_string_seeds_and_a_string_seed_in_a_store_reads_back(
        capsys, tmp_path):
    import sqlite3

    path = tmp_path / "runs.sqlite"
    store = ["--store", str(path)]
    assert main(["rollout", "start", "-n", "1000", "--policy", "pubeval", "--no-progress",
                 "--json", *store]) == 0
    seed = json.loads(capsys.readouterr().out)["seed"]
    for argv in (["runs", "--json"], ["runs", "show", "1", "--json"],
                 ["runs", "export", "1", "--json"]):
        assert main([*argv, *store]) == 0
        for where, v in _seeds(json.loads(capsys.readouterr().out)):
            assert v == seed, (argv, where, v)
    # a store whose JSON holds the seed as a string (as the command line writes it) is read
    # as the same run: listed, shown and resumed with the numbers of one uninterrupted run
    db = sqlite3.connect(path)
    for column in ("request", "settings"):
        text = db.execute(f"SELECT {column} FROM runs WHERE id = 1").fetchone()[0]
        d = json.loads(text)
        d["seed"] = str(d["seed"])
        db.execute(f"UPDATE runs SET {column} = ? WHERE id = 1", (json.dumps(d),))
    db.commit()
    db.close()
    assert main(["runs", *store]) == 0 and "CORRUPT" not in capsys.readouterr().out
    assert main(["rollout", "--resume", "1", "--extend", "1000", "--no-progress", "--json",
                 *store]) == 0
    got = json.loads(capsys.readouterr().out)
    from fastbg import rollout
    whole = rollout("start", 2000, seed=int(seed), policy="pubeval")
    assert got["seed"] == seed and got["counts"] == whole.counts.tolist()

