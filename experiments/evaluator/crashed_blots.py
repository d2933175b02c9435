"""Crashed-net inputs for training and the float hook: the blots a side bearing off
against contact must leave on its next roll, as ``N / D`` columns of the engines' blot
features (``fastbg._core.features.blot_features``; ``docs/evaluator.md``, "Blot features").
They began here, computed by this module; the engines now define them, and this module
only lays them out as ``train.py`` and ``hook.py`` read them (the same numbers, to float32).

The crashed net's largest errors are bear-offs against checkers on the bar or in the home
board, and the other side's choice between running and waiting for a shot: whether the
side bearing off must leave a blot on its coming rolls decides the gammon, the backgammon
and sometimes the game (``experiments/TRAINING.md``, "After generation 17"). The contact
inputs show the blots on the board now (``shots``), not those that the next roll forces.

For each side ``s`` that bears off against contact (every checker of ``s`` in its home
board or off, the position not a race: the other side has a checker on the bar or in
``s``'s home board), over the 36 rolls of ``s``'s next turn as if it were on roll, with
every legal play (``fastbg`` move generation):

- ``forced``: the chance that every legal play leaves a hittable blot (the contact feature
  ``shots`` of ``s`` after the play is not 0);
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

import numpy as np

from fastbg._core.features import BLOT_FEATURE_DENOMINATORS, N_BLOT_FEATURES, blot_features

#: Columns appended to the crashed net's inputs (with ``shots``: N_CRASHED_BLOTS_SHOTS).
N_CRASHED_BLOTS = 6
N_CRASHED_BLOTS_SHOTS = 10


def crashed_blots(boards: np.ndarray, shots: bool = False) -> np.ndarray:
    """The six (``shots``: ten) columns of ``N`` boards (row 0 on roll), float32 array of
    shape (N, 6) or (N, 10): per side, its first three blot features (``shots``: all five)
    over their denominators, side 0's then side 1's."""
    b = np.asarray(boards, dtype=np.int8).reshape(-1, 2, 25)
    k = N_BLOT_FEATURES if shots else 3
    if not len(b):
        return np.zeros((0, 2 * k), np.float32)
    num = np.array([blot_features(x) for x in b], dtype=np.float64)[:, :, :k]
    return (num / BLOT_FEATURE_DENOMINATORS[:k]).reshape(len(b), 2 * k).astype(np.float32)


# ---------------------------------------------------------------- home-board blots

#: The synthetic other side of home_blots: one checker on the bar (it can hit any blot in
#: the home board and blocks nothing there) and 14 on its own ace point, far away.
_HOME_OTHER = np.zeros(25, np.int8)
_HOME_OTHER[24], _HOME_OTHER[0] = 1, 14

_home_memo: dict[bytes, np.ndarray] = {}


def _home_numerators(home: np.ndarray) -> np.ndarray:
    """The five blot numerators of a side with these six home counts (the rest off)
    against _HOME_OTHER, memoized: at most 54,264 home boards."""
    key = home.tobytes()
    got = _home_memo.get(key)
    if got is None:
        b = np.zeros((2, 25), np.int8)
        b[0, :6] = home
        b[1] = _HOME_OTHER
        got = _home_memo[key] = blot_features(b)[0].astype(np.float64)
    return got


def bears_off_against_contact(n, opp) -> bool:
    """The blot features' ``bearing_off`` (docs/evaluator.md, "Blot features"): every checker
    of the side (row ``n``) home or off, one at least home, and a checker of the other side
    (row ``opp``) on its bar or in the side's home board (the other side's indices 18..23).
    The engines' rule, written out here because they keep it private."""
    return not any(n[6:]) and any(n[:6]) and (opp[24] > 0 or any(opp[18:24]))


def home_blots(boards: np.ndarray) -> np.ndarray:
    """An experiment for a cheaper engine (TRAINING.md, stop 33): the ten columns of
    ``crashed_blots(boards, shots=True)`` with each side's blot features taken against a
    checker on the bar instead of the other side's real checkers, so that they depend on
    the side's home board alone (a table of the 54,264 home boards; the engine's memo
    would never miss after the first of each). ``bearing`` is the real board's: whether
    the side bears off against contact. Float32, shape (N, 10)."""
    b = np.asarray(boards, dtype=np.int8).reshape(-1, 2, 25)
    out = np.zeros((len(b), 2 * N_BLOT_FEATURES), np.float64)
    for i, x in enumerate(b):
        for s in (0, 1):
            n, o = x[s], x[1 - s]
            if not bears_off_against_contact(n, o):
                continue
            out[i, N_BLOT_FEATURES * s:N_BLOT_FEATURES * (s + 1)] = _home_numerators(n[:6])
    return (out / np.tile(BLOT_FEATURE_DENOMINATORS, 2)).astype(np.float32)
