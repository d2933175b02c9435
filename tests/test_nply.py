"""n-ply evaluation (issue 38, item 1): GNU Backgammon's plies, move filters, both engines.

The spec (:mod:`fastbg.spec.nply`) says how plies count and how a filter prunes; the core's
``EvalPolicy.nply_probabilities`` / ``rank_nply`` and the reference's must agree bit for bit.
The quick cases are small races and bear-offs (few plays, database values), a contact
position at 1 ply, and a 3-ply bear-off; contact positions at 2 ply in the pure-Python
engine take seconds each and are marked slow.
"""
from __future__ import annotations

import threading

import numpy as np
import pytest

import fastbg
from fastbg.engine import get_engine
from fastbg.spec import nply
from fastbg.spec.nn import equity
from fastbg.spec.nply import KEEP_ALL, LARGE, NORMAL, FilterLevel, MoveFilter, survivors


def board(me: dict, opp: dict) -> np.ndarray:
    """A (2, 25) board from {point: checkers} of each side (points 1..24, 25 the bar)."""
    b = np.zeros((2, 25), dtype=np.int8)
    for p, n in me.items():
        b[0, p - 1] = n
    for p, n in opp.items():
        b[1, p - 1] = n
    return b


BEAROFF = board({1: 2, 3: 1, 5: 1}, {2: 2, 4: 1, 6: 1})
RACE = board({8: 1, 3: 2, 12: 1}, {10: 1, 4: 2, 2: 1})
# a small contact position: each side has a checker back on the other's ace point
CONTACT_SMALL = board({24: 1, 6: 3, 5: 2}, {24: 1, 6: 3, 4: 2})


@pytest.fixture(scope="module")
def evaluators():
    return (get_engine("cython").evaluator.EvalPolicy(),
            get_engine("python").evaluator.EvalPolicy())


def plays_of(b, dice):
    return np.array([p.board for p in fastbg.legal_plays(fastbg.Position(b), dice)], dtype=np.int8)


# ----------------------------------------------------------------- the spec


def test_presets_are_gnubg_normal_and_large():
    assert NORMAL.levels == (FilterLevel(0, 8, 0.16), None, FilterLevel(0, 2, 0.04))
    assert LARGE.levels == (FilterLevel(0, 16, 0.32), None, FilterLevel(0, 4, 0.08))
    assert nply.DEFAULT_FILTER is NORMAL
    assert KEEP_ALL.levels == (None, None, None)
    assert nply.move_filter("large") is LARGE and nply.move_filter(None) is NORMAL
    assert MoveFilter.from_dict(NORMAL.as_dict()) == NORMAL
    assert MoveFilter([(1, 2, 0.5)]).levels == (FilterLevel(1, 2, 0.5), None, None)
    assert "up to 8 more within 0.16" in NORMAL.describe(2)


@pytest.mark.parametrize("bad", [[(0, -1, 0.1)], [(0, 1, -0.1)], [(0, 1, float("nan"))],
                                 [(True, 1, 0.1)], [(0, 1)], [None] * 4, "normal", 3])
def test_malformed_filters_are_refused(bad):
    with pytest.raises(ValueError):
        MoveFilter(bad)


def test_move_filter_names():
    with pytest.raises(ValueError, match="unknown move filter"):
        nply.move_filter("huge")


@pytest.mark.parametrize("bad", [-1, 4, 1.5, "1", True, None])
def test_bad_ply_is_a_value_error(bad, evaluators):
    with pytest.raises(ValueError, match="ply must be 0, 1, 2 or 3"):
        nply.check_ply(bad)
    for ev in evaluators:
        with pytest.raises(ValueError, match="ply must be"):
            ev.nply_probabilities(RACE, bad)


def test_survivors():
    v = [0.5, 0.45, 0.3, 0.2, -1.0]
    assert survivors(v, 0, 8, 0.16) == 2           # 0.3 is 0.2 behind
    assert survivors(v, 0, 8, 0.3) == 4
    assert survivors(v, 0, 1, 1.0) == 1
    assert survivors(v, 3, 0, 0.0) == 3            # accepted whatever their equity
    assert survivors(v, 3, 1, 0.0) == 3
    assert survivors(v, 0, 0, 0.0) == 1            # the best is always kept
    assert survivors(v, 10, 0, 0.0) == 5
    assert survivors([], 0, 8, 0.16) == 0


def test_filter_arrays():
    a, e, t = nply.filter_arrays(NORMAL, 3)
    assert a.tolist() == [0, -1, 0] and e.tolist() == [8, 0, 2] and t.tolist() == [0.16, 0, 0.04]
    a, _, _ = nply.filter_arrays(NORMAL, 1)
    assert a.tolist() == [0, -1, -1]


# ----------------------------------------------------------------- position values


def test_one_ply_is_the_lookahead(evaluators):
    cy, py = evaluators
    start = fastbg.Position.parse("start").board
    b = np.stack([start, RACE, CONTACT_SMALL])
    got = cy.nply_probabilities(b, 1)
    assert np.array_equal(got, cy.lookahead(b, plies=1))
    assert np.array_equal(got, py.nply_probabilities(b, 1))
    assert np.array_equal(cy.nply_probabilities(b, 0), np.array([cy.probabilities(x) for x in b]))


@pytest.mark.parametrize("ply", [1, 2])
@pytest.mark.parametrize("name", ["bearoff", "race"])
def test_engines_agree_bit_for_bit(evaluators, name, ply):
    cy, py = evaluators
    b = {"bearoff": BEAROFF, "race": RACE}[name]
    got = cy.nply_probabilities(b, ply)
    assert np.array_equal(got, py.nply_probabilities(b, ply))
    assert got.shape == (1, 5) and got.dtype == np.float64


def test_engines_agree_at_three_ply_in_a_bear_off(evaluators):
    cy, py = evaluators
    assert np.array_equal(cy.nply_probabilities(BEAROFF, 3), py.nply_probabilities(BEAROFF, 3))


@pytest.mark.slow
@pytest.mark.parametrize("ply", [2, 3])
def test_engines_agree_in_contact_and_race_at_depth(evaluators, ply):
    cy, py = evaluators
    b = CONTACT_SMALL if ply == 2 else RACE
    assert np.array_equal(cy.nply_probabilities(b, ply), py.nply_probabilities(b, ply))


def test_deeper_bear_off_values_move_little(evaluators):
    # the bear-off database is exact for each side alone: the plies agree to a few 0.01
    cy, _ = evaluators
    v = [equity(cy.nply_probabilities(BEAROFF, k)[0]) for k in range(4)]
    assert max(v) - min(v) < 0.05


def test_game_over_is_refused(evaluators):
    over = board({}, {6: 3})
    for ev in evaluators:
        with pytest.raises(ValueError, match="over"):
            ev.nply_probabilities(over, 1)


def test_a_roll_that_bears_off_the_last_checker_is_exact(evaluators):
    # the mover has one checker on its ace point: every roll wins; the opponent has
    # borne none off and has a checker in the mover's home board: a backgammon
    b = board({1: 1}, {23: 1, 6: 14})
    for ev in evaluators:
        for ply in (1, 2, 3):
            assert ev.nply_probabilities(b, ply)[0].tolist() == [1.0, 1.0, 1.0, 0.0, 0.0]


def test_threads_share_nothing(evaluators):
    cy, _ = evaluators
    boards = np.stack([RACE, CONTACT_SMALL, BEAROFF, fastbg.Position.parse("start").board])
    want = cy.nply_probabilities(boards, 2)
    got = [None] * 4

    def work(i):
        got[i] = cy.nply_probabilities(boards, 2)
    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for g in got:
        assert np.array_equal(g, want)


# ----------------------------------------------------------------- ranking plays


@pytest.mark.parametrize("ply", [0, 1, 2])
def test_rank_agrees_bit_for_bit(evaluators, ply):
    cy, py = evaluators
    plays = plays_of(RACE, (3, 1))
    a = cy.rank_nply(RACE, plays, ply, KEEP_ALL)
    b = py.rank_nply(RACE, plays, ply, KEEP_ALL)
    for x, y in zip(a, b):
        assert np.array_equal(x, y)
    order, probs, plies = a
    assert sorted(order.tolist()) == list(range(len(plays)))
    assert (plies == ply).all()
    eq = equity(probs[order])
    assert (np.diff(eq) <= 0).all()


def test_rank_at_zero_ply_is_the_zero_ply_value(evaluators):
    cy, _ = evaluators
    start = fastbg.Position.parse("start").board
    plays = plays_of(start, (6, 4))
    order, probs, plies = cy.rank_nply(start, plays, 0)
    assert (plies == 0).all()
    for j in range(len(plays)):
        r = cy.probabilities(plays[j][::-1])
        assert np.array_equal(probs[j], [1.0 - r[0], r[3], r[4], r[1], r[2]])


def test_filter_keeps_the_promising_plays(evaluators):
    cy, py = evaluators
    start = fastbg.Position.parse("start").board
    plays = plays_of(start, (6, 4))
    o0, p0, _ = cy.rank_nply(start, plays, 0)
    eq0 = equity(p0)
    order, probs, plies = cy.rank_nply(start, plays, 1, NORMAL)
    kept = survivors(eq0[o0].tolist(), 0, 8, 0.16)
    assert 1 <= kept <= 8
    assert (plies[order[:kept]] == 1).all() and (plies[order[kept:]] == 0).all()
    assert set(order[:kept].tolist()) == set(o0[:kept].tolist())
    assert order[kept:].tolist() == o0[kept:].tolist()       # the dropped keep their 0-ply order
    # their values at 1 ply are the positions' 1-ply values, flipped
    for j in order[:kept]:
        r = cy.nply_probabilities(plays[j][::-1], 1)[0]
        assert np.array_equal(probs[j], [1.0 - r[0], r[3], r[4], r[1], r[2]])
    # the same in the reference (1 ply in contact: about a second)
    for x, y in zip((order, probs, plies), py.rank_nply(start, plays, 1, NORMAL)):
        assert np.array_equal(x, y)


def test_skipped_levels_and_three_ply_ranking(evaluators):
    cy, py = evaluators
    plays = plays_of(BEAROFF, (2, 1))
    assert len(plays) >= 3
    f = MoveFilter([(2, 0, 0.0), None, (2, 0, 0.0)])
    a = cy.rank_nply(BEAROFF, plays, 3, f)
    b = py.rank_nply(BEAROFF, plays, 3, f)
    for x, y in zip(a, b):
        assert np.array_equal(x, y)
    order, _, plies = a
    assert plies[order[:2]].tolist() == [3, 3]
    assert (plies[order[2:]] == 0).all()            # level 1 skipped: nobody stopped at 1 or 2


def test_one_survivor_stops_the_ranking(evaluators):
    # as GNU Backgammon's hint: once a level leaves one play, the choice is made
    start = fastbg.Position.parse("start").board
    plays = plays_of(start, (3, 1))
    for ev in evaluators:
        order, probs, plies = ev.rank_nply(start, plays, 2, [(0, 1, 0.0)])
        assert (plies == 0).all()
        assert np.array_equal(probs, ev.rank_nply(start, plays, 0)[1])


def test_game_ending_plays_are_exact_at_any_ply(evaluators):
    b = board({1: 1, 2: 1}, {22: 1, 6: 14})
    plays = plays_of(b, (2, 1))
    for ev in evaluators:
        order, probs, plies = ev.rank_nply(b, plays, 2, KEEP_ALL)
        assert probs[order[0]].tolist() == [1.0, 1.0, 1.0, 0.0, 0.0]


@pytest.mark.slow
def test_rank_agrees_in_contact_at_two_ply(evaluators):
    cy, py = evaluators
    plays = plays_of(CONTACT_SMALL, (4, 2))
    f = MoveFilter([(0, 2, 0.2)])
    for x, y in zip(cy.rank_nply(CONTACT_SMALL, plays, 2, f), py.rank_nply(CONTACT_SMALL, plays, 2, f)):
        assert np.array_equal(x, y)


# ----------------------------------------------------------------- API and CLI


def test_evaluate_takes_a_ply():
    e0 = fastbg.evaluate("start")
    assert e0 == fastbg.nn.evaluate("start", ply=0) and e0["ply"] == 0
    start = fastbg.Position.parse("start").board
    assert e0["win"] == float(get_engine("cython").evaluator.EvalPolicy().probabilities(start)[0])
    e2 = fastbg.evaluate("start", ply=2)
    want = get_engine("cython").evaluator.EvalPolicy().nply_probabilities(start, 2)[0]
    assert [e2[k] for k in fastbg.PROBABILITY_KEYS] == want.tolist() and e2["ply"] == 2
    assert e2["equity"] == pytest.approx(float(equity(want)))
    assert fastbg.evaluate(RACE, engine="python", ply=1)["equity"] == fastbg.evaluate(RACE, ply=1)["equity"]
    with pytest.raises(ValueError, match="ply must be"):
        fastbg.evaluate("start", ply=4)


def test_rank_plays_at_depth():
    ranked = fastbg.rank_plays("start", "64", ply=2)
    plies = [r.ply for r in ranked]
    assert plies == sorted(plies, reverse=True) and plies[0] == 2 and 0 in plies
    kept = [r for r in ranked if r.ply == 2]
    assert 1 <= len(kept) <= 8
    assert [r.equity for r in kept] == sorted((r.equity for r in kept), reverse=True)
    every = fastbg.rank_plays("start", "64", ply=1, move_filter="all")
    assert {r.ply for r in every} == {1}
    assert fastbg.rank_plays("start", "64", ply=1, move_filter=[(0, 1, 0.0)])[1].ply == 0
    with pytest.raises(ValueError, match="ply must be"):
        fastbg.rank_plays("start", "64", ply=-1)
    with pytest.raises(ValueError, match="unknown move filter"):
        fastbg.rank_plays("start", "64", ply=1, move_filter="huge")


def test_rank_plays_engines_agree():
    a = fastbg.rank_plays(fastbg.Position(RACE), "31", ply=1, move_filter="all")
    b = fastbg.rank_plays(fastbg.Position(RACE), "31", ply=1, move_filter="all", engine="python")
    assert [(r.move, r.probabilities, r.ply) for r in a] == [(r.move, r.probabilities, r.ply) for r in b]


def test_cli_eval_and_moves_at_depth(capsys):
    import json

    from fastbg.cli import main
    assert main(["eval", "start", "--ply", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ply"] == 1 and out["equity"] == fastbg.evaluate("start", ply=1)["equity"]
    assert main(["eval", "start", "--ply", "2"]) == 0
    assert capsys.readouterr().out.startswith("2-ply evaluation of 4HPwATDgc/ABMA")
    assert main(["moves", "start", "64", "--eval", "--ply", "2", "--filter", "large", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ply"] == 2 and out["move_filter"]["name"] == "large"
    assert out["move_filter"]["levels"][0] == {"accept": 0, "extra": 16, "threshold": 0.32}
    assert out["plays"][0]["ply"] == 2
    assert main(["moves", "start", "64", "--eval", "--ply", "1"]) == 0
    text = capsys.readouterr().out
    assert "move filter normal" in text and " ply" in text


@pytest.mark.parametrize("argv, fragment", [
    (["eval", "start", "--ply", "4"], "invalid choice: 4"),
    (["moves", "start", "31", "--eval", "--ply", "-1"], "invalid choice: -1"),
    (["moves", "start", "31", "--rollout", "--ply", "2"], "--rollout picks its candidates at --ply 0 or 1"),
    (["moves", "start", "31", "--eval", "--filter", "large"], "--filter is for --eval with --ply"),
    (["moves", "start", "31", "--eval", "--ply", "1", "--filter", "huge"], "invalid choice: 'huge'"),
])
def test_cli_bad_ply_one_line_exit_2(capsys, argv, fragment):
    from fastbg.cli import main
    with pytest.raises(SystemExit) as exc:
        raise SystemExit(main(argv))
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert fragment in err and len(err.strip().splitlines()) == 1
