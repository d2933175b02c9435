"""Hypothesis strategies for valid backgammon boards."""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st


@st.composite
def boards(draw, max_checkers: int = 15, allow_bar: bool = True) -> np.ndarray:
    """A valid ``(2, 25)`` int8 board: 0..max_checkers checkers a side (at least one
    each), no point held by both sides, bars optional."""
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
