"""Experimental race-net inputs (an ablation, not in the engines): per side, the pips to
bring every checker into its home board, over 100, and the checkers outside it, over 15.

They say how far a side with no checker off is from saving the gammon (every checker home,
then one off), which the race net's inputs (point units, checkers off, crossovers, pip count)
only imply. ``train.py --race-width 230`` appends them to the 226 race inputs (side 0's two,
then side 1's); ``hook.py`` does the same for a race net of 230 inputs.
"""
from __future__ import annotations

import numpy as np

#: Columns appended to the 226 race inputs.
N_RACE_EXTRA = 4


def race_extra(boards) -> np.ndarray:
    """The extra inputs of each board (row 0 on roll), float32 of shape (n, 4)."""
    b = np.asarray(boards, dtype=np.int64).reshape(-1, 2, 25)
    outer = b[:, :, 6:24]                                   # points 7..24
    home_pips = (outer * np.arange(1, 19)).sum(axis=2)      # pips to reach point 6
    outside = outer.sum(axis=2) + b[:, :, 24]
    x = np.stack([home_pips / 100.0, outside / 15.0], axis=2)   # (n, side, 2)
    return x.reshape(-1, N_RACE_EXTRA).astype(np.float32)
