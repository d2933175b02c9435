"""The results store: runs kept block by block, resumed and extended with the same numbers.

A resumed run must end with exactly the numbers of one uninterrupted run, whether it was
stopped by Ctrl-C or ``kill -9`` at a random moment; an extended run must equal a run asked
for the total at first; a corrupted or foreign file, a missing run or a resume with other
settings is a one-line error (exit 2) that changes nothing.
"""
from __future__ import annotations

import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time

import numpy as np
import pytest

from fastbg import rollout
from fastbg.cli import main
from fastbg.rollouts.store import (STORE_FORMAT, STORE_VERSION, ResultsStore, default_store_path,
                                  open_run)

pytest.importorskip("fastbg._core.rollout", reason="Cython core not built")

CONTACT = "4HPMwQCMz+AIIQ"


def _same(a, b):
    assert a.counts.tolist() == b.counts.tolist() and a.games == b.games
    assert a.equity == b.equity and a.stderr == b.stderr
    for k in ("win", "win_gammon", "lose_gammon"):
        assert getattr(a, k) == getattr(b, k)


@pytest.mark.parametrize("kw", [dict(policy="pubeval"), pytest.param(dict(policy="nn"), marks=pytest.mark.slow),
                                dict(policy="pubeval", by_first_roll=True),
                                dict(policy="nn", truncate=6)])
def test_resume_and_extend_give_the_numbers_of_one_run(tmp_path, kw):
    path = tmp_path / "runs.sqlite"
    full = rollout(CONTACT, 2500, seed=3, workers=2, **kw)
    a = rollout(CONTACT, 1200, seed=3, workers=2, store=path, **kw)   # a partial last block
    b = rollout(CONTACT, 2500, seed=3, workers=1, store=path, run_id=a.run_id, **kw)
    _same(full, b)
    assert b.run_id == a.run_id and b.by_first_roll == full.by_first_roll
    with ResultsStore(path) as st:
        run = st.run(a.run_id)
        assert run.status == "done" and run.games == run.games_done == 2500
        assert run.summary["equity"] == full.equity
        assert list(st.blocks(a.run_id)) == [0, 1, 2]


def test_a_resume_with_other_settings_is_refused_and_changes_nothing(tmp_path):
    path = tmp_path / "runs.sqlite"
    a = rollout(CONTACT, 1000, seed=3, policy="pubeval", store=path)
    before = path.read_bytes()
    for kw, why in ((dict(seed=4), "seed"), (dict(seed=3, vr=True), "vr"),
                    (dict(seed=3, games=500), "not fewer")):
        args = dict(games=1000, policy="pubeval")
        args.update(kw)
        with pytest.raises(ValueError, match=why):
            rollout(CONTACT, store=path, run_id=a.run_id, **args)
    with pytest.raises(ValueError, match="no run 7"):
        rollout(CONTACT, 1000, seed=3, policy="pubeval", store=path, run_id=7)
    with pytest.raises(ValueError, match="give its store"):
        rollout(CONTACT, 1000, seed=3, run_id=1)
    with ResultsStore(path) as st:
        assert [r.status for r in st.runs()] == ["done"]
    assert len(before) > 0


def test_foreign_and_corrupted_files_are_refused_untouched(tmp_path, capsys):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 100)
    other = tmp_path / "other.db"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE x (a)")
    db.commit()
    db.close()
    for path, why in ((junk, "not a fastbg results store"),
                      (other, "SQLite database but not a fastbg results store")):
        before = path.read_bytes()
        with pytest.raises(ValueError, match=why):
            ResultsStore(path)
        assert main(["rollout", "start", "-n", "100", "--store", str(path), "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert why in err and "Traceback" not in err and err.count("\n") == 1
        assert main(["runs", "--store", str(path)]) == 2
        capsys.readouterr()
        assert path.read_bytes() == before


@pytest.mark.parametrize("damage, why", [
    ("counts = '[1, 2'", "Expecting"),                           # not JSON
    # (the run has no float sums: pubeval without variance reduction)
    ("sums = '[0.5, 0.5]'", "sums of shape (2,), where its other blocks have none"),
    ("counts = '[1, 2]'", "counts of shape (2,), where its other blocks have shape (6,)"),
    ("counts = '[9999, 98, 5, 425, 106, 2]'", "add up to 10,635 games, more than its 1,000"),
    ("counts = '[-1, 300, 1, 400, 300, 0]'", "a negative count"),
])
def test_a_corrupted_block_is_refused_with_the_store_untouched(tmp_path, capsys, damage, why):
    """A store SQLite finds sound but with one block's numbers garbled: resuming or listing
    says which block of which run in which file and what is wrong, in one line, exit 2,
    and changes nothing (a resume used to mark the run running with more games before it
    read the blocks; a block without its sums, or with more outcomes than games,
    used to be read as it was and give other numbers than the run had)."""
    path = tmp_path / "runs.sqlite"
    assert main(["rollout", CONTACT, "-n", "3000", "--seed", "2", "--policy", "pubeval",
                 "--store", str(path), "--no-progress"]) == 0
    capsys.readouterr()
    import gc
    gc.collect()        # the run's store connection closed (its WAL checkpointed)
    db = sqlite3.connect(path)
    db.execute(f"UPDATE blocks SET {damage} WHERE run = 1 AND k = 1")
    db.commit()
    db.close()
    before = path.read_bytes()
    for args in (["rollout", "--resume", "1", "--extend", "1000"], ["rollout", "--resume", "1"],
                 ["runs", "show", "1"], ["runs", "export", "1", "--json"]):
        assert main(args + ["--store", str(path)]) == 2, args
        err = capsys.readouterr().err
        assert "block 1 of run 1" in err and str(path) in err and why in err, err
        assert "Traceback" not in err and err.count("\n") == 1, err
        assert path.read_bytes() == before, args
    with ResultsStore(path) as st:
        assert st.run(1).status == "done" and st.run(1).games == 3000


@pytest.mark.parametrize("vr, damage, k, why", [
    (False, "DELETE FROM blocks WHERE run = 1 AND k = 0", 1,
     "it is stored but block 0 before it is missing"),
    # every block alike, and with the sums of variance reduction, which the listing reads
    (True, "UPDATE blocks SET counts = '[400, 100, 0, 400, 100]' WHERE run = 1", 0,
     "counts of shape (5,), where its run's have shape (6,)"),
    # a block's games beyond its run's block size: --resume used to drop every stored block
    # (none had a block's length) and replay the run without a word
    (False, "UPDATE blocks SET games = 999999 WHERE run = 1 AND k = 0", 0,
     "it holds 999,999 games, where its run's blocks hold 1 to 1,000"),
])
def test_a_run_with_a_missing_or_misshapen_block_is_corrupt(tmp_path, capsys, vr, damage, k, why):
    """Block 0 gone and block 1 there used to be listed as "0/2,000 done", and --resume
    said "finished" and then played every game again; blocks whose counts have the wrong
    length were listed as sound, and --resume failed with numpy's broadcast message after
    marking the run unfinished. Both are a damaged run: listed as CORRUPT with the reason,
    refused by show, export and --resume in one line (exit 2), the store unchanged."""
    path = tmp_path / "runs.sqlite"
    assert main(["rollout", CONTACT, "-n", "2000", "--seed", "2", "--policy", "pubeval",
                 "--vr" if vr else "--no-vr", "--store", str(path), "--no-progress"]) == 0
    capsys.readouterr()
    import gc
    gc.collect()        # the run's store connection closed (its WAL checkpointed)
    db = sqlite3.connect(path)
    db.execute(damage)
    db.commit()
    db.close()
    before = path.read_bytes()
    store = ["--store", str(path)]
    assert main(["runs", *store]) == 0
    out = capsys.readouterr().out
    assert "CORRUPT" in out.splitlines()[2], out
    assert f"corrupt run 1: block {k} of run 1 in {path} is corrupted ({why})" in out, out
    for args in (["rollout", "--resume", "1", "--no-progress"],
                 ["rollout", "--resume", "1", "--extend", "1000", "--no-progress"],
                 ["runs", "show", "1"], ["runs", "export", "1", "--json"],
                 ["runs", "export", "1", "--csv"]):
        assert main(args + store) == 2, args
        out, err = capsys.readouterr()
        assert f"block {k} of run 1" in err and why in err, err
        assert "Traceback" not in err and err.count("\n") == 1 and "finished" not in err, err
        assert path.read_bytes() == before, args
    assert not list(tmp_path.glob("*.lock"))
    with ResultsStore(path) as st:
        assert st.run(1).status == "done" and st.run(1).games == 2000


@pytest.mark.parametrize("games, k, why", [
    (100, 0, "it holds 1,000 games, where its run has 100 in all, 100 of them in this block"),
    (1500, 1, "it holds 1,000 games, where its run has 1,500 in all, 500 of them in this block"),
    (2000, 2, "it holds 1,000 games beyond its run's 2,000 in all, which end before it"),
])
def test_stored_games_beyond_the_runs_games_are_damage(tmp_path, capsys, games, k, why):
    """A run whose record asks for fewer games than its blocks hold (runs.games edited to
    100 under 4,000 stored games) was listed as "4,000/100 done", and --resume said "run 1
    is finished" and then, falsely, that block 0 was missing. The games beyond the run's are
    damage: listed as CORRUPT with the block and the reason, refused in one line (exit 2)
    by show, export and --resume, the store unchanged."""
    path = tmp_path / "runs.sqlite"
    rollout(CONTACT, 4000 if games < 2000 else 3000, seed=2, policy="pubeval", store=path)
    db = sqlite3.connect(path)
    db.execute("UPDATE runs SET games = ? WHERE id = 1", (games,))
    db.commit()
    db.close()
    before = path.read_bytes()
    store = ["--store", str(path)]
    assert main(["runs", *store]) == 0
    out = capsys.readouterr().out
    assert "CORRUPT" in out.splitlines()[2] and "done" not in out.splitlines()[2], out
    assert f"corrupt run 1: block {k} of run 1 in {path} is corrupted ({why})" in out, out
    for args in (["rollout", "--resume", "1", "--no-progress"],
                 ["rollout", "--resume", "1", "--extend", "1000", "--no-progress"],
                 ["runs", "show", "1"], ["runs", "export", "1", "--json"]):
        assert main(args + store) == 2, args
        out, err = capsys.readouterr()
        assert out == "" and f"block {k} of run 1" in err and why in err, (out, err)
        assert "Traceback" not in err and err.count("\n") == 1, err
        assert path.read_bytes() == before, args
    with pytest.raises(ValueError, match=f"block {k} of run 1 .* is corrupted"):
        rollout(CONTACT, games, seed=2, policy="pubeval", store=path, run_id=1)
    assert path.read_bytes() == before and not list(tmp_path.glob("*.lock"))


def test_a_block_without_the_sums_its_run_has_is_refused(tmp_path):
    """A variance-reduced run's block whose float sums are gone (NULL) used to be read as a
    block of plain counts, and the run's equity changed with it."""
    with ResultsStore(tmp_path / "runs.sqlite") as st:
        run = st.create_run("rollout", "start", {"position": "start", "games": 3000},
                            {"seed": 1, "games": 3000, "block_size": 1000})
        for k in range(3):
            st.add_block(run, k, 1000, [400, 100, 0, 400, 100, 0],
                         None if k == 1 else np.full((2, 6), 0.5))
        with pytest.raises(ValueError, match=r"block 1 of run 1 .* \(no sums, where its "
                                             r"other blocks have shape \(2, 6\)\)"):
            st.blocks(run)


def test_default_store_path_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("FASTBG_STORE", str(tmp_path / "x.sqlite"))
    assert default_store_path() == tmp_path / "x.sqlite"
    monkeypatch.delenv("FASTBG_STORE")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_store_path() == tmp_path / "fastbg" / "runs.sqlite"


def test_cli_store_resume_extend_and_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FASTBG_STORE", str(tmp_path / "runs.sqlite"))
    assert main(["rollout", CONTACT, "-n", "1500", "--seed", "2", "--policy", "pubeval",
                 "--store", "--no-progress"]) == 0
    assert "stored as run 1 in" in capsys.readouterr().out
    assert main(["rollout", "--resume", "1", "--extend", "1500", "--no-progress", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    full = rollout(CONTACT, 3000, seed=2, policy="pubeval")
    assert d["run_id"] == 1 and d["games"] == 3000 and d["equity"] == full.equity
    assert main(["runs", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [list(r)[0] for r in rows] == ["id"] and rows[0]["estimate"]["equity"] == full.equity
    assert rows[0]["status"] == "done" and rows[0]["games_done"] == 3000
    assert main(["runs"]) == 0
    assert "1 run in" in capsys.readouterr().out
    assert main(["runs", "show", "1"]) == 0
    assert "rollout of 4HPMwQCMz+AIIQ, done" in capsys.readouterr().out
    assert main(["runs", "export", "1", "--csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("run,block,games,count_win_single") and len(lines) == 4
    # bad requests: one line each, exit 2
    for argv, why in ((["rollout", "--resume", "1", "--seed", "3"], "--seed does not apply"),
                      (["rollout", "--resume", "9"], "no run 9"),
                      # 'start', the default POSITION, used to be accepted silently
                      (["rollout", "start", "--resume", "1"], "POSITION does not apply with "
                                                              "--resume"),
                      (["rollout", CONTACT, "--resume", "1"], "POSITION does not apply"),
                      (["rollout", "start", "--extend", "10"], "give --resume"),
                      # (a cubeful rollout is stored too: tests/test_cube_settings.py)
                      (["rollout", "--cubeful", "--store", "--truncate", "5"],
                       "for cubeless rollouts"),
                      (["runs", "show"], "needs a RUN id"),
                      (["runs", "show", "5"], "no run 5")):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert why in err and err.count("\n") == 1, (argv, err)


def _spawn(args, env):
    return subprocess.Popen([sys.executable, "-m", "fastbg", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.mark.slow
def test_kill_9_at_random_moments_then_resume_gives_the_numbers_of_one_run(tmp_path):
    """Ten kills (nine kill -9 and one Ctrl-C) of a stored rollout at random moments, each
    time resumed; the finished run equals one uninterrupted run."""
    path = tmp_path / "runs.sqlite"
    env = dict(os.environ, FASTBG_STORE=str(path))
    games, seed = 16000, 11
    first = ["rollout", CONTACT, "-n", str(games), "--seed", str(seed), "--policy", "nn",
             "--no-vr", "--store", "--no-progress", "--workers", "2"]
    rng = random.Random(20261202)
    kills = 0
    startup = None      # how long a process takes to record its run: the kills come after it
    while kills < 10:
        started = False
        if path.exists():
            with ResultsStore(path) as st:
                started = bool(st.runs())
        t0 = time.monotonic()
        proc = _spawn(["rollout", "--resume", "1", "--no-progress"] if started else first, env)
        if startup is None:
            # on a loaded machine `python -m fastbg` alone took 2.7 s, longer than any
            # kill moment: every process died before it recorded its run
            while proc.poll() is None and time.monotonic() - t0 < 120:
                if path.exists():
                    with ResultsStore(path) as st:
                        if st.runs():
                            break
                time.sleep(0.05)
            startup = time.monotonic() - t0
        time.sleep(max(0.0, startup - (time.monotonic() - t0)) + rng.uniform(0.4, 2.0))
        if proc.poll() is not None:
            break                       # finished before the kill: nothing left to kill
        proc.send_signal(signal.SIGINT if kills == 4 else signal.SIGKILL)
        proc.wait(timeout=60)
        kills += 1
        if path.exists():
            with ResultsStore(path) as st:       # the file survives every kill
                for r in st.runs():
                    assert list(st.blocks(r.id)) == list(range(len(st.blocks(r.id))))
    assert kills >= 5, "the run finished too fast to be killed at random moments"
    proc = _spawn(["rollout", "--resume", "1", "--no-progress", "--json"], env)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err.decode()
    d = json.loads(out)
    full = rollout(CONTACT, games, seed=seed, policy="nn", vr=False, workers=2)
    assert d["games"] == games and d["counts"] == full.counts.tolist()
    assert d["equity"] == full.equity and d["stderr"] == full.stderr
    with ResultsStore(path) as st:
        assert len(st.runs()) == 1 and st.run(1).status == "done"


@pytest.mark.parametrize("argv, fragment", [
    # a store given where RUN (or ACTION) goes: what the word is, and --store
    (["runs", "list", "s.db"], "'s.db' is not a run's id (a whole number from 1, as `fastbg "
                               "runs` lists them); for the store s.db, write --store s.db"),
    (["runs", "show", "s.sqlite"], "for the store s.sqlite, write --store s.sqlite"),
    (["runs", "s.db"], "argument ACTION: 's.db' is not an action (list, show or export); for "
                       "the store s.db"),
    # named as the usage names it: it said "argument action" (new-user trial)
    (["runs", "foo"], "fastbg runs: error: argument ACTION: invalid choice: 'foo' (choose from "
                      "'list', 'show', 'export')\n"),
    (["rollout", "--resume", "s.db"], "--resume: 's.db' is not a run's id"),
    (["runs", "3"], "for run 3, write `fastbg runs show 3`"),
    (["runs", "show", "x"], "'x' is not a run's id (a whole number from 1, as `fastbg runs` "
                            "lists them)\n"),
    (["runs", "show", "0"], "'0' is not a run's id"),
])
def test_a_run_id_that_is_not_one_says_what_run_is(tmp_path, monkeypatch, capsys, argv, fragment):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:    # argparse's error: one line, status 2
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1 and "Traceback" not in err, err


def test_an_existing_file_given_as_run_hints_at_store(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "myruns").write_bytes(b"")
    with pytest.raises(SystemExit) as exc:
        main(["runs", "show", "myruns"])
    assert exc.value.code == 2
    assert "for the store myruns, write --store myruns" in capsys.readouterr().err


def test_fresh_seeds_missing_dirs_locks_and_stop_rules(tmp_path, monkeypatch, capsys):
    path = tmp_path / "runs.sqlite"
    monkeypatch.setenv("FASTBG_STORE", str(path))
    # a fresh seed is 128-bit: stored as text, resumed as the same int (the JSON's decimal
    # string)
    assert main(["rollout", "start", "-n", "1000", "--policy", "pubeval", "--store",
                 "--no-progress", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    with ResultsStore(path) as st:
        assert str(st.run(1).seed) == d["seed"] and int(d["seed"]) >= 0
    assert main(["rollout", "--resume", "1", "--extend", "1000", "--no-progress", "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    full = rollout("start", 2000, seed=int(d["seed"]), policy="pubeval")
    assert again["equity"] == full.equity and again["stored_games"] == 1000
    # a store in a directory that does not exist is an error, not a new directory
    assert main(["rollout", "start", "-n", "10", "--store", str(tmp_path / "no" / "x.sqlite")]) == 2
    assert "no directory" in capsys.readouterr().err and not (tmp_path / "no").exists()
    # resuming from a store that does not exist creates nothing
    assert main(["rollout", "--resume", "1", "--store", str(tmp_path / "other.sqlite")]) == 2
    assert "no results store" in capsys.readouterr().err
    assert not (tmp_path / "other.sqlite").exists()
    # cube and match options are the run's own too
    assert main(["rollout", "--resume", "1", "--cubeful"]) == 2
    assert "--cubeful does not apply with --resume" in capsys.readouterr().err
    # a run being played elsewhere is not played twice
    with ResultsStore(path) as st:
        st.lock(1)
        assert main(["rollout", "--resume", "1", "--extend", "1000"]) == 2
        assert "being played by another process" in capsys.readouterr().err
    # a run that stopped by its stop rule would stop there again: extending it is refused
    assert main(["rollout", "start", "-n", "5000", "--seed", "4", "--policy", "pubeval",
                 "--until-se", "0.03", "--store", "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["rollout", "--resume", "2", "--extend", "1000"]) == 2
    assert "stop rule" in capsys.readouterr().err
    with ResultsStore(path) as st:
        assert st.run(2).games == 5000


def test_one_store_object_serves_successive_runs_of_one_process(tmp_path):
    # the lock is this process's: a store object reused for a resume is not locked out
    with ResultsStore(tmp_path / "runs.sqlite") as st:
        a = rollout(CONTACT, 1200, seed=5, policy="pubeval", store=st)
        b = rollout(CONTACT, 2000, seed=5, policy="pubeval", store=st, run_id=a.run_id)
        assert b.games == 2000 and st.run(a.run_id).status == "done"


def _open(path, run_id=None):
    return open_run(ResultsStore(path), run_id, "rollout", {"position": "4HPwATDgc/ABMA",
                    "games": 2000}, {"seed": 1, "games": 2000, "block_size": 1000}, 1000)


def test_a_new_run_stopped_before_its_first_block_is_not_kept(tmp_path):
    # Ctrl-C (or an error) before any block was stored: nothing to resume or show, so the
    # run goes, with its lock file; a run with a block, or a resumed one, stays
    path = tmp_path / "runs.sqlite"
    run = _open(path)
    assert run.new and not run.finish(True, {"games": 0})
    run = _open(path)
    run.abort()                                     # a Ctrl-C that raised, or an error
    with ResultsStore(path) as st:
        assert st.runs() == []
    assert not list(tmp_path.glob("*.lock"))
    run = _open(path)
    run.on_block(0, 1000, np.arange(6), None)
    assert run.finish(True, {"games": 1000})       # interrupted with a block: kept
    run = _open(path, run_id=1)                     # (the removed runs' ids given again)
    assert not run.new and run.finish(True, {"games": 1000})
    with ResultsStore(path) as st:
        (kept,) = st.runs()
        assert (kept.id, kept.status, kept.games_done) == (1, "interrupted", 1000)
    # a resumed run stopped again before a block is kept too (it was the user's)
    run = _open(path)
    run.finish(True, {"games": 0})                  # (removed: new and empty)
    empty = _open(path)
    empty.store.close()                             # killed before a block: 'running'
    run = _open(path, run_id=2)
    assert run.finish(True, {"games": 0})
    run = _open(path, run_id=2)
    run.abort()
    with ResultsStore(path) as st:
        assert [(r.id, r.status) for r in st.runs()] == [(1, "interrupted"), (2, "running")]


def test_rollout_stopped_before_its_first_block_reports_no_run(tmp_path, monkeypatch):
    import fastbg.rollouts.cubeless as cubeless
    import fastbg.rollouts.runner as runner
    from fastbg.rollouts.blocks import BlockRun

    def stopped(board, games, *args, **kwargs):     # Ctrl-C before any block finished
        return BlockRun(np.zeros(6, dtype=np.int64), 0, True)

    # (the runner plays the blocks of every run: fastbg.rollouts.runner.play_stored)
    monkeypatch.setattr(runner, "run_blocks", stopped)
    path = tmp_path / "runs.sqlite"
    res = cubeless.rollout("start", 2000, seed=1, policy="pubeval", store=path)
    assert res.interrupted and res.games == 0 and res.run_id is None
    with ResultsStore(path) as st:
        assert st.runs() == []


@pytest.mark.parametrize("damage, why", [
    ("DROP TABLE blocks", "its table 'blocks' is missing"),
    ("ALTER TABLE runs DROP COLUMN summary", "its table 'runs' lacks the column(s) summary"),
])
def test_a_store_missing_a_table_or_column_is_refused_untouched(tmp_path, capsys, damage, why):
    """A store whose schema was damaged used to fail with sqlite3's traceback (exit 1)."""
    path = tmp_path / "runs.sqlite"
    with ResultsStore(path) as st:
        st.create_run("rollout", "start", {"position": "start", "games": 1000},
                      {"seed": 1, "games": 1000, "block_size": 1000})
    db = sqlite3.connect(path)
    db.execute(damage)
    db.commit()
    db.close()
    before = path.read_bytes()
    for args in (["runs"], ["rollout", "--resume", "1", "--no-progress"],
                 ["rollout", "start", "-n", "5", "--no-progress"]):
        assert main(args + ["--store", str(path)]) == 2, args
        err = capsys.readouterr().err
        assert f"is a damaged fastbg results store ({why})" in err, err
        assert "Traceback" not in err and err.count("\n") == 1, err
        assert path.read_bytes() == before, args


def test_a_store_that_cannot_be_created_says_so_and_why(tmp_path, monkeypatch, capsys):
    """The default store's directory that cannot be made used to be "cannot write the
    output: ..." with exit status 1 (an OSError in the command line's catch-all), and a
    file that cannot be made "is not a fastbg results store (unable to open database
    file)"; both are "cannot create the store PATH: why", exit 2, before any game."""
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x")
    monkeypatch.setenv("FASTBG_STORE", "")
    monkeypatch.setenv("XDG_DATA_HOME", str(not_a_dir))
    stores = [(None, f"cannot create the store {not_a_dir / 'fastbg' / 'runs.sqlite'}: "
                     "Not a directory")]
    for special in ("/sys", "/proc"):        # Linux: no file can be made there, even by root
        if os.path.isdir(special) and not os.path.exists(f"{special}/runs.sqlite"):
            stores.append((f"{special}/runs.sqlite",
                           f"cannot create the store {special}/runs.sqlite: "))
    for store, why in stores:
        for argv in (["rollout", "start", "-n", "10"], ["table", "gammons", "-n", "10"]):
            argv = argv + ["--no-progress", "--store"] + ([store] if store else [])
            assert main(argv) == 2, argv
            out, err = capsys.readouterr()
            assert out == "" and why in err and err.count("\n") == 1, (argv, err)
        with pytest.raises(ValueError, match="cannot create the store"):
            ResultsStore(store)
    assert not_a_dir.read_text() == "x"
    # a file made but which SQLite then cannot open: the error, and the file goes again
    import fastbg.rollouts.store as store_module

    def refused(*args, **kwargs):
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(store_module.sqlite3, "connect", refused)
    path = tmp_path / "new.sqlite"
    with pytest.raises(ValueError, match=f"cannot create the store {path}: unable to open"):
        ResultsStore(path)
    assert not path.exists()


def test_a_store_sqlite_cannot_open_says_so_not_that_it_is_foreign(tmp_path, capsys,
                                                                     monkeypatch):
    """A store in a read-only directory (SQLite's write-ahead log must create its -wal and
    -shm files beside it, even to read) used to be "not a fastbg results store". Root
    writes into any directory, so SQLite's failure is made here by a directory standing
    where its -wal file goes, and the read-only directory by os.access."""
    path = tmp_path / "runs.sqlite"
    rollout(CONTACT, 1000, seed=1, policy="pubeval", store=path)
    import gc
    gc.collect()        # the run's store connection closed (its -wal file removed)
    (tmp_path / "runs.sqlite-wal").mkdir()
    before = path.read_bytes()
    store = ["--store", str(path)]
    for argv in (["runs"], ["runs", "show", "1"],
                 ["rollout", "--resume", "1", "--extend", "1000", "--no-progress"]):
        assert main(argv + store) == 2, argv
        err = capsys.readouterr().err
        assert f"cannot open the store {path}: unable to open database file" in err, err
        assert "not a fastbg results store" not in err and err.count("\n") == 1, err
    import fastbg.rollouts.store as store_module

    real = os.access
    monkeypatch.setattr(store_module.os, "access", lambda p, mode, *a, **k: (
        False if mode == os.W_OK and os.path.samefile(p, tmp_path) else real(p, mode, *a, **k)))
    assert main(["runs", *store]) == 2
    err = capsys.readouterr().err
    assert (f"cannot open the store {path}: its directory {tmp_path} is read-only, and "
            "SQLite's write-ahead log needs to create runs.sqlite-wal and runs.sqlite-shm "
            "there (unable to open database file)") in err, err
    assert path.read_bytes() == before


@pytest.mark.parametrize("argv, hint", [
    (["rollout", "start", "-n", "10", "--policy", "pubeval"], "give --store without a PATH"),
    (["rollout", "--resume", "1"], "give --store without a PATH"),
    (["table", "gammons", "-n", "10", "--policy", "pubeval"], "give --store without a PATH"),
    (["runs"], "leave --store out"),
    (["runs", "show", "1"], "leave --store out"),
])
def test_an_empty_store_path_is_refused(tmp_path, monkeypatch, capsys, argv, hint):
    """`--store ""` used to mean the default store, without a word: a script whose
    variable was empty wrote into (or read) another store than it meant."""
    default = tmp_path / "default.sqlite"
    monkeypatch.setenv("FASTBG_STORE", str(default))
    for empty in ("", " "):
        with pytest.raises(SystemExit) as exc:   # argparse's own error
            main([*argv, "--no-progress" if argv[0] != "runs" else "--json", "--store", empty])
        code = exc.value.code
        out, err = capsys.readouterr()
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert f"--store: the store's PATH {empty!r} is empty; {hint}" in err, err
    assert not default.exists()
    if argv[0] == "rollout" and "--resume" not in argv:    # --store alone: the default store
        assert main([*argv, "--no-progress", "--store"]) == 0
        assert f"stored as run 1 in {default}" in capsys.readouterr().out
        assert default.exists()


@pytest.mark.parametrize("argv, where", [
    (["rollout", "--games", "10", "--policy", "pubeval"], "a position goes before --store"),
    (["rollout", "--resume", "1"], "a position goes before --store"),
    (["table", "gammons", "-n", "10", "--policy", "pubeval"], "this command takes no position"),
    (["runs"], "this command takes no position"),
])
@pytest.mark.parametrize("position", [
    CONTACT, "start", "START", "4HPwATDgc/ABMA:cAkAAAAAAAAA",
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",
    "-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",
])
def test_a_store_path_that_is_a_position_is_refused(tmp_path, monkeypatch, capsys, argv,
                                                     where, position):
    """`fastbg rollout --store 4HPMwQCMz+AIIQ` took the position for --store's optional
    PATH: it rolled out the start, exit 0, into a new SQLite file named like the position
    (new-user trial). Refused as --dask refuses it, in every command with --store."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:   # argparse's own error
        main([*argv, "--store", position])
    out, err = capsys.readouterr()
    assert exc.value.code == 2 and out == "" and err.count("\n") == 1, err
    assert "is a position, not a store's PATH" in err and where in err, err
    assert list(tmp_path.iterdir()) == []
    # a store file of such a name is still possible, written as a path
    if argv[0] == "rollout" and "--resume" not in argv and position == "start":
        assert main([*argv, "--no-progress", "--store", "./start"]) == 0
        assert (tmp_path / "start").exists()


def test_one_corrupt_run_does_not_stop_the_listing_of_the_others(tmp_path, capsys):
    """`fastbg runs` used to stop at the first damaged run (exit 2), listing none; it lists
    every run, the damaged ones marked corrupt with what is wrong, exit 0, while the
    commands that use a corrupt run keep refusing it."""
    path = tmp_path / "runs.sqlite"
    second = [rollout(CONTACT, 1000, seed=seed, policy="pubeval", store=path)
              for seed in (1, 2)][1]
    db = sqlite3.connect(path)
    db.execute("UPDATE blocks SET counts = 'garbage' WHERE run = 1 AND k = 0")
    db.commit()
    db.close()
    store = ["--store", str(path)]
    assert main(["runs", *store]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == f"2 runs in {path}"
    assert lines[2].split()[:2] == ["1", "rollout"] and "CORRUPT" in lines[2]
    assert lines[3].split()[:2] == ["2", "rollout"] and f"{second.equity:+8.4f}" in lines[3]
    assert f"corrupt run 1: block 0 of run 1 in {path} is corrupted (Expecting value" in out
    assert main(["runs", "--json", *store]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert "block 0 of run 1" in rows[0]["corrupt"] and rows[0]["estimate"] is None
    assert "corrupt" not in rows[1] and rows[1]["estimate"]["equity"] == second.equity
    for argv in (["runs", "show", "1"], ["runs", "export", "1", "--json"],
                 ["rollout", "--resume", "1", "--no-progress"]):
        assert main(argv + store) == 2, argv
        assert "block 0 of run 1" in capsys.readouterr().err
    # a run whose record cannot be read is listed by its id; every run corrupt: still 0
    db = sqlite3.connect(path)
    db.execute("UPDATE runs SET settings = '{' WHERE id = 2")
    db.commit()
    db.close()
    assert main(["runs", *store]) == 0
    out = capsys.readouterr().out
    assert out.count("CORRUPT") == 2 and "corrupt run 2: " in out
    assert "run 2's record is corrupted" in out


def _damage_text(path, sql):
    """Write ``sql`` into the store at ``path`` as a damaged file holds it (SQLite's own
    checks off: text that is not UTF-8 cannot be read back)."""
    db = sqlite3.connect(path)
    db.execute(sql)
    db.commit()
    db.close()


def test_a_damaged_page_of_the_store_does_not_stop_the_listing_of_the_others(tmp_path, capsys):
    """`fastbg runs` on a store with one damaged page failed as a whole ("the results store
    failed: database disk image is malformed", or "Could not decode to UTF-8 column
    'request'", exit 2; new-user trial) where docs/cli.md promises every run listed, the
    damaged ones as corrupt with what is wrong, exit 0."""
    path = tmp_path / "runs.sqlite"
    seeds = list(range(900001, 900010))
    for seed in seeds:
        rollout(CONTACT, 10, seed=seed, policy="pubeval", store=path)
    store = ["--store", str(path)]
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")       # every page in the file itself
    page_size = db.execute("PRAGMA page_size").fetchone()[0]
    db.close()
    clean = path.read_bytes()

    def listing():
        assert main(["runs", *store]) == 0
        out = capsys.readouterr().out
        rows = {int(line.split()[0]): line for line in out.splitlines()[2:]
                if line.split()[:1] and line.split()[0].isdigit()}
        assert main(["runs", "--json", *store]) == 0
        js = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
        return out, rows, js

    # a run's record whose text is not UTF-8, and a block's: that run corrupt, the others listed
    for sql, why in (("UPDATE runs SET request = CAST(x'7b22ff' AS TEXT) WHERE id = 2",
                      "run 2's record cannot be read (Could not decode to UTF-8 column 'request'"),
                     ("UPDATE blocks SET counts = CAST(x'5bff5d' AS TEXT) WHERE run = 2",
                      "block 0 of run 2 in")):
        path.write_bytes(clean)
        _damage_text(path, sql)
        out, rows, js = listing()
        assert sorted(rows) == list(range(1, 10)), out
        assert "CORRUPT" in rows[2] and "CORRUPT" not in out.replace(rows[2], ""), out
        assert f"corrupt run 2: {why}" in out.replace(f"{path}: ", ""), out
        assert "corrupt" in js[2] and all("corrupt" not in js[i] for i in js if i != 2)
        assert main(["runs", "show", "2", *store]) == 2 and why.split(" (")[0] in \
            capsys.readouterr().err

    # a page of the runs table damaged (its b-tree header overwritten): its runs are listed as
    # corrupt, the runs of the other pages as they are
    path.write_bytes(clean)
    where = {i: clean.index(f'"seed": {seed},'.encode()) // page_size
             for i, seed in enumerate(seeds, start=1)}
    page = where[5]
    hit = sorted(i for i, p in where.items() if p == page)
    assert len(hit) < len(seeds), where          # the runs of other pages are readable
    data = bytearray(clean)
    data[page * page_size:page * page_size + 8] = b"\xff" * 8
    path.write_bytes(bytes(data))
    out, rows, js = listing()
    assert sorted(rows) == list(range(1, 10)), out
    for i in range(1, 10):
        if i in hit:
            assert "CORRUPT" in rows[i] and js[i]["estimate"] is None, out
            assert f"corrupt run {i}: " in out and "malformed" in js[i]["corrupt"], out
        else:
            assert "done" in rows[i] and "corrupt" not in js[i], out


@pytest.mark.parametrize("record, value, why", [
    ("format", "99", "not a fastbg results store: its format record is '99', and this fastbg "
                     f"reads format '{STORE_FORMAT}' (versions up to {STORE_VERSION})"),
    ("version", "99", f"a results store of a newer fastbg (version 99; this one reads "
                      f"{STORE_VERSION})"),
    ("version", "x", "a damaged fastbg results store (its version record 'x' is not a whole "
                     "number)"),
])
def test_a_store_of_another_format_or_version_says_what_it_has(tmp_path, capsys, record, value,
                                                                why):
    """A format record changed to 99 used to be reported as 'no fastbg format record', and
    a version record that is not a number as Python's 'invalid literal for int()'."""
    path = tmp_path / "runs.sqlite"
    with ResultsStore(path) as st:
        st.create_run("rollout", "start", {"position": "start", "games": 1000},
                      {"seed": 1, "games": 1000, "block_size": 1000})
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = ? WHERE key = ?", (value, record))
    db.commit()
    db.close()
    before = path.read_bytes()
    for args in (["runs"], ["rollout", "--resume", "1", "--no-progress"]):
        assert main(args + ["--store", str(path)]) == 2, args
        err = capsys.readouterr().err
        assert why in err and err.count("\n") == 1, err
    assert path.read_bytes() == before


def test_lock_files_go_when_their_runs_end(tmp_path, capsys):
    """Every run (a table: every row too) used to leave its `*.runN.lock` beside the store;
    a run's file goes when it ends, and one left by a killed run goes with its resume."""
    path = tmp_path / "runs.sqlite"
    store = ["--store", str(path), "--no-progress"]
    assert main(["rollout", "start", "-n", "1000", "--seed", "1", "--policy", "pubeval",
                 *store]) == 0
    assert main(["table", "race", "--pips", "40", "--leads", "0,10", "--positions", "1",
                 "-n", "100", "--seed", "1", "--policy", "pubeval", *store]) == 0
    capsys.readouterr()
    assert sorted(p.name for p in tmp_path.iterdir() if "lock" in p.name) == []
    (tmp_path / "runs.sqlite.run1.lock").touch()          # left by a kill -9
    assert main(["rollout", "--resume", "1", "--extend", "1000", *store]) == 0
    assert not list(tmp_path.glob("*.lock"))


def test_a_lock_file_removed_by_its_holder_meanwhile_is_not_held(tmp_path, monkeypatch):
    """The race that removing lock files opens: B opens the file that A holds, A ends (removes
    the file, releases it), B locks the removed file. B must not count it as held, or C,
    creating the file anew, would hold the run as well."""
    import fcntl

    path = tmp_path / "runs.sqlite"
    a, b, c = ResultsStore(path), ResultsStore(path), ResultsStore(path)
    a.lock(1)
    flock, calls = fcntl.flock, []

    def a_ends_first(f, op):        # b has opened the file: a ends before b locks it
        if not calls:
            calls.append(op)
            a.unlock(1)
        return flock(f, op)

    monkeypatch.setattr(fcntl, "flock", a_ends_first)
    b.lock(1)
    monkeypatch.undo()
    assert calls and (tmp_path / "runs.sqlite.run1.lock").exists()
    with pytest.raises(ValueError, match="being played by another process"):
        c.lock(1)
    for st in (a, b, c):
        st.close()
    assert not list(tmp_path.glob("*.lock"))


@pytest.mark.parametrize("column, value, why", [
    ("request", "[]", "its request is a JSON"), ("settings", "[]", "its settings is a JSON"),
    ("request", '"x"', "its request is a JSON"),
    ("status", "paused", "its status 'paused' is none of running, interrupted, done")])
def test_a_record_of_the_wrong_json_shape_is_corrupt(tmp_path, capsys, column, value, why):
    """A run's request or settings that is valid JSON but not an object (new-user trial:
    KeyError and AttributeError tracebacks on resume and show) is a corrupt record; so is a
    status that no run has (it was resumed as if running)."""
    path = tmp_path / "runs.sqlite"
    rollout(CONTACT, 1000, seed=1, policy="pubeval", store=path)
    db = sqlite3.connect(path)
    db.execute(f"UPDATE runs SET {column} = ? WHERE id = 1", (value,))
    db.commit()
    db.close()
    store = ["--store", str(path)]
    assert main(["runs", *store]) == 0
    assert "CORRUPT" in capsys.readouterr().out
    for argv in (["runs", "show", "1"], ["rollout", "--resume", "1", "--no-progress"]):
        assert main(argv + store) == 2, argv
        err = capsys.readouterr().err
        assert why in err and err.count("\n") == 1
    assert not list(tmp_path.glob("*.lock"))


def test_a_store_that_fails_to_write_is_one_line(tmp_path, capsys, monkeypatch):
    """SQLite's own errors past the store's checks (a read-only file: root ignores chmod,
    so it is simulated here) are one line and exit 2, not a traceback."""
    def readonly(self, *args, **kwargs):
        raise sqlite3.OperationalError("attempt to write a readonly database")

    monkeypatch.setattr(ResultsStore, "create_run", readonly)
    code = main(["rollout", "start", "-n", "10", "--no-progress", "--store", str(tmp_path / "s.sqlite")])
    err = capsys.readouterr().err
    assert code == 2 and "the results store failed: attempt to write a readonly database" in err
    assert err.count("\n") == 1


@pytest.mark.parametrize("command", [["rollout", CONTACT],
                                     pytest.param(["table", "gammons"], marks=pytest.mark.slow)])
def test_a_store_that_fails_in_the_middle_of_a_run_keeps_what_it_stored(
        tmp_path, capsys, monkeypatch, command):
    """A full disk as the third block is written: one line, exit 2, and the two blocks
    written before are kept, so --resume ends with the numbers of one uninterrupted run."""
    path = tmp_path / "runs.sqlite"
    argv = [*command, "-n", "5000", "--seed", "4", "--policy", "pubeval", "--no-progress",
            "--json"]
    real = ResultsStore.add_block

    def full_disk(self, run, k, *args, **kwargs):
        if k == 2:
            raise sqlite3.OperationalError("database or disk is full")
        return real(self, run, k, *args, **kwargs)

    monkeypatch.setattr(ResultsStore, "add_block", full_disk)
    assert main([*argv, "--store", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    assert "the results store failed: database or disk is full" in err, err
    with ResultsStore(path) as st:
        assert list(st.blocks(1)) == [0, 1] and st.run(1).status == "running"
    monkeypatch.setattr(ResultsStore, "add_block", real)
    resume = ["rollout", "--resume", "1"] if command[0] == "rollout" else [
        "table", "gammons", "--resume", "1"]
    assert main([*resume, "--store", str(path), "--no-progress", "--json"]) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert main(argv) == 0
    whole = json.loads(capsys.readouterr().out)
    for d in (resumed, whole):
        for k in ("seconds", "games_per_second", "stored_games", "run_id", "store", "settings"):
            d.pop(k, None)
    assert resumed == whole


def test_a_full_disk_for_the_output_after_a_stored_run_is_status_2(tmp_path):
    """stdout on a full disk (`--json > file`) used to exit with status 1; an environment
    problem is status 2, and the run is in its store all the same."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    path = tmp_path / "runs.sqlite"
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "fastbg", "rollout", CONTACT, "-n", "1000",
                               "--policy", "pubeval", "--no-progress", "--json", "--store",
                               str(path)], stdout=full, stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "cannot write the output: No space left on device" in proc.stderr
    with ResultsStore(path) as st:
        assert st.run(1).status == "done" and st.run(1).games_done == 1000


@pytest.mark.parametrize("argv", [["runs"], ["runs", "export", "1", "--json"]])
def test_runs_plot_is_only_for_show(tmp_path, capsys, argv):
    """`fastbg runs --plot FILE` used to ignore --plot silently (second new-user trial)."""
    path = tmp_path / "runs.sqlite"
    rollout(CONTACT, 1000, seed=1, policy="pubeval", store=path)
    assert main([*argv, "--store", str(path), "--plot", str(tmp_path / "x.png")]) == 2
    assert "--plot is for `fastbg runs show RUN`" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def _read_only_connections(monkeypatch):
    """Every store connection from now on refuses to write, as SQLite does on a file this
    process may not write (root writes through chmod, so it is simulated): PRAGMA
    query_only gives SQLite's own "attempt to write a readonly database"; and no run can be
    locked, as in a read-only directory."""
    import fastbg.rollouts.store as store_module

    real = store_module.sqlite3.connect

    def connect(database, *args, **kwargs):
        db = real(database, *args, **kwargs)
        if database != ":memory:":
            db.execute("PRAGMA query_only = ON")
        return db

    def lock(self, run):
        raise ValueError(f"cannot lock run {run} of {self.path}: cannot create "
                         f"{self._lock_path(run)}: Permission denied")

    monkeypatch.setattr(store_module.sqlite3, "connect", connect)
    monkeypatch.setattr(ResultsStore, "lock", lock)


@pytest.mark.parametrize("command", [["rollout", CONTACT], ["table", "gammons"]])
def test_a_finished_run_of_a_read_only_store_is_shown_without_a_write(
        tmp_path, capsys, monkeypatch, command):
    """`--resume` of a finished run on a read-only store (file mode 0444) used to print
    "run 1 is finished" and then fail with "attempt to write a readonly database" (it
    marked the run running, then done again), or in a read-only directory with "cannot
    lock run 1" (third new-user trial). A finished run needs nothing written: its stored
    result, exit 0, and neither a lock nor a mark."""
    path = tmp_path / "runs.sqlite"
    argv = [*command, "-n", "2500", "--seed", "4", "--policy", "pubeval", "--no-progress",
            "--json", "--store", str(path)]
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    import gc
    gc.collect()        # the run's store connection closed (its WAL checkpointed)
    before = path.read_bytes()
    _read_only_connections(monkeypatch)
    resume = (["rollout", "--resume", "1"] if command[0] == "rollout"
              else ["table", "gammons", "--resume", "1"])
    assert main([*resume, "--store", str(path), "--no-progress", "--json"]) == 0
    out, err = capsys.readouterr()
    again = json.loads(out)
    assert again["stored_games"] == 2500 and "Traceback" not in err, err
    for d in (first, again):
        for k in ("seconds", "games_per_second", "stored_games", "workers", "settings"):
            d.pop(k, None)
    assert again == first
    if command[0] == "rollout":
        assert main([*resume, "--store", str(path), "--no-progress"]) == 0
        out = capsys.readouterr().out
        assert "all 2,500 games read from the store" in out and "stored as run 1" in out
        # more games must be written: the store's own error, one line, nothing changed
        assert main([*resume, "--extend", "500", "--store", str(path), "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert "cannot lock run 1" in err and err.count("\n") == 1, err
    monkeypatch.undo()
    gc.collect()
    assert path.read_bytes() == before
    with ResultsStore(path) as st:
        assert st.run(1).status == "done"
    assert not list(tmp_path.glob("*.lock"))


def _as_a_user_who_may_not_write(argv) -> tuple[int, str, str]:
    """``main(argv)`` as a user bound by file permissions: this process if it is one, else
    (root ignores permissions) a forked child that becomes nobody, with no exec (this
    Python may live where nobody cannot run it). Returns the status, stdout and stderr."""
    import tempfile

    if os.geteuid() != 0:
        out, err = tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+")
        real = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = out, err
        try:
            code = main(argv)
        finally:
            sys.stdout, sys.stderr = real
        out.seek(0), err.seek(0)
        return code, out.read(), err.read()
    import pwd
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no user nobody to run as")
    out, err = tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+")
    pid = os.fork()
    if pid == 0:                                  # pragma: no cover - the child
        code = 99
        try:
            os.setgroups([])
            os.setgid(nobody.pw_gid)
            os.setuid(nobody.pw_uid)
            sys.stdout, sys.stderr = out, err
            code = main(argv)
            sys.stdout.flush(), sys.stderr.flush()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    out.seek(0), err.seek(0)
    return os.waitstatus_to_exitcode(status), out.read(), err.read()


def test_a_finished_run_missing_its_last_block_is_refused_not_replayed(tmp_path, capsys):
    """A run marked done is read again without a lock, so a block it lacks is not played
    (and written) behind the user's back: it is damage, one line, exit 2, nothing changed."""
    path = tmp_path / "runs.sqlite"
    rollout(CONTACT, 2000, seed=1, policy="pubeval", store=path)
    db = sqlite3.connect(path)
    db.execute("DELETE FROM blocks WHERE run = 1 AND k = 1")
    db.commit()
    db.close()
    before = path.read_bytes()
    why = f"run 1 in {path} is marked done but block 1 of it is missing"
    store = ["--store", str(path)]
    assert main(["runs", *store]) == 0
    out = capsys.readouterr().out
    assert "CORRUPT" in out.splitlines()[2] and f"corrupt run 1: {why}" in out, out
    for argv in (["rollout", "--resume", "1", "--no-progress"], ["runs", "show", "1"],
                 ["runs", "export", "1", "--json"]):
        assert main(argv + store) == 2, argv
        err = capsys.readouterr().err
        assert why in err and "Traceback" not in err and err.count("\n") == 1, err
    assert path.read_bytes() == before and not list(tmp_path.glob("*.lock"))
    # the rollout function itself refuses to play it (it does not read the record's games)
    with pytest.raises(ValueError, match="marked done but block 1 of it is missing"):
        rollout(CONTACT, 2000, seed=1, policy="pubeval", store=path, run_id=1)
    assert path.read_bytes() == before


@pytest.mark.parametrize("where", ["file", "directory"])
def test_a_finished_run_resumes_from_a_store_it_may_not_write(where):
    """The same with real permissions, for a user who may not write the store: the file's
    mode 0444 (SQLite then opens it read-only), or a read-only directory (where no lock
    file can be made; another connection keeps the -wal and -shm files SQLite needs to
    read there)."""
    if os.name != "posix":
        pytest.skip("POSIX permissions")
    import gc
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="fastbg-ro-")   # (pytest's tmp dirs are root's alone)
    keep = None
    try:
        os.chmod(folder, 0o777)
        path = os.path.join(folder, "runs.sqlite")
        rollout(CONTACT, 1500, seed=2, policy="pubeval", store=path)
        gc.collect()
        if where == "file":
            os.chmod(path, 0o444)
        else:
            keep = sqlite3.connect(path)          # another reader: -wal and -shm stay
            keep.execute("SELECT COUNT(*) FROM runs").fetchall()
            os.chmod(folder, 0o555)
        with open(path, "rb") as f:
            before = f.read()
        code, out, err = _as_a_user_who_may_not_write(
            ["rollout", "--resume", "1", "--store", path, "--no-progress", "--json"])
        assert code == 0, err
        d = json.loads(out)
        assert d["games"] == d["stored_games"] == 1500 and d["run_id"] == 1
        with open(path, "rb") as f:
            assert f.read() == before
        assert not [f for f in os.listdir(folder) if f.endswith(".lock")]
    finally:
        if keep is not None:
            keep.close()
        os.chmod(folder, 0o777)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("position, why", [
    ("garbage", "its position: bad position 'garbage': expected 'start'"),
    ("4HPwATDgc/ABMB", "its position: bad Position ID '4HPwATDgc/ABMB': not canonical"),
    # a sound ID, but not the one its request rolls out (--resume would roll that out)
    ("4HPwATDgc/ABMA", "its position '4HPwATDgc/ABMA' is not its request's "
                       "'4HPMwQCMz+AIIQ'"),
])
@pytest.mark.parametrize("kind", ["rollout", "plays"])
def test_a_run_whose_position_is_not_a_position_is_corrupt(tmp_path, capsys, kind, position,
                                                           why):
    """A run whose position column was set to garbage used to be listed as done, and shown
    and exported as a rollout of 'garbage' (third new-user trial): it is a damaged record,
    listed as CORRUPT with the reason, refused by show, export and --resume (exit 2, one
    line), the store unchanged."""
    path = tmp_path / "runs.sqlite"
    if kind == "rollout":
        rollout(CONTACT, 1000, seed=1, policy="pubeval", store=path)
    else:
        from fastbg import rollout_plays
        rollout_plays(CONTACT, (3, 1), 324, seed=1, policy="pubeval", top=2, store=path)
    db = sqlite3.connect(path)
    db.execute("UPDATE runs SET position = ? WHERE id = 1", (position,))
    db.commit()
    db.close()
    before = path.read_bytes()
    store = ["--store", str(path)]
    assert main(["runs", *store]) == 0
    out = capsys.readouterr().out
    assert "CORRUPT" in out.splitlines()[2] and "done" not in out.splitlines()[2], out
    assert f"corrupt run 1: {path}: run 1's record is corrupted ({why}" in out, out
    for argv in (["runs", "show", "1"], ["runs", "export", "1", "--json"],
                 ["runs", "export", "1", "--csv"], ["rollout", "--resume", "1", "--no-progress"]):
        assert main(argv + store) == 2, argv
        out, err = capsys.readouterr()
        assert why in err and "Traceback" not in err and err.count("\n") == 1, (argv, err)
        assert out == "", argv
    assert path.read_bytes() == before and not list(tmp_path.glob("*.lock"))


def test_a_run_stopped_before_its_first_block_leaves_no_gap_in_the_ids(tmp_path, capsys,
                                                                       monkeypatch):
    """A new run stopped by Ctrl-C before its first block is not kept, but its id used to be
    (the store's AUTOINCREMENT): the next run was run 2 of a store listing one run, or run
    3 after run 1 (new-user trial). The id is given again, except while another process
    may still hold its lock: a removed run's lock file not yet gone keeps its id taken."""
    import fastbg.rollouts.runner as runner
    from fastbg.rollouts.blocks import BlockRun

    real = runner.run_blocks

    def stopped(board, games, *args, **kwargs):     # Ctrl-C before any block finished
        return BlockRun(np.zeros(6, dtype=np.int64), 0, True)

    path = tmp_path / "runs.sqlite"
    store = ["--store", str(path), "--no-progress", "--policy", "pubeval", "-n", "1000"]

    def new_run(stop: bool) -> int:
        monkeypatch.setattr(runner, "run_blocks", stopped if stop else real)
        code = main(["rollout", CONTACT, *store, "--json"])
        out, err = capsys.readouterr()
        if stop:
            assert code == 130 and "nothing stored" in err, err
            return 0
        assert code == 0, err
        return json.loads(out)["run_id"]

    assert new_run(stop=True) == 0
    assert new_run(stop=False) == 1                 # was 2
    assert new_run(stop=True) == 0
    assert new_run(stop=True) == 0
    assert new_run(stop=False) == 2                 # was 5
    # a table, and Python's OpenRun.abort (an error, or a Ctrl-C that raised)
    run = _open(path)
    assert run.run_id == 3
    run.abort()
    assert _open(path).run_id == 3                  # (left 'running', as if killed)
    # a removed run whose lock another process has not released yet (or a kill -9 left):
    # its id stays taken until the lock file goes
    request = {"position": "start", "games": 1000}
    settings = {"seed": 1, "games": 1000, "block_size": 1000}
    with ResultsStore(path) as st:
        assert st.create_run("rollout", "start", request, settings) == 4
        lock = tmp_path / "runs.sqlite.run4.lock"
        lock.touch()
        st.delete_run(4)                            # (not this store's lock: it stays)
        assert st.create_run("rollout", "start", request, settings) == 5
        lock.unlink()
        st.delete_run(5)
        assert st.create_run("rollout", "start", request, settings) == 4
        assert st.run_ids() == [1, 2, 3, 4]


def test_the_listing_lines_its_columns_up_whatever_their_widths(tmp_path, capsys):
    """`fastbg runs` used fixed widths: a table's label longer than 16 characters was cut
    ("replies 31 8/5 6"), and a game count of 2,000,000 pushed the rest of its line to the
    right of the other lines' (new-user trial). Every column is as wide as its widest
    entry: each starts under its header, and the progress lines up on its '/'."""
    path = tmp_path / "runs.sqlite"
    with ResultsStore(path) as st:
        for position, games, done in (("4HPMwQCMz+AIIQ", 500, 500),
                                      ("4HPwATDgc/ABMA", 2_000_000, 1000)):
            run = st.create_run("rollout", position, {"position": position, "games": games},
                                {"seed": 1, "games": games, "block_size": 1000})
            st.add_block(run, 0, done, [done // 2, 0, 0, done // 2, 0, 0])
            if games == done:
                st.finish_run(run, "done", {})
        label = "replies 31 8/5 6/5"
        st.create_run("table", label, {"position": label, "table": "replies",
                                       "rolls": [[3, 1], [4, 2]], "games": 324},
                      {"seed": 1, "games": 324, "block_size": 324})
    assert main(["runs", "--store", str(path)]) == 0
    head, *lines = capsys.readouterr().out.splitlines()[1:]
    assert len(lines) == 3
    assert [ln.split()[2] for ln in lines[:2]] == ["4HPMwQCMz+AIIQ", "4HPwATDgc/ABMA"]
    assert label in lines[2]                                   # not cut
    for name, value in (("kind", ("rollout", "rollout", "table")),
                        ("position", ("4HPMwQCMz+AIIQ", "4HPwATDgc/ABMA", label)),
                        ("status", ("done", "unfinished", "unfinished")),
                        ("created", ("20", "20", "20"))):
        at = head.index(name)
        for ln, v in zip(lines, value):
            assert ln[at:].startswith(v) and ln[at - 1] == " ", (name, head, ln)
    slash = {ln.index("/", head.index("games")) for ln in lines}
    assert len(slash) == 1, lines
    assert [ln[head.index("games"):].split()[0] for ln in lines] == [
        "500/500", "1,000/2,000,000", "0/2"]
    # the numbers end where their headers do
    end = head.index("s.e.") + len("s.e.")
    for ln in lines[:2]:
        assert re.search(r" [+-]0\.0000 +0\.0\d{3}$", ln[:end]), (head, ln)


def test_the_counts_shape_of_a_stored_run_comes_from_its_record_by_one_rule(tmp_path):
    """The shape a stored run's blocks must have was worked out twice, from the record by
    `fastbg runs` and from the arguments by rollout and rollout_plays, with the rule for
    candidate plays ((C, 6) unless pruned) written in both places: one function now, which
    gives every stored run the shape its blocks have."""
    from fastbg import rollout_plays
    from fastbg.rollouts.cubeless import counts_shape, stored_counts_shape

    path = tmp_path / "runs.sqlite"
    rollout(CONTACT, 1000, seed=1, policy="pubeval", store=path)
    rollout(CONTACT, 1008, seed=1, policy="pubeval", by_first_roll=True, store=path)
    rollout("start", 1020, seed=1, policy="pubeval", by_first_roll=True, store=path)
    rollout_plays(CONTACT, (3, 1), 324, seed=1, policy="pubeval", top=3, store=path)
    rollout_plays(CONTACT, (3, 1), 972, seed=1, policy="pubeval", top=3, prune_se=1,
                  min_games=324, store=path)
    want = [(6,), (22, 6), (31, 6), (3, 6), None]
    with ResultsStore(path) as st:
        runs = st.runs()
        assert [stored_counts_shape(r.kind, r.request, r.settings) for r in runs] == want
        for r, shape in zip(runs[:4], want):
            assert {c.shape for _, c, _ in st.blocks(r.id).values()} == {shape}
    assert want[1] == counts_shape(False, True) and want[2] == counts_shape(True, True)
    assert stored_counts_shape("table", {}, {}) is None
    # a record that does not say whether it prunes is not checked
    assert stored_counts_shape("plays", {}, {"candidate_moves": ["a", "b"]}) is None


def _open_new_store_at_once(path, barrier, queue):
    barrier.wait()
    try:
        store = ResultsStore(path)
        queue.put(("ok", store.path.name))
    except Exception as exc:     # reported to the test, which names it
        queue.put(("error", f"{type(exc).__name__}: {exc}"))


def test_processes_opening_the_same_new_store_at_once_all_get_it(tmp_path):
    # Three `fastbg rollout --store new.db &` started together (new-user trial): one or two
    # failed with "table meta already exists" or "not a fastbg results store (no fastbg
    # format record)", the others' half-made store seen between its file and its tables.
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    for attempt in range(8):
        path = tmp_path / f"new{attempt}.db"
        barrier, queue = ctx.Barrier(4), ctx.Queue()
        procs = [ctx.Process(target=_open_new_store_at_once, args=(path, barrier, queue))
                 for _ in range(4)]
        for p in procs:
            p.start()
        results = [queue.get(timeout=60) for _ in procs]
        for p in procs:
            p.join()
        assert results == [("ok", path.name)] * 4, results
        with ResultsStore(path) as store:
            assert store.runs() == []


def test_runs_of_a_store_in_a_missing_directory_is_an_error(tmp_path, capsys):
    """`fastbg runs --store /no/such/dir/s.db` used to say "no runs ... yet" with status 0
    and the hint to make it with `rollout --store`, which would fail (a new-user trial)."""
    missing = tmp_path / "no_such_dir" / "s.db"
    assert main(["runs", "--store", str(missing)]) == 2
    err = capsys.readouterr().err
    assert f"no store {missing}: there is no directory {missing.parent}" in err
    # a store not made yet in a directory that exists is still an empty listing
    assert main(["runs", "--store", str(tmp_path / "s.db")]) == 0
    assert "no runs: there is no store" in capsys.readouterr().out


def test_runs_of_fastbg_store_in_a_missing_directory_is_an_error(tmp_path, monkeypatch, capsys):
    # $FASTBG_STORE in a missing directory said "no runs ... yet (`fastbg rollout ...
    # --store` makes it)", which refuses it (new-user trial); as --store PATH does
    missing = tmp_path / "no_such_dir" / "s.db"
    monkeypatch.setenv("FASTBG_STORE", str(missing))
    assert main(["runs"]) == 2
    assert capsys.readouterr().err == (f"fastbg runs: error: no store {missing} ($FASTBG_STORE): "
                                       f"there is no directory {missing.parent}\n")
    assert main(["rollout", "-n", "10", "--policy", "pubeval", "--store", "--no-progress"]) == 2
    assert f"there is no directory {missing.parent}" in capsys.readouterr().err
    # the default store's data directory, which the user never named, is made on first use
    monkeypatch.delenv("FASTBG_STORE")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert main(["runs"]) == 0
    assert "no runs: there is no store" in capsys.readouterr().out
    assert not (tmp_path / "data").exists()
