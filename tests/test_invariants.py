"""Invariants over thousands of random games, for each engine.

Games are played move by move here (dice from numpy, the random policy), and every
play is checked: 15 checkers a side (on board plus off), no point held by both
sides, the mover's pip count drops by the dice it played, the opponent's checkers
only move to its bar when hit, and all plays of one roll use the same number of
dice.
"""
from __future__ import annotations

import numpy as np
import pytest

PIPS = np.arange(1, 26)


def _check_play(before, after, d1, d2):
    for row in after:
        assert 0 <= row.min() and row.sum() <= 15
    for i in range(24):
        assert not (after[0, i] and after[1, 23 - i]), "point held by both sides"
    # Total checkers (board + off) per side are conserved by construction of
    # 'off' = 15 - sum; the mover cannot gain checkers:
    assert after[0].sum() <= before[0].sum()
    # Opponent: same count on board; only hits move its checkers, each to its bar.
    assert after[1].sum() == before[1].sum()
    diff = after[1].astype(int) - before[1].astype(int)
    hits = int(diff[24])
    assert hits >= 0 and (diff[:24] <= 0).all() and -diff[:24].sum() == hits
    # Mover's pips drop by the dice played; a checker borne off may use a larger die.
    borne = int(before[0].sum() - after[0].sum())
    drop = int(before[0] @ PIPS - after[0] @ PIPS)
    dice = [d1] * 4 if d1 == d2 else [d1, d2]
    if borne == 0:
        return drop
    assert 0 < drop <= sum(dice)
    return None


def _random_game(engine, rng, bitgen_seed):
    from fastbg.position import START_BOARD

    board = np.array(START_BOARD)
    for _ in range(2000):
        d1, d2 = (int(x) for x in rng.integers(1, 7, size=2))
        plays = engine.legal_plays(board, d1, d2)
        drops = set()
        for p in plays:
            drop = _check_play(board, p, d1, d2)
            if drop is not None:
                drops.add(drop)
        # Plays that bear nothing off all use the same (maximal) number of dice,
        # so they all move the same number of pips.
        assert len(drops) <= 1
        if drops:
            (drop,) = drops
            allowed = {0, d1, d2, d1 + d2} if d1 != d2 else {k * d1 for k in range(5)}
            assert drop in allowed
        if len(plays) == 0:
            nxt = board
        else:
            nxt = plays[int(rng.integers(len(plays)))]
        if engine.board.outcome(nxt):
            return
        board = np.ascontiguousarray(nxt[::-1])
    raise AssertionError("game did not end in 2000 turns")


@pytest.mark.parametrize("seed", [1, 2])
def test_invariants_cython(seed):
    pytest.importorskip("fastbg._core.movegen", reason="Cython core not built")
    from fastbg.engine import get_engine

    eng = get_engine("cython")
    rng = np.random.default_rng(seed)
    for g in range(1500):
        _random_game(eng, rng, g)


def test_invariants_python():
    from fastbg.engine import get_engine

    eng = get_engine("python")
    rng = np.random.default_rng(3)
    for g in range(40):
        _random_game(eng, rng, g)
