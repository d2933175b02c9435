"""The reference generator's move sequences (used for notation such as ``24/18 13/11``)."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from fastbg.formats.notation import format_play
from fastbg.game.position import START_BOARD
from fastbg.reference.movegen import legal_plays, legal_plays_with_moves

from scenario import board


def replay(start, moves):
    """Apply ``(from, to, hit)`` moves (mover's numbering) to a copy of ``start``."""
    b = start.astype(np.int64).copy()
    for frm, to, hit in moves:
        assert b[0, frm - 1] > 0, f"no checker on {frm}"
        b[0, frm - 1] -= 1
        if to == 0:
            assert not hit
            continue
        opp = b[1, 24 - to]
        assert opp <= 1, f"{frm}/{to} lands on a blocked point"
        assert hit == (opp == 1), f"{frm}/{to}: hit flag {hit} but {opp} opposing checkers"
        if hit:
            b[1, 24 - to] = 0
            b[1, 24] += 1
        b[0, to - 1] += 1
    return b.astype(np.int8)


def dice_fit(moves, d1, d2) -> bool:
    """Each move uses one die: its distance, or more for a bear-off."""
    dice = Counter([d1] * 4 if d1 == d2 else [d1, d2])
    for frm, to, _ in moves:
        dist = frm - to
        usable = [d for d in dice if dice[d] and (d == dist or (to == 0 and d > dist))]
        if not usable:
            return False
        dice[min(usable)] -= 1
    return True


def _positions(n=120, seed=21):
    rng = np.random.default_rng(seed)
    b = START_BOARD.copy()
    out = []
    while len(out) < n:
        out.append(b.copy())
        r = int(rng.integers(36))
        plays = legal_plays(b, r // 6 + 1, r % 6 + 1)
        if len(plays):
            b = plays[int(rng.integers(len(plays)))]
        if not b[0].any():
            b = START_BOARD.copy()
            continue
        b = np.ascontiguousarray(b[::-1])
    return out


@pytest.mark.parametrize("d1, d2", [(6, 5), (3, 1), (2, 2), (6, 6), (5, 2), (1, 1)])
def test_moves_replay_to_their_positions(d1, d2):
    for start in _positions():
        plays = legal_plays(start, d1, d2)
        with_moves = legal_plays_with_moves(start, d1, d2)
        assert len(with_moves) == len(plays)
        for (pos, moves), expected in zip(with_moves, plays):
            assert np.array_equal(pos, expected)
            assert np.array_equal(replay(start, moves), pos)
            assert dice_fit(moves, d1, d2)


@pytest.mark.parametrize(
    "dice, expected",
    [
        ((6, 5), {"24/13", "13/2", "13/8 13/7", "24/18 13/8", "24/18 8/3", "13/7 8/3",
                  "8/3 8/2"}),
        ((3, 1), {"8/5 6/5", "24/23 24/21", "13/9", "24/20", "6/5 6/3", "8/4", "6/2"}),
    ],
)
def test_notation_of_opening_plays(dice, expected):
    notes = [format_play(m) for _, m in legal_plays_with_moves(START_BOARD, *dice)]
    assert len(set(notes)) == len(notes)  # distinct positions, distinct notation
    assert expected <= set(notes)
    if dice == (6, 5):
        assert set(notes) == expected  # 24/19 and 6/1 are blocked: seven plays


def test_last_checker_off_plays_both_dice_when_it_can():
    #   6  5  4  3  2  1   roll 6-2: the 6 alone would bear the checker off, but
    #      X               5/3/off plays both dice, so that is the sequence shown
    start = board(me={5: 1}, opp={20: 2})
    [(pos, moves)] = legal_plays_with_moves(start, 6, 2)
    assert not pos[0].any() and moves == ((5, 3, False), (3, 0, False))
    assert format_play(moves) == "5/off"


def test_hits_are_flagged():
    #   13 12 11 10  9  8   roll 3-1
    #    X        O     X
    start = board(me={13: 1, 8: 1}, opp={10: 1, 24: 2})
    notes = {format_play(m) for _, m in legal_plays_with_moves(start, 3, 1)}
    assert notes == {"13/10*/9", "13/9", "13/10* 8/7", "13/12 8/5", "8/4"}
