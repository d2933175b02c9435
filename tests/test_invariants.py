"""Invariants over thousands of random games, for each engine.

Games are played turn by turn here (dice from numpy, a uniformly random play), and
every legal play of every roll is checked: no side gains checkers, no point is held
by both sides, the opponent's checkers move only to its bar when hit, the mover's
pip count drops by the dice it played (a checker borne off may use a larger die),
and all plays of a roll that bear nothing off move the same number of pips, one of
the sums the dice allow.
"""
from __future__ import annotations

import numpy as np
import pytest

PIPS = np.arange(1, 26)


def _check_roll(before: np.ndarray, plays: np.ndarray, d1: int, d2: int) -> None:
    if len(plays) == 0:
        return
    p = plays.astype(np.int64)
    b = before.astype(np.int64)
    assert (p >= 0).all()
    mine, theirs = p[:, 0], p[:, 1]
    # No point held by both sides: my index i is the opponent's index 23 - i.
    assert not ((mine[:, :24] > 0) & (theirs[:, 23::-1] > 0)).any(), "point held by both sides"
    # The mover never gains checkers; the opponent keeps its count on the board.
    assert (mine.sum(axis=1) <= b[0].sum()).all()
    assert (theirs.sum(axis=1) == b[1].sum()).all()
    # Opponent: only hits change its checkers, each from a point to its bar.
    diff = theirs - b[1]
    hits = diff[:, 24]
    assert (hits >= 0).all() and (diff[:, :24] <= 0).all()
    assert (-diff[:, :24].sum(axis=1) == hits).all()
    # Mover's pips.
    borne = b[0].sum() - mine.sum(axis=1)
    drop = b[0] @ PIPS - mine @ PIPS
    total = 4 * d1 if d1 == d2 else d1 + d2
    assert ((drop > 0) & (drop <= total)).all()
    plain = drop[borne == 0]
    if plain.size:
        assert (plain == plain[0]).all(), "plays of one roll use different numbers of dice"
        allowed = {k * d1 for k in range(1, 5)} if d1 == d2 else {d1, d2, d1 + d2}
        assert int(plain[0]) in allowed


def _random_game(engine, rng) -> int:
    from fastbg.game.position import START_BOARD

    board = np.array(START_BOARD)
    for turn in range(3000):
        d1, d2 = (int(x) for x in rng.integers(1, 7, size=2))
        plays = engine.legal_plays(board, d1, d2)
        _check_roll(board, plays, d1, d2)
        nxt = board if len(plays) == 0 else plays[int(rng.integers(len(plays)))]
        if engine.board.outcome(nxt):
            return turn + 1
        board = np.ascontiguousarray(nxt[::-1])
    raise AssertionError("game did not end in 3000 turns")


@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_invariants_cython(seed):
    pytest.importorskip("fastbg._core.movegen", reason="Cython core not built")
    from fastbg.engine import get_engine

    eng = get_engine("cython")
    rng = np.random.default_rng(seed)
    turns = [_random_game(eng, rng) for _ in range(1500)]
    assert min(turns) >= 7  # nobody bears off 15 checkers in fewer turns


def test_invariants_python():
    from fastbg.engine import get_engine

    eng = get_engine("python")
    rng = np.random.default_rng(3)
    for _ in range(40):
        _random_game(eng, rng)
