"""Stubs for the compiled ``fastbg._core.racedb`` (see pyx/fastbg/_core/racedb.pyx)."""
from collections.abc import Sequence
from typing import TypedDict

import numpy as np
import numpy.typing as npt

RACE_MAX: int
N_POINTS: int
N_POSITIONS: int
K_ROLLS: int

class RaceEntry(TypedDict):
    index: int
    off: np.ndarray
    mean_off: float

def position_index(counts: Sequence[int] | npt.ArrayLike) -> int: ...
def race_plays(counts: Sequence[int] | npt.ArrayLike, d1: int, d2: int) -> np.ndarray: ...
def onesided(counts: Sequence[int] | npt.ArrayLike) -> RaceEntry: ...
def is_small_race(board: npt.ArrayLike) -> bool: ...
def race_probabilities(board: npt.ArrayLike) -> np.ndarray: ...
def _build_stats() -> tuple[float, int]: ...
def _check_against_movegen(start: int = ..., stop: int = ..., step: int = ...) -> list[tuple[int, int, int]]: ...
