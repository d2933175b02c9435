"""Equity tables (fastbg.research, ``fastbg table``): what they compute, and that they survive.

A table interrupted at any moment (in the store: a row cut short, the next not started;
for real: ``kill -9`` of a spawned ``fastbg table``) and resumed ends with exactly the
numbers of one uninterrupted table. Bad input is one line on stderr, exit 2, and changes no
store. The formulas are checked on positions counted by hand, the self-play loop of the
gammons table against the engines' own game loop.
"""
from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from types import SimpleNamespace

import numpy as np
import pytest

from fastbg import rollout, rollout_plays
from fastbg.cli import main
from fastbg.cli.common import _finite
from fastbg.engine import get_engine
from fastbg.game import Position
from fastbg.reference.board import START_BOARD
from fastbg.research import (convergence, derived_seed, gammons_table, keith_count,
                             keith_decision, openings_table, parse_opening, race_table,
                             random_race_position, replies_table, trice_decision,
                             trice_point_of_last_take)
from fastbg.research.gammons import _block_counts, phase_statistics, selfplay_game
from fastbg.research.race import _errors
from fastbg.research.table import StoredTable, run_rows
from fastbg.rollouts.store import STORE_VERSION, ResultsStore
from test_cli import run_status

pytest.importorskip("fastbg._core.rollout", reason="Cython core not built")

FAST = dict(policy="pubeval", workers=2)


def _board(mine, theirs) -> Position:
    """A position from each side's checkers on its own points 1, 2, ... (lists)."""
    b = np.zeros((2, 25), dtype=np.int8)
    b[0, :len(mine)] = mine
    b[1, :len(theirs)] = theirs
    return Position(b)


# ---------------------------------------------------------------------------- formulas
# Player on roll X, its points 1-6:   3 3 4 0 2 3   (49 pips)
# Opponent O, its own points 1-6:     1 2 3 2 2 5   (62 pips)
HAND = ([3, 3, 4, 0, 2, 3], [1, 2, 3, 2, 2, 5])


def test_keith_count_by_hand():
    pos = _board(*HAND)
    assert pos.is_race and pos.pip_counts == (49, 62)
    # X: 49 + 2*(3-1) on the 1-point + (3-1) on the 2-point + (4-3) on the 3-point + 1 empty
    # 4-point = 57; O: 62 + (2-1) on its 2-point = 63
    assert keith_count(pos) == (57, 63)
    d = keith_decision(pos)
    # X on roll: 57 + 57 // 7 = 65, 2 more than O's 63: double (<= 4) and take (>= 2)
    assert d["roller_count"] == 65 and d["margin"] == 2
    assert d["action"] == "Double, take"
    # one checker of O's moved from its 6- to its 1-point: 57 pips, + 2 * (2-1) on the
    # 1-point + (2-1) on the 2-point = 60; margin 5: no double
    less = _board(HAND[0], [2, 2, 3, 2, 2, 4])
    assert keith_count(less)[1] == 60 and keith_decision(less)["action"] == "No double, take"


def test_trice_point_of_last_take_and_decisions():
    # Phil Simborg's examples: a leader's 74 gives 83 (74/10 = 7.4 -> 8, + 1), 55 gives 62
    # ((55 - 5) / 7 = 7.1 -> 7); both branches give 70 at 62
    assert [trice_point_of_last_take(n) for n in (74, 55, 62, 63, 100)] == [83, 62, 70, 71, 111]
    d = trice_decision(_board(*HAND))
    # X 49: point of last take 49 + (44 // 7) = 55; O's 62 is 7 beyond it: double, pass
    assert d["point_of_last_take"] == 55 and d["margin"] == 7 and d["action"] == "Double, pass"
    with pytest.raises(ValueError, match="positive whole number"):
        trice_point_of_last_take(0)


def test_a_rules_errors_and_what_they_cost():
    dec = SimpleNamespace(nd=0.6, dt=0.8, dp=1.0)          # double, take is right
    e = _errors({"double": False, "take": False}, dec)
    assert e["double_wrong"] and e["take_wrong"]
    assert e["cost_double"] == pytest.approx(0.2) and e["cost_take"] == pytest.approx(0.2)
    e = _errors({"double": True, "take": True}, dec)
    assert not e["double_wrong"] and not e["take_wrong"] and e["cost_double"] == e["cost_take"] == 0


@pytest.mark.parametrize("pips", [(20, 25), (45, 40), (100, 112), (160, 150)])
def test_random_race_positions_have_the_pip_counts_asked_for(pips):
    seen = set()
    for s in range(5):
        pos = random_race_position(*pips, s)
        assert pos.pip_counts == pips and pos.is_race
        assert not pos.board[:, 12:].any()          # every checker on its side's points 1-12
        for side, p in enumerate(pips):
            assert pos.checkers_off[side] == (0 if p >= 53 else 15 - int(np.ceil(p / 3.5)))
        assert random_race_position(*pips, s) == pos       # the seed decides
        seen.add(pos.to_position_id())
    assert len(seen) == 5
    with pytest.raises(ValueError, match="from 20 to 160"):
        random_race_position(19, 40, 1)


def test_derived_seeds_are_128_bit_and_part_specific():
    a = derived_seed(1, 0x4F50, 3, 1)
    assert a == derived_seed(1, 0x4F50, 3, 1) and 2**64 < a < 2**128
    assert len({a, derived_seed(1, 0x4F50, 1, 3), derived_seed(2, 0x4F50, 3, 1)}) == 3


# ---------------------------------------------------------------------------- openings
def test_parse_opening():
    assert parse_opening("31") == ((3, 1), "8/5 6/5")
    assert parse_opening("3-1: 6/5 8/5") == ((3, 1), "8/5 6/5")
    assert parse_opening("13/7 8/7") == ((6, 1), "13/7 8/7")
    assert parse_opening("62 24/16") == ((6, 2), "24/16")
    for bad, why in (("11", "never a double"), ("24/16", "of 5-3 and of 6-2"),
                     ("24/23", "not a play of any opening roll"), ("31 24/22", "not a legal play")):
        with pytest.raises(ValueError, match=why):
            parse_opening(bad)


def test_an_openings_row_is_the_candidate_rollout_with_its_derived_seed():
    t = openings_table(324, seed=7, rolls="42,31", top=2, **FAST)
    assert [r["roll"] for r in t.rows] == ["3-1", "4-2"]          # in table order
    one = rollout_plays("start", "42", 324, seed=derived_seed(7, 0x4F50, 4, 2), top=2, **FAST)
    assert t.rows[1]["plays"] == one.plays and t.rows[1]["best"] == one.plays[0]["move"]
    assert "equity" not in t.summary            # the opening roll's equity needs all 15 rolls


def test_a_race_table_of_too_many_positions_is_refused_before_it_starts(monkeypatch, capsys):
    """A million positions used to be accepted, then played for days with nothing said; at
    most 100,000 in all the cells together (50,001 in each of 2 cells is too many)."""
    import fastbg.research.race as race

    def never(*args, **kwargs):
        raise AssertionError("a row started")

    monkeypatch.setattr(race, "rollout", never)
    for argv, why in ((["--positions", "1000000", "-n", "10", "--pips", "40", "--leads", "0"],
                       "argument --positions: positions is 1,000,000: a race table holds at "
                       "most 100,000 positions"),
                      (["--positions", "5000"], "positions is 5,000 a cell, 150,000 in 30 "
                                                "cells: a race table holds at most 100,000")):
        code, out, err = run_status(capsys, "table", "race", "--no-progress", *argv)
        assert code == 2 and out == "" and why in err and err.count("\n") == 1, err
    with pytest.raises(ValueError, match="50,001 a cell, 100,002 in 2 cells: a race table "
                                         "holds at most 100,000 positions"):
        race_table(pips=[40], leads=[0, 10], positions=50_001, games=10, seed=1)
    for bad in (0, 2.0, True):
        with pytest.raises(ValueError, match="positive number of positions"):
            race_table(pips=[40], leads=[0], positions=bad, games=10, seed=1)


def _cut(path, table_id, keep_rows: int, keep_blocks: int) -> None:
    """Make a finished stored table look killed: rows after ``keep_rows`` never started,
    row ``keep_rows`` with only its first ``keep_blocks`` blocks."""
    db = sqlite3.connect(path)
    rows = [r for (r,) in db.execute("SELECT id FROM runs WHERE parent = ? ORDER BY id",
                                     (table_id,))]
    for r in rows[keep_rows + 1:]:
        db.execute("DELETE FROM blocks WHERE run = ?", (r,))
        db.execute("DELETE FROM runs WHERE id = ?", (r,))
    if keep_rows < len(rows):
        db.execute("DELETE FROM blocks WHERE run = ? AND k >= ?", (rows[keep_rows], keep_blocks))
        db.execute("UPDATE runs SET status = 'running', summary = NULL WHERE id = ?",
                   (rows[keep_rows],))
    if not rows:                                    # a table of its own blocks (gammons)
        db.execute("DELETE FROM blocks WHERE run = ? AND k >= ?", (table_id, keep_blocks))
    db.execute("UPDATE runs SET status = 'running', summary = NULL WHERE id = ?", (table_id,))
    db.commit()
    db.close()


def _rows(rows):
    """A table's rows without the ids of their runs in the store."""
    return [{k: v for k, v in r.items() if k != "run_id"} for r in rows]


def _dump(path) -> list[str]:
    """Everything a store holds, as SQL (its file's bytes change when SQLite merely moves
    its write-ahead log into it)."""
    db = sqlite3.connect(path)
    try:
        return list(db.iterdump())
    finally:
        db.close()


def _same_table(a, b):
    assert _rows(a.rows) == _rows(b.rows) and a.summary == b.summary and a.settings == b.settings


@pytest.mark.parametrize("make", [
    lambda **kw: openings_table(648, seed=3, rolls="21,31,65", top=3, prune_se=1.0,
                                min_games=324, **FAST, **kw),
    lambda **kw: replies_table("8/5 6/5", 324, seed=3, rolls="11,21,66", top=2, **FAST, **kw),
    lambda **kw: race_table(pips=[40, 60], leads=[0, 12], positions=1, games=300, seed=3,
                            **FAST, **kw),
    lambda **kw: gammons_table(1000, seed=3, **FAST, **kw),
], ids=["openings", "replies", "race", "gammons"])
def test_a_table_cut_short_in_the_store_resumes_to_the_numbers_of_one_run(tmp_path, make):
    path = tmp_path / "runs.sqlite"
    whole = make()
    stored = make(store=path)
    _same_table(stored, whole)
    _cut(path, stored.run_id, keep_rows=1, keep_blocks=1)
    resumed = make(store=path, run_id=stored.run_id)
    _same_table(resumed, whole)
    assert resumed.stored_games > 0
    with ResultsStore(path) as st:
        assert st.run(stored.run_id).status == "done"
        assert all(r.status == "done" for r in st.rows(stored.run_id))


def test_ctrl_c_in_a_rows_last_block_stops_the_table_after_that_row():
    # a rollout that notices Ctrl-C while its last blocks play finishes whole and is not
    # interrupted: the table must stop after it all the same
    told = []

    def play_row(j, key, store_args, on_interrupt):
        if j == 1:
            on_interrupt(1)
        return {"row": j}, False, None, 0

    rows, interrupted, _ = run_rows(range(4), play_row, StoredTable(None, None, "x", {}, {}),
                                    on_interrupt=told.append)
    assert rows == [{"row": 0}, {"row": 1}] and interrupted and told == [1]
    rows, interrupted, _ = run_rows(range(2), play_row, StoredTable(None, None, "x", {}, {}))
    assert len(rows) == 2 and not interrupted           # the last row: the table is whole


def test_resuming_with_other_settings_or_another_kind_is_refused(tmp_path):
    path = tmp_path / "runs.sqlite"
    t = openings_table(324, seed=3, rolls="31", top=2, store=path, **FAST)
    before = _dump(path)
    with pytest.raises(ValueError, match="seed"):
        openings_table(324, seed=4, rolls="31", top=2, store=path, run_id=t.run_id, **FAST)
    with pytest.raises(ValueError, match="rolls"):
        openings_table(324, seed=3, rolls="42", top=2, store=path, run_id=t.run_id, **FAST)
    with pytest.raises(ValueError, match="is an openings table, not a race table"):
        race_table(pips=[40], leads=[0], positions=1, games=100, seed=3, store=path,
                   run_id=t.run_id, **FAST)
    with pytest.raises(ValueError, match="is a rollout of candidate plays \\(a row of table run 1\\), not"):
        openings_table(324, seed=3, rolls="31", top=2, store=path, run_id=t.run_id + 1, **FAST)
    with pytest.raises(ValueError, match="no run 9"):
        openings_table(324, seed=3, store=path, run_id=9, **FAST)
    assert _dump(path) == before


# ---------------------------------------------------------------------------- gammons
@pytest.mark.parametrize("engine", ["cython", "python"])
@pytest.mark.parametrize("policy", ["random", "pubeval"])
def test_the_self_play_loop_plays_the_engines_games(engine, policy):
    eng = get_engine(engine)
    for s in range(40 if engine == "cython" else 3):
        a, b = np.random.PCG64DXSM(s), np.random.PCG64DXSM(s)
        visits, result, root_first = selfplay_game(eng, eng.make_policy(policy), a)
        want = eng.play_game(np.array(START_BOARD, dtype=np.int8), b, eng.make_policy(policy),
                             opening=True)
        assert (result if root_first else (result + 3) % 6) == want
        assert a.random_raw() == b.random_raw()              # the same draws, no more
        assert visits[0].tolist() == [1, 0] and visits.sum() >= 2


def test_phase_rates_and_their_cluster_standard_errors():
    eng = get_engine("cython")
    pol = eng.make_policy("pubeval")
    bg = np.random.PCG64DXSM(5)
    games = [selfplay_game(eng, pol, bg)[:2] for _ in range(300)]
    rows = phase_statistics(_block_counts(games), len(games))
    flip = [3, 4, 5, 0, 1, 2]
    for i, row in enumerate(rows):
        # by hand: per game, its positions in the phase and those whose player on roll
        # went on to win a gammon (classes 1 and 2 from that player's view)
        n = np.array([v[i].sum() for v, _ in games], dtype=float)
        y = np.array([v[i, 0] * (c in (1, 2)) + v[i, 1] * (flip[c] in (1, 2))
                      for v, c in games], dtype=float)
        r = y.sum() / n.sum()
        g = n > 0
        se = np.sqrt(((y[g] - r * n[g]) ** 2).sum() * g.sum() / (g.sum() - 1)) / n.sum()
        assert row["positions"] == n.sum() and row["games"] == g.sum()
        assert row["win_gammon"] == pytest.approx(r, abs=1e-15)
        assert row["stderr"]["win_gammon"] == pytest.approx(se, rel=1e-9)
    opening = rows[0]
    assert opening["positions"] == opening["games"] == 300
    assert opening["gammon"] == pytest.approx(opening["win_gammon"] + opening["lose_gammon"])


# ---------------------------------------------------------------------------- convergence
def test_the_convergence_curve_ends_at_the_runs_result(tmp_path):
    for kw in (dict(policy="pubeval"), dict(policy="nn", truncate=4)):
        blocks = []
        r = rollout("4HPMwQCMz+AIIQ", 2500, seed=2, on_block=lambda k, n, c, f: blocks.append((n, c, f)),
                    **kw)
        curve = convergence(blocks)
        assert curve["games"] == [1000, 2000, 2500]
        assert curve["curves"][0]["equity"][-1] == r.equity
        assert curve["curves"][0]["stderr"][-1] == r.stderr["equity"]
    p = rollout_plays("start", "43", 648, seed=1, top=3, store=tmp_path / "s.sqlite", **FAST)
    with ResultsStore(tmp_path / "s.sqlite") as st:
        run = st.run(p.run_id)
        curve = convergence(st.blocks(run.id).values(), "plays", run.settings["candidate_moves"])
    got = {c["label"]: c["equity"][-1] for c in curve["curves"]}
    assert got == {q["move"]: q["equity"] for q in p.plays}


# ---------------------------------------------------------------------------- CLI
def test_cli_tables_csv_json_plots_and_runs(tmp_path, monkeypatch, capsys):
    pytest.importorskip("matplotlib")
    monkeypatch.setenv("FASTBG_STORE", str(tmp_path / "runs.sqlite"))
    common = ["--seed", "1", "--policy", "pubeval", "--no-progress", "--store"]
    assert main(["table", "openings", "-n", "324", "--rolls", "31,42", "--top", "2",
                 "--plot", str(tmp_path / "o.png"), *common]) == 0
    out = capsys.readouterr().out
    assert "3-1   8/5 6/5" in out and "stored as table run 1" in out
    assert (tmp_path / "o.png").stat().st_size > 1000
    assert main(["table", "openings", "--resume", "1", "--csv", "--no-progress"]) == 0
    csv_lines = capsys.readouterr().out.splitlines()
    assert csv_lines[0].startswith("roll,rank,move,equity,stderr,diff") and len(csv_lines) == 5
    assert main(["runs", "export", "1", "--csv"]) == 0
    assert capsys.readouterr().out.splitlines() == csv_lines
    assert main(["table", "race", "--pips", "40", "--leads", "-5,10", "--positions", "1",
                 "-n", "200", "--json", *common]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["table"] == "race" and [r["opponent_pips"] for r in d["rows"]] == [38, 44]
    assert set(d["summary"]["keith"]) == {"double_errors", "take_errors", "error_rate", "mean_cost"}
    assert main(["table", "gammons", "-n", "500", "--plot", str(tmp_path / "g.svg"), *common]) == 0
    assert "games ending in a gammon" in capsys.readouterr().out
    assert main(["runs", "--json"]) == 0
    runs = json.loads(capsys.readouterr().out)
    tables = [r for r in runs if r["kind"] == "table"]
    assert [r["position"] for r in tables] == ["openings", "race", "gammons"]
    assert {r["parent"] for r in runs if r["kind"] != "table"} == {tables[0]["id"], tables[1]["id"]}
    assert main(["runs", "show", str(tables[1]["id"]), "--plot", str(tmp_path / "r.pdf")]) == 0
    assert "race table" in capsys.readouterr().out and (tmp_path / "r.pdf").exists()
    assert main(["runs", "show", "2", "--plot", str(tmp_path / "p.png")]) == 0   # a row: plays
    assert "best play" in capsys.readouterr().out
    assert main(["rollout", "start", "-n", "2000", "--seed", "1", "--policy", "pubeval",
                 "--no-progress", "--plot", str(tmp_path / "c.png")]) == 0
    assert "plot drawn into" in capsys.readouterr().out and (tmp_path / "c.png").exists()


def test_a_plot_file_that_cannot_be_written_is_refused_before_the_run(tmp_path, monkeypatch,
                                                                     capsys):
    """A --plot file that could not be written used to be found out only after the whole
    run, whose numbers were then thrown away: now it is tried first (leaving nothing behind)
    and refused before any game; a trailing slash is a directory path, not a file."""
    pytest.importorskip("matplotlib")
    import fastbg.cli.research as cli_research
    import fastbg.cli.rollouts as cli_rollouts

    def never(*args, **kwargs):
        raise AssertionError("the run started")

    monkeypatch.setattr(cli_rollouts, "rollout", never)
    for name in ("gammons", "race"):
        monkeypatch.setitem(cli_research._FUNCTIONS, name, never)
    (tmp_path / "d.png").mkdir()
    bad = [(str(tmp_path / "d.png") + "/", "ends in '/': that is a directory path"),
           (str(tmp_path / "d.png"), "Is a directory")]
    if os.path.isdir("/proc/self"):   # Linux: no file can be made there, even by root
        bad.append(("/proc/fastbg-plot.png", "cannot write the plot /proc/fastbg-plot.png"))
    for plot, why in bad:
        for argv in (["rollout", "start", "-n", "2000", "--seed", "1"],
                     ["rollout", "start", "-n", "2000", "--seed", "1", "--json"],
                     ["table", "gammons", "-n", "3000"], ["table", "race", "--positions", "1"]):
            code, out, err = run_status(capsys, *argv, "--no-progress", "--plot", plot)
            assert code == 2 and out == "" and why in err and err.count("\n") == 1, (argv, err)
    # the try leaves no file behind, and an existing file is not changed by it
    new, old = tmp_path / "new.png", tmp_path / "old.png"
    old.write_bytes(b"keep")
    for plot in (new, old):
        code, _, err = run_status(capsys, "rollout", "start", "--extend", "5", "--plot", str(plot))
        assert code == 2 and "give --resume" in err
    assert not new.exists() and old.read_bytes() == b"keep"


def test_a_plot_that_fails_after_the_run_keeps_the_numbers(tmp_path, monkeypatch, capsys):
    """A plot that cannot be saved after the run after all (a full disk): the results are
    printed first, then the plot's error, exit 2."""
    pytest.importorskip("matplotlib")
    import fastbg.cli.common as cli_common
    import fastbg.cli.research as cli_research

    def full_disk(*args, **kwargs):
        raise ValueError(f"cannot write the plot {args[1]}: No space left on device")

    monkeypatch.setattr(cli_common, "plot_convergence", full_disk)
    monkeypatch.setattr(cli_research, "plot_table", full_disk)
    plot = str(tmp_path / "p.png")
    rollout_args = ["rollout", "start", "-n", "2000", "--seed", "1", "--policy", "pubeval",
                    "--no-progress", "--plot", plot]
    code, out, err = run_status(capsys, *rollout_args, "--json")
    assert code == 2 and json.loads(out)["games"] == 2000
    assert err == f"fastbg rollout: error: cannot write the plot {plot}: No space left on device\n"
    code, out, err = run_status(capsys, *rollout_args, "--store", str(tmp_path / "s.sqlite"))
    assert code == 2 and "cubeless equity" in out and "stored as run 1" in out
    assert "plot drawn" not in out and "No space left" in err and err.count("\n") == 1
    code, out, err = run_status(capsys, "table", "gammons", "-n", "3000", "--seed", "1",
                                "--policy", "pubeval", "--no-progress", "--plot", plot)
    assert code == 2 and "games ending in a gammon" in out and "plot drawn" not in out
    assert err.startswith("fastbg table gammons: error: cannot write the plot")
    code, out, err = run_status(capsys, "table", "gammons", "-n", "3000", "--seed", "1",
                                "--policy", "pubeval", "--no-progress", "--plot", plot, "--csv")
    assert code == 2 and out.startswith("phase,positions") and "No space left" in err


def test_cli_bad_input_is_one_line_exit_2_and_changes_nothing(tmp_path, monkeypatch, capsys):
    path = tmp_path / "runs.sqlite"
    monkeypatch.setenv("FASTBG_STORE", str(path))
    assert main(["rollout", "start", "-n", "100", "--policy", "pubeval", "--store",
                 "--no-progress"]) == 0                                # run 1: a rollout
    assert main(["table", "openings", "-n", "324", "--rolls", "31", "--top", "2", "--seed", "1",
                 "--policy", "pubeval", "--store", "--no-progress"]) == 0   # run 2 (row 3)
    capsys.readouterr()
    before = _dump(path)
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database" * 200)
    for argv, why in (
            (["table", "openings", "--resume", "9"], "no run 9"),
            (["table", "openings", "--resume", "1"], "run 1 is a rollout, not an openings table"),
            (["table", "race", "--resume", "2"], "run 2 is an openings table, not a race table"),
            (["table", "openings", "--resume", "3"], "run 3 is a rollout of candidate plays (a row "
                                                     "of table run 2), not an openings table"),
            (["table", "openings", "--resume", "2", "--seed", "5"], "--seed does not apply"),
            (["table", "openings", "--resume", "2", "--rolls", "42"], "--rolls does not apply"),
            (["table", "replies"], "give the OPENING"),
            (["table", "replies", "11"], "never a double"),
            (["table", "replies", "24/16"], "give the roll too"),
            (["table", "replies", "--resume", "2"], "not a replies table"),
            (["table", "openings", "--rolls", "33"], "never a double"),
            (["table", "openings", "--rolls", "31,31"], "given twice"),
            (["table", "race", "--pips", "10"], "race positions have 20 to 160"),
            (["table", "race", "--leads", "x"], "not a comma-separated list"),
            (["table", "openings", "--plot", "t.txt"], "PNG, SVG or PDF"),
            (["table", "gammons", "--plot", str(tmp_path / "no" / "g.png")], "no directory"),
            (["table", "openings", "--store", str(junk)], "not a fastbg results store"),
            (["table", "chess"], "invalid choice"),
            (["table"], "required")):
        code, _, err = run_status(capsys, *argv)
        assert code == 2 and why in err and "Traceback" not in err and err.count("\n") == 1, \
            (argv, err)
    assert _dump(path) == before and junk.read_bytes() == b"not a database" * 200


@pytest.mark.parametrize("argv, message", [
    # an empty entry was dropped without a word: --pips 60,,80 made a table of 60 and 80,
    # and --leads '0 5' one of a 5% lead (new-user trial)
    (["race", "--pips", "60,,80"],
     "argument --pips: entry 2 of '60,,80' is empty: give a pip count in each, as in 40,60,80"),
    (["race", "--pips", "60,"],
     "argument --pips: entry 2 of '60,' is empty: give a pip count in each, as in 40,60,80"),
    (["race", "--leads", ",5"],
     "argument --leads: entry 1 of ',5' is empty: give a lead in each, as in 0,5,10"),
    (["race", "--leads", "0 5"], "argument --leads: '0 5' is not a comma-separated list of numbers"),
    (["openings", "--rolls", "31,,42"],
     "entry 2 of '31,,42' is empty: give an opening roll in each, as in 31,42"),
    (["replies", "31", "--rolls", "31, ,42"],
     "entry 2 of '31, ,42' is empty: give a roll in each, as in 31,42"),
])
def test_an_empty_entry_of_a_list_is_named(capsys, argv, message):
    code, out, err = run_status(capsys, "table", *argv)
    assert code == 2 and out == "" and err == f"fastbg table {argv[0]}: error: {message}\n", err


def test_a_cell_of_one_pip_is_said_in_the_singular(capsys):
    # "the cell of 1 pips" (new-user trial)
    code, _, err = run_status(capsys, "table", "race", "--pips", "1", "--leads", "0")
    assert code == 2 and err == ("fastbg table race: error: the cell of 1 pip and a lead of 0% "
                                 "has a side with 1 pip: race positions have 20 to 160\n"), err


def test_a_list_may_have_spaces_around_its_entries(capsys):
    from fastbg.research.openings import OPENING_ROLLS, parse_rolls

    code, _, err = run_status(capsys, "table", "race", "--pips", "40, 60", "--leads", " 0 ,10",
                              "--plot", "t.txt")       # (the lists read, the plot refused)
    assert code == 2 and "PNG, SVG or PDF" in err, err
    for text in ("31, 42", "31 42", " 42,31 "):
        assert set(parse_rolls(text, OPENING_ROLLS, "an opening roll")) == {(4, 2), (3, 1)}


@pytest.mark.parametrize("drop_parent", [True, False])
def test_a_version_1_store_is_upgraded_and_keeps_its_runs(tmp_path, drop_parent):
    """A version 1 store (no parent column) gets the column; a version 1 record over
    tables that already have it (review: ALTER TABLE failed with SQLite's "duplicate column
    name: parent") only has its record mended."""
    path = tmp_path / "old.sqlite"
    rollout("start", 1000, seed=1, policy="pubeval", store=path)
    db = sqlite3.connect(path)           # back to version 1
    if drop_parent:
        db.execute("ALTER TABLE runs DROP COLUMN parent")
    db.execute("UPDATE meta SET value = '1' WHERE key = 'version'")
    db.commit()
    db.close()
    with ResultsStore(path) as st:
        (run,) = st.runs()
        assert run.parent is None and run.games_done == 1000
        assert st.db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()[0] \
            == str(STORE_VERSION)


def _spawn(args, env):
    return subprocess.Popen([sys.executable, "-m", "fastbg", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _blocks_stored(path):
    """Blocks stored in all runs of the store (None before the table's run exists)."""
    if not path.exists():
        return None
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            if not db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]:
                return None
            return db.execute("SELECT COUNT(*) FROM blocks").fetchone()[0]
        finally:
            db.close()
    except sqlite3.OperationalError:        # the schema is not written yet
        return None


@pytest.mark.slow
def test_kill_9_of_a_table_at_random_moments_then_resume_gives_the_numbers_of_one_run(tmp_path):
    """Three kill -9 and a Ctrl-C of a stored openings table at random moments, each time
    resumed; the finished table equals one uninterrupted table."""
    path = tmp_path / "runs.sqlite"
    env = dict(os.environ, FASTBG_STORE=str(path))
    table = ["-n", "1620", "--rolls", "31,42,65", "--top", "3", "--seed", "5", "--policy",
             "pubeval"]
    rng = random.Random(20261203)
    kills = 0
    while kills < 4:
        before = _blocks_stored(path)
        # one thread: blocks one at a time, so a kill lands in a known block
        proc = _spawn(["table", "openings", "--no-progress", "--workers", "1"]
                      + (["--resume", "1"] if before is not None else [*table, "--store"]), env)
        # kill at a random moment in the first to third block this process plays (start-up
        # takes seconds on a busy machine, a block a fraction of one), so that every kill
        # cuts a table at work
        target = (before or 0) + rng.randint(1, 2)
        while proc.poll() is None and (_blocks_stored(path) or 0) < target:
            time.sleep(0.02)
        time.sleep(rng.uniform(0.0, 0.2))
        if proc.poll() is not None:         # finished before the kill
            assert proc.returncode == 0, proc.stderr.read().decode()
            break
        proc.send_signal(signal.SIGINT if kills == 1 else signal.SIGKILL)
        proc.wait(timeout=120)
        if kills == 1:                      # Ctrl-C: the rows done, how to resume, 130
            assert proc.returncode == 130, proc.stderr.read().decode()
        kills += 1
    assert kills >= 3, "the table finished too fast to be killed at random moments"
    proc = _spawn(["table", "openings", "--resume", "1", "--no-progress", "--json"], env)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err.decode()
    got = json.loads(out)
    whole = json.loads(json.dumps(_finite(openings_table(1620, seed=5, rolls="31,42,65", top=3,
                                                         **FAST).to_dict())))
    assert _rows(got["rows"]) == whole["rows"] and got["summary"] == whole["summary"]
    assert got["stored_games"] > 0
    with ResultsStore(path) as st:
        assert [r.kind for r in st.runs()] == ["table", "plays", "plays", "plays"]


def test_an_interrupted_or_resumed_table_says_what_it_has(tmp_path):
    """An interrupted openings table says how many of the rolls asked for it finished, and a
    resumed one that the games read from the store are a candidate play's summed over its
    rolls (it said "games per play", twice the games a play had with two rolls)."""
    from fastbg.cli.research import format_table

    path = tmp_path / "runs.sqlite"
    t = openings_table(324, seed=1, rolls="31,42", top=1, store=path, **FAST)
    d = t.to_dict()
    assert d["planned_rows"] == 2
    cut = dict(d, rows=d["rows"][:1], interrupted=True, planned_rows=3)
    assert format_table(cut).startswith("INTERRUPTED: openings: ") \
        and "1 of 3 rolls done, 324 games per candidate play" in format_table(cut)
    again = openings_table(324, seed=1, rolls="31,42", top=1, store=path, run_id=t.run_id,
                           **FAST)
    assert again.stored_games == 648
    assert ("(games read from the store rather than played now: 648, those of one candidate "
            "play of each roll added up over the rolls)") in format_table(again.to_dict())
    # a resumed race table says what it read too (it said nothing)
    r = race_table(pips=[40], leads=[0], positions=1, games=324, seed=1, store=path, **FAST)
    r2 = race_table(pips=[40], leads=[0], positions=1, games=324, seed=1, store=path,
                    run_id=r.run_id, **FAST)
    assert ("(games read from the store rather than played now: 324 over all the positions)"
            in format_table(r2.to_dict()))


def test_one_game_a_row_is_one_game(capsys):
    """The tables' headers said "1 games per candidate play" (new-user trial)."""
    from fastbg.cli.research import format_table

    t = openings_table(1, seed=1, rolls="31", top=1, **FAST).to_dict()
    assert "1 roll, 1 game per candidate play," in format_table(t)
    code = main(["table", "race", "-n", "1", "--positions", "1", "--pips", "60", "--leads", "0",
                 "--seed", "1", "--no-progress"])
    out = capsys.readouterr().out
    assert code == 0 and "1 position, 1 game per position" in out, out


def test_an_interrupted_race_table_says_how_many_positions_it_has():
    """An interrupted race table counted its cells as if whole (new-user trial): it says
    the positions done of those asked for, and the cells they are in."""
    from fastbg.cli.research import format_table

    from fastbg.research import race as race_module

    t = race_table(pips=[40, 60], leads=[0], positions=2, games=324, seed=1, **FAST)
    d = t.to_dict()
    assert d["planned_rows"] == 4 and "2 cells, 4 positions, 324 games" in format_table(d)
    rows = d["rows"][:3]
    cut = dict(d, rows=rows, interrupted=True,
               summary=race_module._race_summary(rows, race_module._grid([40, 60], [0])))
    assert "3 of 4 positions done, in 2 cells, 324 games per position" in format_table(cut)
