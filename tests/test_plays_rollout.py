"""Candidate plays: notation read back, plays ranked by the nn, rolled out side by side."""
from __future__ import annotations

import json

import numpy as np
import pytest

from fastbg.cli import main
from fastbg.formats.notation import parse_play
from fastbg.game.plays import find_play, legal_plays
from fastbg.rollouts.plays import rank_plays, rollout_plays

from exact import board_from

pytest.importorskip("fastbg._core.rollout", reason="Cython core not built")

#: A race where the mover has real choices (6-2: 10/4 or 10/8 6/4, ...), short games.
RACE = board_from({10: 2, 8: 2, 6: 3, 5: 3, 4: 3, 2: 2}, {9: 2, 7: 3, 6: 3, 5: 3, 3: 2, 1: 2})


# ----------------------------------------------------------------- notation


@pytest.mark.parametrize("text, moves", [
    ("24/18 13/11", [(24, 18), (13, 11)]),
    ("bar/22*", [(25, 22)]),
    ("6/off 5/off", [(6, 0), (5, 0)]),
    ("8/5(2)", [(8, 5), (8, 5)]),
    ("24/18*/13", [(24, 18), (18, 13)]),
    ("Bar/20, 13/9", [(25, 20), (13, 9)]),
])
def test_parse_play(text, moves):
    assert parse_play(text) == moves


@pytest.mark.parametrize("text, match", [
    ("", "empty"), ("24-18", "not a move"), ("8/12", "not forward"), ("26/20", "not in 1..24"),
    ("off/5", "'bar' can only start"), ("13/bar", "'bar' can only start"),
    ("13/7(9)", r"repeat count \(9\) is more than a roll allows"),
    ("24/18 13/7(12)", r"repeat count \(12\) of '13/7\(12\)'"), ("13/7(0)", "at least 1"),
])
def test_parse_play_errors(text, match):
    with pytest.raises(ValueError, match=match):
        parse_play(text)


def test_find_play_reads_any_order_and_optional_hit_marks():
    a = find_play("start", "31", "8/5 6/5")
    assert a.move == "8/5 6/5"
    assert find_play("start", "31", "6/5 8/5").board.tobytes() == a.board.tobytes()
    assert find_play("start", "64", "24/14").move == find_play("start", "64", "24/18/14").move
    plays = {p.move for p in legal_plays("start", "66")}
    assert find_play("start", "66", "13/7(2) 24/18(2)").move in plays


def test_find_play_refuses_what_is_not_legal():
    with pytest.raises(ValueError, match="not a legal play of 3-1.*legal plays: "):
        find_play("start", "31", "24/21 24/23 13/10")
    with pytest.raises(ValueError, match="has none"):
        find_play("start", "31", "bar/22")


@pytest.mark.parametrize("dice, move, match", [
    # a repeat count the roll cannot have is named, not blamed on a missing checker
    ("64", "13/7(9)", r"repeat count \(9\) is more than a roll allows"),
    ("64", "13/7(3)", r"repeat count \(3\), more than a 6-4 allows: it moves at most 2"),
    ("66", "24/18(3)", r"more checkers from 24 than .* has there \(2\); check the repeat count"),
])
def test_find_play_names_a_repeat_count_the_roll_cannot_have(dice, move, match):
    with pytest.raises(ValueError, match=match):
        find_play("start", dice, move)
    # a count a roll can have is read: 5/off(2) with 6-5 when 5 is the highest point
    b = board_from({5: 2}, {6: 5, 13: 5, 24: 2, 8: 3})
    assert find_play(b, "65", "5/off(2)").move == "5/off(2)"
    assert find_play("start", "66", "13/7(4)").move == "13/7(4)"


# ----------------------------------------------------------------- ranking


@pytest.mark.parametrize("pid, dice", [("start", "31"), ("4HPwATDgc/ABMA", "64"), (RACE, "62")])
def test_rank_plays_best_first_and_the_first_is_the_policys_choice(pid, dice):
    from fastbg.engine import get_engine
    from fastbg.game import Position

    ranked = rank_plays(Position.parse(pid), dice)
    eq = [r.equity for r in ranked]
    assert eq == sorted(eq, reverse=True)
    assert len(ranked) == len(legal_plays(Position.parse(pid), dice))
    eng = get_engine("cython")
    pos = Position.parse(pid)
    plays = eng.legal_plays(np.ascontiguousarray(pos.board), *sorted(map(int, dice), reverse=True))
    chosen = eng.make_policy("nn").choose(pos.board, plays, np.random.PCG64DXSM(0))
    assert ranked[0].board.tobytes() == np.asarray(plays[chosen]).tobytes()
    for r in ranked:
        p = r.probabilities
        assert p["equity"] == pytest.approx((2 * p["win"] - 1) + p["win_gammon"] - p["lose_gammon"]
                                            + p["win_backgammon"] - p["lose_backgammon"])


def test_rank_plays_at_one_ply_and_game_ending_plays():
    ranked = rank_plays("start", "21", ply=1)
    assert ranked[0].move == "24/23 13/11" or ranked[0].move == "13/11 6/5"
    # bearing off the last checker is certain: equity 1 (the opponent has borne off some)
    last = board_from({2: 1}, {6: 5})
    r = rank_plays(last, "21")
    assert r[0].over and r[0].equity == 1.0 and r[0].probabilities["win"] == 1.0


# ----------------------------------------------------------------- rollouts


def test_each_game_has_its_own_dice_stream_shared_by_the_candidates():
    """Common random numbers, game by game: game j of block k is the game from the position
    after the play with the dice of SeedSequence(seed, spawn_key=(k, j))."""
    from fastbg.engine import get_engine
    from fastbg.game import Position

    res = rollout_plays(RACE, "62", 3, seed=4, top=1, policy="pubeval", vr=False,
                        quasi_random=False)
    eng = get_engine("cython")
    after = np.ascontiguousarray(Position.parse(res.plays[0]["position_id"]).board)
    wins = 0
    for j in range(3):
        g = np.random.PCG64DXSM(np.random.SeedSequence(4, spawn_key=(0, j)))
        c = eng.rollout_block(after, 1, g, "pubeval")
        wins += int(c[3:].sum())       # the opponent (on roll after the play) lost
    assert res.plays[0]["win"] == pytest.approx(wins / 3)


def test_common_dice_make_the_difference_precise():
    """Plain Monte Carlo, two plays of a race: the same dice follow both, so their
    difference has a far smaller standard error than either equity."""
    res = rollout_plays(RACE, "62", 3000, seed=1, workers=2, top=2, policy="pubeval", vr=False)
    a, b = res.plays
    assert b["diff"] == pytest.approx(b["equity"] - a["equity"])
    assert b["diff_stderr"] < 0.5 * min(a["stderr"]["equity"], b["stderr"]["equity"])
    assert sum(p["p_best"] for p in res.plays) == pytest.approx(1.0)
    assert a["diff"] == 0.0 and a["equity"] >= b["equity"]


def test_plays_rollout_does_not_depend_on_workers_and_both_engines_agree():
    kw = dict(top=2, policy="nn")
    a = rollout_plays(RACE, "62", 1500, seed=2, workers=1, **kw)
    b = rollout_plays(RACE, "62", 1500, seed=2, workers=2, **kw)
    assert a.plays == b.plays
    c = rollout_plays(RACE, "62", 4, seed=3, **kw)
    d = rollout_plays(RACE, "62", 4, seed=3, engine="python", **kw)
    assert c.plays == d.plays


def test_default_candidates_are_within_010_of_the_best_at_most_8_and_at_least_2():
    res = rollout_plays("start", "66", 100, seed=1)
    ranked = rank_plays("start", "66")
    want = [r.move for r in ranked if r.equity >= ranked[0].equity - 0.10][:8]
    want = want if len(want) >= 2 else [r.move for r in ranked[:2]]   # (66: one within)
    assert sorted(p["move"] for p in res.plays) == sorted(want)
    s = res.to_dict()["settings"]
    assert s["common_random_numbers"] and s["dice_played"] == [6, 6] and s["seed"] == 1


def test_default_candidates_are_at_least_the_two_best(capsys):
    # 3-1 from the start has one play within 0.10 of the best at 0 ply: rolled out alone,
    # it was compared with nothing (P(best) 100%)
    ranked = rank_plays("start", "31")
    assert sum(r.equity >= ranked[0].equity - 0.10 for r in ranked) == 1
    assert main(["moves", "start", "31", "--rollout", "--games", "100", "--seed", "1",
                 "--policy", "pubeval", "--json", "--no-progress"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert sorted(p["move"] for p in d["plays"]) == sorted(r.move for r in ranked[:2])
    assert d["settings"]["candidates"] == ("within 0.1 of the best, at most 8 (the 2 best: "
                                           "1 within)")
    # ... unless max_plays says fewer, or there are fewer plays; the tables keep min_plays 1
    assert len(rollout_plays("start", "31", 10, seed=1, policy="pubeval", max_plays=1).plays) == 1
    assert len(rollout_plays("start", "31", 10, seed=1, policy="pubeval", min_plays=1).plays) == 1
    forced = board_from({1: 1, 6: 2}, {6: 2})    # 6-6: 6/off(2) 1/off is the one play
    assert len(rank_plays(forced, "66")) == 1
    assert len(rollout_plays(forced, "66", 10, seed=1, policy="pubeval").plays) == 1
    with pytest.raises(ValueError, match="min_plays must be a positive integer"):
        rollout_plays("start", "31", 10, min_plays=0)
    from fastbg.cli import build_parser

    help_text = " ".join(build_parser().commands["moves"].format_help().split())
    assert "at most 8 but at least the 2 best if there are two" in help_text


def test_plays_rollout_errors():
    with pytest.raises(ValueError, match="not a legal play"):
        rollout_plays("start", "31", 10, plays=["24/18"])
    with pytest.raises(ValueError, match="give the roll"):
        rollout_plays("start", None, 10)
    with pytest.raises(ValueError, match="top must be"):
        rollout_plays("start", "31", 10, top=0)


# ----------------------------------------------------------------- command line


def test_cli_moves_eval_and_rollout_json(capsys):
    assert main(["moves", "start", "31", "--eval", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["plays"][0]["move"] == "8/5 6/5" and d["plays"][0]["diff"] == 0.0
    assert main(["moves", "start", "43", "--rollout", "--games", "200", "--seed", "1",
                 "--play", "24/20 13/10", "--play", "13/10 13/9", "--json", "--no-progress"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert [set(p) >= {"move", "position_id", "win", "win_gammon", "win_backgammon",
                       "lose_gammon", "lose_backgammon", "equity", "stderr", "diff",
                       "diff_stderr", "p_best"} for p in d["plays"]] == [True, True]
    assert d["position_id"] == "4HPwATDgc/ABMA" and d["dice"] == [4, 3] and "settings" in d


def test_cli_moves_rollout_text_and_errors(capsys):
    assert main(["moves", "start", "21", "--rollout", "--games", "100", "--seed", "1", "--top",
                 "2", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "the same dice for every play" in out and "P(best)" in out
    assert main(["moves", "start", "21", "--top", "2"]) == 2
    assert "--top is for --rollout" in capsys.readouterr().err
    assert main(["moves", "start", "21", "--rollout", "--play", "24/10"]) == 2
    err = capsys.readouterr().err
    assert "not a legal play" in err and "Traceback" not in err
    assert main(["moves", "start", "64", "--rollout", "--play", "13/7(9)"]) == 2
    err = capsys.readouterr().err
    assert "repeat count (9)" in err and "has none" not in err and len(err.splitlines()) == 1


def test_a_marked_hit_must_hit():
    # the opponent's blot on its 20-point is on the mover's 5-point
    b = board_from({8: 2, 6: 5, 13: 5, 24: 2, 7: 1}, {20: 1, 6: 5, 8: 3, 13: 4, 24: 2})
    hit = find_play(b, "31", "8/5* 6/5")
    assert hit.board[1, 24] == 1               # the blot went to the bar
    assert find_play(b, "31", "8/5 6/5").board.tobytes() == hit.board.tobytes()
    with pytest.raises(ValueError, match="no blot"):
        find_play("start", "31", "8/5* 6/5")


def test_cli_moves_options_that_need_rollout(capsys):
    for extra, name in ((["--games", "100"], "--games"), (["--seed", "1"], "--seed"),
                        (["--vr"], "--vr"), (["--no-quasi-random"], "--no-quasi-random"),
                        (["--no-vr"], "--no-vr"),
                        # --policy was taken and ignored: the 0-ply ranking said nothing of
                        # it (new-user trial)
                        (["--eval", "--policy", "nn-1ply"], "--policy"),
                        (["--policy", "random"], "--policy")):
        assert main(["moves", "start", "31", *extra]) == 2
        assert f"error: {name} is for --rollout" in capsys.readouterr().err, extra
    assert main(["moves", "start", "31", "--rollout", "--top", "2", "--play", "8/5 6/5"]) == 2
    assert "either --top" in capsys.readouterr().err


def test_rolled_out_probabilities_stay_in_0_1_and_ply_needs_eval(capsys):
    res = rollout_plays("start", "64", 200, seed=1)
    for p in res.plays:
        for k in ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon"):
            assert 0.0 <= p[k] <= 1.0, (p["move"], k, p[k])
    assert main(["moves", "start", "43", "--ply", "1"]) == 2
    assert "--ply is for --eval" in capsys.readouterr().err
