"""Stop rules at block boundaries: where a run stops depends only on the seed and settings."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from fastbg import rollout
from fastbg.cli import main
from fastbg.rollouts import blocks
from fastbg.rollouts.blocks import abandoned, run_blocks

pytest.importorskip("fastbg._core.rollout", reason="Cython core not built")


@pytest.mark.parametrize("policy, target", [("pubeval", 0.02), ("nn", 0.0015)])
def test_until_se_stops_at_the_first_block_that_reaches_it(policy, target):
    pos = "start" if policy == "pubeval" else "tN2WAgBsd6YCAA"
    r = rollout(pos, 200_000, seed=5, workers=2, policy=policy, until_se=target)
    assert r.stderr["equity"] <= target and not r.interrupted
    assert r.games < 200_000 and r.games % 1000 == 0
    # the same games as a run asked for exactly that many ...
    same = rollout(pos, r.games, seed=5, workers=1, policy=policy)
    assert (same.equity, same.stderr) == (r.equity, r.stderr)
    # ... and one block fewer was not enough
    if r.games > 1000:
        fewer = rollout(pos, r.games - 1000, seed=5, workers=1, policy=policy)
        assert fewer.stderr["equity"] > target


def test_until_se_does_not_depend_on_workers():
    a = rollout("start", 50_000, seed=8, workers=1, policy="pubeval", until_se=0.03)
    b = rollout("start", 50_000, seed=8, workers=2, policy="pubeval", until_se=0.03)
    assert (a.games, a.equity) == (b.games, b.equity)


def test_until_se_on_one_worker_plays_no_block_past_the_stop(monkeypatch):
    """A stop rule met by block 0 plays block 0 alone on one worker: a block queued behind
    it started as it ended and was played in vain (65% more time for a one-block run). (On
    several workers, which blocks start depends on the scheduling; those past the stop are
    abandoned: the next test.)"""
    workers = 1
    started = []
    real = blocks.play_block

    def play_block(fn, k, n, entropy):
        started.append(k)
        return real(fn, k, n, entropy)
    monkeypatch.setattr(blocks, "play_block", play_block)
    r = rollout("start", 10_000, seed=1, workers=workers, policy="pubeval", until_se=1.0)
    assert r.games == 1000 and not r.interrupted
    assert sorted(started) == list(range(workers))
    assert r.equity == rollout("start", 1000, seed=1, workers=1, policy="pubeval").equity


def test_blocks_running_past_the_stop_are_abandoned():
    """The blocks still playing when the stop rule is met are past it: they stop after their
    game (the run's stop flag), so the run's time is its own games' (an honest games/s)."""
    seen = {}
    block0_done = threading.Event()

    def block(k, n, bitgen):
        if k == 0:
            time.sleep(0.05)
            block0_done.set()
            return np.array([n, 0, 0, 0, 0, 0])
        for game in range(500):           # 5 s unless abandoned
            if abandoned():
                seen[k] = game
                return np.zeros(6, dtype=np.int64)
            time.sleep(0.01)
        seen[k] = None
        return np.zeros(6, dtype=np.int64)

    run = run_blocks(np.zeros((2, 25), dtype=np.int8), 2000, 1, workers=2, block=block,
                     until=lambda counts, sums, n: n >= 1000)
    assert run.games == 1000 and not run.interrupted
    assert seen[1] is not None and seen[1] < 500


def test_min_games_and_the_maximum():
    r = rollout("start", 20_000, seed=1, policy="pubeval", until_se=0.5, min_games=5000)
    assert r.games == 5000
    r = rollout("start", 3000, seed=1, policy="pubeval", until_se=1e-6)
    assert r.games == 3000 and not r.interrupted     # never reached: --games is the most
    with pytest.raises(ValueError, match="positive, finite standard error"):
        rollout("start", 100, seed=1, until_se=0)
    with pytest.raises(ValueError, match="give until_se"):
        rollout("start", 100, seed=1, min_games=10)
    with pytest.raises(ValueError, match="more than the games asked for"):
        rollout("start", 100, seed=1, until_se=0.1, min_games=1000)


def test_cli_until_se(capsys):
    assert main(["rollout", "start", "-n", "100000", "--policy", "pubeval", "--until-se", "0.03",
                 "--seed", "2", "--no-progress"]) == 0
    assert "stopped at standard error" in capsys.readouterr().out
    assert main(["rollout", "--until-se", "-1", "-n", "10"]) == 2
    assert main(["rollout", "--cubeful", "--truncate", "5", "-n", "10"]) == 2
    assert "cubeless rollouts" in capsys.readouterr().err


# ----------------------------------------------------------------- breakdown by first roll


@pytest.mark.parametrize("vr", [False, True])
def test_by_first_roll_rows_add_up_and_leave_the_totals_alone(vr):
    pos = "tN2WAgBsd6YCAA"
    r = rollout(pos, 1296, seed=3, workers=2, by_first_roll=True, vr=vr, policy="nn")
    plain = rollout(pos, 1296, seed=3, workers=1, vr=vr, policy="nn")
    assert (r.equity, r.stderr, r.counts.tolist()) == (plain.equity, plain.stderr, plain.counts.tolist())
    rows = r.by_first_roll
    assert len(rows) == 21 and [x["games"] for x in rows] == [36 if x["roll"][0] == x["roll"][2]
                                                               else 72 for x in rows]
    # the rows' weighted mean is the total (with VR: after each row got its roll's luck back,
    # whose mean over the 36 rolls is zero)
    mean = sum(x["games"] * x["equity"] for x in rows) / r.games
    assert mean == pytest.approx(r.equity, abs=1e-9)


def test_by_first_roll_from_the_opening_and_its_errors():
    r = rollout("start", 1080, seed=2, by_first_roll=True)
    rows = r.by_first_roll
    assert len(rows) == 30 and all(x["games"] == 36 for x in rows)
    assert {x["first"] for x in rows} == {"player", "opponent"}
    # symmetry: the player's 3-1 and the opponent's 3-1 are each other's mirror
    p31 = next(x for x in rows if x["roll"] == "3-1" and x["first"] == "player")
    assert p31["equity"] > 0
    with pytest.raises(ValueError, match="quasi-random"):
        rollout("start", 100, seed=1, by_first_roll=True, quasi_random=False)
    with pytest.raises(ValueError, match="fixed"):
        rollout("start", 100, seed=1, by_first_roll=True, dice=(3, 1))
    assert main(["rollout", "--cubeful", "--by-first-roll", "--no-quasi-random", "-n", "10"]) == 2


def test_until_se_must_be_finite_and_an_unmet_rule_is_said(capsys):
    with pytest.raises(ValueError, match="finite"):
        rollout("start", 100, seed=1, until_se=float("inf"))
    assert main(["rollout", "start", "--until-se", "inf", "-n", "100"]) == 2
    assert main(["rollout", "tN2WAgBsd6YCAA", "--until-se", "0.00001", "-n", "1000", "--seed", "1",
                 "--no-progress"]) == 0
    assert "stop rule not met" in capsys.readouterr().out
    r = rollout("tN2WAgBsd6YCAA", 1000, seed=1, until_se=0.00001)
    assert r.to_dict()["stop_rule_met"] is False


def test_cubeful_results_carry_their_settings(capsys):
    import json
    assert main(["rollout", "start", "--cubeful", "-n", "100", "--seed", "1", "--json",
                 "--no-progress"]) == 0
    s = json.loads(capsys.readouterr().out)["settings"]
    assert s["seed"] == "1" and s["policy"] == "nn" and s["cube"] == 1 and "fastbg_version" in s


# ----------------------------------------------------------------- pruning candidate plays


def test_prune_se_drops_hopeless_plays_at_fixed_stages():
    from fastbg import rollout_plays
    from fastbg.rollouts.plays import PLAYS_BLOCK_SIZE, PRUNE_STAGE
    stage = PRUNE_STAGE * PLAYS_BLOCK_SIZE
    kw = dict(games=4 * stage, seed=1, policy="pubeval", top=5, prune_se=3)
    a = rollout_plays("start", "31", workers=1, **kw)
    b = rollout_plays("start", "31", workers=2, **kw)
    assert a.plays == b.plays                     # where plays are dropped: seed and settings only
    best = a.plays[0]
    assert best["games"] == 4 * stage and not best["pruned"] and best["p_best"] is not None
    pruned = [p for p in a.plays if p["pruned"]]
    assert pruned, "8/5 6/5 is far ahead of the other 3-1 plays for pubeval"
    for p in pruned:
        assert p["games"] % stage == 0 and stage <= p["games"] < 4 * stage and p["p_best"] is None
        assert p["diff"] < 0 and p["diff_stderr"] > 0
    assert a.settings["prune"] == {"prune_se": 3.0, "min_games": stage, "stage_games": stage}
    # min_games holds the pruning back ...
    c = rollout_plays("start", "31", workers=2, min_games=3 * stage, **kw)
    assert all(p["games"] >= 3 * stage for p in c.plays)
    assert c.settings["prune"]["min_games"] == 3 * stage
    # ... or brings it forward, to the first whole block at or after it
    d = rollout_plays("start", "31", workers=2, min_games=100, **kw)
    assert d.settings["prune"]["min_games"] == PLAYS_BLOCK_SIZE
    dropped = [p["games"] for p in d.plays if p["pruned"]]
    assert dropped and all((n - PLAYS_BLOCK_SIZE) % stage == 0 for n in dropped)


def test_prune_se_prunes_within_the_default_game_count():
    # the CLI's default of 1,296 games is two stages, so a clearly worse play is dropped
    from fastbg import rollout_plays
    r = rollout_plays("start", "31", games=1296, seed=3, policy="pubeval", top=5, prune_se=3)
    assert any(p["pruned"] and p["games"] == 648 for p in r.plays)


def test_without_pruning_every_play_plays_every_game():
    from fastbg import rollout_plays
    r = rollout_plays("start", "31", games=3000, seed=2, policy="pubeval", top=3)
    assert all(p["games"] == 3000 and not p["pruned"] for p in r.plays)
    with pytest.raises(ValueError, match="prune_se must be"):
        rollout_plays("start", "31", games=100, prune_se=-1)
    with pytest.raises(ValueError, match="give prune_se"):
        rollout_plays("start", "31", games=100, min_games=10)


PRUNED_LEGEND = ("  (pruned: dropped by --prune-se after the games shown; its equity is over "
                 "those games only, and its diff and s.e. are paired with the best play's "
                 "results on the same games)")


def test_cli_prune_se(capsys):
    assert main(["moves", "start", "31", "--rollout", "--top", "4", "--prune-se", "--games",
                 "2592", "--seed", "1", "--policy", "pubeval", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "pruned" in out and "2,592 games a play, fewer for the pruned plays" in out
    assert "3 SE behind the best dropped after 648 games and every 648 after" in out
    # a pruned play's equity and diff are over its own games (issue 37: the table did not
    # say so, and its diff read as one over the 2,592 games of the others)
    assert PRUNED_LEGEND in out
    assert main(["moves", "start", "31", "--rollout", "--top", "2", "--games", "648",
                 "--seed", "1", "--policy", "pubeval", "--no-progress"]) == 0
    assert "pruned" not in capsys.readouterr().out
    assert main(["table", "openings", "-n", "1296", "--rolls", "31", "--top", "4", "--prune-se",
                 "--seed", "1", "--policy", "pubeval", "--no-progress"]) == 0
    assert ("  (pruned: dropped by --prune-se before the end; its equity is over the games it "
            "played, and its diff and s.e. are paired with the best play's results on the same "
            "games)") in capsys.readouterr().out
    assert main(["moves", "start", "31", "--rollout", "--prune-se", "0"]) == 2
    assert main(["moves", "start", "31", "--min-games", "10", "--rollout"]) == 2
    assert main(["moves", "start", "31", "--prune-se", "3"]) == 2
    assert "--prune-se is for --rollout" in capsys.readouterr().err
