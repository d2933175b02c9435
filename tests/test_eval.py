"""Policies: exact-integer pubeval against the published floating-point formula.

pubeval is G. Tesauro's public evaluation function (pubeval.c, 1993). The engines
compute it in integers (weights times 10**5, inputs times 30); here the score is
checked against a direct transcription of pubeval.c's ``setx``/``pubeval`` in
floating point, divided by the scale ``3 * 10**6``.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings

import fastbg.reference.movegen
from fastbg.spec.pubeval import CONTACT_WEIGHTS, RACE_WEIGHTS, WIN_SCORE
from fastbg.game.position import START_BOARD

from scenario import board
from strategies import boards


def pubeval_float(race: bool, b) -> float:
    """pubeval.c on a fastbg board (mover in row 0), in floating point."""
    # pubeval.c's pos[]: 1..24 the mover's points (opponent negative), 0 the
    # opponent's bar (negative), 26 the mover's checkers off.
    pos = [0] * 28
    for point in range(1, 25):
        mine = int(b[0][point - 1])
        pos[point] = mine if mine > 0 else -int(b[1][24 - point])
    pos[0] = -int(b[1][24])
    pos[26] = 15 - int(np.sum(b[0]))
    x = [0.0] * 122
    for j in range(1, 25):
        n = pos[25 - j]
        k = 5 * (j - 1)
        if n == -1:
            x[k] = 1.0
        if n == 1:
            x[k + 1] = 1.0
        if n >= 2:
            x[k + 2] = 1.0
        if n == 3:
            x[k + 3] = 1.0
        if n >= 4:
            x[k + 4] = (n - 3) / 2.0
    x[120] = -pos[0] / 2.0
    x[121] = pos[26] / 15.0
    w = RACE_WEIGHTS if race else CONTACT_WEIGHTS
    return sum(wi / 1e5 * xi for wi, xi in zip(w, x))


def _positions(engine, n=300, seed=4):
    """Positions after plays along random games (mover's frame, before swapping)."""
    rng = np.random.default_rng(seed)
    b = START_BOARD.copy()
    out = []
    while len(out) < n:
        r = int(rng.integers(36))
        plays = engine.legal_plays(b, r // 6 + 1, r % 6 + 1)
        if len(plays):
            b = plays[int(rng.integers(len(plays)))]
            out.append(b.copy())
        if not b[0].any():
            b = START_BOARD.copy()
            continue
        b = np.ascontiguousarray(b[::-1])
    return out


def test_weights_are_the_published_figures():
    assert len(RACE_WEIGHTS) == len(CONTACT_WEIGHTS) == 122
    assert all(isinstance(w, int) for w in RACE_WEIGHTS + CONTACT_WEIGHTS)
    # Spot checks against pubeval.c: wr[1], wr[114], wr[121], wc[0], wc[114], wc[121].
    assert RACE_WEIGHTS[1] == -17160 and RACE_WEIGHTS[114] == -967677
    assert RACE_WEIGHTS[121] == 342040
    assert CONTACT_WEIGHTS[0] == 25696 and CONTACT_WEIGHTS[114] == -277082
    assert CONTACT_WEIGHTS[121] == -275800
    # Every race block starts with a zero weight (no opposing blots in a race).
    assert all(RACE_WEIGHTS[5 * b] == 0 for b in range(24)) and RACE_WEIGHTS[120] == 0


@pytest.mark.parametrize("race", [False, True])
def test_integer_pubeval_is_exactly_scaled_pubeval(engine, race):
    for p in _positions(engine):
        score = engine.eval.pubeval_score(p, race)
        if not p[0].any():
            assert score == WIN_SCORE
            continue
        assert isinstance(score, int)
        assert score / 3e6 == pytest.approx(pubeval_float(race, p), abs=1e-9)


def test_engines_compute_the_same_pubeval_scores():
    pytest.importorskip("fastbg._core.movegen", reason="Cython core not built")
    from fastbg.engine import get_engine

    py, cy = get_engine("python"), get_engine("cython")
    for p in _positions(py, 200, seed=8):
        for race in (False, True):
            assert py.eval.pubeval_score(p, race) == cy.eval.pubeval_score(p, race)


def test_pubeval_prefers_bearing_off_the_last_checker(engine):
    #   6  5  4  3  2  1   roll 6-5: 2/off ends the game (score WIN_SCORE)
    #               X
    start = board(me={2: 1}, opp={20: 15})
    plays = engine.legal_plays(start, 6, 5)
    assert len(plays) == 1 and not plays[0][0].any()
    assert engine.eval.pubeval_score(plays[0], True) == WIN_SCORE


def test_pubeval_policy_is_argmax_with_first_tie(engine):
    pol = engine.make_policy("pubeval")
    assert pol.name == "pubeval"
    start = START_BOARD.copy()
    for d1, d2 in [(3, 1), (6, 5), (2, 2), (6, 6), (4, 2)]:
        plays = engine.legal_plays(start, d1, d2)
        scores = [engine.eval.pubeval_score(p, False) for p in plays]
        assert pol.choose(start, plays, np.random.PCG64DXSM(0)) == int(np.argmax(scores))
    # Identical plays tie: the first wins.
    twice = np.stack([plays[0], plays[0]])
    assert pol.choose(start, twice, np.random.PCG64DXSM(0)) == 0


def test_pubeval_policy_draws_nothing(engine):
    pol = engine.make_policy("pubeval")
    bg = np.random.PCG64DXSM(3)
    state = bg.state
    plays = engine.legal_plays(START_BOARD, 3, 1)
    pol.choose(START_BOARD, plays, bg)
    assert bg.state == state


def test_random_policy_is_one_bounded_draw(engine):
    from fastbg.spec.dice import bounded

    pol = engine.make_policy("random")
    assert pol.name == "random"
    plays = engine.legal_plays(START_BOARD, 2, 2)
    # The contract's order: by play key, ties by the board bytes.
    keys = fastbg.reference.movegen.play_keys(START_BOARD, plays)
    order = sorted(range(len(plays)), key=lambda i: (int(keys[i]), plays[i].tobytes()))
    a, b = np.random.PCG64DXSM(11), np.random.PCG64DXSM(11)
    for _ in range(50):
        assert pol.choose(START_BOARD, plays, a) == order[bounded(b, len(plays))]
    assert a.state == b.state
    # A single play needs no draw.
    state = a.state
    assert pol.choose(START_BOARD, plays[:1], a) == 0
    assert a.state == state


def test_unknown_policy_is_rejected(engine):
    with pytest.raises(ValueError, match="unknown policy"):
        engine.make_policy("gnubg")


def test_random_choice_does_not_depend_on_the_order_of_the_plays(engine):
    pol = engine.make_policy("random")
    plays = engine.legal_plays(START_BOARD, 4, 4)
    perm = np.random.default_rng(5).permutation(len(plays))
    for seed in range(20):
        i = pol.choose(START_BOARD, plays, np.random.PCG64DXSM(seed))
        j = pol.choose(START_BOARD, plays[perm], np.random.PCG64DXSM(seed))
        assert np.array_equal(plays[i], plays[perm][j])


@settings(max_examples=60, deadline=None)
@given(board=boards())
def test_play_keys_agree_between_engines(board):
    from fastbg._core.movegen import play_keys as cython_keys
    from fastbg.reference.movegen import play_keys as python_keys

    for d1, d2 in ((6, 5), (3, 3), (2, 1)):
        plays = fastbg.reference.movegen.legal_plays(board, d1, d2)
        assert np.array_equal(cython_keys(board, plays), python_keys(board, plays))


def test_random_policy_breaks_equal_keys_by_canonical_order(monkeypatch):
    # Equal keys of distinct plays are astronomically rare; force them all equal.
    from fastbg.reference import movegen as ref_movegen
    from fastbg.spec.dice import bounded
    from fastbg.reference.eval import RandomPolicy

    monkeypatch.setattr(ref_movegen, "_KEY_ARRAY", np.zeros(50, dtype=np.uint64))
    plays = ref_movegen.legal_plays(START_BOARD, 6, 5)
    shuffled = plays[::-1]
    a, b = np.random.PCG64DXSM(3), np.random.PCG64DXSM(3)
    for _ in range(10):
        i = RandomPolicy().choose(START_BOARD, shuffled, a)
        assert np.array_equal(shuffled[i], plays[bounded(b, len(plays))])
