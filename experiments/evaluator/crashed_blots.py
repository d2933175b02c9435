"""Experimental crashed-net inputs (an ablation, not in the engines): the blots a side
bearing off against contact must leave on its next roll.

The crashed net's largest errors are bear-offs against checkers on the bar or in the home
board, and the other side's choice between running and waiting for a shot: whether the
side bearing off must leave a blot on its coming rolls decides the gammon, the backgammon
and sometimes the game (``experiments/TRAINING.md``, "After generation 17"). The contact
inputs show the blots on the board now (``shots``), not those that the next roll forces.

For each side ``s`` that bears off against contact (every checker of ``s`` in its home
board or off, the position not a race: the other side has a checker on the bar or in
``s``'s home board), over the 36 rolls of ``s``'s next turn as if it were on roll, with
every legal play (``fastbg`` move generation):

- ``forced``: the chance that every legal play leaves a hittable blot (a point of ``s`` with
  one checker that a checker of the other side on the bar, or on a lower point of ``s``'s
  home board, can still reach);
- ``fast``: the chance that every play bearing off the most checkers leaves one (speed
  against safety);
- ``bearing``: 1 (the side bears off against contact), else 0 with the other two.

Six columns: side 0's three (on roll), then side 1's (its roll after side 0's, ignoring
side 0's play in between). ``train.py --crashed-blots`` appends them to the crashed net's
inputs; ``hook.py`` does the same for a crashed net of 242 inputs.

With ``shots=True`` (``train.py --crashed-blots 10``; a crashed net of 246 inputs), two more
a side, from the contact feature ``shots`` (the other side's rolls that hit a blot of the
mover, ``docs/evaluator.md``) of each play: ``safe_shots``, the mean over the 36 rolls of
the fewest shots any play leaves, over 36, and ``fast_shots``, the same over the plays
bearing off the most checkers. Ten columns: side 0's five, then side 1's.
"""
from __future__ import annotations

import functools

import numpy as np

from fastbg._core import features as feats
from fastbg.engine import get_engine

#: Columns appended to the crashed net's inputs (with ``shots``: N_CRASHED_BLOTS_SHOTS).
N_CRASHED_BLOTS = 6
N_CRASHED_BLOTS_SHOTS = 10
SHOTS_COLUMN = 196 + 16     # the contact inputs' ``shots`` of side 0 (over 36)
ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]
WEIGHTS = np.array([1.0 if a == b else 2.0 for a, b in ROLLS]) / 36.0


def _hittable(plays: np.ndarray) -> np.ndarray:
    """Per play (row 0 the side that moved, after its play; row 1 the other side, a checker
    hit by the play on its bar), whether it leaves a blot in its home board that a checker
    of the other side can reach: one on the bar, or one on a lower point of that home
    board (the other side moves towards the mover's higher points)."""
    me = plays[:, 0, :6]                          # (n, 6) the home board after the play
    them = plays[:, 1]                            # the other side's row after the play
    # the other side's checker on its index k is on the mover's index 23 - k
    low = np.cumsum(them[:, 23:17:-1], axis=1)    # (n, 6): checkers on mover's 0..j
    behind = np.concatenate([np.zeros((len(plays), 1), low.dtype), low[:, :5]], axis=1)
    reach = (them[:, 24:25] > 0) | (behind > 0)   # a blot on j can be hit from the bar or below
    return ((me == 1) & reach).any(axis=1)


@functools.lru_cache(maxsize=1_000_000)
def _side(key: bytes, shots: bool = False) -> tuple:
    """(forced, fast, bearing[, safe_shots, fast_shots]) of the side in row 0 of the board
    ``key`` (its own frame)."""
    b = np.frombuffer(key, dtype=np.int8).reshape(2, 25)
    eng = get_engine("cython")
    forced = fast = safe = quick = 0.0
    for w, (d1, d2) in zip(WEIGHTS, ROLLS):
        plays = np.asarray(eng.legal_plays(b, d1, d2))
        if len(plays) == 0:
            plays = b[None]
        hit = _hittable(plays)
        off = 15 - plays[:, 0].astype(np.int32).sum(axis=1)
        most = off == off.max()
        forced += w * bool(hit.all())
        fast += w * bool(hit[most].all())
        if shots:
            n = feats.contact_inputs_many(np.ascontiguousarray(plays, dtype=np.int8))[:, SHOTS_COLUMN]
            safe += w * float(n.min())
            quick += w * float(n[most].min())
    return (forced, fast, 1.0) + ((safe, quick) if shots else ())


def bearing_against_contact(board: np.ndarray) -> bool:
    """Whether row 0 of ``board`` (its own frame) bears off against contact: all its
    checkers home or off, and a checker of the other side on the bar or in that home board."""
    me, them = board[0], board[1]
    return not me[6:].any() and me[:6].any() and bool(them[24] > 0 or them[18:24].any())


def crashed_blots(boards: np.ndarray, shots: bool = False) -> np.ndarray:
    """The six (``shots``: ten) columns of ``N`` boards (row 0 on roll), float32 array of
    shape (N, 6) or (N, 10)."""
    b = np.asarray(boards, dtype=np.int8).reshape(-1, 2, 25)
    k = 5 if shots else 3
    out = np.zeros((len(b), 2 * k), np.float32)
    for i, x in enumerate(b):
        for s in (0, 1):
            y = x if s == 0 else x[::-1]
            if bearing_against_contact(y):
                out[i, k * s:k * s + k] = _side(np.ascontiguousarray(y).tobytes(), shots)
    return out
