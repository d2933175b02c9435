"""Cubeful rollouts with the cubeless rollouts' stop rule (``until_se``, ``min_games``) and
breakdown by first roll: the same semantics, for any worker count."""
from __future__ import annotations

import json
import math

import pytest

from fastbg.cli import main
from fastbg.game import MatchState
from fastbg.rollouts.cubeful import cubeful_rollout

pytest.importorskip("fastbg._core.cubeful", reason="Cython core not built")

POS = "tN2WAgBsd6YCAA"


def _same(a, b):
    """Equal rows, NaN (the standard error of a one-game row) equal to NaN."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


@pytest.mark.parametrize("vr, target", [(False, 0.05), (True, 0.012)])
def test_until_se_stops_at_a_block_boundary_with_the_numbers_of_a_plain_run(vr, target):
    r = cubeful_rollout(POS, 40_000, seed=5, workers=2, policy="pubeval", vr=vr, until_se=target)
    assert r.stderr <= target and not r.interrupted
    assert r.games < 40_000 and r.games % 1000 == 0 and r.games_requested == 40_000
    assert r.to_dict()["stop_rule_met"] is True
    assert r.settings["stop_rule"] == {"until_se": target, "min_games": None}
    # the same games as a run asked for exactly that many, on one worker ...
    same = cubeful_rollout(POS, r.games, seed=5, workers=1, policy="pubeval", vr=vr)
    assert (same.equity, same.stderr, same.counts.tolist()) == (r.equity, r.stderr,
                                                                 r.counts.tolist())
    # ... and one block fewer was not enough
    if r.games > 1000:
        fewer = cubeful_rollout(POS, r.games - 1000, seed=5, workers=1, policy="pubeval", vr=vr)
        assert fewer.stderr > target


def test_until_se_in_match_play_min_games_and_the_maximum():
    state = MatchState.match(5, (1, 2))
    r = cubeful_rollout(POS, 20_000, seed=2, workers=2, policy="pubeval", vr=False, state=state,
                        until_se=0.5, min_games=3000)
    assert r.games == 3000 and r.stderr <= 0.5
    r = cubeful_rollout(POS, 2000, seed=2, policy="pubeval", vr=False, until_se=1e-6)
    assert r.games == 2000 and not r.interrupted and r.to_dict()["stop_rule_met"] is False
    with pytest.raises(ValueError, match="positive, finite standard error"):
        cubeful_rollout(POS, 100, seed=1, until_se=float("inf"))
    with pytest.raises(ValueError, match="give until_se"):
        cubeful_rollout(POS, 100, seed=1, min_games=10)
    with pytest.raises(ValueError, match="more than the games asked for"):
        cubeful_rollout(POS, 100, seed=1, until_se=0.1, min_games=1000)
    with pytest.raises(ValueError, match="quasi-random"):
        cubeful_rollout(POS, 100, seed=1, by_first_roll=True, quasi_random=False)


@pytest.mark.parametrize("vr", [False, True])
def test_by_first_roll_rows_add_up_and_do_not_depend_on_workers(vr):
    r = cubeful_rollout(POS, 2592, seed=3, workers=2, by_first_roll=True, vr=vr, policy="pubeval")
    one = cubeful_rollout(POS, 2592, seed=3, workers=1, by_first_roll=True, vr=vr, policy="pubeval")
    plain = cubeful_rollout(POS, 2592, seed=3, workers=1, vr=vr, policy="pubeval")
    assert _same(r.to_dict()["by_first_roll"], one.to_dict()["by_first_roll"])
    assert (r.equity, r.stderr, r.counts.tolist()) == (plain.equity, plain.stderr,
                                                       plain.counts.tolist())
    rows = r.by_first_roll
    assert len(rows) == 21 and [x["games"] for x in rows] == [72 if x["roll"][0] == x["roll"][2]
                                                               else 144 for x in rows]
    # the rows' weighted means are the totals (with VR: after each row got its roll's luck
    # back, whose mean over the 36 rolls is zero)
    for key in ("equity", "doubled", "passed", "mean_cube"):
        mean = sum(x["games"] * x[key] for x in rows) / r.games
        assert mean == pytest.approx(getattr(r, key), abs=1e-9)
    if vr:   # each row is the equity given its roll: they differ by roll
        assert max(x["equity"] for x in rows) - min(x["equity"] for x in rows) > 0.3


def test_by_first_roll_from_the_opening_in_match_play():
    state = MatchState.match(7, (0, 0))
    r = cubeful_rollout("start", 1080, seed=2, workers=2, by_first_roll=True, policy="pubeval",
                        vr=False, state=state)
    rows = r.by_first_roll
    assert len(rows) == 30 and all(x["games"] == 36 for x in rows)
    assert {x["first"] for x in rows} == {"player", "opponent"}
    mean = sum(x["games"] * x["mwc"] for x in rows) / r.games
    assert mean == pytest.approx(r.mwc, abs=1e-9)


@pytest.mark.slow
def test_by_first_roll_the_same_for_both_engines():
    kw = dict(seed=4, by_first_roll=True, policy="pubeval", vr=False)
    a = cubeful_rollout(POS, 8, engine="cython", **kw)
    b = cubeful_rollout(POS, 8, engine="python", **kw)
    assert _same(a.to_dict()["by_first_roll"], b.to_dict()["by_first_roll"])


def test_cli(capsys):
    assert main(["rollout", POS, "--cubeful", "-n", "40000", "--policy", "pubeval", "--no-vr",
                 "--until-se", "0.05", "--seed", "5", "--no-progress"]) == 0
    assert "stopped at standard error" in capsys.readouterr().out
    assert main(["rollout", POS, "--cubeful", "-n", "1296", "--policy", "pubeval", "--seed", "3",
                 "--by-first-roll", "--json", "--no-progress"]) == 0
    d = json.loads(capsys.readouterr().out)
    lib = cubeful_rollout(POS, 1296, seed=3, policy="pubeval", by_first_roll=True)
    assert _same(d["by_first_roll"], lib.to_dict()["by_first_roll"])
    assert d["equity"] == lib.equity and "stop_rule_met" not in d
    assert main(["rollout", POS, "--cubeful", "-n", "1296", "--policy", "pubeval", "--seed", "3",
                 "--by-first-roll", "--no-progress"]) == 0
    assert "by first roll:" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["--until-se", "0"], "positive, finite"),
    (["--min-games", "10"], "give --until-se"),
    (["--until-se", "0.1", "--min-games", "1000"], "--min-games"),
    (["--by-first-roll", "--no-quasi-random"], "quasi-random"),
    (["--truncate", "5"], "cubeless rollouts"),
    (["--truncate-bearoff"], "cubeless rollouts"),
])
def test_bad_combinations_are_one_line_errors(capsys, argv, message):
    code = main(["rollout", POS, "--cubeful", "-n", "100", "--no-progress", *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1


@pytest.mark.parametrize("cubeful", [[], ["--cubeful"]])
def test_by_first_roll_text_says_whose_roll_and_whose_numbers(capsys, cubeful):
    # the opening position's rows say who rolled the first roll, "(player)" or "(opponent)";
    # a legend under the table says so and that every row is the player's view (new-user trial)
    assert main(["rollout", "start", *cubeful, "-n", "1296", "--policy", "pubeval", "--seed", "3",
                 "--by-first-roll", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "3-1 (opponent)" in out
    assert "((player): the player won the opening roll with it; (opponent): the opponent did;" in out
    # a position after the opening: the first roll is the side on roll's, no legend
    assert main(["rollout", POS, *cubeful, "-n", "1296", "--policy", "pubeval", "--seed", "3",
                 "--by-first-roll", "--no-progress"]) == 0
    assert "(player): the player" not in capsys.readouterr().out


@pytest.mark.parametrize("cubeful", [False, True])
def test_first_rolls_without_games_read_n_a(capsys, cubeful):
    # 5 games from the opening position: most of the 30 first rolls have none, whose
    # numbers are not defined (the JSON says null; the text said nan)
    argv = ["rollout", "start", "-n", "5", "--by-first-roll", "-w", "1", "--seed", "1",
            "--policy", "pubeval", "--no-progress"]
    assert main(argv + (["--cubeful"] if cubeful else [])) == 0
    out = capsys.readouterr().out
    rows = out.split("by first roll:")[1].splitlines()[1:31]
    empty = [r for r in rows if r.split()[2] == "0"]
    assert len(empty) >= 20 and "nan" not in out
    assert all(r.split()[3:] == ["n/a"] * len(r.split()[3:]) for r in empty)
