"""Experimental crashed-net inputs (an ablation, not in the engines): race and gammon-race
estimates from the one-sided bear-off database.

A crashed position is close to a race: most of its value is who bears off first, whether
the side with no checker off gets one off in time (the gammon), and whether a straggler
gets home. The contact inputs say this only through point units, pip counts and the
checkers off. These inputs say it in rolls. For each side ``s`` (its own frame) let its
checkers outside its home board be moved onto its 6-point; ``H`` is the pips that takes
(the bar counts 25) and ``R = H / 8.17`` the rolls it takes on average (8.17 pips a roll).
Then, with the one-sided database of the moved home board:

- ``home_pips``: ``H / 100``;
- ``outside``: checkers outside the home board (and on the bar) over 15;
- ``rolls_off``: its expected rolls to bear off every checker, ``R`` + the database's
  mean, over 20;
- ``rolls_first``: with no checker off, the expected rolls to its first checker off, ``R``
  + the database's mean (0 with a checker off), over 10;
- ``gammoned``: the chance that the other side bears off every checker before this side
  gets its first off, the two counts of rolls independent, each side's distribution the
  database's shifted by ``R`` rolls (interpolated between the two whole shifts around it),
  side 0 on roll (0 with a checker off);
- ``bg_exposed``: its checkers in the other side's home board or on the bar, over 5, when
  the other side has borne off a checker (0 otherwise).

Then one column for the position: the chance that side 0 (on roll) bears off all its
checkers first, as for ``gammoned``. ``train.py --crashed-extra`` appends the 13 columns
(side 0's six, side 1's six, the race column) to the crashed net's 236 contact inputs;
``hook.py`` does the same for a crashed net of 249 inputs.
"""
from __future__ import annotations

import functools

import numpy as np

from fastbg._core import bearoffdb

#: Columns appended to the crashed net's inputs.
N_CRASHED_EXTRA = 13
PIPS_PER_ROLL = 8.17
K = 48          # roll counts kept in the distributions


@functools.lru_cache(maxsize=None)
def _dists(counts: tuple) -> tuple:
    e = bearoffdb.onesided(counts)
    off = np.zeros(K)
    off[:min(K, len(e["off"]))] = e["off"][:K]
    first = None
    if e["first"] is not None:
        first = np.zeros(K)
        first[:min(K, len(e["first"]))] = e["first"][:K]
    return off, e["mean_off"], first, e["mean_first"]


def _shift(d: np.ndarray, r: float) -> np.ndarray:
    """Distribution ``d`` of a roll count moved ``r`` rolls later (linear between shifts)."""
    lo = int(np.floor(r))
    w = r - lo
    out = np.zeros(K)
    for s, wt in ((lo, 1 - w), (lo + 1, w)):
        if wt > 0 and s < K:
            out[s:] += wt * d[:K - s]
    return out


def _first_before(a: np.ndarray, b: np.ndarray, a_on_roll: bool) -> float:
    """P(A's count of rolls ends before B's), A's k-th roll before B's k-th iff A on roll."""
    cb = np.cumsum(b)                  # P(B <= k)
    tail_b = 1.0 - cb                  # P(B > k)
    if a_on_roll:                      # A's k-th roll comes before B's k-th: need B >= k
        ge = np.concatenate([[1.0], tail_b[:-1]])     # P(B >= k)
        return float((a * ge).sum())
    return float((a * tail_b).sum())   # B moves first: need B > k


def _side(n: np.ndarray) -> tuple:
    """(moved home counts, H pips, outside count) of one side's row (own frame)."""
    outside = n[6:25]
    h = int((outside * np.arange(1, 20)).sum())
    c = n[:6].copy()
    c[5] += int(outside.sum())
    return tuple(int(v) for v in c), h, int(outside.sum())


def crashed_extra_one(board) -> np.ndarray:
    """The 13 extra inputs of one board (row 0 on roll), float64."""
    b = np.asarray(board, dtype=np.int64).reshape(2, 25)
    x = np.zeros(N_CRASHED_EXTRA)
    info = []
    for s in (0, 1):
        c, h, out = _side(b[s])
        off_d, mean_off, first_d, mean_first = _dists(c)
        r = h / PIPS_PER_ROLL
        info.append((_shift(off_d, r), None if first_d is None else _shift(first_d, r),
                     sum(c) < 15))
        base = 6 * s
        x[base + 0] = h / 100
        x[base + 1] = out / 15
        x[base + 2] = (r + mean_off) / 20
        x[base + 3] = 0.0 if first_d is None else (r + mean_first) / 10
    for s in (0, 1):
        o = 1 - s
        off_o = info[o][0]
        first_s = info[s][1]
        base = 6 * s
        if first_s is not None:
            # s gammoned: o's last checker off before s's first
            x[base + 4] = _first_before(off_o, first_s, a_on_roll=(o == 0))
        if info[o][2]:     # the other side has borne off a checker
            x[base + 5] = b[s, 18:25].sum() / 5
    x[12] = _first_before(info[0][0], info[1][0], a_on_roll=True)
    return x


def crashed_extra(boards) -> np.ndarray:
    """The extra inputs of each board (row 0 on roll), float32 of shape (n, 13)."""
    b = np.asarray(boards, dtype=np.int64).reshape(-1, 2, 25)
    out = np.zeros((len(b), N_CRASHED_EXTRA), dtype=np.float32)
    for i in range(len(b)):
        out[i] = crashed_extra_one(b[i])
    return out
