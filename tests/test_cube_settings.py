"""Settings of the runs with the cube in play (issue 37): CubefulSettings, CubeRolloutSettings
and CubeDecisionSettings validated once, round-tripped through their dict form, recorded by
the results store exactly, and enough to resume a stored cubeful or cube rollout, after an
interruption too, to the numbers of one uninterrupted run; the CLI's --store for
`rollout --cubeful` and `cube`."""
import json
import os
import signal
import threading

import pytest

import fastbg
from fastbg import MatchState
from fastbg.cli import main
from fastbg.rollouts.cubesettings import (CubeDecisionSettings, CubefulSettings,
                                          CubeRolloutSettings)
from fastbg.rollouts.runner import Runner
from fastbg.rollouts.store import ResultsStore

pytest.importorskip("fastbg._core.cubeful", reason="Cython core not built")

CONTACT = "4HPMwQCMz+AIIQ"
MATCH = MatchState.match(7, (2, 4))


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(policy="gnubg"), "unknown policy 'gnubg'"),
    (dict(seed=-1), "seed must be a non-negative integer"),
    (dict(state="money"), "state must be a fastbg.MatchState"),
    (dict(x=1.5), r"cube efficiency x must be in \[0, 1\]"),
    (dict(vr="on"), "vr must be True, False or None"),
    (dict(quasi_random=None), "quasi_random must be True or False"),
    (dict(met=3), "met must be a table's name or path"),
    (dict(by_first_roll=True, quasi_random=False), "needs quasi-random dice"),
    (dict(min_games=2000), "min_games is for a stop rule"),
    (dict(opening="yes"), "opening must be True or False"),
])
def test_bad_cubeful_settings_are_refused_when_made(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        CubefulSettings(**kwargs)
    with pytest.raises(ValueError, match=fragment):       # ... and before any game
        fastbg.cubeful_rollout("start", 10, engine="python", **kwargs)


@pytest.mark.parametrize("cls, kwargs", [
    (CubefulSettings, {}),
    (CubefulSettings, dict(seed=7, policy="pubeval", state=MATCH, met="Kazaross-XG2", x=0.5,
                           until_se=0.01, min_games=2000, by_first_roll=True, opening=False)),
    (CubefulSettings, dict(state=MatchState.money(cube=2, cube_owner="opponent", jacoby=True))),
    (CubeRolloutSettings, dict(seed=1, state=MatchState.match(5, holland=True), vr=False)),
    (CubeDecisionSettings, dict(method="janowski", state=None, quasi_random=None)),
    (CubeDecisionSettings, dict(method="rollout", state=MATCH, quasi_random=False)),
])
def test_the_dict_form_round_trips_as_json(cls, kwargs):
    s = cls(**kwargs)
    d = json.loads(json.dumps(s.as_dict()))         # what the store keeps, read back
    assert cls(**d) == s and cls.from_request({"position": "start", "games": 5, **d}) == s
    assert list(d) == list(cls.fields())


def test_the_jacoby_rule_lives_in_the_state():
    """One place for the Jacoby rule: state.jacoby; the older jacoby=True keyword folds into
    it (the same numbers), and is refused in match play."""
    a = fastbg.cubeful_rollout(CONTACT, 400, seed=2, policy="pubeval", jacoby=True)
    b = fastbg.cubeful_rollout(CONTACT, 400, seed=2, policy="pubeval",
                               state=MatchState.money(jacoby=True))
    assert a.jacoby and a.counts.tolist() == b.counts.tolist() and a.equity == b.equity
    assert a.settings == b.settings
    assert "jacoby" not in CubefulSettings.fields()
    with pytest.raises(ValueError, match="for money play only"):
        fastbg.cubeful_rollout(CONTACT, 10, state=MATCH, jacoby=True)
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        fastbg.cubeful_rollout(CONTACT, 10, colour="red")
    with pytest.raises(TypeError, match=r"settings=CubefulSettings\(...\)"):
        fastbg.cubeful_rollout(CONTACT, 10, settings=CubeRolloutSettings())


def test_settings_runner_and_keywords_give_the_same_numbers():
    a = fastbg.cubeful_rollout(CONTACT, 1200, seed=4, policy="pubeval", state=MATCH, workers=2)
    b = fastbg.cubeful_rollout(CONTACT, 1200, settings=CubefulSettings(
        seed=4, policy="pubeval", state=MATCH), runner=Runner(workers=1))
    assert a.counts.tolist() == b.counts.tolist() and a.mwc == b.mwc and a.equity == b.equity
    c = fastbg.cube_rollout(CONTACT, 200, seed=4, policy="pubeval")
    d = fastbg.cube_rollout(CONTACT, 200, settings=CubeRolloutSettings(seed=4, policy="pubeval"))
    assert (c.nd, c.dt, c.stderr) == (d.nd, d.dt, d.stderr)


def test_the_store_records_the_settings_dict_and_resume_rebuilds_the_run(tmp_path):
    path = tmp_path / "runs.sqlite"
    settings = CubefulSettings(seed=3, policy="pubeval", state=MATCH, by_first_roll=True)
    full = fastbg.cubeful_rollout(CONTACT, 2500, settings=settings, workers=2)
    a = fastbg.cubeful_rollout(CONTACT, 1200, settings=settings, store=path)  # a partial block
    with ResultsStore(path) as st:
        run = st.run(a.run_id)
        assert run.kind == "cubeful"
        request = run.request
    resolved = settings.resolve(at_start=False)
    assert request == {"position": CONTACT, "games": 1200, **resolved.as_dict()}
    assert CubefulSettings.from_request(request) == resolved
    b = fastbg.resume(path, a.run_id, games=2500, workers=2)                  # extended
    assert b.run_id == a.run_id and b.stored_games == 1000 and b.games == 2500
    assert b.counts.tolist() == full.counts.tolist() and b.equity == full.equity
    assert b.stderr == full.stderr and b.mwc == full.mwc
    assert b.by_first_roll == full.by_first_roll
    assert b.to_dict()["run_id"] == a.run_id and "run_id" not in full.to_dict()


def _interrupt_after_first_block():
    """An on_block that presses Ctrl-C as block 0 is merged."""
    def on_block(k, n, counts, sums):
        if k == 0:
            os.kill(os.getpid(), signal.SIGINT)
    return on_block


@pytest.mark.parametrize("run, kw", [
    (fastbg.cubeful_rollout, dict(policy="pubeval", vr=True,
                                  state=MatchState.money(cube=2, cube_owner="player"))),
    (fastbg.cubeful_rollout, dict(policy="pubeval", state=MATCH, until_se=0.001)),
    (fastbg.cube_rollout, dict(policy="pubeval", state=MATCH)),
])
def test_an_interrupted_run_resumes_to_the_numbers_of_one_run(tmp_path, run, kw):
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("SIGINT handlers are installed in the main thread only")
    path = tmp_path / "runs.sqlite"
    games = 2100                                 # (3 blocks: the last is not yet in flight)
    full = run(CONTACT, games, seed=6, workers=2, **kw)
    cut = run(CONTACT, games, seed=6, workers=1, store=path,
              on_block=_interrupt_after_first_block(), **kw)
    assert cut.interrupted and 0 < cut.games < games and cut.run_id is not None
    with ResultsStore(path) as st:
        assert st.run(cut.run_id).status == "interrupted"
    done = fastbg.resume(path, cut.run_id)
    assert not done.interrupted and done.games == full.games
    assert done.stored_games == cut.games and done.counts.tolist() == full.counts.tolist()
    if run is fastbg.cube_rollout:
        assert (done.nd, done.dt, done.stderr, done.action) == (full.nd, full.dt, full.stderr,
                                                               full.action)
    else:
        assert (done.equity, done.stderr, done.mwc) == (full.equity, full.stderr, full.mwc)
    with ResultsStore(path) as st:
        assert st.run(cut.run_id).status == "done"


def test_cube_decision_keeps_its_cube_rollout(tmp_path):
    path = tmp_path / "runs.sqlite"
    d = fastbg.cube_decision(CONTACT, 300, seed=2, policy="pubeval", store=path)
    assert d.method == "rollout" and d.result.run_id == 1
    again = fastbg.resume(path, 1, games=600)
    assert again.nd == fastbg.cube_decision(CONTACT, 600, seed=2, policy="pubeval").nd
    with pytest.raises(ValueError, match="store does not apply to method 'exact'"):
        fastbg.cube_decision("ZQEAgC0AAAAAAA", method="exact", store=path)
    with pytest.raises(ValueError, match="unknown method 'best'"):
        fastbg.cube_decision(CONTACT, settings=CubeDecisionSettings(method="best"))


def test_cli_store_resume_and_runs_for_cubeful_and_cube_rollouts(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FASTBG_STORE", str(tmp_path / "runs.sqlite"))
    assert main(["rollout", CONTACT, "--cubeful", "-n", "1500", "--seed", "2", "--policy",
                 "pubeval", "--match-length", "7", "--score", "2-4", "--store",
                 "--no-progress"]) == 0
    assert "stored as run 1 in" in capsys.readouterr().out
    assert main(["rollout", "--resume", "1", "--extend", "1000", "--no-progress", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    full = fastbg.cubeful_rollout(CONTACT, 2500, seed=2, policy="pubeval", state=MATCH)
    assert (d["run_id"], d["games"], d["stored_games"]) == (1, 2500, 1000)
    assert d["equity"] == full.equity and d["mwc"] == full.mwc
    assert main(["cube", CONTACT, "-n", "300", "--seed", "2", "--policy", "pubeval",
                 "--cube-owner", "player", "--cube", "2", "--store", "--no-progress"]) == 0
    assert "stored as run 2 in" in capsys.readouterr().out
    assert main(["cube", "--resume", "2", "--extend", "300", "--no-progress", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    cube = fastbg.cube_rollout(CONTACT, 600, seed=2, policy="pubeval",
                               state=MatchState.money(cube=2, cube_owner="player"))
    assert d["run_id"] == 2 and d["games"] == 600 and d["decision"]["nd"] == cube.nd
    assert main(["runs", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["kind"], r["status"]) for r in rows] == [("cubeful", "done"), ("cube", "done")]
    assert rows[0]["estimate"]["equity"] == full.equity
    assert rows[1]["estimate"]["nd"] == cube.nd
    assert main(["runs"]) == 0
    assert "cubeful" in capsys.readouterr().out
    assert main(["runs", "show", "2"]) == 0
    assert "No double" in capsys.readouterr().out
    for argv, why in ((["rollout", "--resume", "2"], "fastbg cube --resume 2 continues"),
                      (["cube", "--resume", "1"], "fastbg rollout --resume 1 continues it"),
                      (["cube", "--resume", "2", "--seed", "3"], "--seed does not apply"),
                      (["cube", CONTACT, "--resume", "2"], "POSITION does not apply"),
                      (["cube", "--extend", "10"], "give --resume"),
                      (["cube", "ZQEAgC0AAAAAAA", "--store"], "--store keeps cube rollouts"),
                      (["cube", CONTACT, "--method", "janowski", "--store"],
                       "--store keeps cube rollouts, not --method janowski: the store would "
                       "hold its cubeless rollout without the cube state and model that "
                       "value it, so `fastbg cube --resume` could not rebuild the decision. "
                       "Give --method rollout to keep a cube rollout, or drop --store")):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert why in err and err.count("\n") == 1, (argv, err)


def test_cube_resume_says_how_many_trials_it_read_from_the_store(tmp_path, capsys):
    """`fastbg cube --resume RUN` says, as `rollout --resume` does in its last line, how
    many trials came from the store: some played now and some read, or all read (a
    finished run); a run played at once says nothing of the store."""
    path = str(tmp_path / "runs.sqlite")
    common = ["--store", path, "--no-progress"]
    assert main(["cube", CONTACT, "-n", "1000", "--seed", "2", "--policy", "pubeval",
                 *common]) == 0
    assert "read from the store" not in capsys.readouterr().out
    assert main(["cube", "--resume", "1", "--extend", "200", *common]) == 0
    out = capsys.readouterr().out
    assert "s (200 trials played now, 1,000 read from the store)\n  stored as run 1" in out, out
    assert main(["cube", "--resume", "1", *common]) == 0
    out, err = capsys.readouterr()
    assert "run 1 is finished (1,200 trials)" in err
    assert "\n  all 1,200 trials read from the store\n  stored as run 1" in out, out


def test_cubeful_plot_ends_at_the_run_s_own_numbers(tmp_path, monkeypatch, capsys):
    """--plot for a cubeful rollout (as for a cubeless one): the convergence curve's last
    point is the reported equity, fresh or resumed, and `runs show --plot` draws it again."""
    pytest.importorskip("matplotlib")
    from fastbg.research import convergence
    from fastbg.rollouts.cubeful import convergence_point

    monkeypatch.setenv("FASTBG_STORE", str(tmp_path / "runs.sqlite"))
    common = ["--cubeful", "--policy", "pubeval", "--seed", "4", "--no-progress"]
    assert main(["rollout", CONTACT, "-n", "1500", "--match-length", "5", "--store", "--plot",
                 str(tmp_path / "a.png"), *common[:-1], "--no-progress"]) == 0
    assert "plot drawn into" in capsys.readouterr().out and (tmp_path / "a.png").exists()
    assert main(["rollout", "--resume", "1", "--extend", "1000", "--no-progress", "--plot",
                 str(tmp_path / "b.svg")]) == 0
    assert (tmp_path / "b.svg").exists()
    assert main(["runs", "show", "1", "--plot", str(tmp_path / "c.pdf")]) == 0
    assert (tmp_path / "c.pdf").exists()
    capsys.readouterr()
    with ResultsStore(tmp_path / "runs.sqlite") as st:
        run = st.run(1)
        curve = convergence(st.blocks(1).values(), "cubeful", point=convergence_point(run.request))
    full = fastbg.cubeful_rollout(CONTACT, 2500, seed=4, policy="pubeval",
                                  state=MatchState.match(5))
    assert curve["games"] == [1000, 2000, 2500]
    assert curve["curves"][0]["equity"][-1] == full.equity
    assert curve["curves"][0]["stderr"][-1] == full.stderr
