"""What a new user found on the command line: strict JSON, refused nonsense, Ctrl-C, messages."""
from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from fastbg.cli import main


def run_status(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def _no_constants(token):
    raise ValueError(f"non-standard JSON token {token}")


def strict_json(text):
    """``json.loads`` that refuses NaN and Infinity, as a strict parser does."""
    return json.loads(text, parse_constant=_no_constants)


@pytest.mark.parametrize("argv", [
    ["rollout", "start", "--games", "1", "--seed", "1", "--json", "--no-progress"],
    ["rollout", "start", "--games", "1", "--seed", "1", "--json", "--no-progress", "--cubeful"],
    ["rollout", "4HPwATDgc/ABMA", "-n", "1", "--seed", "2", "--json", "--no-progress",
     "--cubeful", "--match-length", "5"],
    ["cube", "start", "--games", "1", "--seed", "1", "--json", "--no-progress"],
    ["moves", "start", "31", "--json"],
    ["eval", "start", "--json"],
    ["perft", "start", "1", "--json"],
    ["met", "--length", "3", "--json"],
    ["takepoints", "--length", "3", "--json"],
    ["gammon-values", "--length", "3", "--json"],
])
def test_every_json_output_is_strict_json(capsys, argv):
    # a single game has no sample variance: its standard errors are null, not NaN
    code, out, _ = run_status(capsys, *argv)
    assert code == 0
    strict_json(out)


def test_a_single_game_rollout_reports_null_standard_errors(capsys):
    code, out, _ = run_status(capsys, "rollout", "start", "-n", "1", "--seed", "1", "--json",
                              "--no-progress")
    data = strict_json(out)
    assert code == 0 and data["games"] == 1 and data["stderr"]["equity"] is None


# ------------------------------------------------------------------ intervals, imports

@pytest.mark.parametrize("k, n", [(0, 1), (1, 1), (0, 200), (2, 200), (100, 200), (199, 200),
                                  (200, 200), (5, 37)])
def test_wilson_interval_agrees_with_scipy(k, n):
    from scipy import stats

    from fastbg.rollouts.cubeless import wilson_interval

    ref = stats.binomtest(k, n).proportion_ci(0.95, method="wilson")
    lo, hi = wilson_interval(k, n, 0.95)
    assert lo == pytest.approx(ref.low, abs=1e-12) and hi == pytest.approx(ref.high, abs=1e-12)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_probability_intervals_stay_inside_0_1(seed):
    import fastbg

    res = fastbg.rollout("start", 200, seed=seed, policy="pubeval")
    for key in fastbg.PROBABILITY_KEYS:
        lo, hi = res.confidence_interval(key)
        assert 0.0 <= lo <= getattr(res, key) <= hi <= 1.0, key
    lo, hi = res.confidence_interval("equity")
    assert lo < res.equity < hi


def test_the_cli_does_not_import_scipy():
    # scipy doubled the memory of a command-line run for one normal quantile
    code = "import sys, fastbg.cli; print('scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ------------------------------------------------------------------ refused nonsense

@pytest.mark.parametrize("command", ["rollout", "cube"])
def test_game_counts_beyond_the_maximum_are_refused(capsys, command):
    from fastbg.rollouts.blocks import MAX_GAMES

    code, _, err = run_status(capsys, command, "start", "--games", str(10**23))
    assert code == 2 and f"at most {MAX_GAMES:,} games" in err
    code, _, err = run_status(capsys, command, "start", "--games", str(MAX_GAMES + 1))
    assert code == 2 and "at most" in err


def test_the_api_refuses_them_too():
    import fastbg
    from fastbg.rollouts.blocks import MAX_GAMES

    for call in (fastbg.rollout, fastbg.cubeful_rollout):
        with pytest.raises(ValueError, match="at most"):
            call("start", MAX_GAMES + 1)


def test_more_workers_than_cpus_are_capped_with_a_note(capsys, monkeypatch):
    import os

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    code, out, err = run_status(capsys, "rollout", "start", "-n", "200", "--seed", "1",
                                "--policy", "pubeval", "--workers", "100000", "--json",
                                "--no-progress")
    assert code == 0 and json.loads(out)["workers"] <= 2
    # "at most": a run of one block uses one worker, and its header says so (a new-user
    # trial read "using 2" against the header's "workers 1")
    assert err == ("fastbg: --workers 100,000 is more than the 2 CPUs here: using at most 2 "
                   "(more are not faster, and the numbers do not depend on them)\n")
    # as many as the CPUs: no note; with a cluster's address: the one error line only
    code, _, err = run_status(capsys, "rollout", "start", "-n", "200", "--seed", "1",
                              "--policy", "pubeval", "--workers", "2", "--no-progress")
    assert code == 0 and err == ""
    code, _, err = run_status(capsys, "rollout", "start", "--workers", "9",
                              "--dask", "tcp://127.0.0.1:1")
    assert code == 2 and len(err.splitlines()) == 1 and "--workers is for threads" in err


@pytest.mark.parametrize("argv, head", [
    (["rollout", "start", "-n", "500"], "workers 1 (2 asked: 500 games make only 1 block, of "
     "up to 1,000 games, and one worker plays each block)"),
    (["rollout", "start", "-n", "1500", "--workers", "3"], "workers 2 (3 asked: 1,500 games "
     "make only 2 blocks, of up to 1,000 games, and one worker plays each block)"),
    (["rollout", "start", "-n", "500", "--cubeful"], "workers 1 (2 asked: 500 games make only "
     "1 block, of up to 1,000 games, and one worker plays each block)"),
    (["moves", "start", "31", "--rollout", "--top", "2", "-n", "324"], "workers 1 (2 asked: "
     "324 games make only 1 block, of up to 324 games, and one worker plays each block)"),
    (["cube", "start", "-n", "500"], "workers 1 (2 asked: 500 trials make only 1 block, of "
     "up to 1,000 trials, and one worker plays each block)"),
    (["cube", "start", "-n", "500", "--method", "janowski"], "workers 1 (2 asked: 500 games "
     "make only 1 block, of up to 1,000 games, and one worker plays each block)"),
    (["rollout", "start", "-n", "3", "--engine", "python", "--policy", "random"],
     "workers 1 (2 asked: the pure-Python engine plays on one thread)"),
])
def test_fewer_workers_than_asked_are_explained_in_the_header(capsys, monkeypatch, argv, head):
    # `--workers 2` with one block of games ran on 1 worker and said "workers 1" in its header
    # without a word of why (new-user trial): blocks are the unit of work, and the pure-Python
    # engine plays on one thread
    import os

    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    if "--workers" not in argv:
        argv = [*argv, "--workers", "2"]
    code, out, err = run_status(capsys, *argv, "--seed", "1", "--no-progress",
                                *([] if "--policy" in argv else ["--policy", "pubeval"]))
    assert code == 0 and err == "", err
    assert head in out, out
    # as many as asked, or as the CPUs by default: the header says only the number
    code, out, _ = run_status(capsys, *argv[:-2], "--workers", "1", "--seed", "1",
                              "--no-progress", *([] if "--policy" in argv else
                                                 ["--policy", "pubeval"]))
    assert code == 0 and "workers 1," in out and "asked" not in out, out
    code, out, _ = run_status(capsys, *argv[:-2], "--seed", "1", "--no-progress",
                              *([] if "--policy" in argv else ["--policy", "pubeval"]))
    assert code == 0 and "asked" not in out, out


def test_opening_and_no_opening_together_are_refused(capsys):
    code, _, err = run_status(capsys, "rollout", "start", "-n", "10", "--opening", "--no-opening")
    assert code == 2 and "not allowed with argument --opening" in err


def test_one_game_is_one_game(capsys):
    code, out, _ = run_status(capsys, "rollout", "start", "-n", "1", "--seed", "1", "--no-progress")
    assert code == 0 and ": 1 game\n" in out and ": 1 games" not in out


def test_python_dash_m_fastbg_runs_the_cli():
    out = subprocess.run([sys.executable, "-m", "fastbg", "show", "start"], capture_output=True,
                         text=True)
    assert out.returncode == 0 and "4HPwATDgc/ABMA" in out.stdout
    out = subprocess.run([sys.executable, "-m", "fastbg", "show", "nonsense"], capture_output=True,
                         text=True)
    assert out.returncode == 2 and out.stderr.startswith("fastbg show: error:")


# ------------------------------------------------------------------ messages

@pytest.mark.parametrize("argv", [
    ["show", "A" * 100_000],
    ["rollout", "--policy", "B" * 100_000],
    ["moves", "start", "3" * 100_000],
])
def test_a_huge_input_is_not_echoed_in_full(capsys, argv):
    code, _, err = run_status(capsys, *argv)
    assert code == 2 and err.count("\n") == 1 and len(err) < 1000
    assert "(100,000 characters)" in err


def test_short_messages_are_left_alone(capsys):
    code, _, err = run_status(capsys, "show", "4HPwATDgc/ABMB")
    assert code == 2 and "the canonical ID of this position is '4HPwATDgc/ABMA'" in err


def test_show_refuses_an_empty_board_in_any_form(capsys):
    for text in ("AAAAAAAAAAAAAA", "XGID=--------------------------:0:0:1:00:0:0:0:0:10"):
        code, _, err = run_status(capsys, "show", text)
        assert code == 2 and "no game can reach" in err


#: Both sides on the bar against closed boards: no game from here can end.
_NOBODY_MOVES = "XGID=aBBBBBB-----bB-----bbbbbbA:0:0:1:00:0:0:0:0:10"


@pytest.mark.parametrize("argv", [
    ["cube", _NOBODY_MOVES, "--games", "100", "--workers", "1"],
    ["cube", _NOBODY_MOVES, "--games", "10", "--engine", "python"],
    ["cube", _NOBODY_MOVES, "--method", "janowski", "--games", "100"],
    ["rollout", _NOBODY_MOVES, "--cubeful", "--games", "100"],
    ["rollout", _NOBODY_MOVES, "--cubeful", "--games", "10", "--engine", "python"],
    ["rollout", _NOBODY_MOVES, "--games", "100"],
    ["moves", _NOBODY_MOVES, "31", "--rollout", "--games", "36"],
])
def test_a_position_where_nobody_can_ever_move_is_refused_by_every_rollout(tmp_path, argv):
    # `cube X` and `rollout X --cubeful` played it forever, deaf to Ctrl-C (new-user
    # trial); a subprocess, so that a hang fails the test instead of the suite
    out = subprocess.run([sys.executable, "-m", "fastbg", *argv, "--no-progress"],
                         capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 2, out.stderr
    assert out.stderr.count("\n") == 1 and "neither side can ever move" in out.stderr, out.stderr


@pytest.mark.parametrize("argv", [
    ["eval", _NOBODY_MOVES], ["eval", _NOBODY_MOVES, "--json"],
    ["eval", "t20DAGC3bQMAYA", "--engine", "python"],
    ["moves", _NOBODY_MOVES, "31", "--eval"], ["moves", _NOBODY_MOVES, "66", "--eval", "--ply", "1"],
])
def test_a_position_where_nobody_can_ever_move_has_no_evaluation(capsys, argv):
    # `eval t20DAGC3bQMAYA` printed win 0.7698 with status 0 where rollout and cube refuse
    # the position (new-user trial)
    code, out, err = run_status(capsys, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.endswith("error: neither side can ever move: both have checkers on the bar "
                        "against a closed board\n"), err


def test_its_legal_plays_are_still_listed(capsys):
    code, out, _ = run_status(capsys, "moves", _NOBODY_MOVES, "31")
    assert code == 0 and "0 legal plays" in out


def test_no_store_is_made_for_it(tmp_path, capsys):
    path = tmp_path / "runs.sqlite"
    code, _, err = run_status(capsys, "rollout", _NOBODY_MOVES, "--store", str(path))
    assert code == 2 and "neither side can ever move" in err and not path.exists()


def test_a_missing_directory_is_said_alike_for_a_picture_a_plot_and_a_store(tmp_path, capsys):
    # new-user trial: show --png and --store said the system's "No such file or directory",
    # rollout --plot "there is no directory D"; all three say the latter now
    pytest.importorskip("matplotlib")
    d = tmp_path / "no"
    for argv, line in [
        (["show", "start", "--png", str(d / "a.png")],
         f"fastbg show: error: cannot write the picture {d / 'a.png'}: there is no directory {d}"),
        (["rollout", "start", "-n", "10", "--policy", "pubeval", "--no-progress",
          "--store", str(d / "s.db")],
         f"fastbg rollout: error: cannot create the store {d / 's.db'}: there is no "
         f"directory {d}"),
        (["rollout", "start", "-n", "10", "--policy", "pubeval", "--no-progress",
          "--plot", str(d / "x.png")],
         f"fastbg rollout: error: cannot write the plot {d / 'x.png'}: there is no "
         f"directory {d}"),
    ]:
        assert run_status(capsys, *argv) == (2, "", line + "\n")
    assert not d.exists()


@pytest.mark.skipif(sys.platform != "linux", reason="/proc takes no new files on Linux")
def test_a_directory_that_takes_no_files_is_not_called_missing(capsys):
    # /proc exists but refuses a new file with ENOENT, "No such file or directory" (new-user
    # trial: `rollout start --store /proc/s.db`): neither that nor "there is no directory"
    why = "the directory /proc takes no new files (No such file or directory)"
    code, out, err = run_status(capsys, "rollout", "start", "-n", "10", "--policy",
                                "pubeval", "--no-progress", "--store", "/proc/s.db")
    assert (code, out, err) == (2, "", f"fastbg rollout: error: cannot create the store "
                                       f"/proc/s.db: {why}\n")
    pytest.importorskip("matplotlib")
    code, out, err = run_status(capsys, "show", "start", "--png", "/proc/a.png")
    assert (code, out, err) == (2, "", f"fastbg show: error: cannot write the picture "
                                       f"/proc/a.png: {why}\n")


@pytest.mark.parametrize("command", [
    ["rollout", "start", "-n", "10", "--policy", "pubeval"],
    ["table", "gammons", "-n", "10", "--policy", "pubeval"],
])
def test_a_store_in_a_missing_directory_is_refused_from_the_environment_too(
        tmp_path, monkeypatch, capsys, command):
    # `--store PATH` refused a PATH in a directory that does not exist, but the same path in
    # $FASTBG_STORE made the directories (a typo made a tree of them): refused alike
    path = tmp_path / "no" / "such" / "runs.sqlite"
    line = (f"fastbg {' '.join(command[:2 if command[0] == 'table' else 1])}: error: cannot "
            f"create the store {path}: there is no directory {path.parent}\n")
    code, out, err = run_status(capsys, *command, "--no-progress", "--store", str(path))
    assert (code, out, err) == (2, "", line)
    monkeypatch.setenv("FASTBG_STORE", str(path))
    code, out, err = run_status(capsys, *command, "--no-progress", "--store")
    assert (code, out, err) == (2, "", line)
    assert not (tmp_path / "no").exists()


def _default_store_run(home):
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("FASTBG_STORE", "XDG_DATA_HOME")}
    env["HOME"] = str(home)
    return subprocess.run([sys.executable, "-m", "fastbg", "rollout", "start", "-n", "10",
                           "--policy", "pubeval", "--no-progress", "--store"],
                          capture_output=True, text=True, env=env, timeout=300)


def test_the_default_store_is_refused_under_a_missing_home(tmp_path):
    # `HOME=/nonexistent fastbg rollout start --store` (new-user trial) made
    # /nonexistent/.local/share/fastbg, where only ~/.local/share/fastbg is to be made
    home = tmp_path / "nonexistent"
    proc = _default_store_run(home)
    store = home / ".local" / "share" / "fastbg" / "runs.sqlite"
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (f"fastbg rollout: error: cannot create the store {store}: the home "
                           f"directory {home} does not exist\n")
    assert not home.exists()


def test_the_default_store_is_made_below_an_existing_home(tmp_path):
    proc = _default_store_run(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / ".local" / "share" / "fastbg" / "runs.sqlite").is_file()


# ------------------------------------------------------------------ Ctrl-C

_CTRL_C_DURING_IMPORTS = r'''
import builtins, os, signal, sys
sys.argv = ["fastbg", "show", "start"]
real = builtins.__import__
def imp(name, *args, **kwargs):
    # Ctrl-C at the moment the command line starts importing numpy
    if name == "numpy" and not getattr(imp, "sent", False):
        imp.sent = True
        os.kill(os.getpid(), signal.SIGINT)
    return real(name, *args, **kwargs)
builtins.__import__ = imp
from fastbg.cli import main
sys.exit(main())
'''


def test_ctrl_c_while_the_cli_starts_is_quiet():
    out = subprocess.run([sys.executable, "-c", _CTRL_C_DURING_IMPORTS], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 130, out.stderr
    assert out.stderr == "fastbg: interrupted\n"


# A SIGINT at the three moments where one used to escape the command line's handling:
# while fastbg.cli imported its first modules, before its start-up handler (a traceback;
# a KeyboardInterrupt raised in importlib's module-lock callback is even printed as
# "Exception ignored" and lost, and the command ran to the end with status 0); while
# main() parsed the arguments, after Python's handler was back and before the command's
# `except KeyboardInterrupt` (a traceback, status -2); and one raised as
# KeyboardInterrupt and swallowed by a library's bare `except` before a run, which then
# played to the end with status 0.
_CTRL_C_AT = {
    "fastbg.cli's first import": r'''
real = builtins.__import__
def imp(name, globals=None, *args, **kwargs):
    if (name == "argparse" and (globals or {}).get("__name__") == "fastbg.cli"
            and not getattr(imp, "sent", False)):
        imp.sent = True
        os.kill(os.getpid(), signal.SIGINT)
    return real(name, globals, *args, **kwargs)
builtins.__import__ = imp
import fastbg.cli
''',
    "the parsing of the arguments": r'''
import fastbg.cli
real = fastbg.cli.build_parser
def build_parser():
    os.kill(os.getpid(), signal.SIGINT)
    return real()
fastbg.cli.build_parser = build_parser
''',
    "a library that swallows it": r'''
import time
import fastbg.cli, fastbg.cli.rollouts as r
real = r.check_dask_options
def check_dask_options(args):
    try:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(1)
    except KeyboardInterrupt:       # as a library's bare `except: pass` does
        pass
    return real(args)
r.check_dask_options = check_dask_options
''',
}


@pytest.mark.parametrize("moment", list(_CTRL_C_AT))
def test_ctrl_c_at_any_moment_of_the_start_is_status_130_without_a_traceback(moment):
    script = ("import builtins, os, signal, sys\n"
              "sys.argv = ['fastbg', 'rollout', 'start', '-n', '1000', '--seed', '1', "
              "'--policy', 'pubeval', '--workers', '1', '--json']\n"
              + _CTRL_C_AT[moment] + "sys.exit(fastbg.cli.main())\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120)
    assert (out.returncode, out.stdout, out.stderr) == (130, "", "fastbg: interrupted\n")


def test_importing_fastbg_is_cheap():
    # the public names load on first use, so the CLI can install its handler first
    code = "import sys, fastbg; print('numpy' in sys.modules); fastbg.Position; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]


def test_a_program_importing_the_cli_keeps_its_own_ctrl_c():
    code = "import signal, fastbg.cli; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


def test_an_interrupted_bench_reports_no_figures(capsys, monkeypatch):
    # a run cut short is not a measurement: no table, status 130
    import numpy as np

    import fastbg.rollouts.bench as bench
    from fastbg.rollouts.blocks import BlockRun

    def cut_short(board, games, *args, **kwargs):
        return BlockRun(np.zeros(6, dtype=np.int64), games // 2, True)

    monkeypatch.setattr(bench, "run_blocks", cut_short)
    code, out, err = run_status(capsys, "bench", "--engine", "python", "--repeat", "1")
    assert code == 130 and out == "" and "interrupted" in err
    with pytest.raises(KeyboardInterrupt):
        bench.time_games("cython", "pubeval", 1000)


def test_perft_refuses_a_depth_estimated_to_take_too_long(capsys, monkeypatch):
    import fastbg.cli.bench as cli_bench

    monkeypatch.setattr(cli_bench, "PERFT_MAX_SECONDS", 0.01)
    code, out, err = run_status(capsys, "perft", "start", "4")
    assert code == 2 and "depth 4 would take about" in err and "--force" in err
    assert "116,154,993" in out          # depth 3 was counted and shown first


def _ctrl_c_in_the_last_block(monkeypatch):
    """Send a SIGINT (to this process, as Ctrl-C does) when the run's last block starts,
    and let it play on: the run notices the Ctrl-C while the block is in flight and
    finishes it, so every game is played."""
    import os
    import threading

    import fastbg.rollouts.blocks as blocks

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("SIGINT handlers are installed in the main thread only")
    real = blocks.play_block

    def play_block(fn, k, n, entropy):
        if k == 1:                          # the last of 2 blocks
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.3)                 # the calling thread sees it while k plays
        return real(fn, k, n, entropy)

    monkeypatch.setattr(blocks, "play_block", play_block)


@pytest.mark.parametrize("json_out", [False, True])
def test_a_ctrl_c_during_the_last_block_exits_130_with_the_whole_result(capsys, monkeypatch,
                                                                        json_out):
    # the trial: Ctrl-C during the last block printed its notice, then the whole result,
    # and exited 0; a Ctrl-C is status 130 at any moment, and the result, whole, says so
    _ctrl_c_in_the_last_block(monkeypatch)
    code, out, err = run_status(capsys, "rollout", "start", "-n", "2000", "--seed", "1",
                                "--policy", "pubeval", "--workers", "1", "--no-progress",
                                *(["--json"] if json_out else []))
    assert code == 130, err
    assert err.startswith("fastbg: Ctrl-C: "), err
    assert err.endswith("fastbg: the Ctrl-C came as the run was ending: every game finished, "
                        "and the result is complete (not partial)\n"), err
    if json_out:
        got = strict_json(out)
        assert got["games"] == 2000 and got["interrupted"] is False
    else:
        assert out.startswith("Rollout of 4HPwATDgc/ABMA: 2,000 games\n"), out


def _ctrl_c_in_the_first_block(monkeypatch):
    """Send a SIGINT when the run's first block starts: that block finishes, the blocks
    queued behind it are dropped, so the run reports fewer games than requested."""
    import os
    import threading

    import fastbg.rollouts.blocks as blocks

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("SIGINT handlers are installed in the main thread only")
    real = blocks.play_block

    def play_block(fn, k, n, entropy):
        if k == 0:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.3)                 # the calling thread sees it while block 0 plays
        return real(fn, k, n, entropy)

    monkeypatch.setattr(blocks, "play_block", play_block)


@pytest.mark.parametrize("argv, head", [
    (["rollout", "start", "-n", "3000"],
     "INTERRUPTED: Rollout of 4HPwATDgc/ABMA: 1,000 games of 3,000 requested\n"),
    (["rollout", "start", "-n", "3000", "--cubeful"],
     "INTERRUPTED: Cubeful rollout of 4HPwATDgc/ABMA: 1,000 games of 3,000 requested\n"),
    (["moves", "start", "31", "--rollout", "--top", "2", "-n", "1296"],
     "INTERRUPTED: Rollout of 2 plays of 3-1 in 4HPwATDgc/ABMA: 324 games of 1,296 "
     "requested each, the same dice for every play\n"),
    (["cube", "start", "-n", "3000"], "cube rollout: 1,000 trials of 3,000 requested, "),
    (["cube", "start", "-n", "3000", "--method", "janowski"],
     "cubeless rollout: 1,000 games of 3,000 requested, "),
])
def test_every_interrupted_rollout_says_games_of_requested(capsys, monkeypatch, argv, head):
    # the trial: an interrupted `cube` or `moves --rollout` said only the games played (and
    # `rollout --cubeful` "(INTERRUPTED: the finished games only)"), where `rollout` says
    # "N games of M requested"; they all say it as `rollout` does now
    _ctrl_c_in_the_first_block(monkeypatch)
    code, out, err = run_status(capsys, *argv, "--seed", "1", "--policy", "pubeval",
                                "--workers", "1", "--no-progress")
    assert code == 130 and err.startswith("fastbg: Ctrl-C: "), err
    assert out.startswith("INTERRUPTED: ") and head in out, out


def test_ctrl_c_stops_a_compiled_perft_at_once():
    p = subprocess.Popen([sys.executable, "-m", "fastbg", "perft", "start", "4"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        for line in p.stdout:               # wait until depth 3 is shown: depth 4 runs
            if line.split()[:1] == ["3"]:
                break
        time.sleep(0.3)
        t0 = time.perf_counter()
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=30)
        assert time.perf_counter() - t0 < 5
        assert p.returncode == 130 and "interrupted" in err and "Traceback" not in err
    finally:
        if p.poll() is None:
            p.kill()


def _store_counts(path):
    """(runs, blocks) in the store at ``path`` (0, 0 before its tables exist)."""
    if not path.exists():
        return 0, 0
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            return tuple(db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                         for t in ("runs", "blocks"))
        finally:
            db.close()
    except sqlite3.OperationalError:        # the schema is not written yet
        return 0, 0


def _wait_for(proc, path, runs=1, blocks=0, timeout=180):
    t0 = time.perf_counter()
    while proc.poll() is None and time.perf_counter() - t0 < timeout:
        r, b = _store_counts(path)
        if r >= runs and b >= blocks:
            return
        time.sleep(0.05)
    raise AssertionError(f"no {runs} runs and {blocks} blocks in the store "
                         f"({proc.poll()=}, {_store_counts(path)})")


@pytest.mark.slow
def test_a_second_ctrl_c_stops_at_once_and_the_stored_run_resumes_with_the_same_numbers(tmp_path):
    # nn-1ply plays tens of games a second: a block of 100 games takes seconds, which the
    # first Ctrl-C waits for and the second does not; the block in flight is dropped, the
    # finished one kept, and the resumed run ends with the numbers of one uninterrupted run
    path = tmp_path / "runs.sqlite"
    argv = [sys.executable, "-m", "fastbg", "rollout", "start", "-n", "200", "--policy",
            "nn-1ply", "--no-vr", "--seed", "3", "--workers", "1", "--no-progress"]
    p = subprocess.Popen([*argv, "--store", str(path)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(p, path, blocks=1)        # block 0 stored: block 1 plays
        p.send_signal(signal.SIGINT)
        first = p.stderr.readline()
        assert first == ("fastbg: Ctrl-C: finishing the 1 block in flight, then reporting the "
                         "games played; Ctrl-C again stops at once\n")
        time.sleep(0.6)                     # a second Ctrl-C, not the first one's echo
        t0 = time.perf_counter()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        assert time.perf_counter() - t0 < 5
        assert p.returncode == 130 and "Traceback" not in err
        assert err.startswith("fastbg: Ctrl-C again: stopping now; the blocks in flight are "
                              "dropped, the finished ones kept\n")
        assert out.startswith("INTERRUPTED: Rollout of 4HPwATDgc/ABMA: 100 games of 200 requested")
        assert "resume with: fastbg rollout --resume 1" in out
    finally:
        if p.poll() is None:
            p.kill()
    assert _store_counts(path) == (1, 1)
    resumed = subprocess.run([*argv[:3], "rollout", "--resume", "1", "--store", str(path),
                              "--json", "--no-progress"], capture_output=True, text=True,
                             timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    got = json.loads(resumed.stdout)
    import fastbg
    whole = fastbg.rollout("start", 200, seed=3, policy="nn-1ply", vr=False, workers=2)
    assert got["counts"] == whole.counts.tolist() and got["equity"] == whole.equity
    assert got["games"] == 200 and got["stored_games"] == 100


def _signal_a_stored_run(path, *signals, gap=0.02):
    """A 300-game stored rollout of 3 blocks on one worker, sent ``signals`` (``gap`` s
    apart) once block 0 is stored (block 1 plays, block 2 queued): (process, stdout, stderr)."""
    p = subprocess.Popen([sys.executable, "-m", "fastbg", "rollout", "start", "-n", "300",
                          "--policy", "nn-1ply", "--no-vr", "--seed", "3", "--workers", "1",
                          "--no-progress", "--store", str(path)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(p, path, blocks=1)
        for k, sig in enumerate(signals):
            if k:
                time.sleep(gap)
            p.send_signal(sig)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    return p, out, err


@pytest.mark.slow
def test_sigterm_stops_a_stored_run_as_ctrl_c_does_with_status_143(tmp_path):
    # SIGTERM (kill, a batch system's time limit) ended a run at once and silently, its
    # result lost; it now stops as a Ctrl-C does: the block in flight finishes and is kept,
    # the games played are reported, the command says SIGTERM and exits 128 + 15
    path = tmp_path / "runs.sqlite"
    p, out, err = _signal_a_stored_run(path, signal.SIGTERM)
    assert p.returncode == 143 and "Traceback" not in err, err
    assert err == ("fastbg: SIGTERM: finishing the 1 block in flight, then reporting the games "
                   "played; SIGTERM again stops at once\n"), err
    assert out.startswith("INTERRUPTED: Rollout of 4HPwATDgc/ABMA: 200 games of 300 requested")
    assert "resume with: fastbg rollout --resume 1" in out
    assert _store_counts(path) == (1, 2)    # the block in flight finished and was kept


def test_sigterm_before_a_run_is_status_143_without_a_traceback():
    # a SIGTERM outside a run (here while the arguments are parsed): the command's Ctrl-C
    script = ("import os, signal, sys\n"
              "sys.argv = ['fastbg', 'rollout', 'start', '-n', '1000', '--seed', '1', "
              "'--policy', 'pubeval', '--workers', '1', '--json']\n"
              + _CTRL_C_AT["the parsing of the arguments"].replace("SIGINT", "SIGTERM")
              + "sys.exit(fastbg.cli.main())\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120)
    assert (out.returncode, out.stdout, out.stderr) == (143, "", "fastbg: terminated\n")


@pytest.mark.slow
def test_two_sigints_at_once_are_one_ctrl_c_and_keep_the_finished_blocks(tmp_path):
    # `timeout -s INT` signals the command and its process group: one intent, two SIGINTs
    # a few milliseconds apart, which must not act as "Ctrl-C again" (that dropped the
    # block in flight, and a short new run kept nothing)
    path = tmp_path / "runs.sqlite"
    p, out, err = _signal_a_stored_run(path, signal.SIGINT, signal.SIGINT)
    assert p.returncode == 130 and "Traceback" not in err, err
    assert "again: stopping now" not in err and err.startswith("fastbg: Ctrl-C: finishing"), err
    assert out.startswith("INTERRUPTED: Rollout of 4HPwATDgc/ABMA: 200 games of 300 requested")
    assert _store_counts(path) == (1, 2)    # the block in flight finished and was kept


@pytest.mark.parametrize("command", [
    ["rollout", "start", "-n", "1000"],
    ["table", "openings", "-n", "324", "--rolls", "31", "--top", "2"],
])
def test_a_new_run_stopped_before_its_first_block_leaves_nothing_stored(tmp_path, command):
    path = tmp_path / "runs.sqlite"
    p = subprocess.Popen([sys.executable, "-m", "fastbg", *command, "--policy", "nn-1ply",
                          "--seed", "1", "--no-progress", "--store", str(path)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(p, path, runs=2 if command[0] == "table" else 1)   # its (row's) run exists
        p.send_signal(signal.SIGINT)
        if "Ctrl-C again stops at once" in p.stderr.readline():   # blocks in flight, else
            time.sleep(0.6)                   # (a second Ctrl-C, not the first one's echo)
            p.send_signal(signal.SIGINT)                           # stopped before them
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130 and out == "" and "Traceback" not in err, err
    assert _store_counts(path) == (0, 0)       # nothing to resume: nothing kept
    code = subprocess.run([sys.executable, "-m", "fastbg", "runs", "--store", str(path)],
                          capture_output=True, text=True).stdout
    assert code.startswith("0 runs in")


def test_listing_shows_a_run_killed_before_its_first_block(tmp_path, capsys):
    # kill -9 leaves the run as it was created: listed as unfinished, with no games yet
    from fastbg.rollouts.store import ResultsStore, open_run

    path = tmp_path / "runs.sqlite"
    run = open_run(ResultsStore(path), None, "rollout", {"position": "4HPwATDgc/ABMA",
                   "games": 1000}, {"seed": 1, "games": 1000, "block_size": 1000}, 1000)
    run.store.close()
    code, out, _ = run_status(capsys, "runs", "--store", str(path))
    assert code == 0 and "0/1,000" in out and "unfinished" in out and "no games yet" in out


@pytest.mark.slow
def test_slow_policy_blocks_keep_the_numbers_independent_of_workers():
    import fastbg
    from fastbg.rollouts.blocks import block_size_for

    assert block_size_for("nn-1ply") == 100 and block_size_for("nn") == 1000
    a = fastbg.rollout("bJ7BARiw5+ABMA", 150, seed=5, policy="nn-1ply", workers=1)
    b = fastbg.rollout("bJ7BARiw5+ABMA", 150, seed=5, policy="nn-1ply", workers=2)
    assert a.counts.tolist() == b.counts.tolist() and a.games == 150


def test_a_one_game_run_prints_n_a_for_what_it_cannot_estimate(capsys):
    # one game has no standard error: n/a in the tables, not nan (JSON gives null)
    for argv in (["rollout", "start", "-n", "1", "--seed", "1"],
                 ["moves", "start", "31", "--rollout", "-n", "1", "--top", "2", "--seed", "1"],
                 ["rollout", "start", "-n", "1", "--seed", "1", "--cubeful"]):
        assert main(argv + ["--no-progress"]) == 0, argv
        out = capsys.readouterr().out
        assert "n/a" in out and "nan" not in out, (argv, out)


def test_the_command_line_imports_the_cython_modules_before_any_run():
    # A KeyboardInterrupt raised inside the import of a Cython module with memoryviews
    # (numpy.random._generator) is swallowed by Cython's bare `except: pass` around its
    # collections.abc registration: a Ctrl-C landing there, after the run was stored and
    # before its handler was installed, was lost and the run played to the end. Importing
    # fastbg.cli (under its start-up handler) must import them all, so no run can meet it.
    code = ("import sys; import fastbg.cli; "
            "print(all(m in sys.modules for m in ('numpy.random._generator', "
            "'fastbg._core.rollout', 'fastbg._core.evaluator', 'fastbg._core.policies')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "True", out.stderr


@pytest.mark.parametrize("extra", [["6/5"], ["bar/20*", "6/off"], ["13/7(2)"]])
def test_an_unquoted_play_of_several_moves_says_to_quote_it(capsys, extra):
    """`--play 8/5 6/5` used to give only "unrecognized arguments: 6/5" (a new-user
    trial): the shell split the play, so the error shows the quoted form."""
    code, _, err = run_status(capsys, "moves", "start", "31", "--rollout", "--play", "8/5", *extra)
    assert code == 2
    assert f"unrecognized arguments: {' '.join(extra)} (a play of several moves is one " \
           f"--play in quotes: --play '8/5 {' '.join(extra)}')" in err
    # other leftovers are not taken for moves
    code, _, err = run_status(capsys, "moves", "start", "31", "--rollout", "--play", "8/5", "6/5", "x")
    assert code == 2 and "unrecognized arguments: 6/5 x" in err and "in quotes" not in err


def test_the_start_board_with_an_owned_cube_is_not_the_opening(capsys):
    # a new-user trial: the start board at a 5-point match with the cube on 2, owned,
    # was rolled out from the opening roll (the game is under way: normal rolls, doubles too)
    xgid = "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:2:3:0:5:10"
    for cmd in (["rollout", xgid], ["rollout", xgid, "--cubeful"]):
        code, out, _ = run_status(capsys, *cmd, "-n", "72", "--seed", "1", "--json",
                                  "--no-progress")
        assert code == 0 and json.loads(out)["opening"] is False, cmd
    # centred (the money start, or automatic doubles) stays the opening; --opening is obeyed
    for cmd in (["rollout", "start"], ["rollout", "start", "--cubeful"],
                ["rollout", xgid, "--opening"], ["rollout", xgid, "--opening", "--cubeful"]):
        code, out, _ = run_status(capsys, *cmd, "-n", "72", "--seed", "1", "--json",
                                  "--no-progress")
        assert code == 0 and json.loads(out)["opening"] is True, cmd


def test_a_pure_python_run_cut_short_in_its_first_block_says_nothing_is_stored(
        tmp_path, capsys, ctrl_c_after_games):
    # the pure-Python engine reports the games of a block cut short, but a store keeps whole
    # blocks only: the report said "stored as run None ... --resume None" (new-user trial)
    ctrl_c_after_games(5)
    path = tmp_path / "runs.sqlite"
    code, out, _ = run_status(capsys, "rollout", "4HPwATDgc/ABMA", "-n", "36", "--seed", "1",
                              "--engine", "python", "--policy", "random", "--store", str(path),
                              "--no-progress")
    assert code == 130 and "INTERRUPTED" in out and "5 games of 36" in out, out
    assert f"nothing stored in {path}: the run stopped before its first block finished" in out
    assert "None" not in out


@pytest.mark.parametrize("option", [["--within", "0"], ["--max-plays", "5"]])
def test_a_table_refuses_top_with_the_window_options(capsys, option):
    # --top takes the N best plays: a window given too would be ignored without a word
    code, out, err = run_status(capsys, "table", "openings", "--top", "1", *option,
                                "--rolls", "31", "-n", "36", "--no-progress")
    assert code == 2 and out == "" and f"give either --top N or {option[0]}, not both" in err
