"""Our crashed rule, shared by train.py (``--net crashed``), candidates.py
(``--crashed-decisions``) and hook.py (a separate crashed net)."""
from __future__ import annotations

import numpy as np


def is_crashed(boards: np.ndarray) -> np.ndarray:
    """Crashed contact positions: a side has at most 7 checkers in play, not counting the
    checkers stacked on its 1- and 2-points beyond the first of each (they are out of
    play). Our rule; it agrees with GNU Backgammon's class on 99.8% of the error-rate
    benchmark's contact and crashed decisions (all 600 crashed ones found).

    boards: (n, 2, 25) or (2, 25) int; returns bool (n,) (whether or not the position is
    contact: the callers check that).
    """
    b = np.asarray(boards, dtype=np.int32).reshape(-1, 2, 25)
    tot = b.sum(axis=2)
    surplus = np.maximum(b[:, :, 0] - 1, 0) + np.maximum(b[:, :, 1] - 1, 0)
    return ((tot - surplus) <= 7).any(axis=1)
