"""Stop rules at block boundaries: where a run stops depends only on the seed and settings."""
from __future__ import annotations

import pytest

from fastbg import rollout
from fastbg.cli import main

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


def test_min_games_and_the_maximum():
    r = rollout("start", 20_000, seed=1, policy="pubeval", until_se=0.5, min_games=5000)
    assert r.games == 5000
    r = rollout("start", 3000, seed=1, policy="pubeval", until_se=1e-6)
    assert r.games == 3000 and not r.interrupted     # never reached: --games is the most
    with pytest.raises(ValueError, match="positive standard error"):
        rollout("start", 100, seed=1, until_se=0)
    with pytest.raises(ValueError, match="give until_se"):
        rollout("start", 100, seed=1, min_games=10)
    with pytest.raises(ValueError, match="more than games"):
        rollout("start", 100, seed=1, until_se=0.1, min_games=1000)


def test_cli_until_se(capsys):
    assert main(["rollout", "start", "-n", "100000", "--policy", "pubeval", "--until-se", "0.03",
                 "--seed", "2", "--no-progress"]) == 0
    assert "stopped at standard error" in capsys.readouterr().out
    assert main(["rollout", "--until-se", "-1", "-n", "10"]) == 2
    assert main(["rollout", "--cubeful", "--until-se", "0.1", "-n", "10"]) == 2
    assert "cubeless rollouts" in capsys.readouterr().err
