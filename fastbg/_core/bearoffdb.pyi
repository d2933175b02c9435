"""Stubs for the compiled ``fastbg._core.bearoffdb`` (see pyx/fastbg/_core/bearoffdb.pyx)."""
from collections.abc import Sequence
from typing import TypedDict

import numpy as np
import numpy.typing as npt

N_POINTS: int
N_POSITIONS: int
N_FIRST_POSITIONS: int
K_OFF: int
K_FIRST: int

class OneSided(TypedDict):
    index: int
    off: np.ndarray
    mean_off: float
    first: np.ndarray | None
    mean_first: float | None

def position_index(counts: Sequence[int] | npt.ArrayLike) -> int: ...
def position_counts(index: int) -> tuple[int, int, int, int, int, int]: ...
def bearoff_plays(counts: Sequence[int] | npt.ArrayLike, d1: int, d2: int) -> np.ndarray: ...
def onesided(counts: Sequence[int] | npt.ArrayLike) -> OneSided: ...
def is_bearoff(board: npt.ArrayLike) -> bool: ...
def bearoff_probabilities(board: npt.ArrayLike) -> np.ndarray: ...
def _build_stats() -> tuple[float, int]: ...
def _check_against_movegen(start: int = 0, stop: int = ...) -> list[tuple[int, int, int]]: ...
