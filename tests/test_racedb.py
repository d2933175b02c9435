"""Small-race one-sided database (fastbg._core.racedb, fastbg.reference.racedb; issue 11).

Hand-worked races, lone checkers against an independent dynamic program on dice sums,
agreement with the home-board bear-off database where both apply, the play generator
against the move generators, bitwise agreement of the two engines, the evaluator's
dispatch and ``fastbg eval``'s wording, and identical rollouts in both engines.
"""
from __future__ import annotations

import importlib
import itertools
import json
import random
from fractions import Fraction
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastbg.reference.bearoffdb as rbo
import fastbg.reference.racedb as ref
from conftest import cython_unavailable_reason
from fastbg.reference.movegen import legal_plays as reference_legal_plays

ISSUE = "XGID=-------A----------------a-:0:0:1:00:0:0:0:0:10"
TWO_EACH = "XGID=------AA---------------aa-:0:0:1:00:0:0:0:0:10"
ROLLS = tuple((d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1))


def load_core():
    reason = cython_unavailable_reason()
    if reason is not None:
        pytest.skip(reason)
    return importlib.import_module("fastbg._core.racedb")


@pytest.fixture(scope="module")
def core():
    return load_core()


@pytest.fixture(params=["python", "cython"])
def db(request):
    return ref if request.param == "python" else load_core()


def board(mine: dict, theirs: dict) -> np.ndarray:
    """A board from ``{point: checkers}`` of each side (its own numbering 1..24)."""
    b = np.zeros((2, 25), np.int8)
    for side, pts in enumerate((mine, theirs)):
        for p, n in pts.items():
            b[side, p - 1] = n
    return b


def side(pts: dict) -> list:
    c = [0] * 24
    for p, n in pts.items():
        c[p - 1] = n
    return c


# ------------------------------------------------------------------ the contract
def test_core_is_a_compiled_twin_of_the_reference(core):
    missing = [f for f in ref.__all__ if not hasattr(core, f)]
    assert not missing, f"fastbg._core.racedb lacks {missing}"
    assert (core.RACE_MAX, core.N_POSITIONS, core.K_ROLLS) == (ref.RACE_MAX, ref.N_POSITIONS,
                                                               ref.K_ROLLS)
    assert ref.RACE_MAX == 4 and ref.N_POSITIONS == comb(28, 4) == 20475
    assert ref.K_ROLLS == 33


def test_the_core_builds_the_database_quickly(core):
    core.onesided(side({24: 4}))
    seconds, size = core._build_stats()
    # well under a second on an idle machine; a generous bound for a shared one
    assert 0.0 < seconds < 3.0 and size < 8_000_000


# ------------------------------------------------------------------ worked by hand
@pytest.mark.parametrize("engine", ["cython", "python"])
def test_the_issue_position_is_23_in_36(engine):
    # X (on roll) has one checker on its 7-point, O one on its ace point. O bears off
    # with any roll, so X wins iff it bears off now: it needs 7 pips with one checker,
    # which any non-double of sum >= 7 does (6-1..6-5, 5-2..5-4, 4-3: 9 rolls x 2 = 18;
    # the intermediate point is never blocked in a race) and any double but 1-1 (2-2
    # moves 8 pips): 18 + 5 = 23 of 36.
    import fastbg.nn

    if engine == "cython":
        load_core()
    ev = fastbg.nn.evaluate(ISSUE, engine=engine)
    assert ev["win"] == pytest.approx(23 / 36, abs=1e-15)
    assert [ev[k] for k in ("win_gammon", "win_backgammon", "lose_gammon",
                            "lose_backgammon")] == [0.0] * 4
    assert ev["class"] == "race" and ev["evaluated_by"] == "the small-race database"


@pytest.mark.parametrize("engine", ["cython", "python"])
def test_two_checkers_each_is_3_in_36(engine):
    # X has checkers on its 6- and 7-points (13 pips), O on its 1- and 2-points: O is off
    # with any roll (the larger die bears the 2-point checker off, the smaller the ace
    # point's), so X must bear both off now. No non-double moves 13 pips (6-5 = 11); 3-3
    # moves 12; 4-4 (7/3, 6/2, 3/off, 2/off), 5-5 and 6-6 do: 3 of 36.
    import fastbg.nn

    if engine == "cython":
        load_core()
    ev = fastbg.nn.evaluate(TWO_EACH, engine=engine)
    assert ev["win"] == pytest.approx(3 / 36, abs=1e-15)
    assert ev["evaluated_by"] == "the small-race database"


def lone_checker(pips: int) -> list:
    """Exact distribution (Fractions) of the rolls a lone checker ``pips`` away needs to
    bear off: with no opponent and one checker, a roll moves it its total (four times the
    die of a double), so it is off at the first roll whose running total reaches ``pips``.
    An independent dynamic program on the running total."""
    dist = [Fraction(0)] * ref.K_ROLLS
    alive = {0: Fraction(1)}       # running total -> probability, not yet off
    for k in range(1, ref.K_ROLLS):
        nxt: dict = {}
        for tot, pr in alive.items():
            for d1, d2 in ROLLS:
                w = Fraction(1 if d1 == d2 else 2, 36)
                t = tot + (4 * d1 if d1 == d2 else d1 + d2)
                if t >= pips:
                    dist[k] += pr * w
                else:
                    nxt[t] = nxt.get(t, 0) + pr * w
        alive = nxt
    return dist


@pytest.mark.parametrize("point", [1, 7, 13, 24])
def test_a_lone_checker_against_an_independent_program(db, point):
    want = lone_checker(point)
    got = db.onesided(side({point: 1}))["off"]
    assert np.abs(got - np.array([float(x) for x in want])).max() < 1e-15


@pytest.mark.parametrize("mine, theirs", [(23, 1), (1, 23), (12, 10), (20, 4), (8, 8)])
def test_lone_checkers_race_exactly(db, mine, theirs):
    # One checker each (my 24-point is the opponent's ace point, so a checker on the
    # 24-point is never in a race: 23 against the ace point is the longest). With a lone
    # checker the fastest play is the only play, so the win is exact:
    # P(I need no more rolls than it) = sum_k P[k] (Q[k] + Q[k+1] + ...).
    p, q = lone_checker(mine), lone_checker(theirs)
    win = sum(p[k] * sum(q[k:]) for k in range(len(p)))
    got = db.race_probabilities(board({mine: 1}, {theirs: 1}))
    assert abs(got[0] - float(win)) < 1e-15 and got[1:].tolist() == [0.0] * 4
    if (mine, theirs) == (23, 1):
        assert win == Fraction(1, 36)      # only 6-6 moves 23 pips at once
    if (mine, theirs) == (1, 23):
        assert win == 1


# ------------------------------------------------------------------ the index
def test_the_index_is_the_lexicographic_rank(db):
    rng = random.Random(3)
    sides = set()
    while len(sides) < 300:
        c = [0] * 24
        for _ in range(rng.randint(0, 4)):
            c[rng.randrange(24)] += 1
        sides.add(tuple(c))
    ranked = sorted(sides, key=db.position_index)
    assert ranked == sorted(sides)
    assert db.position_index([0] * 24) == 0
    assert db.position_index([0] * 23 + [1]) == 1
    assert db.position_index([4] + [0] * 23) == ref.N_POSITIONS - 1
    with pytest.raises(ValueError, match="at most 4 checkers"):
        db.position_index([5] + [0] * 23)


# ------------------------------------------------------------------ plays
def test_core_plays_equal_the_core_move_generator_everywhere(core):
    assert core._check_against_movegen(0, core.N_POSITIONS, 1) == []


def test_plays_equal_the_reference_move_generator(db):
    rng = random.Random(5)
    for _ in range(40):
        c = [0] * 24
        for _ in range(rng.randint(1, 4)):
            c[rng.randrange(24)] += 1
        b = np.zeros((2, 25), np.int8)
        b[0, :24] = c
        for d1, d2 in ROLLS:
            want = sorted(tuple(int(v) for v in p[0, :24]) for p in reference_legal_plays(b, d1, d2))
            got = [tuple(int(v) for v in p) for p in db.race_plays(c, d1, d2)]
            assert got == want, (c, d1, d2)


# ------------------------------------------------------------------ the home-board database
HOME = [c for c in itertools.product(range(5), repeat=6) if 1 <= sum(c) <= ref.RACE_MAX]


@pytest.mark.parametrize("engine", ["python", "cython"])
def test_home_sides_agree_with_the_bear_off_database(engine):
    # A side inside its home board with at most 4 checkers is in both databases: the same
    # recursion and plays, so the same numbers bit for bit (the racedb keeps 33 entries,
    # the bear-off database 31; the rest are zeros).
    d = ref if engine == "python" else load_core()
    bo = rbo if engine == "python" else importlib.import_module("fastbg._core.bearoffdb")
    assert len(HOME) == comb(10, 6) - 1
    for c in HOME:
        a = d.onesided(list(c) + [0] * 18)
        b = bo.onesided(c)
        assert a["off"][:rbo.K_OFF].tolist() == b["off"].tolist(), c
        assert not a["off"][rbo.K_OFF:].any() and a["mean_off"] == b["mean_off"]


def test_home_races_agree_with_the_bear_off_probabilities(db):
    # both sides home: the evaluator uses the bear-off database there, but the two race
    # sums must be the same bits
    rng = random.Random(9)
    for _ in range(100):
        me, opp = rng.choice(HOME), rng.choice(HOME)
        b = np.zeros((2, 25), np.int8)
        b[0, :6], b[1, :6] = me, opp
        p = ref._off(tuple(b[0, :24].tolist()))[0]
        q = ref._off(tuple(b[1, :24].tolist()))[0]
        win = min(max(rbo._win_sum(p, q), 0.0), 1.0)
        assert win == rbo.bearoff_probabilities(b)[0]
        assert not db.is_small_race(b)


def test_distributions_are_normalised_and_bounded(core):
    worst = core.onesided(side({24: 4}))
    # 4 checkers on the 24-point rolling 2-1 every time need 96 / 3 = 32 rolls
    assert worst["off"][ref.K_ROLLS - 1] > 0.0
    rng = random.Random(11)
    for _ in range(200):
        c = [0] * 24
        for _ in range(rng.randint(1, 4)):
            c[rng.randrange(24)] += 1
        e = core.onesided(c)
        assert e["off"][0] == 0.0 and (e["off"] >= 0).all()
        assert abs(e["off"].sum() - 1.0) < 1e-12
        assert e["mean_off"] == pytest.approx(float(np.arange(ref.K_ROLLS) @ e["off"]), rel=1e-12)


# ------------------------------------------------------------------ the two engines
@st.composite
def small_races(draw):
    """A small race: 1..4 checkers a side on its points 1..12 (so no contact), at least
    one checker beyond a 6-point (not a home-board bear-off)."""
    b = np.zeros((2, 25), np.int8)
    for s in (0, 1):
        for _ in range(draw(st.integers(1, ref.RACE_MAX))):
            b[s, draw(st.integers(0, 11))] += 1
    if not b[:, 6:].any():     # move a checker of one side out of its home board
        s = draw(st.integers(0, 1))
        b[s, int(np.flatnonzero(b[s])[0])] -= 1
        b[s, draw(st.integers(6, 11))] += 1
    return b


@settings(max_examples=60, deadline=None)
@given(b=small_races())
def test_engines_agree_bit_for_bit_on_small_races(b):
    core = load_core()
    assert ref.is_small_race(b) and core.is_small_race(b)
    r = ref.race_probabilities(b)
    c = core.race_probabilities(b)
    assert r.tolist() == c.tolist()
    for s in (0, 1):
        assert ref.onesided(b[s, :24])["off"].tolist() == core.onesided(b[s, :24])["off"].tolist()


@settings(max_examples=25, deadline=None)
@given(b=small_races())
def test_the_evaluator_reads_small_races_from_the_database(b):
    from fastbg._core import evaluator as cev
    from fastbg.reference import evaluator as rev

    load_core()
    want = ref.race_probabilities(b)
    assert rev.EvalPolicy().probabilities(b).tolist() == want.tolist()
    assert cev.EvalPolicy().probabilities(b).tolist() == want.tolist()


def test_which_races_are_small(db):
    assert db.is_small_race(board({7: 1}, {1: 1}))
    assert db.is_small_race(board({12: 4}, {2: 1, 9: 3}))
    assert not db.is_small_race(board({12: 5}, {2: 1}))           # 5 checkers: the race net
    assert not db.is_small_race(board({6: 2}, {1: 1}))            # home: the bear-off database
    assert not db.is_small_race(board({20: 1}, {10: 1}))          # contact
    b = board({7: 1}, {1: 1})
    b[0, 24] = 1
    assert not db.is_small_race(b)                                # a checker on the bar
    with pytest.raises(ValueError, match="not a small race"):
        db.race_probabilities(board({12: 5}, {2: 1}))


def test_a_race_of_five_checkers_is_still_the_race_net():
    import fastbg.nn

    ev = fastbg.nn.evaluate(board({8: 5}, {1: 1}))
    assert ev["evaluated_by"] == "the race net"


@pytest.mark.parametrize("position, games, seed", [
    ("FggAANQAAAAAAA", 40, 3),
    (ISSUE, 30, 8),
])
def test_a_small_race_rolls_out_the_same_in_both_engines(position, games, seed):
    # FggAANQAAAAAAA: the player on roll has checkers on its 6-, 7- and 8(2)-points, the
    # opponent on its 2(2)-, 3- and 9-points. Every position of these games is a small race
    # or a bear-off, read by the databases in both engines: the same plays, the same counts
    import fastbg

    load_core()
    a = fastbg.rollout(position, games, seed=seed, policy="nn", engine="python")
    b = fastbg.rollout(position, games, seed=seed, policy="nn", engine="cython", workers=2)
    assert a.counts.tolist() == b.counts.tolist() and a.games == games
    assert a.counts[[1, 2, 4, 5]].tolist() == [0, 0, 0, 0]     # no gammon is possible


# ------------------------------------------------------------------ fastbg eval
def test_fastbg_eval_names_the_small_race_database(capsys):
    from fastbg.cli import main

    load_core()
    assert main(["eval", ISSUE]) == 0
    out = capsys.readouterr().out
    assert "a race position, read by the small-race database\n" in out
    assert "hidden units" not in out and "0.6389" in out
    assert main(["eval", ISSUE, "--json", "--engine", "python"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["evaluated_by"] == "the small-race database" and d["win"] == pytest.approx(23 / 36)


def test_play_equities_of_small_races_agree_between_engines():
    # the core's incremental play equities take their own path to the database
    from fastbg._core import evaluator as cev
    from fastbg.reference import evaluator as rev

    load_core()
    r, c = rev.EvalPolicy(), cev.EvalPolicy()
    rng = random.Random(13)
    for _ in range(10):
        b = np.zeros((2, 25), np.int8)
        for s in (0, 1):
            for _ in range(rng.randint(1, 4)):
                b[s, rng.randrange(12)] += 1
        for d1, d2 in ((6, 5), (3, 3), (2, 1)):
            plays = reference_legal_plays(b, d1, d2)
            if len(plays):
                assert r.play_equities(b, plays).tolist() == c.play_equities(b, plays).tolist()
