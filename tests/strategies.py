"""Hypothesis strategies for valid backgammon boards."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st


@st.composite
def boards(draw, max_checkers: int = 15, allow_bar: bool = True) -> np.ndarray:
    """A valid ``(2, 25)`` int8 board: 0..max_checkers checkers a side (at least one
    each), no point held by both sides, bars optional, a checker on a point."""
    board = np.zeros((2, 25), dtype=np.int8)
    for side in (0, 1):
        n = draw(st.integers(1, max_checkers))
        for _ in range(n):
            hi = 25 if allow_bar else 24
            # Prefer points already used by this side, to make stacks.
            i = draw(st.integers(0, hi - 1))
            if side == 1 and i < 24 and board[0, 23 - i]:
                # point held by the player on roll: put it on a free point instead
                free = [j for j in range(24) if board[0, 23 - j] == 0]
                i = draw(st.sampled_from(free))
            board[side, i] += 1
    if not board[:, :24].any():
        # every checker on the bars: no game reaches it (Position refuses it), so one enters
        board[0, 24] -= 1
        board[0, draw(st.integers(0, 23))] += 1
    return board


@st.composite
def race_boards(draw, max_checkers: int = 15) -> np.ndarray:
    """Valid boards with no contact: each side's checkers in its own points 1..12."""
    board = np.zeros((2, 25), dtype=np.int8)
    for side in (0, 1):
        n = draw(st.integers(1, max_checkers))
        for _ in range(n):
            board[side, draw(st.integers(0, 11))] += 1
    return board


def bear_off_against_contact(rng: np.random.Generator, home: tuple[int, int] = (1, 16),
                             contact: tuple[int, int] = (1, 5), rest: bool = True) -> np.ndarray:
    """A random valid board whose side 0 bears off against contact: ``rng.integers(*home)``
    checkers on its home points (the rest off) and ``rng.integers(*contact)`` of side 1's
    on the bar or on points of that home board side 0 does not hold; with ``rest``, up to
    4 fewer than side 1's other checkers on its indices 0..17 (out of reach)."""
    b = np.zeros((2, 25), np.int8)
    for _ in range(int(rng.integers(*home))):
        b[0, rng.integers(0, 6)] += 1
    free = [24] + [23 - i for i in range(6) if not b[0, i]]
    for _ in range(int(rng.integers(*contact))):
        b[1, rng.choice(free)] += 1
    if rest:
        for _ in range(max(0, 15 - int(b[1].sum()) - int(rng.integers(0, 5)))):
            b[1, rng.integers(0, 18)] += 1
    return b
