"""Settings objects and the runner (issue 37): validated once, round-tripped through their
dict form, recorded by the results store exactly, and enough to resume a stored run."""
import dataclasses

import numpy as np
import pytest

import fastbg
from fastbg.rollouts.runner import Runner, configure
from fastbg.rollouts.settings import DEFAULT_VR, NPLY_FIELDS, RolloutSettings
from fastbg.rollouts.store import ResultsStore

CONTACT = "bJ7BARiw5+ABMA"


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(policy="gnubg"), "unknown policy 'gnubg'"),
    (dict(seed=-1), "seed must be a non-negative integer"),
    (dict(seed=True), "seed must be a non-negative integer"),
    (dict(dice=(7, 1)), "die 7 out of range"),
    (dict(dice=(3.5, 1)), "whole number"),
    (dict(opening="yes"), "opening must be True, False or None"),
    (dict(opening=True, dice=(3, 1)), "either a fixed first roll"),
    (dict(vr="on"), "vr must be True, False or None"),
    (dict(quasi_random=None), "quasi_random must be True or False"),
    (dict(truncate=0), "truncate must be a number of half-moves"),
    (dict(truncate_bearoff=1), "truncate_bearoff must be True or False"),
    (dict(by_first_roll=True, quasi_random=False), "needs quasi-random dice"),
    (dict(by_first_roll=True, dice=(3, 1)), "the first roll is fixed"),
    (dict(min_games=2000), "min_games is for a stop rule"),
    (dict(until_se=0.0), "until_se must be a positive, finite"),
    (dict(until_se=0.01, min_games=0), "games must be a positive integer"),
])
def test_bad_settings_are_refused_when_made(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        RolloutSettings(**kwargs)
    # ... and the same through replace(), and through fastbg.rollout's keywords, before any game
    with pytest.raises(ValueError, match=fragment):
        RolloutSettings().replace(**kwargs)
    with pytest.raises(ValueError, match=fragment):
        fastbg.rollout("start", 10, engine="python", **kwargs)


def test_settings_are_frozen_normalised_and_keyword_only():
    s = RolloutSettings(dice="31", seed=np.int64(5), vr=np.bool_(True), truncate=None)
    assert s.dice == (3, 1) and type(s.seed) is int and s.vr is True and s.truncate is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.seed = 6
    with pytest.raises(TypeError):
        RolloutSettings(5)                     # keyword-only: no positional settings


@pytest.mark.parametrize("kwargs", [
    {}, dict(seed=7, policy="pubeval", dice=[3, 1]), dict(opening=True, vr=False),
    dict(until_se=0.01, min_games=2000, by_first_roll=True),
    dict(truncate=12, truncate_bearoff=True, quasi_random=False),
    dict(ply=1, move_filter="large", luck_ply=1, truncate=7, truncate_ply=2),
])
def test_the_dict_form_round_trips(kwargs):
    s = RolloutSettings(**kwargs)
    d = s.as_dict()
    assert RolloutSettings(**d) == s
    # every field in order; a 0-ply run's without the n-ply ones (at their defaults), so
    # that its request is the one stored before n-ply rollouts (such runs resume)
    deep = s.ply or s.luck_ply or s.truncate_ply
    assert list(d) == [f for f in RolloutSettings.fields() if deep or f not in NPLY_FIELDS]
    assert all(not isinstance(v, tuple) for v in d.values())      # JSON-ready


def test_resolve_makes_every_open_choice():
    s = RolloutSettings(policy="pubeval").resolve(at_start=True)
    assert isinstance(s.seed, int) and s.opening is True and s.vr is DEFAULT_VR["pubeval"]
    s = RolloutSettings(seed=1).resolve(at_start=True, rolled=(3, 1))
    assert s.dice == (3, 1) and s.opening is False and s.vr is True
    assert RolloutSettings(seed=1, dice=(1, 3)).resolve(False, rolled=(3, 1)).dice == (1, 3)
    with pytest.raises(ValueError, match="has 3-1 rolled but dice is 4-2"):
        RolloutSettings(dice=(4, 2)).resolve(False, rolled=(3, 1))
    r = RolloutSettings(seed=2).resolve(False)
    assert r.resolve(False) == r                # a resolved object is a fixed point


def test_the_store_records_the_settings_dict_and_it_rebuilds_the_run(tmp_path):
    path = tmp_path / "runs.sqlite"
    settings = RolloutSettings(seed=3, policy="pubeval", until_se=0.5, min_games=1000)
    res = fastbg.rollout(CONTACT, 2000, settings=settings, runner=Runner(workers=2, store=path))
    with ResultsStore(path) as st:
        request = st.run(res.run_id).request
    resolved = settings.resolve(at_start=False)
    assert request == {"position": CONTACT, "games": 2000, **resolved.as_dict()}
    assert RolloutSettings.from_request(request) == resolved
    assert RolloutSettings(**{k: v for k, v in request.items()
                              if k not in ("position", "games")}) == resolved
    assert res.settings["seed"] == 3 and res.settings["stop_rule"] == {"until_se": 0.5,
                                                                       "min_games": 1000}
    with pytest.raises(ValueError, match="does not know: colour"):
        RolloutSettings.from_request({**request, "colour": "red"})


def test_settings_runner_and_keywords_give_the_same_numbers():
    a = fastbg.rollout(CONTACT, 1500, seed=4, policy="pubeval", workers=2, engine="cython")
    b = fastbg.rollout(CONTACT, 1500, settings=RolloutSettings(seed=4, policy="pubeval"),
                       runner=Runner(workers=1))
    c = fastbg.rollout(CONTACT, 1500, settings=RolloutSettings(seed=9, policy="random"),
                       seed=4, policy="pubeval")          # keywords override the object
    assert a.counts.tolist() == b.counts.tolist() == c.counts.tolist()
    assert a.settings | {"engine": None} == b.settings | {"engine": None}


def test_configure_sorts_keywords_and_refuses_unknown_ones():
    s, r = configure(RolloutSettings, None, None, dict(seed=1, workers=2, engine="python"),
                     "rollout")
    assert s == RolloutSettings(seed=1) and r == Runner(workers=2, engine="python")
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        fastbg.rollout("start", 10, colour="red")
    with pytest.raises(TypeError, match=r"settings=RolloutSettings\(...\)"):
        fastbg.rollout("start", 10, settings={"seed": 1})
    with pytest.raises(TypeError, match=r"runner=Runner\(...\)"):
        fastbg.rollout("start", 10, runner={"workers": 1})


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(engine="rust"), "unknown engine 'rust'"),
    (dict(workers=0), "workers must be a positive integer"),
    (dict(progress=True), "progress must be a callable"),
    (dict(on_block=1), "on_block must be a callable"),
    (dict(on_interrupt="x"), "on_interrupt must be a callable"),
    (dict(run_id=1), "run_id is for a stored run: give its store too"),
    (dict(table_run=1), "table_run is for a stored run: give its store too"),
])
def test_bad_runners_are_refused(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        Runner(**kwargs)


def test_a_run_without_rows_refuses_on_row_and_a_table_takes_it():
    """A runner's on_row is told of a table's rows; fastbg.rollout and the other runs have
    none and used to ignore it: now they refuse it, before any game, with what to use
    instead. The tables take it (the gammons table, which has no rows, calls it never)."""
    def never(*args):
        raise AssertionError("a game was played")
    runner = Runner(on_row=lambda label, j, n: None, progress=never)
    for fn, args in ((fastbg.rollout, (CONTACT, 100)), (fastbg.cubeful_rollout, (CONTACT, 100)),
                     (fastbg.cube_rollout, (CONTACT, 100)), (fastbg.cube_decision, (CONTACT, 100)),
                     (fastbg.rollout_plays, (CONTACT, "31", 100))):
        with pytest.raises(ValueError, match=rf"{fn.__name__}\(\) takes no on_row: it has no "
                                             r"rows \(on_row is for the tables of "
                                             r"fastbg.research; on_block tells of each block\)"):
            fn(*args, runner=runner)
    rows = []
    t = fastbg.research.race_table(36, pips=[40], leads=[0], positions=2, seed=1, policy="pubeval",
                                   on_row=lambda label, j, n: rows.append((j, n)))
    assert rows == [(j, len(t.rows)) for j in range(len(t.rows))] and rows
    t = fastbg.research.gammons_table(20, seed=1, policy="pubeval", on_row=never)
    assert t.summary["games"] == 20


def test_runner_threads_never_exceed_the_blocks():
    assert Runner(workers=4).threads(2500, 1000) == 3
    assert Runner(workers=4, engine="python").threads(9000, 1000) == 1
    assert Runner(workers=2).threads(500, 1000) == 1


def test_resume_needs_only_the_store_and_the_run_id(tmp_path):
    path = tmp_path / "runs.sqlite"
    full = fastbg.rollout(CONTACT, 3000, seed=2, policy="pubeval", workers=2)
    first = fastbg.rollout(CONTACT, 2000, seed=2, policy="pubeval", store=path)
    again = fastbg.resume(path, first.run_id)                 # finished: read again
    assert again.games == 2000 and again.stored_games == 2000
    assert again.counts.tolist() == first.counts.tolist()
    more = fastbg.resume(path, first.run_id, games=3000, workers=2)   # extended
    assert more.games == 3000 and more.stored_games == 2000
    assert more.counts.tolist() == full.counts.tolist()
    with pytest.raises(ValueError, match="no run 9"):
        fastbg.resume(path, 9)


def test_resume_continues_a_rollout_of_candidate_plays(tmp_path):
    path = tmp_path / "runs.sqlite"
    a = fastbg.rollout_plays(CONTACT, "31", 648, seed=5, policy="pubeval", top=2, store=path)
    b = fastbg.resume(path, a.run_id, games=972)
    c = fastbg.rollout_plays(CONTACT, "31", 972, seed=5, policy="pubeval", top=2)
    assert [p["equity"] for p in b.plays] == [p["equity"] for p in c.plays]
