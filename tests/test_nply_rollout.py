"""Rollouts at any depth (issue 38, item 3): n-ply checker play, the luck valued at n ply,
truncated games scored at n ply, the presets; both engines, the settings' record, the CLI.

The engine cases are small races and bear-offs (a few plays a roll, database values), where
the pure-Python engine takes seconds; a small contact position at 1 ply takes it a minute
and is marked slow.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

import fastbg
from fastbg.cli import main
from fastbg.engine import get_engine
from fastbg.rollouts.blocks import block_size_for
from fastbg.rollouts.candidates import PlaysSettings
from fastbg.rollouts.presets import PRESETS, rollout_preset
from fastbg.rollouts.settings import RolloutSettings
from fastbg.spec.nply import NORMAL
from test_nply import BEAROFF, CONTACT_SMALL, RACE  # the same small positions


def both_blocks(pos, games, ply, seed=3, **kw):
    """rollout_block_vr of both engines with the n-ply checker play: (counts, sums) each."""
    out = []
    for name in ("cython", "python"):
        eng = get_engine(name)
        pg = np.zeros((games, 6))
        c, s = eng.rollout_block_vr(pos, games, np.random.PCG64DXSM(seed),
                                    eng.policies.checker_policy("nn", ply),
                                    eng.evaluator.EvalPolicy(), per_game=pg, **kw)
        out.append((c.tolist(), s.tobytes(), pg.tobytes()))
    return out


# ------------------------------------------------------------------ both engines, bit for bit

@pytest.mark.parametrize("pos, kw", [
    (RACE, dict()),
    (RACE, dict(vr=False, truncate=3, truncate_ply=1)),
    (BEAROFF, dict(luck_ply=1)),
    (RACE, dict(luck_ply=1, truncate=2, truncate_ply=1, move_filter="large")),
])
def test_engines_agree_at_one_ply(pos, kw):
    a, b = both_blocks(pos, 2, 1, **kw)
    assert a == b


def test_engines_agree_in_plain_blocks_at_one_ply():
    out = []
    for name in ("cython", "python"):
        eng = get_engine(name)
        cls = np.zeros(3, dtype=np.int8)
        c = eng.rollout_block(RACE, 3, np.random.PCG64DXSM(8), eng.policies.checker_policy("nn", 1),
                              classes=cls)
        out.append((c.tolist(), cls.tolist()))
    assert out[0] == out[1]


@pytest.mark.slow
def test_engines_agree_in_contact_at_one_ply():
    a, b = both_blocks(CONTACT_SMALL, 1, 1)
    assert a == b


def test_rollout_api_engines_agree_at_one_ply():
    kw = dict(seed=5, ply=1, truncate=4, truncate_ply=1, workers=1)
    a = fastbg.rollout(RACE, 4, **kw)
    b = fastbg.rollout(RACE, 4, engine="python", **kw)
    assert a.counts.tolist() == b.counts.tolist()
    assert (a.equity, a.stderr["equity"]) == (b.equity, b.stderr["equity"])
    assert a.settings["ply"] == 1 and a.settings["move_filter"]["name"] == "normal"
    assert a.settings["truncate_ply"] == 1


def test_n_ply_policy_plays_the_first_play_of_rank_nply():
    start = fastbg.Position.parse("start").board
    for name in ("cython", "python"):
        ev = get_engine(name).evaluator
        plays = np.array([p.board for p in fastbg.legal_plays(fastbg.Position(start), "64")],
                         dtype=np.int8)
        want = ev.EvalPolicy().rank_nply(start, plays, 1, "normal")[0][0]
        assert ev.EvalPolicyNPly(ply=1).choose(start, plays.copy(), np.random.PCG64DXSM(0)) == want


def test_checker_policy_refuses_depth_for_other_policies():
    for name in ("cython", "python"):
        pol = get_engine(name).policies
        with pytest.raises(ValueError, match="'nn' policy"):
            pol.checker_policy("pubeval", 1)
        with pytest.raises(ValueError, match="ply must be"):
            pol.checker_policy("nn", 5)
        assert pol.checker_policy("pubeval", 0).name == "pubeval"


def test_zero_ply_luck_and_truncation_are_the_old_blocks():
    """luck_ply=0, truncate_ply=0 given explicitly: the numbers of the block without them."""
    eng = get_engine("cython")
    start = fastbg.Position.parse("start").board
    args = (start, 30, None, "nn", eng.evaluator.EvalPolicy())
    a = eng.rollout_block_vr(*args[:2], np.random.PCG64DXSM(2), *args[3:], truncate=5)
    b = eng.rollout_block_vr(*args[:2], np.random.PCG64DXSM(2), *args[3:], truncate=5,
                             luck_ply=0, truncate_ply=0, move_filter="large")
    assert a[0].tolist() == b[0].tolist() and a[1].tobytes() == b[1].tobytes()


def test_deeper_truncation_score_is_the_n_ply_value():
    """Fixed dice, truncation after one half-move: every game stops at one position, whose
    1-ply value (root's view) is the estimate, with a standard error of 0."""
    eng = get_engine("cython")
    start = fastbg.Position.parse("start").board
    plays = eng.legal_plays(start, 3, 1)
    after = plays[eng.make_policy("nn").choose(start, plays, np.random.PCG64DXSM(0))]
    p = eng.evaluator.EvalPolicy().nply_probabilities(np.ascontiguousarray(after[::-1]), 1)[0]
    r = fastbg.rollout(start, 36, seed=1, dice=(3, 1), truncate=1, truncate_ply=1, vr=False)
    assert r.truncated == 36
    assert r.win == pytest.approx(1 - p[0], abs=1e-12) and r.stderr["win"] < 1e-6


# ------------------------------------------------------------------ settings and their record

def test_settings_round_trip_and_zero_ply_request_unchanged():
    s = RolloutSettings(seed=1, ply=2, move_filter="large", luck_ply=1, truncate=7,
                        truncate_ply=2)
    assert RolloutSettings(**s.as_dict()) == s
    assert RolloutSettings.from_request({"position": "x", "games": 5, **s.as_dict()}) == s
    zero = RolloutSettings(seed=1).as_dict()
    assert not {"ply", "move_filter", "luck_ply", "truncate_ply"} & set(zero)
    assert RolloutSettings(ply=1).move_filter == "normal"              # the default filter
    assert RolloutSettings(ply=1, move_filter=NORMAL).move_filter == "normal"
    custom = RolloutSettings(ply=1, move_filter=[(8, 0, 0.0)])
    assert custom.move_filter == {"levels": [{"accept": 8, "extra": 0, "threshold": 0.0},
                                             None, None]}
    assert RolloutSettings(**custom.as_dict()) == custom


@pytest.mark.parametrize("kw, fragment", [
    (dict(ply=1, policy="pubeval"), "'nn' policy"),
    (dict(ply=1, policy="nn-1ply"), "'nn' policy"),
    (dict(move_filter="large"), "give ply"),
    (dict(truncate_ply=1), "give truncate"),
    (dict(luck_ply=1, vr=False), "needs vr"),
    (dict(ply=4), "ply must be"),
    (dict(luck_ply=-1), "luck_ply must be"),
    (dict(ply=1, move_filter="huge"), "unknown move filter"),
])
def test_bad_settings(kw, fragment):
    with pytest.raises(ValueError, match=fragment):
        RolloutSettings(**kw)


def test_luck_ply_needs_variance_reduction_once_resolved():
    with pytest.raises(ValueError, match="vr=True"):
        RolloutSettings(policy="pubeval", luck_ply=1).resolve(False)


def test_block_sizes_by_depth():
    assert block_size_for("nn") == 1000 and block_size_for("nn-1ply") == 100
    assert block_size_for("nn", 1) == 100 and block_size_for("nn", 2) == 10
    assert RolloutSettings(luck_ply=2).depth == 2


def test_presets():
    for p in PRESETS.values():
        s = RolloutSettings.preset(p.name)
        assert s.as_dict()["ply"] == p.settings["ply"] and p.games >= 648 and p.description
    assert RolloutSettings.preset("2ply-truncated", truncate=9).truncate == 9
    with pytest.raises(ValueError, match="unknown rollout preset"):
        rollout_preset("World Class")


def test_stored_run_resumes_with_the_numbers_of_one_run(tmp_path):
    path = tmp_path / "runs.sqlite"
    kw = dict(seed=4, ply=1, truncate=6, truncate_ply=1, workers=2)
    whole = fastbg.rollout(RACE, 200, **kw)
    first = fastbg.rollout(RACE, 100, store=path, **kw)
    assert first.run_id is not None
    more = fastbg.resume(path, first.run_id, games=200, workers=2)
    assert more.equity == whole.equity and more.counts.tolist() == whole.counts.tolist()
    assert more.settings["ply"] == 1 and more.settings["truncate_ply"] == 1


# ------------------------------------------------------------------ the CLI

RACE_ID = fastbg.Position(RACE).to_position_id()


def test_cli_ply_filter_truncate(capsys):
    assert main(["rollout", RACE_ID, "-n", "100", "--seed", "2", "--ply", "1", "--filter",
                 "large", "--truncate", "4", "--truncate-ply", "1", "--luck-ply", "1",
                 "--no-progress", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    st = d["settings"]
    assert st["ply"] == 1 and st["move_filter"]["name"] == "large" and st["luck_ply"] == 1
    assert st["truncation"] == 4 and st["truncate_ply"] == 1 and st["block_size"] == 100
    assert "1-ply" in st["yardstick"]
    assert main(["rollout", RACE_ID, "-n", "100", "--seed", "2", "--ply", "1",
                 "--no-progress"]) == 0
    assert "nn at 1 ply (normal filter)" in capsys.readouterr().out


def test_cli_preset(capsys):
    assert main(["rollout", RACE_ID, "--preset", "quick", "--seed", "1", "--no-progress",
                 "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["preset"] == "quick" and d["games"] == rollout_preset("quick").games
    assert d["settings"]["truncation"] == 10 and d["settings"]["truncate_ply"] == 1
    assert main(["rollout", RACE_ID, "--preset", "quick", "--truncate", "4", "-n", "50",
                 "--seed", "1", "--no-progress", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["games"] == 50 and d["settings"]["truncation"] == 4


@pytest.mark.parametrize("argv, fragment", [
    (["--filter", "large"], "give ply"),
    (["--ply", "1", "--policy", "pubeval"], "'nn' policy"),
    (["--truncate-ply", "1"], "give truncate"),
    (["--cubeful", "--ply", "1"], "--ply is for cubeless rollouts"),
    (["--cubeful", "--preset", "2ply"], "--preset is for cubeless rollouts"),
])
def test_cli_bad_input_one_line_exit_2(capsys, argv, fragment):
    assert main(["rollout", RACE_ID, "-n", "10", "--no-progress", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert fragment in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("argv", [["--ply", "5"], ["--preset", "supremo"], ["--filter", "x"]])
def test_cli_bad_choice_exit_2(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        main(["rollout", RACE_ID, "-n", "10", *argv])
    assert exc.value.code == 2


def test_cli_resume_keeps_the_n_ply_settings(tmp_path, capsys):
    path = str(tmp_path / "r.sqlite")
    assert main(["rollout", RACE_ID, "-n", "100", "--seed", "3", "--ply", "1", "--store", path,
                 "--no-progress", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert main(["rollout", "--resume", str(d["run_id"]), "--store", path, "--extend", "100",
                 "--no-progress", "--json"]) == 0
    e = json.loads(capsys.readouterr().out)
    assert e["games"] == 200 and e["settings"]["ply"] == 1
    assert main(["rollout", "--resume", str(d["run_id"]), "--store", path, "--ply", "2",
                 "--no-progress"]) == 2
    assert "does not apply with --resume" in capsys.readouterr().err


# ------------------------------------------------------------------ candidate plays

@pytest.mark.slow
def test_rollout_plays_at_one_ply_both_engines_and_its_record():
    kw = dict(seed=2, top=2, checker_ply=1, vr=False, workers=1)
    a = fastbg.rollout_plays(fastbg.Position(RACE), "31", 2, **kw)
    b = fastbg.rollout_plays(fastbg.Position(RACE), "31", 2, engine="python", **kw)
    assert [(p["move"], p["equity"]) for p in a.plays] == [(p["move"], p["equity"]) for p in b.plays]
    assert a.settings["ply"] == 1 and a.settings["move_filter"]["name"] == "normal"
    assert a.settings["block_size"] == 100


def test_plays_settings_checker_ply():
    s = PlaysSettings(seed=1, checker_ply=2, move_filter="large")
    assert PlaysSettings(**s.as_dict()) == s
    assert "checker_ply" not in PlaysSettings(seed=1).as_dict()
    with pytest.raises(ValueError, match="give checker_ply"):
        PlaysSettings(move_filter="large")
    with pytest.raises(ValueError, match="'nn' policy"):
        PlaysSettings(policy="pubeval", checker_ply=1)
