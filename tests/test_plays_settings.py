"""Settings objects and runners for rollouts of candidate plays and for the equity tables
(issue 37, items 1-4): validated once, the store's request is exactly the settings' dict
form, ``fastbg.resume`` rebuilds a run from it, and ``fastbg moves --rollout`` keeps its
runs in the store (--store), continues them (--resume) and draws them (--plot)."""
import dataclasses
import json

import pytest

import fastbg
from fastbg.cli import main
from fastbg.research import gammons_table, openings_table, race_table
from fastbg.research.gammons import GammonsSettings
from fastbg.research.openings import OpeningsSettings, RepliesSettings
from fastbg.research.race import RaceSettings
from fastbg.rollouts.candidates import MIN_PLAYS, PlaysSettings
from fastbg.rollouts.runner import Runner
from fastbg.rollouts.store import ResultsStore

CONTACT = "bJ7BARiw5+ABMA"
FAST = dict(policy="pubeval", workers=2)


# ------------------------------------------------------------------ candidate plays


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(policy="gnubg"), "unknown policy 'gnubg'"),
    (dict(seed=-1), "seed must be a non-negative integer"),
    (dict(ply=2), "ply must be 0 or 1"),
    (dict(top=0), "top must be a positive integer"),
    (dict(min_plays=0), "min_plays must be a positive integer"),
    (dict(within=-0.1), "within must be a non-negative equity"),
    (dict(vr="on"), "vr must be True, False or None"),
    (dict(quasi_random=None), "quasi_random must be True or False"),
    (dict(prune_se=-1), "prune_se must be a positive, finite"),
    (dict(min_games=10), "min_games is for pruning: give prune_se too"),
    (dict(plays="8/5 6/5"), "plays must be a list of plays"),
])
def test_bad_plays_settings_are_refused_when_made(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        PlaysSettings(**kwargs)
    with pytest.raises(ValueError, match=fragment):    # ... and before any game
        fastbg.rollout_plays("start", "31", 10, engine="python", **kwargs)


def test_plays_settings_round_trip_and_rollout_plays_is_keyword_only():
    s = PlaysSettings(seed=3, policy="pubeval", plays=["8/5 6/5", "24/23 13/10"], vr=True)
    assert s.plays == ("8/5 6/5", "24/23 13/10") and PlaysSettings(**s.as_dict()) == s
    assert all(not isinstance(v, tuple) for v in s.as_dict().values())
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.seed = 4
    with pytest.raises(TypeError):
        fastbg.rollout_plays("start", "31", 36, 1)          # the seed is no positional
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        fastbg.rollout_plays("start", "31", 36, colour="red")
    with pytest.raises(TypeError, match=r"settings=PlaysSettings\(...\)"):
        fastbg.rollout_plays("start", "31", 36, settings={"seed": 1})


def test_the_store_records_the_plays_settings_dict_and_it_rebuilds_the_run(tmp_path):
    path = tmp_path / "runs.sqlite"
    settings = PlaysSettings(seed=5, policy="pubeval", top=2)
    a = fastbg.rollout_plays(CONTACT, "31", 648, settings=settings,
                             runner=Runner(workers=2, store=path))
    b = fastbg.rollout_plays(CONTACT, "31", 648, seed=5, policy="pubeval", top=2, workers=1)
    assert a.plays == b.plays                      # settings + runner = keywords
    with ResultsStore(path) as st:
        request = st.run(a.run_id).request
    resolved = settings.resolve()
    assert request == {"position": CONTACT, "games": 648, "dice": [3, 1], **resolved.as_dict()}
    assert PlaysSettings.from_request(request) == resolved
    again = fastbg.resume(path, a.run_id)          # read again from the store
    assert again.plays == a.plays and again.stored_games == 648


def test_a_stored_request_without_min_plays_reads_as_the_default():
    """Runs stored before min_plays was recorded resume with the default (their choice)."""
    old = {"position": CONTACT, "games": 324, "dice": [3, 1], "seed": 1, "policy": "pubeval",
           "top": None, "plays": None, "ply": 0, "within": 0.1, "max_plays": 8, "vr": False,
           "quasi_random": True, "prune_se": None, "min_games": None}
    s = PlaysSettings.from_request(old)
    assert s.min_plays is None and s.least == MIN_PLAYS
    assert {k: v for k, v in s.as_dict().items() if k != "min_plays"} == {
        k: v for k, v in old.items() if k not in ("position", "games", "dice")}


def test_candidate_rollouts_hand_their_blocks_to_on_block():
    seen = []
    res = fastbg.rollout_plays("start", "43", 648, seed=2, top=3, on_block=lambda *b: seen.append(b),
                               **FAST)
    assert [k for k, *_ in seen] == [0, 1] and sum(n for _, n, _, _ in seen) == 648
    curve = fastbg.research.convergence([b[1:] for b in seen], "plays",
                                        res.settings["candidate_moves"])
    last = {c["label"]: c["equity"][-1] for c in curve["curves"]}
    assert last == {p["move"]: p["equity"] for p in res.plays}


# ------------------------------------------------------------------ tables


@pytest.mark.parametrize("cls, kwargs", [
    (OpeningsSettings, dict(seed=1, rolls="42,31", top=2)),
    (RepliesSettings, dict(rolls=["66", "21"], prune_se=2, min_games=648)),
    (RaceSettings, dict(pips=[40, 60], leads=[0, 10], positions=2, vr=False)),
    (GammonsSettings, dict(seed=4, policy="random")),
])
def test_table_settings_round_trip(cls, kwargs):
    s = cls(**kwargs)
    assert cls(**s.as_dict()) == s
    assert json.loads(json.dumps(s.as_dict())) == s.as_dict()


@pytest.mark.parametrize("cls, kwargs, fragment", [
    (OpeningsSettings, dict(rolls="33"), "never a double"),
    (OpeningsSettings, dict(top=0), "top must be a positive integer"),
    (RepliesSettings, dict(rolls="71"), "die 7 out of range"),
    (RaceSettings, dict(pips=[10]), "the cell of 10 pips"),
    (RaceSettings, dict(positions=0), "positions must be a positive"),
    (GammonsSettings, dict(policy="gnubg"), "unknown policy"),
])
def test_bad_table_settings_are_refused_when_made(cls, kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        cls(**kwargs)


@pytest.mark.parametrize("name, run", [
    ("openings", lambda **kw: openings_table(324, seed=3, rolls="65", top=2, **FAST, **kw)),
    ("race", lambda **kw: race_table(200, pips=[40], leads=[0], positions=1, seed=3, **FAST,
                                     **kw)),
    ("gammons", lambda **kw: gammons_table(500, seed=3, **FAST, **kw)),
])
def test_a_tables_request_is_its_settings_dict(tmp_path, name, run):
    path = tmp_path / "runs.sqlite"
    t = run(store=path)
    with ResultsStore(path) as st:
        request = st.run(t.run_id).request
    from fastbg.research.resume import TABLE_SETTINGS_CLASSES
    settings = TABLE_SETTINGS_CLASSES[name].from_request(request)
    assert request == {"position": name, "table": name, "games": request["games"],
                       **settings.as_dict()}
    again = fastbg.resume(path, t.run_id)
    assert again.rows == t.rows and again.summary == t.summary
    with pytest.raises(ValueError, match="takes no on_block"):
        run(on_block=lambda *a: None)


# ------------------------------------------------------------------ the command line


def _moves(capsys, *argv):
    code = main(["moves", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_moves_rollout_store_resume_extend_and_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FASTBG_STORE", str(tmp_path / "runs.sqlite"))
    args = [CONTACT, "31", "--rollout", "-n", "648", "--seed", "2", "--top", "3",
            "--policy", "pubeval", "--no-progress"]
    code, out, _ = _moves(capsys, *args, "--store")
    assert code == 0 and "stored as run 1 in" in out
    code, out, _ = _moves(capsys, "--resume", "1", "--extend", "324", "--no-progress", "--json")
    d = json.loads(out)
    full = fastbg.rollout_plays(CONTACT, "31", 972, seed=2, top=3, policy="pubeval")
    assert code == 0 and d["run_id"] == 1 and d["games"] == 972 and d["stored_games"] == 648
    assert [p["equity"] for p in d["plays"]] == [p["equity"] for p in full.plays]
    assert main(["runs", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["kind"] == "plays" and rows[0]["games_done"] == 972
    assert rows[0]["estimate"]["equity"] == full.plays[0]["equity"]
    assert main(["runs", "show", "1"]) == 0
    assert f"plays of {CONTACT}, done" in capsys.readouterr().out
    code, out, _ = _moves(capsys, "--resume", "1", "--no-progress")   # finished: read again
    assert code == 0 and "all 972 games of each play read from the store" in out
    for argv, why in ((["--resume", "1", "--seed", "3"], "--seed does not apply"),
                      ([CONTACT, "--resume", "1"], "POSITION does not apply"),
                      ([CONTACT, "31", "--extend", "10"], "give --resume"),
                      ([CONTACT, "31", "--store"], "--store is for --rollout"),
                      ([], "give POSITION")):
        code, _, err = _moves(capsys, *argv)
        assert code == 2 and why in err and err.count("\n") == 1, (argv, err)
    assert main(["rollout", "--resume", "1"]) == 2
    assert "fastbg moves --resume 1 continues" in capsys.readouterr().err
    assert main(["rollout", "start", "-n", "100", "--policy", "pubeval", "--store",
                 "--no-progress"]) == 0
    capsys.readouterr()
    code, _, err = _moves(capsys, "--resume", "2")
    assert code == 2 and "fastbg rollout --resume continues rollouts" in err


def test_cli_moves_rollout_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    plot = tmp_path / "p.png"
    code, out, _ = _moves(capsys, "start", "43", "--rollout", "-n", "648", "--seed", "1",
                          "--top", "2", "--policy", "pubeval", "--no-progress", "--plot", str(plot),
                          "--store", str(tmp_path / "s.sqlite"))
    assert code == 0 and f"plot drawn into {plot}" in out and plot.stat().st_size > 0
    plot.unlink()
    code, out, _ = _moves(capsys, "--resume", "1", "--store", str(tmp_path / "s.sqlite"),
                          "--no-progress", "--plot", str(plot))      # blocks from the store
    assert code == 0 and plot.exists()
    code, _, err = _moves(capsys, "start", "43", "--rollout", "--prune-se", "--plot",
                          str(tmp_path / "q.png"))
    assert code == 2 and "--prune-se drops plays on the way" in err
    assert not (tmp_path / "q.png").exists()


@pytest.mark.parametrize("prune", [{}, dict(prune_se=1.0, min_games=324)], ids=["all", "pruned"])
def test_cli_a_plays_run_cut_short_resumes_to_the_numbers_of_one_run(tmp_path, capsys, prune):
    """A stored rollout of candidate plays killed after its first block (pruned: in its
    first stage) continues with `fastbg moves --resume` to the numbers of one run."""
    import sqlite3
    path = tmp_path / "runs.sqlite"
    kw = dict(seed=4, top=3, policy="pubeval", **prune)
    whole = fastbg.rollout_plays(CONTACT, "31", 1296, **kw)
    stored = fastbg.rollout_plays(CONTACT, "31", 1296, store=path, **kw)
    assert stored.plays == whole.plays
    db = sqlite3.connect(path)
    db.execute("DELETE FROM blocks WHERE run = ? AND k >= 1", (stored.run_id,))
    db.execute("UPDATE runs SET status = 'running', summary = NULL WHERE id = ?",
               (stored.run_id,))
    db.commit()
    db.close()
    code, out, _ = _moves(capsys, "--resume", str(stored.run_id), "--store", str(path),
                          "--no-progress", "--json")
    d = json.loads(out)
    assert code == 0 and d["stored_games"] == 324 and d["games"] == 1296
    assert d["plays"] == json.loads(json.dumps(whole.plays))


def test_the_openings_table_keeps_at_least_two_candidates_as_moves_does(capsys):
    """3-1, 4-2 and 6-1 have one play within 0.10 of the best at 0 ply: the table rolled that
    play out alone (P(best) 100% by construction), where `moves --rollout` keeps the two
    best. It takes moves' candidates now; the play it had has the numbers it had (common
    random numbers: a play's games do not depend on the other candidates)."""
    from fastbg.research.table import derived_seed
    t = openings_table(72, seed=5, rolls="31,42,61", **FAST)
    for row in t.rows:
        dice = tuple(row["dice"])
        moves = fastbg.rollout_plays("start", dice, 72, seed=derived_seed(5, 0x4F50, *dice),
                                     **FAST)
        assert [p["move"] for p in row["plays"]] == [p["move"] for p in moves.plays]
        assert len(row["plays"]) == MIN_PLAYS
        alone = fastbg.rollout_plays("start", dice, 72, seed=derived_seed(5, 0x4F50, *dice),
                                     min_plays=1, **FAST)
        equity = {p["move"]: p["equity"] for p in row["plays"]}
        assert len(alone.plays) == 1 and alone.plays[0]["equity"] == equity[alone.plays[0]["move"]]
    code, out, _ = _moves(capsys, "start", "31", "--rollout", "-n", "72", "--seed", "1",
                          "--policy", "pubeval", "--no-progress", "--json")
    assert code == 0 and len(json.loads(out)["plays"]) == MIN_PLAYS
